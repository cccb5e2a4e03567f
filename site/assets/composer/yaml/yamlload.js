/* Strict YAML loading with positions, as prereq.core.yamlload: the CLI builds data itself from libyaml's
 * nodes by the YAML 1.2 core schema, and so does this from yamlparse.js's.  Positions are 1-based, in
 * code points as Python counts.  `data` is plain JSON-like, `typed` in Python's types (pyvalues.js).
 * May import: core/, vendor/.
 */

import { PyDict, PyFloat, isPyInt, keyId, pyStr, toPlain } from "./pyvalues.js";
import { PLAIN_TAG, YamlLoadError, compose, issue } from "./yamlparse.js";

export { YamlLoadError, compose } from "./yamlparse.js";

export const MAX_DEPTH = 100;
export const MAX_VALUES = 100000;
export const MAX_INT_DIGITS = 4300; // Python's own limit for decimal integer strings
const MERGE_TAG = "tag:yaml.org,2002:merge";

// -- data and positions (yamlload._build)

const NULL_RE = /^(?:~|null|Null|NULL|)$/;
const BOOLS = { true: true, True: true, TRUE: true, false: false, False: false, FALSE: false };
const INT_RE = /^[-+]?[0-9]+$/;
const OCT_HEX_RE = /^0o[0-7]+$|^0x[0-9a-fA-F]+$/;
const FLOAT_RE = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INF_RE = /^[-+]?\.(?:inf|Inf|INF)$/;
const NAN_RE = /^\.(?:nan|NaN|NAN)$/;

