/* The OpenPAI runtime's round trip of a plugin parameter, as prereq.openpai.runtime.survives_round_trip.
 *
 * The runtime re-reads every parameter with yaml.safe_load(str(value)): Python's str(), then PyYAML's
 * YAML 1.1 SafeLoader.  A value survives when what comes back equals it.  survivesRoundTrip(value)
 * gives Python's verdict for values built from JSON:
 *   - str() as Python writes it (pythonRepr): quote choice, escapes, str.isprintable of Python 3.11.
 *   - the text parsed by the vendored `yaml` library, then resolved and constructed here as PyYAML's
 *     Resolver and SafeConstructor do.  The library's own YAML 1.1 schema differs: 1e-05 and 1e+16 are
 *     floats there (str in PyYAML), 0x_ and 0b_ ints that PyYAML's int() refuses, 2001-02-30 a date in
 *     March (ValueError in Python); it has no `=` (value) tag and merges `<<` its own way.
 *   - PyYAML's scanner and parser part from a YAML 1.2 one on tabs, on \x85 \u2028 \u2029 as line
 *     breaks, on implicit keys over 1024 code points, duplicate anchors, directives and more (see
 *     "Other documents").  str() of a list or a dict meets only the key length there; the rest
 *     matters for a top-level string, which Python hands to YAML as it is.
 *
 * Numbers: a safe integer is a Python int, any other number a float (see digest.js).  The verdict is
 * the same either way except for an integral float >= 2**53 that Python read as an int: 1e16 here
 * writes "1e+16" (a str to PyYAML: no survival), the int 10000000000000000 survives.
 *
 * Where Python's survives_round_trip raises (a top-level string such as "0x_", "2001-02-30" or
 * "!!int x" reaches int() or datetime() inside PyYAML), this throws an Error named after the Python
 * exception (ValueError, KeyError, IndexError, AttributeError, TypeError). *
 * Longer than usual: Python's str() and PyYAML's resolver and constructor are one model of what the
 * runtime does with a parameter; splitting it is left for later. */

import { isMap, isPair, isScalar, isSeq, parseDocument } from "../vendor/prereq-vendor.js";
import { pythonFloatRepr } from "./digest.js";

export function survivesRoundTrip(value) {
  let loaded;
  try {
    loaded = safeLoad(typeof value === "string" ? value : pythonRepr(value));
  } catch (error) {
    if (error instanceof YamlError) return false;
    throw error;
  }
  return pyEquals(loaded, value);
}

/* yaml.YAMLError: survives_round_trip answers False. */
class YamlError extends Error {}

/* Any other Python exception, which survives_round_trip lets through. */
function pyError(name, message) {
  const error = new Error(message);
  error.name = name;
  return error;
}

// ------------------------------------------------------------------------------ Python's str() and repr()

export function pythonRepr(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return Number.isSafeInteger(value) ? String(value) : pythonFloatRepr(value);
  if (typeof value === "string") return reprString(value);
  if (Array.isArray(value)) return "[" + value.map(pythonRepr).join(", ") + "]";
  return "{" + Object.entries(value).map(([k, v]) => reprString(k) + ": " + pythonRepr(v)).join(", ") + "}";
}

const REPR_ESCAPES = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/* unicode_repr: single quotes unless the text has ' and no "; escapes for the quote, the backslash,
 * \t \n \r and every character str.isprintable rejects. */
function reprString(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (ch === quote) out += "\\" + ch;
    else if (REPR_ESCAPES[ch]) out += REPR_ESCAPES[ch];
    else if (code < 0x7f ? code >= 0x20 : isPrintable(code)) out += ch;
    else if (code <= 0xff) out += "\\x" + hex(code, 2);
    else if (code <= 0xffff) out += "\\u" + hex(code, 4);
    else out += "\\U" + hex(code, 8);
  }
  return out + quote;
}

function hex(code, width) {
  return code.toString(16).padStart(width, "0");
}

/* The code points str.isprintable rejects in Python 3.11 (Unicode 14.0: categories Cc Cf Cs Co Cn Zl
 * Zp, and Zs but the space), made from unicodedata.  Not /[\p{C}\p{Z}]/u: that follows the JS engine's
 * newer Unicode, where characters assigned since 14.0 are no longer Cn.  Runs in base 36: "gap.extra"
 * starts `gap` code points after the previous run and holds `extra` more (".0" left out). */
