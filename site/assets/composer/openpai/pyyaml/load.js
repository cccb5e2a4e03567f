/* PyYAML's yaml.safe_load(text), as far as survives_round_trip needs it: Python's value of a text, or
 * YamlError where PyYAML raises a YAMLError.
 *
 * A text that is one plain scalar to its end is read here, as PyYAML's scanner reads it (the only
 * way a top-level string comes back unchanged); any other document is read by the vendored library
 * (rewrite.js), checked for what PyYAML refuses and the library takes (refusals.js), turned into
 * PyYAML's nodes (nodes.js) and constructed (construct.js).  PyYAML's scanner and parser part from a
 * YAML 1.2 one on tabs, on \x85 \u2028 \u2029 as line breaks, on implicit keys over 1024 code
 * points, duplicate anchors, directives and more; str() of a list or a dict meets only the key
 * length there, the rest matters for a top-level string, which Python hands to YAML as it is.
 *
 * Folder openpai/pyyaml/: PyYAML's safe_load (YAML 1.1) as the OpenPAI runtime reads a plugin
 * parameter back, on the vendored `yaml` library.
 * May import: vendor/.
 */

import { construct } from "./construct.js";
import { scalarNode, toNode } from "./nodes.js";
import { YamlError } from "./python.js";
import { checkScanner } from "./refusals.js";
import { collapseDocumentEnds, parseLikePyYaml, topBlockEnd } from "./rewrite.js";

// The Reader refuses any other character before scanning starts (ReaderError).
const NOT_YAML_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

export function safeLoad(text) {
  if (NOT_YAML_PRINTABLE.test(text)) throw new YamlError("unacceptable character");
  const plain = wholePlainScalar(text);
  const root = plain === null ? compose(text) : scalarNode(plain, true, null);
  return root === null ? null : construct(root);
}

// ------------------------------------------------------------------------------ one plain scalar

/* A text that PyYAML scans as one plain scalar to its very end (scanner.py scan_plain and
 * scan_plain_spaces, block context, top level) reads as that scalar's value, the only way a
 * top-level string can come back unchanged.  null for any other text. */
function wholePlainScalar(text) {
  if (!startsPlain(text)) return null;
  let [value, spaces, i] = ["", "", 0];
  while (text[i] !== "#") {
    const end = chunkEnd(text, i);
    if (end === i) break;
    value += spaces + text.slice(i, end);
    const gap = plainSpaces(text, end);
    if (gap === null) return null; // a document marker ends the scalar
    [spaces, i] = [gap.chunks, gap.end];
    if (gap.end === end) break;
  }
  return i === text.length ? value : null;
}

const BREAKS = "\r\n\x85\u2028\u2029";
const isBlankZ = (ch) => ch === undefined || ch === " " || ch === "\t" || BREAKS.includes(ch);
const isMarker = (text, i) => (text.startsWith("---", i) || text.startsWith("...", i)) && isBlankZ(text[i + 3]);

function startsPlain(text) {
  const ch = text[0];
  if (ch === undefined || ch === "\ufeff" || isMarker(text, 0)) return false; // PyYAML skips a leading BOM
  if ("-?:".includes(ch)) return !isBlankZ(text[1]);
  return !isBlankZ(ch) && !"-?:,[]{}#&*!|>'\"%@`".includes(ch);
}

function chunkEnd(text, i) {
  while (i < text.length && !isBlankZ(text[i]) && !(text[i] === ":" && isBlankZ(text[i + 1]))) i++;
  return i;
}

/* Spaces (kept between chunks) or line breaks (folded: "\n" to a space, or dropped before more
 * breaks; \u2028 and \u2029 kept).  null at a document marker. */
function plainSpaces(text, i) {
  let j = i;
  while (text[j] === " ") j++;
  if (j >= text.length || !BREAKS.includes(text[j])) return { chunks: text.slice(i, j), end: j };
  const [first, afterFirst] = readBreak(text, j);
  const breaks = [];
  let k = afterFirst;
  if (isMarker(text, k)) return null;
  while (text[k] === " " || (k < text.length && BREAKS.includes(text[k]))) {
    if (text[k] === " ") {
      k++;
      continue;
    }
    const [br, next] = readBreak(text, k);
    breaks.push(br);
    k = next;
    if (isMarker(text, k)) return null;
  }
  const fold = first !== "\n" ? first : breaks.length ? "" : " ";
  return { chunks: fold + breaks.join(""), end: k };
}

function readBreak(text, i) {
  if (text.startsWith("\r\n", i)) return ["\n", i + 2];
  return ["\u2028\u2029".includes(text[i]) ? text[i] : "\n", i + 1];
}

// ------------------------------------------------------------------------------ other documents


/* Any other document: read by the library (after rewriting what PyYAML reads and the library would
 * not), checked for what PyYAML refuses and the library takes, then turned into nodes
 * {kind, tag, value} as PyYAML's composer builds them. */
function compose(text) {
  // PyYAML drops a BOM at the start only (the library trips on one before "- "); it breaks lines at
  // \x85, \u2028, \u2029 and a lone \r, which the library reads as content.
  const breaks = text.replace(/^\ufeff/, "").replace(/[\x85\u2028\u2029]|\r(?!\n)/g, "\n");
  const { doc, text: read } = parseLikePyYaml(collapseDocumentEnds(breaks.replace(/\ufeff/g, "\ue000")));
  if (doc.errors.length) throw new YamlError(doc.errors[0].message);
  const cut = topBlockEnd(read, doc.contents);
  if (cut !== -1) return compose(read.slice(0, cut));
  checkScanner(read, doc.contents);
  return doc.contents === null ? null : toNode(doc.contents, { source: read, anchors: new Map() });
}