function pyInt(text) {
  const big = BigInt(text);
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

/* _scalar: the YAML 1.2 core schema for plain untagged scalars; anything else is a string. */
function scalarValue(node) {
  const value = node.value;
  if (node.style !== "" || node.tag !== PLAIN_TAG) return value;
  if (NULL_RE.test(value)) return null;
  if (Object.prototype.hasOwnProperty.call(BOOLS, value)) return BOOLS[value];
  if (INT_RE.test(value) || OCT_HEX_RE.test(value)) return pyInt(value.replace(/^\+/, ""));
  if (FLOAT_RE.test(value)) return new PyFloat(Number(value));
  if (INF_RE.test(value)) return new PyFloat(value.startsWith("-") ? -Infinity : Infinity);
  if (NAN_RE.test(value)) return new PyFloat(NaN);
  return value;
}

/* What the YAML 1.2 core schema reads the plain scalar `text` as. */
export function plainValue(text) {
  return scalarValue({ value: text, style: "", tag: PLAIN_TAG });
}

function pathId(path) {
  return JSON.stringify(path.map(keyId));
}

// pathId([...path, key]) from pathId(path), without walking the path again.
const childId = (id, key) => `${id.slice(0, -1)}${id.length > 2 ? "," : ""}${JSON.stringify(keyId(key))}]`;

function nodeMark(node) {
  return [node.start.line + 1, node.start.column + 1];
}

/* format_path: ["callbacks", 0, "commands"] as "callbacks[0].commands"; ``empty`` for the root. */
export function formatPath(path, { empty = "" } = {}) {
  let out = "";
  for (const part of path) out += isPyInt(part) ? `[${pyStr(part)}]` : (out ? "." : "") + pyStr(part);
  return out || empty;
}

export class LoadedYaml {
  constructor() {
    this.typed = null;
    this.valuePositions = new Map(); // pathId -> [line, column]
    this.keyPositions = new Map();
    this.root = null;
    this._plain = undefined;
  }

  get data() {
    if (this._plain === undefined) this._plain = toPlain(this.typed);
    return this._plain;
  }

  /* Else its nearest ancestor's, else [1, 1]. */
  position(path, { key = false } = {}) {
    const table = key ? this.keyPositions : this.valuePositions;
    for (let cut = path.length; cut >= 0; cut--) {
      const id = pathId(path.slice(0, cut));
      const found = table.get(id) || this.valuePositions.get(id);
      if (found) return [...found];
    }
    return [1, 1];
  }
}

/* Each issue once: an anchored value is met again at every alias. */
function onceEach(issues) {
  const seen = new Map();
  for (const found of issues) seen.set(JSON.stringify([found.kind, found.message, found.line, found.column]), found);
  return [...seen.values()];
}

/* _TooLarge: thrown from deep in the walk, to stop it. */
class TooLarge {
  constructor(path) {
    this.path = path;
  }
}
// _YAML_TAGS: the only tags a node may have, written or implied.
const YAML_TAGS = {
  scalar: new Set([PLAIN_TAG, "tag:yaml.org,2002:str"]), seq: new Set(["tag:yaml.org,2002:seq"]), map: new Set(["tag:yaml.org,2002:map"]),
};
const TAG_MESSAGE = "YAML tags are not supported";

const isMerge = (keyNode) => keyNode.tag === MERGE_TAG || (keyNode.tag === PLAIN_TAG && keyNode.value === "<<");

/* _merged_pairs: as js-yaml (the rest-server) and PyYAML (the runtime) merge: a key's first source wins,
 * each source's own keys over what it merges; the node's own keys come after and win over all. */
function mergedPairs(node, issues) {
  const merged = new Map();
  for (const [keyNode, valueNode] of node.value) {
    if (!isMerge(keyNode)) continue;
    const sources = valueNode.kind === "seq" ? valueNode.value : [valueNode];
    if (!sources.every((source) => source.kind === "map")) {
      issues.push(issue("syntax", "a merge key ('<<') takes a mapping or a list of them", ...nodeMark(valueNode)));
      continue;
    }
    for (const source of sources) {
      const effective = new Map(mergedPairs(source, issues).map((pair) => [pair[0].value, pair]));
      for (const pair of source.value) if (!isMerge(pair[0])) effective.set(pair[0].value, pair);
      for (const [key, pair] of effective) if (!merged.has(key)) merged.set(key, pair);
    }
  }
  return [...merged.values()];
}

/* _build_mapping; with `merges`, `<<` read as OpenPAI's loaders read it. */
function buildMapping(node, path, out, issues, merges, id) {
  const result = new PyDict();
  const inherited = merges ? mergedPairs(node, issues) : [];
  const own = node.value.filter(([keyNode]) => !(merges && isMerge(keyNode)));
  const mine = new PyDict(); // its own keys, compared as Python does (1 == 1.0)
  const keysId = childId(id, "<key>");
  [...inherited, ...own].forEach(([keyNode, valueNode], number) => {
    if (isMerge(keyNode)) {
      issues.push(issue("syntax", "merge keys ('<<') are not supported", ...nodeMark(keyNode)));
      return;
    }
    const key = build(keyNode, [...path, "<key>"], out, issues, merges, keysId);
    if (Array.isArray(key) || key instanceof PyDict) {
      issues.push(issue("syntax", "mapping keys must be plain scalars", ...nodeMark(keyNode)));
      return;
    }
    const ours = number >= inherited.length;
    const valueId = childId(id, key);
    if (result.has(key) && ours && mine.has(key)) {
      const first = out.keyPositions.get(valueId);
      issues.push(issue("duplicate-key", `duplicate key '${keyNode.value}' (first defined on line ${first[0]})`, ...nodeMark(keyNode)));
      return;
    }
    if (ours) mine.set(key, true);
    out.keyPositions.set(valueId, nodeMark(keyNode));
    result.set(key, build(valueNode, [...path, key], out, issues, merges, valueId));
  });
  out.valuePositions.delete(keysId);
  return result;
}

/* _build: typed data, positions and issues. */
function build(node, path, out, issues, merges = false, id = pathId(path)) {
  out.valuePositions.set(id, nodeMark(node));
  if (out.valuePositions.size > MAX_VALUES) throw new TooLarge(path);
  if (!YAML_TAGS[node.kind].has(node.tag)) {
    issues.push(issue("syntax", `${TAG_MESSAGE} (${node.tag.replace("tag:yaml.org,2002:", "!!")})`, ...nodeMark(node)));
    return null;
  }
  if (node.kind === "scalar") {
    const plain = node.style === "" && node.tag === PLAIN_TAG;
    if (plain && INT_RE.test(node.value) && node.value.replace(/^[-+]/, "").length > MAX_INT_DIGITS) {
      issues.push(issue("syntax", `integers have at most ${MAX_INT_DIGITS} digits`, ...nodeMark(node)));
      return null;
    }
    return scalarValue(node);
  }
  if (path.length >= MAX_DEPTH) {
    issues.push(issue("syntax", `values are nested more than ${MAX_DEPTH} levels deep`, ...nodeMark(node)));
    return null;
  }
  if (node.kind === "seq") return node.value.map((child, i) => build(child, [...path, i], out, issues, merges, childId(id, i)));
  return buildMapping(node, path, out, issues, merges, id);
}

/* _decode: the text (BOM dropped), or a YamlLoadError at the first bad byte (the WHATWG decoder and
 * Python's strict one refuse the same bytes: where re-encoding first differs, back to its character's start). */
export function decodeUtf8(bytes) {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  const again = text.includes("\ufffd") ? new TextEncoder().encode(text) : bytes;
  let bad = 0;
  while (bad < again.length && bytes[bad] === again[bad]) bad++;
  if (bad === again.length) return text.replace(/^\ufeff/, "");
  while ((again[bad] & 0xc0) === 0x80) bad--;
  const before = bytes.subarray(0, bad);
  const lineStart = before.lastIndexOf(0x0a) + 1;
  const line = before.reduce((count, b) => count + (b === 0x0a ? 1 : 0), 1);
  // One BOM starting the line takes no column (the CLI's removeprefix), so the decoder must keep them all.
  const lineText = new TextDecoder("utf-8", { ignoreBOM: true }).decode(before.subarray(lineStart));
  const column = Array.from(lineText.replace(/^\ufeff/, "")).length + 1;
  throw new YamlLoadError([issue("encoding", `not valid UTF-8 (byte 0x${bytes[bad].toString(16).padStart(2, "0")})`, line, column)]);
}

/* One document, from a string or UTF-8 bytes; a YamlLoadError lists every issue.  `mergeKeys`: read
 * `<<` as OpenPAI's loaders do (jobs), else refuse it. */
export function loadYaml(raw, { mergeKeys = false } = {}) {
  const text = typeof raw === "string" ? raw.replace(/^\ufeff/, "") : decodeUtf8(raw);
  const root = compose(text);
  const loaded = new LoadedYaml();
  if (root === null) return loaded;
  loaded.root = root;
  const issues = [];
  try {
    loaded.typed = build(root, [], loaded, issues, mergeKeys);
  } catch (error) {
    if (!(error instanceof TooLarge)) throw error;
    // At the key the expansion was under when it passed the limit: the line that names the alias.
    const at = error.path.map((_, end) => loaded.keyPositions.get(pathId(error.path.slice(0, end + 1)))).filter(Boolean).pop();
    const [line, column] = at ?? [1, 1];
    throw new YamlLoadError([issue("syntax", `the document expands to more than ${MAX_VALUES} values (through aliases?)`, line, column)]);
  }
  if (issues.length) throw new YamlLoadError(onceEach(issues));
  return loaded;
}

export function loadYamlOrNull(text, options = {}) {
  try {
    return loadYaml(text, options);
  } catch (error) {
    if (error instanceof YamlLoadError) return null;
    throw error;
  }
}