const NOT_PRINTABLE = `
  0.v 2n.x c ju.1 6.3 7 1 k b1 12.1 1e.1 3 1j.7 r.3 6.g m 5c 1c.1 1n.1 2t.d 1n.1 1d.1 f s.1 1 b.4 v.8
  22 4h 8.1 2.1 m 7 1.2 4.1 9.1 2.1 4.7 1.3 2 5.1 p.1 3 6.3 2.1 m 7 2 2 2.1 1 5.3 2.1 3.2 1.6 4 1.6
  h.9 3 9 3 m 7 2 5.1 a 3 3.1 1.e 4.1 c.6 7 3 8.1 2.1 m 7 2 5.1 9.1 2.1 3.6 3.3 2 5.1 i.9 2 6.2 3 4.2
  2 1 2.2 2.2 3.2 c.3 5.2 3 4.1 1.5 1.d l.4 d 3 n g.1 9 3 4.6 2 3.1 1.1 4.1 a.6 m 3 n a 5.1 9 3 4.6
  2.5 2 4.1 a 2.c d 3 1f 3 6.3 g.1 q 3 i.2 o 9 1.1 7.2 1.3 6 1 8.5 a.1 3.b 1m.3 t.10 2 1 5 o 1 n.1 5 1
  6.1 a.1 4.v 20 10.3 13 10 f d.10 5i 1.4 1.1 ah 4.1 7 1 4.1 15 4.1 x 4.1 7 1 4.1 f 1l 4.1 1v.1 w.2
  q.5 2e.1 6.1 hs s.2 2h.6 m.8 o.8 k.b d 3 2.b 2m.1 a.5 a.5 e b.5 2h.6 17.4 1y.9 v c.3 c.3 1.2 16.1
  5.a 18.3 q.5 b.2 1q.1 1t t.1 b.5 a.5 e.1 v.1c 25.2 1b 38.7 1o.2 f.2 1o.6 17.1 b.7 17.4 eu.1 6.1 12.1
  6.1 8 1 1 1 v.1 1h f e.1 6 j.1 3 9.g o.7 1b.g 2.1 r d.2 x.e x.e 3w.3 if.o b.k 1ec.1 w 9p.4 19 1.4
  1.1 1k.6 2.d o.8 7 7 7 7 7 7 7 7 3i.x q 2h.b 5y.p c.4 1r 2e.1 2v.4 17 2m 2c.b 1b mlp.2 1j.8 9o.j
  54.7 5n.4 2 1 5.n 1n.2 a.5 1k.7 1y.7 c.5 38.a u.2 26 b.3 x 1j.8 e.1 a.1 2v.n s.9 6.1 6.1 6.8 7 7
  1o.3 3i.1 a.5 8mc.b n.3 1d.6ir a6.1 2y.11 7.b 5.4 q 5 1 2 2 3h.f cd.1 1i.6 1.v 16.5 1f j 4.3 5 3r.3
  5a.2 6.1 6.1 6.1 3.2 7 7.c 2.1 c q j 2 f.1 e.x 3f.4 3.3 19.2 2g d.2 1.1a 1a.3l t.2 1d.e s.3 10.8 u.4
  17.4 u 11.3 e.15 4e.1 a.5 10.3 10.3 14.7 1g.a c f 7 2 b f 7 2.1u 8n.8 m.9 8.n 6 16 9.1w 6.1 1 18 2.2
  1.1 n 20.7 9.1b j 2.4 x.2 r.4 1.1r 1k.3 k.1 1e 2.4 8 3 t.1 3.3 a.6 9.6 1s.v 13.3 c.8 1i.2 t.1 r.4
  q.6 4.b 7.27 21.1i 1f.c 1f.6 1a.7 a.85 v 16 3.1 2.25 14.7 16.l q.11 s.j n.8 26.3 10.8 1q 5.c p.6 a.5
  1h i.7 13.8 2o k.a i 18.1s 7 1 4 f b.5 1n.4 a.5 4 8.1 2.1 m 7 2 5 a.1 2.1 3.1 1.5 1.4 7.1 7.2 5.3u
  2k 5.t 20.7 a.4l 1i.1 12.x 1x.a a.5 d.i 1m.5 a.1h r.1 f.3 n.54 1o.2r 2b.b 8.1 1.1 8 2 u 2.1 c.8 a.1x
  8.1 1a.1 b.q 20.7 2b.c 21.7a 9 19 e.9 t.2 w.1 m e.20 7 2 18.2 1 2 9.7 a.5 6 2 11 2 6.6 a.8l p.52 1.e
  1e.c pn.2t 33 5.a 5g.217 2r.c tr.34g g7.6ns ft.6 v a.3 29 a.5 u.1 6.9 1y.9 a 7 l.4 j.j3 2j.2s 23.3
  1l.6 h.1r 5.a 2.d 4qg.7 ye.15 9.6w6 4 7 2 83.18 3.g 4.7 b0.1s3 2z.4 d.2 9.6 a.1 4.3mn 1a.1 n.8 38.1n
  6u.9 13.1 22.7 34.k 1y.49 k.b 2f.8 p.3q 2d 1z 2.1 1.1 2.1 4 c 1 7 1t 4.1 8 7 s 4 5 1.2 7 9g.1 84.1
  ji.e 5 f.un v.68 7 h.1 7 2 5.5w 19.2 e.1 a.3 2.8v v.g 1m.4 1.yn 7 4 2 f 5h.1 g.14 24.3 a.3 2.ls
  1w.23 1p.5d 4 r 2 1.1 1 a 4 1 1.5 1.3 1 1 1 3 2 1.1 1 1 1 1 1 2 1.1 4 7 4 4 1 a h.4 3 5 h.1f 2.7h
  18.3 2s.b f.1 f f 11.9 4u.1j t.c 18.3 9.6 2.d 6.49 rc.4 g.2 d.2 38.b 2h.6 c.3 1.e c.3 1k.7 a.5 14.7
  u.1 2.25 9g.b e.1 5.2 5.2 7.8 t.2 b.4 6.9 a.5 8.7 7.8 43 1j.10 a.sl wyo.v 37d.6 66.1 4g2.d 5rl.2e6
  f2.15t 3t7.fcms 6o.47bj`;
