/* Texts PyYAML reads and the vendored `yaml` library refuses or reads otherwise, rewritten into what
 * the library reads the way PyYAML does: comments glued to a token, flow and quoted lines the library
 * wants indented, block scalars below their key, repeated "..." and a top-level block scalar's end.
 *
 * Folder openpai/pyyaml/: PyYAML's safe_load (YAML 1.1) as the OpenPAI runtime reads a plugin
 * parameter back, on the vendored `yaml` library.
 * May import: vendor/.
 */

import { isScalar, parseDocument } from "../../../vendor/prereq-vendor.js";
import { YamlError } from "./python.js";

const OPTIONS = { version: "1.1", schema: "failsafe", uniqueKeys: false, keepSourceTokens: true, prettyErrors: false };

// PyYAML skips "..." after "...", where the library sees an empty document between.
export function collapseDocumentEnds(source) {
  const repeated = /^(\.\.\.(?:[ \t].*)?\r?\n(?:[ \t]*(?:#.*)?\r?\n)*)\.\.\.(?=[ \t\r\n]|$)/m;
  while (repeated.test(source)) source = source.replace(repeated, "$1   ");
  return source;
}

/* Texts PyYAML reads and the library refuses, rewritten at the library's first error into what it
 * reads the same way, until it reads them or no rewrite applies. */
export function parseLikePyYaml(text) {
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
export function topBlockEnd(source, root) {
  if (!isScalar(root) || !root.type.startsWith("BLOCK")) return -1;
  const line = /\n(?=[^ \r\n])/.exec(source.slice(root.range[0], root.range[1]));
  if (!line) return -1;
  const cut = root.range[0] + line.index + 1;
  if (!/^(?: *(?:#.*)?(?:\r?\n|$))*$/.test(source.slice(cut))) throw new YamlError("expected '<document start>'");
  return cut;
}
