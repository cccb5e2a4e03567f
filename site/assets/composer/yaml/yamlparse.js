/* A YAML text as nodes with libyaml's marks (the CLI composes with libyaml), read by the vendored `yaml`
 * library; it refuses what libyaml refuses (yamlrefusals.js).  It also refuses line breaks other than LF
 * and CRLF, which libyaml reads as breaks and the library as text (a case's browser_refuses says so).
 *
 * May import: core/, vendor/.
 */

import { Composer, Parser, isAlias, isMap, isScalar } from "../../vendor/prereq-vendor.js";
import { BLANKS, documentError, entryRefusal, libraryError, refusal } from "./yamlrefusals.js";

export const PLAIN_TAG = "tag:prereq,2024:plain"; // as yamlload.py's loader tags plain untagged scalars
const OPTIONS = { schema: "failsafe", uniqueKeys: false, keepSourceTokens: true, prettyErrors: false };
const STYLES = { PLAIN: "", QUOTE_SINGLE: "'", QUOTE_DOUBLE: '"', BLOCK_LITERAL: "|", BLOCK_FOLDED: ">" };

export class YamlLoadError extends Error {
  constructor(issues) {
    super(issues[0].message);
    this.name = "YamlLoadError";
    this.issues = issues;
  }
}

export function issue(kind, message, line = null, column = null) {
  return { kind, message, line, column };
}

/* 0-based line and code-point column of a UTF-16 index, as libyaml's marks count them. */
export class Lines {
  constructor(text) {
    this.text = text;
    this.starts = [0];
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.starts.push(i + 1);
    this.astral = /[\ud800-\udfff]/.test(text);
  }

  /* The 0-based line alone: no column counted (code points cost a pass over the line). */
  line(index) {
    let [low, high] = [0, this.starts.length - 1];
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle] <= index) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  mark(index) {
    const line = this.line(index);
    const from = this.starts[line];
    return { index, line, column: this.astral ? Array.from(this.text.slice(from, index)).length : index - from };
  }

  /* The mark of a token at ``index``: libyaml's end of the text, when it does not end its line, is
   * the start of the line after. */
  token(index) {
    if (index < this.text.length || !this.text || this.text.endsWith("\n")) return this.mark(index);
    return { index, line: this.starts.length, column: 0 };
  }

  issue(message, index, kind = "syntax") {
    const { line, column } = this.token(index);
    return new YamlLoadError([issue(kind, message, line + 1, column + 1)]);
  }
}

// The first character libyaml's reader refuses, line break other than LF and CRLF, or BOM past the
// start (libyaml skips one at the start of any line).
function characterError(text, lines) {
  const bad = /[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]|\r(?!\n)|(?!^)\ufeff/u.exec(text);
  if (!bad) return null;
  const code = bad[0].codePointAt(0);
  const message = [13, 0x85, 0x2028, 0x2029].includes(code) ? "line breaks other than LF and CRLF are not read here"
    : code === 0xfeff ? "a byte order mark is read only at the start"
      : `control characters are not allowed: #x${code.toString(16).padStart(4, "0")}`;
  return lines.issue(message, bad.index);
}

// Where each node's properties start, as libyaml starts a node there: keyed by its token, or for an
// empty node (no token) by the end of its properties.
function propertyStarts(cst) {
  const starts = new Map();
  const note = (tokens, owner) => {
    let first = -1;
    for (const token of tokens ?? []) {
      if (token.type === "anchor" || token.type === "tag") {
        if (first < 0) first = token.offset;
        starts.set(token.offset + token.source.length, first);
      } else if (!BLANKS.has(token.type)) {
        first = -1;
      }
    }
    if (first >= 0 && owner) starts.set(owner, first);
  };
  const walk = (token) => {
    if (token?.type === "document") note(token.start, token.value);
    if (token?.type === "block-scalar") note(token.props, token);
    for (const item of token?.items ?? []) {
      note(item.start, item.key ?? (item.sep ? null : item.value));
      note(item.sep, item.value);
      [item.key, item.value].forEach(walk);
    }
    if (token?.type === "document") walk(token.value);
  };
  cst.forEach(walk);
  return starts;
}