const [RUN_STARTS, RUN_ENDS] = decodeRuns(NOT_PRINTABLE);

function decodeRuns(text) {
  const starts = [];
  const ends = [];
  let next = 0;
  for (const run of text.trim().split(/\s+/)) {
    const [gap, extra = "0"] = run.split(".");
    starts.push(next + parseInt(gap, 36));
    ends.push(starts.at(-1) + parseInt(extra, 36));
    next = ends.at(-1) + 1;
  }
  return [starts, ends];
}

function isPrintable(code) {
  let [low, high] = [0, RUN_STARTS.length - 1];
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (code < RUN_STARTS[mid]) high = mid - 1;
    else if (code > RUN_ENDS[mid]) low = mid + 1;
    else return false;
  }
  return true;
}

// ------------------------------------------------------------------------------ PyYAML's safe_load

// The Reader refuses any other character before scanning starts (ReaderError).
const NOT_YAML_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

function safeLoad(text) {
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

const Y = "tag:yaml.org,2002:";
const [SCALAR, SEQ, MAP] = ["scalar", "seq", "map"];
const OPTIONS = { version: "1.1", schema: "failsafe", uniqueKeys: false, keepSourceTokens: true, prettyErrors: false };

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

// ------------------------------------------------------------------------------ rewrites for the library

// PyYAML skips "..." after "...", where the library sees an empty document between.
function collapseDocumentEnds(source) {
  const repeated = /^(\.\.\.(?:[ \t].*)?\r?\n(?:[ \t]*(?:#.*)?\r?\n)*)\.\.\.(?=[ \t\r\n]|$)/m;
  while (repeated.test(source)) source = source.replace(repeated, "$1   ");
  return source;
}

/* Texts PyYAML reads and the library refuses, rewritten at the library's first error into what it
 * reads the same way, until it reads them or no rewrite applies. */
function parseLikePyYaml(text) {
  const rewrites = [blankTokenComment, indentFlowLine, indentQuotedLine, liftBlockScalar];
  const indented = new Set(); // line numbers: each line is indented once, deep enough for any parent
  for (let round = 0; ; round++) {
    const doc = parseDocument(text, OPTIONS);
    const [error] = doc.errors;
    let fixed = null;
    for (const rewrite of error && round < 64 ? rewrites : []) fixed ??= rewrite(text, error, indented);
    if (fixed === null) return { doc, text };
    text = fixed;
  }
}

/* PyYAML starts a comment at any '#' where a token may start ("x"#c, [a]#c); the library wants a
 * space before it.  Such a comment holds nothing: it is blanked out. */
function blankTokenComment(text, error) {
  const at = error.pos[0];
  if (error.code !== "MISSING_CHAR" || text[at] !== "#" || !"'\"]},".includes(text[at - 1] ?? "x")) return null;
  return text.slice(0, at) + text.slice(at).replace(/^[^\r\n]*/, (comment) => " ".repeat(comment.length));
}

/* Indentation means nothing to PyYAML inside [] {} and quotes; the library wants such lines in a
 * block collection indented.  Spaces at the start of one change no value. */
function indentFlowLine(text, error, indented) {
  const at = error.pos[0];
  const start = text.lastIndexOf("\n", at - 1) + 1;
  const flow = /^Flow (sequence|map) in block collection must be sufficiently indented/.test(error.message);
  if (error.code !== "BAD_INDENT" || !flow || start === 0 || !/^ *$/.test(text.slice(start, at))) return null;
  return indentLine(text, start, indented);
}

function indentQuotedLine(text, error, indented) {
  const at = error.pos[0];
  if (!error.message.startsWith("Missing closing") || !"\r\n".includes(text[at] ?? "x")) return null;
  const next = text.indexOf("\n", at) + 1;
  return next === 0 || next >= text.length ? null : indentLine(text, next, indented);
}

// Deeper than any line, once; never a document marker, which PyYAML refuses in brackets or quotes.
function indentLine(text, start, indented) {
  const line = text.slice(0, start).split("\n").length;
  if (indented.has(line) || /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/.test(text.slice(start))) return null;
  indented.add(line);
  const deepest = Math.max(...text.split("\n").map((row) => /^ */.exec(row)[0].length));
  return text.slice(0, start) + " ".repeat(deepest + 1) + text.slice(start);
}

/* PyYAML takes a block scalar on the lines after "key:", "- " or "? " at the column of that key, "-"
 * or "?" (b:\n|\n  x is {b: x}); the library wants it on the same line.  Comments in between go. */
const BLOCK_BELOW = new RegExp(
  String.raw`^((?:[^#\r\n]|(?<=\S)#)*?(?:(?<=^|[ \t])[-?]|:)(?:[ \t]+[!&]\S*)*)(?: +#.*)? *\r?\n` +
    String.raw`(?: *(?:#.*)?\r?\n)*( *)(?=[|>])`,
  "gm",
);

function liftBlockScalar(text) {
  const lifted = text.replace(BLOCK_BELOW, (all, head, indent) => {
    const entry = head.search(/[-?](?:[ \t]+[!&]\S*)*$/);
    const column = entry !== -1 ? entry : /^(?: *-(?= ))* */.exec(head)[0].length;
    return indent.length >= column ? head + " " : all;
  });
  return lifted === text ? null : lifted;
}

/* At the top level PyYAML ends a block scalar at the first line not indented, after which only
 * comments may follow; the library reads such lines into the scalar.  -1 when there is none. */
function topBlockEnd(source, root) {
  if (!isScalar(root) || !root.type.startsWith("BLOCK")) return -1;
  const line = /\n(?=[^ \r\n])/.exec(source.slice(root.range[0], root.range[1]));
  if (!line) return -1;
  const cut = root.range[0] + line.index + 1;
  if (!/^(?: *(?:#.*)?(?:\r?\n|$))*$/.test(source.slice(cut))) throw new YamlError("expected '<document start>'");
  return cut;
}

// ------------------------------------------------------------------------------ what PyYAML refuses

/* What PyYAML refuses and the library takes: a tab where a token may start, a plain scalar
 * starting with "- " "? " ": " or holding '?' in flow context, an implicit flow key on two lines or
 * over 1024 code points, an empty implicit key, an anchor name beyond [0-9A-Za-z_-], a loose block
 * scalar header, an unclosed quote, odd directives, and tokens the library drops. */
function checkScanner(source, root) {
  const scalars = [];
  const quoted = [];
  walk(root, false, (node, inFlow) => {
    if (isScalar(node)) checkScalar(source, node, inFlow, { scalars, quoted });
    if (node.anchor !== undefined) checkName(node.anchor);
    if (!isScalar(node) && !isMap(node) && !isSeq(node)) checkName(node.source); // an alias
    for (const item of node.srcToken?.items ?? []) checkEntry(source, item, node.srcToken.type);
    for (const pair of inFlow || node.flow ? (node.items ?? []).filter(isPair) : []) checkFlowKey(source, pair.key);
  });
  if (hasErrorToken(root?.srcToken)) throw new YamlError("unexpected characters");
  const inside = (ranges) => (i) => ranges.some(([start, end]) => i >= start && i < end);
  checkTabs(source, inside(quoted));
  checkDirectives(source, inside(scalars));
}

function walk(node, inFlow, visit) {
  if (node === null || node === undefined) return;
  visit(node, inFlow);
  const flow = inFlow || Boolean(node.flow);
  for (const item of node.items ?? []) {
    for (const child of isPair(item) ? [item.key, item.value] : [item]) walk(child, flow, visit);
  }
}

function hasErrorToken(token) {
  if (Array.isArray(token)) return token.some(hasErrorToken);
  if (token === null || typeof token !== "object") return false;
  return token.type === "error" || Object.values(token).some(hasErrorToken);
}

function checkScalar(source, node, inFlow, { scalars, quoted }) {
  scalars.push(node.range);
  if (node.type !== "PLAIN") quoted.push(node.range);
  const plain = node.type === "PLAIN" ? source.slice(node.range[0], node.range[1]) : "";
  const indicator = "-?:".includes(plain[0] ?? "x") && " \t\r\n".includes(source[node.range[0] + 1] ?? " ");
  if (indicator || (inFlow && /^:|\?/.test(plain))) throw new YamlError("no plain scalar starts so");
  if (node.type.startsWith("BLOCK")) checkBlockHeader(node.srcToken.props);
  if (node.type.startsWith("QUOTE")) checkQuoted(node.srcToken.source);
}

const CLOSED = { "'": /^'(?:[^']|'')*'$/, '"': /^"(?:[^"\\]|\\[^])*"$/ };

/* The library takes the end of the text right after a doubled quote ('a '') as the closing quote;
 * PyYAML also refuses a document marker at the start of a line inside quotes. */
function checkQuoted(raw) {
  if (!CLOSED[raw[0]].test(raw) || /\n(?:---|\.\.\.)(?=[ \t\r\n]|$)/.test(raw)) {
    throw new YamlError("while scanning a quoted scalar");
  }
}

function checkName(name) {
  if (!/^[0-9A-Za-z_-]+$/.test(name)) throw new YamlError("expected alphabetic or numeric character");
}

/* An entry with a ':' and no key (PyYAML takes an empty key only after an explicit '?', a tag or an
 * anchor), a block mapping entry with a value and no ':' (the library reads "? a\n- b" as {a: [b]}),
 * a tag or anchor between a key and its ':' (which the library drops), a ':' below its '?' in
 * another column. */
function checkEntry(source, item, collection) {
  const find = (tokens, type) => (tokens ?? []).find((token) => token.type === type);
  const question = find(item.start, "explicit-key-ind");
  const keyed = question || find(item.start, "tag") || find(item.start, "anchor");
  const sep = item.sep ?? [];
  const colon = sep.findIndex((token) => token.type === "map-value-ind");
  const beforeColon = colon === -1 ? sep : sep.slice(0, colon);
  const stray = beforeColon.some((token) => token.type === "tag" || token.type === "anchor");
  const block = collection === "block-map";
  const below = block && question && colon !== -1 && /\n/.test(source.slice(question.offset, sep[colon].offset));
  const shifted = below && column(source, question.offset) !== column(source, sep[colon].offset);
  if ((!item.key && colon !== -1 && !keyed) || (block && item.value && colon === -1) || stray || shifted) {
    throw new YamlError("expected <block end>, but found another token");
  }
}

function column(source, offset) {
  return offset - source.lastIndexOf("\n", offset - 1) - 1;
}

function checkFlowKey(source, key) {
  if (!key?.range || source[skipSpaces(source, key.range[0] - 1, -1)] === "?") return; // an explicit key
  const colon = skipSpaces(source, key.range[1], 1);
  if (source[colon] !== ":") return;
  const span = source.slice(key.range[0], colon);
  if (/[\r\n]/.test(span) || (span.length > 1024 && [...span].length > 1024)) {
    throw new YamlError("simple key too long or on more lines");
  }
}

function skipSpaces(source, i, step) {
  while (" \t\r\n".includes(source[i] ?? "x")) i += step;
  return i;
}

function checkBlockHeader([header, ...rest]) {
  const loose = rest.some((token) => !["comment", "newline"].includes(token.type) && !/^ *$/.test(token.source));
  if (loose || !/^[|>](?:[+-][1-9]?|[1-9][+-]?)?$/.test(header.source)) {
    throw new YamlError("expected chomping or indentation indicators");
  }
}

function checkTabs(source, inQuoted) {
  for (let i = source.indexOf("\t"); i !== -1; i = source.indexOf("\t", i + 1)) {
    if (!inQuoted(i) && !inComment(source, i, inQuoted)) throw new YamlError("found character '\\t'");
  }
}

function inComment(source, i, inQuoted) {
  const start = source.lastIndexOf("\n", i) + 1;
  for (let j = start; j < i; j++) {
    if (source[j] === "#" && !inQuoted(j) && (j === start || " \t".includes(source[j - 1]))) return true;
  }
  return false;
}

const DIRECTIVES = new Map([
  ["YAML", /^%YAML +0*1\.[0-9]+(?= |$) *(?:#.*)?$/],
  ["TAG", /^%TAG +(!(?:[0-9A-Za-z_-]*!)?) +[0-9A-Za-z\-;/?:@&=+$,_.!~*'()[\]%]+ *(?:#.*)?$/],
]);

/* scan_directive: a name of [0-9A-Za-z_-] then a space; %YAML 1.x and each %TAG handle once; all of
 * them before the first "---". */
function checkDirectives(source, inScalar) {
  const seen = new Set();
  const start = source.search(/^---(?=[ \t\r\n]|$)/m);
  for (const { 0: line, index } of source.matchAll(/^%.*/gm)) {
    if (inScalar(index)) continue;
    const name = /^%([0-9A-Za-z_-]*)/.exec(line)[1];
    const match = DIRECTIVES.get(name)?.exec(line);
    const key = name === "TAG" ? match?.[1] : name;
    const bad = !/^%[0-9A-Za-z_-]+(?: |$)/.test(line) || (DIRECTIVES.has(name) && (!match || seen.has(key)));
    if (bad || start === -1 || index > start) throw new YamlError(`found a bad directive: ${line}`);
    seen.add(key);
  }
}

// ------------------------------------------------------------------------------ nodes (composer.py)

function toNode(item, context) {
  if (item === null || item === undefined) return scalarNode("", true, null); // an empty node
  if (isScalar(item)) {
    const node = scalarNode(scalarValue(item, context.source), item.type === "PLAIN", item.tag ?? null);
    return anchored(item, context.anchors, node);
  }
  if (!isMap(item) && !isSeq(item)) {
    if (!context.anchors.has(item.source)) throw new YamlError(`found undefined alias '${item.source}'`);
    return context.anchors.get(item.source);
  }
  const kind = isMap(item) ? MAP : SEQ;
  const node = anchored(item, context.anchors, { kind, tag: item.tag && item.tag !== "!" ? item.tag : Y + kind });
  node.value = item.items.map((child) => childNode(child, kind, context));
  return node;
}

// A block scalar that ends the text without a line break has no final "\n" in PyYAML.
function scalarValue(item, source) {
  const value = item.source ?? String(item.value);
  const last = item.type.startsWith("BLOCK") && item.range[1] >= source.length && !/[\r\n]$/.test(source);
  return last && value.endsWith("\n") ? value.slice(0, -1) : value;
}

function childNode(child, kind, context) {
  if (!isPair(child)) return toNode(child, context);
  const pair = [toNode(child.key, context), toNode(child.value, context)];
  return kind === MAP ? pair : { kind: MAP, tag: Y + "map", value: [pair] }; // [a: b] is a one-pair map
}

// Registered before the node's children are read, as PyYAML does, so an alias inside may point to it.
function anchored(item, anchors, node) {
  if (!item.anchor) return node;
  if (anchors.has(item.anchor)) throw new YamlError(`found duplicate anchor '${item.anchor}'`);
  anchors.set(item.anchor, node);
  return node;
}

// ------------------------------------------------------------------------------ resolving (resolver.py)

// Python's $ also matches before a final "\n".  In PyYAML's order, each with its first characters.
const END = "(?=\\n?$)";
const RESOLVERS = [
  ["bool", "yYnNtTfFoO", String.raw`yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF`],
  [
    "float",
    "-+0123456789.",
    String.raw`[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?` +
      String.raw`|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)`,
  ],
  [
    "int",
    "-+0123456789",
    String.raw`[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+` +
      String.raw`|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+`,
  ],
  ["merge", "<", "<<"],
  ["null", "~nN", "~|null|Null|NULL|"],
  [
    "timestamp",
    "0123456789",
    String.raw`[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?` +
      String.raw`(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?` +
      String.raw`(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?`,
  ],
  ["value", "=", "="],
  ["yaml", "!&*", String.raw`!|&|\*`],
].map(([name, first, pattern]) => ({ tag: Y + name, first, regexp: new RegExp(`^(?:${pattern})${END}`) }));

/* PyYAML resolves a plain scalar without a tag, and any scalar tagged "!", by its value. */
function scalarNode(value, plain, tag) {
  const implicit = (plain && tag === null) || tag === "!";
  return { kind: SCALAR, tag: implicit ? resolve(value) : (tag ?? Y + "str"), value };
}

function resolve(value) {
  if (value === "") return Y + "null";
  const found = RESOLVERS.find(({ first, regexp }) => first.includes(value[0]) && regexp.test(value));
  return found ? found.tag : Y + "str";
}

// ------------------------------------------------------------------------------ constructing (constructor.py)

class PyFloat {
  constructor(value) {
    this.value = value;
  }
}

/* A dict as far as comparing with a JSON object needs: its str keys, and whether it has others. */
class PyDict {
  constructor() {
    this.strings = new Map();
    this.others = false;
  }

  update(entries) {
    for (const [key, value] of entries) {
      if (typeof key === "string") this.strings.set(key, value);
      else this.others = true;
    }
  }
}

/* What no JSON value equals: a set, bytes, a date, a datetime, a tuple. */
class PyOther {
  constructor(type) {
    this.type = type;
  }
}

const isHashable = (data) => !Array.isArray(data) && !(data instanceof PyDict) && data?.type !== "set";

/* construct_document: a scalar at once, a collection as an empty object filled in later, in the order
 * PyYAML's state generators run (which decides the error a document raises first). */
function construct(root) {
  const done = new Map();
  const building = new Set();
  const later = [];
  const object = (node) => {
    if (done.has(node)) return done.get(node);
    if (building.has(node)) throw new YamlError("found unconstructable recursive node");
    building.add(node);
    const make = Object.hasOwn(CONSTRUCTORS, node.tag) ? CONSTRUCTORS[node.tag] : constructUndefined;
    const data = make(node, { object, later: (fill) => later.push(fill) });
    done.set(node, data);
    building.delete(node);
    return data;
  };
  const data = object(root);
  while (later.length) later.shift()();
  return data;
}

function constructUndefined(node) {
  throw new YamlError(`could not determine a constructor for the tag '${node.tag}'`);
}

/* SafeConstructor.construct_scalar: a mapping with a `=` key stands for that key's value. */
function constructScalar(node) {
  if (node.kind === MAP) {
    const pair = node.value.find(([key]) => key.tag === Y + "value");
    if (pair) return constructScalar(pair[1]);
  }
  if (node.kind !== SCALAR) throw new YamlError(`expected a scalar node, but found ${node.kind}`);
  return node.value;
}

function constructMapping(node, object) {
  if (node.kind !== MAP) throw new YamlError(`expected a mapping node, but found ${node.kind}`);
  flattenMapping(node);
  const entries = [];
  for (const [keyNode, valueNode] of node.value) {
    const key = object(keyNode);
    if (!isHashable(key)) throw new YamlError("found unhashable key");
    entries.push([key, object(valueNode)]);
  }
  return entries;
}

/* Merge keys (<<) pull in the pairs of a mapping or a list of mappings, the first one winning; a `=`
 * key is a str key inside a mapping.  As in PyYAML the merge key goes before what it merges is
 * flattened, so a mapping that merges itself ends. */
function flattenMapping(node) {
  const merged = [];
  const seen = new Set();
  const take = (source) => {
    if (source.kind !== MAP) throw new YamlError(`expected a mapping for merging, but found ${source.kind}`);
    flattenMapping(source);
    for (const pair of source.value.filter(([key]) => !seen.has(key))) merged.push(pair), seen.add(pair[0]);
  };
  for (let index = 0; index < node.value.length; ) {
    const [key, value] = node.value[index];
    if (key.tag !== Y + "merge") {
      if (key.tag === Y + "value") key.tag = Y + "str";
      index++;
      continue;
    }
    node.value.splice(index, 1);
    if (value.kind === SCALAR) throw new YamlError("expected a mapping or list of mappings for merging");
    for (const source of value.kind === SEQ ? value.value : [value]) take(source);
  }
  if (merged.length) node.value = merged.concat(node.value);
}

function constructPairs(node, { object, later }) {
  const pairs = [];
  later(() => {
    if (node.kind !== SEQ) throw new YamlError(`expected a sequence, but found ${node.kind}`);
    for (const sub of node.value) {
      if (sub.kind !== MAP || sub.value.length !== 1) throw new YamlError("expected a mapping of length 1");
      object(sub.value[0][0]);
      object(sub.value[0][1]);
      pairs.push(new PyOther("tuple"));
    }
  });
  return pairs;
}

const CONSTRUCTORS = {
  [Y + "null"]: (node) => (constructScalar(node), null),
  [Y + "bool"]: (node) => constructBool(constructScalar(node)),
  [Y + "int"]: (node) => constructInt(constructScalar(node)),
  [Y + "float"]: (node) => constructFloat(constructScalar(node)),
  [Y + "binary"]: (node) => constructBinary(constructScalar(node)),
  [Y + "timestamp"]: (node) => constructTimestamp(constructScalar(node), node),
  [Y + "omap"]: constructPairs,
  [Y + "pairs"]: constructPairs,
  [Y + "str"]: constructScalar,
  [Y + "set"]: (node, { object, later }) => {
    later(() => constructMapping(node, object));
    return new PyOther("set");
  },
  [Y + "seq"]: (node, { object, later }) => {
    const list = [];
    later(() => {
      if (node.kind !== SEQ) throw new YamlError(`expected a sequence node, but found ${node.kind}`);
      list.push(...node.value.map(object));
    });
    return list;
  },
  [Y + "map"]: (node, { object, later }) => {
    const dict = new PyDict();
    later(() => dict.update(constructMapping(node, object)));
    return dict;
  },
};

const BOOLS = new Map([["yes", true], ["no", false], ["true", true], ["false", false], ["on", true], ["off", false]]);

function constructBool(value) {
  const key = value.toLowerCase();
  if (!BOOLS.has(key)) throw pyError("KeyError", `'${key}'`);
  return BOOLS.get(key);
}

/* A sign, then "0", 0b.., 0x.., 0.. (octal), sexagesimal a:b:c or decimal, each through int(). */
function constructInt(text) {
  let value = text.replaceAll("_", "");
  const sign = firstChar(value) === "-" ? -1n : 1n;
  if ("+-".includes(firstChar(value))) value = value.slice(1);
  if (value === "0") return 0n;
  if (value.startsWith("0b")) return sign * pyInt(value.slice(2), 2);
  if (value.startsWith("0x")) return sign * pyInt(value.slice(2), 16);
  if (firstChar(value) === "0") return sign * pyInt(value, 8);
  if (value.includes(":")) return sign * value.split(":").reduce((sum, part) => sum * 60n + pyInt(part, 10), 0n);
  return sign * pyInt(value, 10);
}

function constructFloat(text) {
  let value = text.replaceAll("_", "").toLowerCase();
  const sign = firstChar(value) === "-" ? -1 : 1;
  if ("+-".includes(firstChar(value))) value = value.slice(1);
  if (value === ".inf") return new PyFloat(sign * Infinity);
  if (value === ".nan") return new PyFloat(NaN);
  if (!value.includes(":")) return new PyFloat(sign * pyFloat(value));
  const digits = value.split(":").map(pyFloat).reverse(); // all of them read first, as in PyYAML
  return new PyFloat(sign * digits.reduce(([sum, base], digit) => [sum + digit * base, base * 60], [0, 1])[0]);
}

/* value[0] in Python: IndexError on an empty string. */
function firstChar(value) {
  if (value === "") throw pyError("IndexError", "string index out of range");
  return value[0];
}

// str.isspace, what int() and float() strip around their argument.
const PY_SPACE = String.raw`[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*`;
const DIGITS = { 2: "[01]", 8: "[0-7]", 10: "[0-9]", 16: "[0-9a-fA-F]" };
const PREFIX = { 2: "(?:0[bB])?", 8: "(?:0[oO])?", 10: "", 16: "(?:0[xX])?" };
const FLOAT = new RegExp(
  String.raw`^${PY_SPACE}([-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|inf|infinity|nan))${PY_SPACE}$`,
  "i",
);

/* int(text, base): Unicode decimal digits count as 0-9, whitespace around is stripped. */
function pyInt(text, base) {
  const ascii = asciiDigits(text);
  const match = new RegExp(`^${PY_SPACE}([-+]?)${PREFIX[base]}(${DIGITS[base]}+)${PY_SPACE}$`).exec(ascii);
  if (!match) throw pyError("ValueError", `invalid literal for int() with base ${base}: '${text}'`);
  const digits = [...match[2]].reduce((sum, d) => sum * BigInt(base) + BigInt(parseInt(d, 16)), 0n);
  return match[1] === "-" ? -digits : digits;
}

function pyFloat(text) {
  const match = FLOAT.exec(asciiDigits(text));
  if (!match) throw pyError("ValueError", `could not convert string to float: '${text}'`);
  const word = match[1].replace(/^[-+]/, "").toLowerCase();
  if (word === "nan") return NaN;
  if (word.startsWith("inf")) return match[1].startsWith("-") ? -Infinity : Infinity;
  return Number(match[1]);
}

/* Decimal digits of other scripts as ASCII: Unicode puts each script's 0-9 at consecutive code
 * points, so a digit's value is its distance from the start of its run of digits, modulo 10. */
function asciiDigits(text) {
  const isDigit = (code) => /\p{Nd}/u.test(String.fromCodePoint(code));
  return text.replace(/\p{Nd}/gu, (ch) => {
    const code = ch.codePointAt(0);
    let start = code;
    while (isDigit(start - 1)) start--;
    return String((code - start) % 10);
  });
}

/* base64.decodebytes as binascii.a2b_base64 reads: other characters skipped, padding ends it. */
function constructBinary(text) {
  if (/[^\x00-\x7f]/.test(text)) throw new YamlError("failed to convert base64 data into ascii");
  let [quad, pads] = [0, 0];
  for (const ch of text) {
    if (ch === "=") {
      if (quad >= 2 && quad + ++pads >= 4) return new PyOther("bytes");
    } else if (/[A-Za-z0-9+/]/.test(ch)) {
      [quad, pads] = [(quad + 1) % 4, 0];
    }
  }
  if (quad !== 0) throw new YamlError("failed to decode base64 data");
  return new PyOther("bytes");
}

const TIMESTAMP = new RegExp(
  String.raw`^([0-9]{4})-([0-9][0-9]?)-([0-9][0-9]?)(?:(?:[Tt]|[ \t]+)([0-9][0-9]?):([0-9][0-9]):([0-9][0-9])` +
    String.raw`(?:\.[0-9]*)?(?:[ \t]*(Z|([-+])([0-9][0-9]?)(?::([0-9][0-9]))?))?)?${END}`,
);

/* datetime.date, datetime.datetime and datetime.timezone, which raise ValueError out of range. */
function constructTimestamp(text, node) {
  if (node.kind !== SCALAR) throw pyError("TypeError", "expected string or bytes-like object"); // re.match(list)
  const match = TIMESTAMP.exec(text);
  if (!match) throw pyError("AttributeError", "'NoneType' object has no attribute 'groupdict'");
  const number = (group) => (group && /^[0-9]+$/.test(group) ? Number(group) : group);
  const [year, month, day, hour, minute, second, , sign, tzHour = 0, tzMinute = 0] = match.slice(1).map(number);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  const date = year >= 1 && day >= 1 && day <= days; // days is undefined for month 0 or 13+
  const time = hour === undefined || (hour <= 23 && minute <= 59 && second <= 59);
  const zone = !sign || tzHour * 60 + tzMinute < 24 * 60;
  if (!date || !time || !zone) throw pyError("ValueError", "timestamp out of range");
  return new PyOther(hour === undefined ? "date" : "datetime");
}

// ------------------------------------------------------------------------------ ==

/* Python's == between what came back and a JSON value (True == 1 == 1.0; "1" != 1). */
function pyEquals(loaded, original) {
  if (typeof original === "string") return loaded === original;
  if (original === null || original === undefined) return loaded === null;
  if (typeof original === "number" || typeof original === "boolean") return numberEquals(loaded, Number(original));
  if (Array.isArray(original)) {
    if (!Array.isArray(loaded) || loaded.length !== original.length) return false;
    return original.every((item, i) => pyEquals(loaded[i], item));
  }
  const keys = Object.keys(original);
  if (!(loaded instanceof PyDict) || loaded.others || loaded.strings.size !== keys.length) return false;
  return keys.every((key) => loaded.strings.has(key) && pyEquals(loaded.strings.get(key), original[key]));
}

function numberEquals(loaded, x) {
  if (typeof loaded === "boolean") return (loaded ? 1 : 0) === x;
  if (typeof loaded === "bigint") return Number.isInteger(x) && BigInt(x) === loaded;
  return loaded instanceof PyFloat && loaded.value === x;
}
