/* What PyYAML's scanner refuses and the vendored `yaml` library takes, checked on the library's
 * document: each check throws YamlError with PyYAML's problem.
 *
 * Folder openpai/pyyaml/: PyYAML's safe_load (YAML 1.1) as the OpenPAI runtime reads a plugin
 * parameter back, on the vendored `yaml` library.
 * May import: vendor/.
 */

import { isMap, isPair, isScalar, isSeq } from "../../../vendor/prereq-vendor.js";
import { YamlError } from "./python.js";

/* What PyYAML refuses and the library takes: a tab where a token may start, a plain scalar
 * starting with "- " "? " ": " or holding '?' in flow context, an implicit flow key on two lines or
 * over 1024 code points, an empty implicit key, an anchor name beyond [0-9A-Za-z_-], a loose block
 * scalar header, an unclosed quote, odd directives, and tokens the library drops. */
export function checkScanner(source, root) {
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