const BETWEEN = /(?:[ \t\r\n]|#[^\n]*)*/y; // blanks, line breaks and comments

class Nodes {
  constructor(lines, starts) {
    Object.assign(this, { lines, starts, anchors: new Map() });
  }

  empty(at) {
    return { kind: "scalar", tag: PLAIN_TAG, value: "", style: "", start: at, end: at };
  }

  next(index) {
    BETWEEN.lastIndex = index;
    BETWEEN.exec(this.lines.text);
    return this.lines.token(BETWEEN.lastIndex);
  }

  // libyaml's place for an empty node: after its properties, or the ':' or '-' before it in block
  // context; at the next token in brackets and at the top (the library's is after the blanks).
  emptyAt(value, flow) {
    let at = value.range[0];
    while (at > 0 && " \t".includes(this.lines.text[at - 1])) at--;
    return this.starts.has(at) || !flow ? this.lines.mark(at) : this.next(value.range[0]);
  }

  // As libyaml: at its properties, else its value (a block mapping's first key's); a one-pair
  // mapping in brackets at its '?'.
  start(value, flow) {
    const token = value.srcToken;
    if (token?.type === "block-map" && !this.starts.has(token)) {
      const first = [...token.items[0].start, token.items[0].key].find((t) => t && !BLANKS.has(t.type));
      return this.lines.mark(Math.min(first?.offset ?? value.range[0], value.range[0]));
    }
    if (token) return this.lines.mark(this.starts.get(token) ?? value.range[0]);
    if (isScalar(value)) {
      const at = this.emptyAt(value, flow);
      return this.starts.has(at.index) ? this.lines.mark(this.starts.get(at.index)) : at;
    }
    let at = value.range[0];
    while (at > 0 && " \t".includes(this.lines.text[at - 1])) at--;
    return this.lines.mark(this.lines.text[at - 1] === "?" ? at - 1 : value.range[0]);
  }

  node(value, near, flow) {
    if (value === null || value === undefined) return this.empty(near);
    if (isAlias(value)) {
      const found = this.anchors.get(value.source);
      if (!found) throw this.lines.issue("found undefined alias", value.range[0]);
      return found;
    }
    const start = this.start(value, flow);
    if (value.anchor !== undefined && this.anchors.has(value.anchor)) {
      throw this.lines.issue("found duplicate anchor; first occurrence second occurrence", start.index);
    }
    const node = isScalar(value) ? this.scalar(value, start, flow) : this.collection(value, start);
    if (value.anchor !== undefined) this.anchors.set(value.anchor, node);
    // A tagged collection is refused at its tag (yamlload.js): its items (!!omap's are pairs) are not read.
    if (!isScalar(value) && node.tag === `tag:yaml.org,2002:${node.kind}`) this.fill(node, value, flow || node.flow);
    return node;
  }

  scalar(value, start, flow) {
    const style = STYLES[value.type];
    const empty = !value.srcToken;
    let tag = value.tag;
    if (tag === undefined || tag === "!") tag = (tag === "!" ? !empty : style === "") ? PLAIN_TAG : "tag:yaml.org,2002:str";
    const end = empty ? this.emptyAt(value, flow) : this.lines.mark(value.range[1]);
    return { kind: "scalar", tag, value: String(value.value ?? ""), style, start, end };
  }

  collection(value, start) {
    const kind = isMap(value) ? "map" : "seq";
    const tag = value.tag === undefined || value.tag === "!" ? `tag:yaml.org,2002:${kind}` : value.tag;
    return { kind, tag, value: [], flow: Boolean(value.flow), start, end: this.lines.mark(value.range[1]) };
  }

  fill(node, value, flow) {
    for (const item of value.items) {
      if (node.kind === "seq") {
        node.value.push(this.node(item, null, flow));
        continue;
      }
      const key = this.node(item.key, this.next(item.value?.range?.[0] ?? value.range[0]), flow);
      node.value.push([key, this.node(item.value, this.next(item.key?.range[1] ?? key.end.index), flow)]);
    }
  }
}

// The root node of a one-document text, null for none; throws YamlLoadError.
export function compose(text) {
  const lines = new Lines(text);
  const bad = characterError(text, lines);
  if (bad) throw bad;
  const cst = Array.from(new Parser().parse(text));
  const docs = Array.from(new Composer(OPTIONS).compose(cst, true, text.length));
  const error = libraryError(docs, cst, lines) || refusal(text, cst, lines) ||
    cst.reduce((found, token) => found || entryRefusal(token, lines), null) || documentError(cst, lines);
  if (error) throw error;
  if (!cst.some((token) => token.type === "document")) return null;
  const nodes = new Nodes(lines, propertyStarts(cst));
  const root = docs[0].contents;
  return nodes.node(root, null, isScalar(root) && !root.srcToken && !root.anchor && !root.tag);
}
