/* A YAML text as nodes with libyaml's marks, read by the vendored `yaml` library's parser and composer.
 *
 * The CLI composes with libyaml (yaml.CSafeLoader); the composer reads the text with the library's
 * concrete syntax tree (it keeps every character) and composed documents, and gives the nodes the
 * rest of yaml/ works on: {kind: "scalar"|"seq"|"map", tag, value, style, flow, start, end}, where
 * start and end are {index (UTF-16, for slicing), line, column (0-based, in code points)} placed as
 * libyaml places them (a node starts at its anchor or tag; an empty value at the ':' or '-' before
 * it, or at its properties).  Plain untagged scalars get PLAIN_TAG, as yamlload.py's loader gives them.
 *
 * Owns: which texts the browser reads.  It refuses what libyaml refuses: the library's own errors
 * (at the line libyaml names, in the library's words), and what the library reads and libyaml does
 * not (checks below: tabs where libyaml wants indentation, "x:[" in brackets, a second document
 * without "---", undefined aliases, duplicate anchors, %YAML other than 1.1 and 1.2, control
 * characters).  It also refuses line breaks other than LF and CRLF, which libyaml reads as breaks and
 * the library as text: the browser refuses such a text where the CLI reads it (a case's
 * browser_refuses says so, tests/cases/README.md).
 *
 * Folder yaml/: prereq.core's YAML loading with positions and in-place editing, and the Python values
 * they work in.
 * May import: core/, vendor/.
 */

import { Composer, Parser, isAlias, isMap, isScalar } from "../../vendor/prereq-vendor.js";

export const PLAIN_TAG = "tag:prereq,2024:plain";
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
class Lines {
  constructor(text) {
    this.text = text;
    this.starts = [0];
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.starts.push(i + 1);
    this.astral = /[\ud800-\udfff]/.test(text);
  }

  mark(index) {
    // At the end of a text that does not end its line, libyaml's mark is the start of the line after.
    if (index >= this.text.length && this.text && !this.text.endsWith("\n")) return { index, line: this.starts.length, column: 0 };
    let [low, high] = [0, this.starts.length - 1];
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle] <= index) low = middle;
      else high = middle - 1;
    }
    const from = this.starts[low];
    return { index, line: low, column: this.astral ? Array.from(this.text.slice(from, index)).length : index - from };
  }

  issue(message, index, kind = "syntax") {
    const { line, column } = this.mark(index);
    return new YamlLoadError([issue(kind, message, line + 1, column + 1)]);
  }
}

/* The characters libyaml's reader takes (YAML's printable set); the browser also wants LF or CRLF
 * line ends and no byte order mark but a first one, which libyaml skips at the start of any line.
 * The error for the first other character. */
function characterError(text, lines) {
  const bad = /[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]|\r(?!\n)|(?!^)\ufeff/u.exec(text);
  if (!bad) return null;
  const code = bad[0].codePointAt(0);
  const message = [13, 0x85, 0x2028, 0x2029].includes(code) ? "line breaks other than LF and CRLF are not read here"
    : code === 0xfeff ? "a byte order mark is read only at the start" : `control characters are not allowed: #x${code.toString(16).padStart(4, "0")}`;
  return lines.issue(message, bad.index);
}

// ------------------------------------------------------------------------------ the syntax tree

/* The leaf tokens of the syntax tree in text order, each with its flow depth and the item it is in. */
function leaves(tokens) {
  const out = [];
  const walk = (token, flow, item) => {
    if (!token) return;
    if (Array.isArray(token)) return token.forEach((t) => walk(t, flow, item));
    if (token.type === "document") return [token.start, token.value, token.end].forEach((t) => walk(t, flow, item));
    if (token.type === "block-scalar") {
      const last = token.props[token.props.length - 1];
      const body = { ...token, type: "block-scalar-body", offset: last.offset + last.source.length };
      return [token.props, body].forEach((t) => walk(t, flow, item));
    }
    if (!token.items) {
      out.push({ token, flow, item });
      return walk(token.end, flow, item);
    }
    const inner = flow + (token.type === "flow-collection" ? 1 : 0);
    walk(token.start, inner, item);
    for (const child of token.items) [child.start, child.key, child.sep, child.value].forEach((t) => walk(t, inner, child));
    walk(token.end, flow, item);
  };
  walk(tokens, 0, null);
  return out;
}

const BLANKS = new Set(["space", "newline", "comment", "block-scalar-header"]);

/* Where the anchor and tag of each node start (a node starts there, as in libyaml, not at its value):
 * keyed by the node's token, and by the end of the properties for an empty node, which has none. */
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

/* Where libyaml refuses a block scalar's body the library reads: a tab in a line's indentation, text
 * less indented than blank lines before it, or (at the top) in the first column; -1 when none. */
function blockBody(body, top) {
  let [indent, blank, at, comment] = [-1, 0, 0, -1];
  for (const row of body.split("\n")) {
    const spaces = /^ */.exec(row)[0].length;
    const text = /^ *[^ \r]/.test(row);
    if (row[spaces] === "\t" && (indent < 0 || spaces < indent)) return at + spaces;
    if (indent < 0 && text && spaces < blank) return at;
    if (indent < 0) [indent, blank] = text ? [spaces, blank] : [-1, Math.max(blank, spaces)];
    // At the top libyaml ends the scalar at the first column: comments may follow, nothing else.
    if (top && text && spaces === 0 && row[0] !== "#") return at;
    if (top && text && spaces === 0 && comment < 0) comment = at;
    at += row.length + 1;
  }
  return comment;
}

const CLOSED = { "single-quoted-scalar": /'(?:[^']|'')*'/y, "double-quoted-scalar": /"(?:[^"\\]|\\[^])*"/y };

/* What libyaml refuses and the library reads, token by token: [problem, index], or nothing. */
const TOKEN_CHECKS = [
  // A tab where libyaml wants indentation: at the start of a line, after "- ", "? " or a complex
  // key's ':', outside brackets.
  ({ token, flow, opens }) => token.type === "space" && !flow && opens && token.source.includes("\t") &&
    ["found character that cannot start any token", token.offset + token.source.indexOf("\t")],
  // In brackets, a plain scalar starting with '?' or ':', or a ':' then a flow indicator.
  ({ token, flow, text }) => {
    if (!flow || token.type !== "scalar") return null;
    if (/^[?:]/.test(token.source)) return ["while parsing a flow node did not find expected node content", token.offset];
    const colon = /:[,?[\]{}]/.exec(text.slice(token.offset, token.offset + token.source.length + 2));
    return colon && ["while scanning a plain scalar found unexpected ':'", token.offset + colon.index];
  },
  // In brackets, libyaml reads a ':' and a flow indicator after a plain scalar as part of it.
  ({ token, flow, text, previous }) => token.type === "map-value-ind" && flow && previous?.type === "scalar" &&
    ",?[]{}".includes(text[token.offset + 1] ?? "x") && ["while scanning a plain scalar found unexpected ':'", token.offset],
  // Anchor and alias names of [0-9A-Za-z_-]; a tag followed by a blank (or a ',' in brackets).
  ({ token, flow, text }) => {
    const end = token.offset + token.source?.length;
    if (token.type === "tag" && !/^[ \t\r\n]?$/.test(text[end] ?? "") && !(flow && text[end] === ",")) {
      return ["while scanning a tag did not find expected whitespace or line break", end];
    }
    const name = /^[&*][0-9A-Za-z_-]*/.exec(token.type === "anchor" || token.type === "alias" ? token.source : "")?.[0].length;
    return (name === 1 || name < token.source.length) && [`while scanning an ${token.type} did not find expected alphabetic or numeric character`, token.offset + name];
  },
  // An escape of a surrogate or beyond U+10FFFF in double quotes.
  ({ token }) => {
    if (token.type !== "double-quoted-scalar") return null;
    for (const found of token.source.matchAll(/\\(?:([uU])([0-9a-fA-F]{4,8})|[^])/g)) {
      const code = found[1] && parseInt(found[2].slice(0, found[1] === "u" ? 4 : 8), 16);
      if (code >= 0xd800 && (code <= 0xdfff || code > 0x10ffff)) {
        return ["while parsing a quoted scalar found invalid Unicode character escape code", token.offset + found.index];
      }
    }
    return null;
  },
  // A quoted scalar the library closes early (at the end of a line after a doubled quote).
  ({ token, text }) => {
    const closed = CLOSED[token.type];
    if (!closed) return null;
    closed.lastIndex = token.offset;
    const real = closed.exec(text)?.[0];
    return real !== token.source && ["while scanning a quoted scalar", real ? token.offset + real.length : text.length];
  },
  ({ token, item }) => {
    const at = token.type === "block-scalar-body" ? blockBody(token.source, item === null) : -1;
    return at >= 0 && ["while scanning a block scalar found a tab or less indented text", token.offset + at];
  },
];

/* The first token-level refusal of libyaml's that the library does not make. */
function refusal(text, leafs, lines) {
  let previous = null;
  for (const { token, flow, item } of leafs) {
    const type = previous?.type;
    const opens = !previous || type === "newline" || type === "seq-item-ind" || type === "explicit-key-ind" ||
      (type === "map-value-ind" && item?.explicitKey);
    for (const check of TOKEN_CHECKS) {
      const found = check({ token, flow, opens, item, text, previous });
      if (found) return lines.issue(...found);
    }
    if (!BLANKS.has(token.type) || token.type === "newline") previous = token;
  }
  return null;
}

/* An entry libyaml refuses and the library reads: a ':' with nothing before it (an anchor or a tag
 * makes an empty key), an implicit key whose ':' is on another line, an entry out of its mapping's
 * column, a lone '?' in brackets before another entry. */
function entryRefusal(token, lines, flow = false) {
  for (const [index, item] of (token?.items ?? []).entries()) {
    const inner = flow || token.type === "flow-collection";
    const colon = item.sep?.find((t) => t.type === "map-value-ind");
    const explicit = item.explicitKey || item.start.some((t) => t.type === "explicit-key-ind");
    if (colon && !explicit && !item.key && !item.start.some((t) => t.type === "anchor" || t.type === "tag")) {
      const problem = inner ? "while parsing a flow node did not find expected node content" : "while parsing a block mapping did not find expected key";
      return lines.issue(problem, colon.offset);
    }
    const before = colon ? item.sep.slice(0, item.sep.indexOf(colon)) : [];
    if (colon && !explicit && (before.some((t) => t.type === "newline") || (inner && /\n/.test(item.key?.source ?? "")))) {
      return lines.issue("while scanning a simple key could not find expected ':'", colon.offset);
    }
    const head = [...item.start, item.key].find((t) => t && !BLANKS.has(t.type));
    const first = [...token.items[0].start, token.items[0].key].find((t) => t && !BLANKS.has(t.type));
    if (token.type === "block-map" && head && first && lines.mark(head.offset).column !== lines.mark(first.offset).column) {
      return lines.issue("while parsing a block mapping did not find expected key", head.offset);
    }
    const next = token.items[index + 1];
    if (token.start?.type === "flow-seq-start" && explicit && !item.key?.source && !colon && next) {
      const at = [...next.start, next.key, next.value].find((t) => t && !BLANKS.has(t.type) && t.type !== "comma");
      if (at) return lines.issue("while parsing a flow sequence did not find expected ',' or ']'", at.offset);
    }
    const found = entryRefusal(item.key, lines, inner) || entryRefusal(item.value, lines, inner);
    if (found) return found;
  }
  return token?.type === "document" ? entryRefusal({ items: [{ start: [], value: token.value }] }, lines) : null;
}

// ------------------------------------------------------------------------------ documents and nodes

/* The library's first error (its earliest), and its directive warnings, which libyaml refuses, at
 * the place libyaml finds the problem: an implicit key's ':' when the key runs over lines or holds a
 * mapping, the token after a key that has no ':'. */
function libraryError(docs, leafs, lines) {
  const found = docs.flatMap((doc) => [...doc.errors, ...doc.warnings.filter((w) => w.code === "BAD_DIRECTIVE")]);
  if (!found.length) return null;
  const first = found.reduce((a, b) => (b.pos[0] < a.pos[0] ? b : a));
  const after = (test) => leafs.find(({ token }) => token.offset >= first.pos[0] && test(token))?.token.offset;
  let at = first.pos[0];
  if (/^Implicit keys|^Nested mappings/.test(first.message)) at = after((t) => t.type === "map-value-ind") ?? at;
  if (/^Implicit map keys need to be followed/.test(first.message)) {
    at = after((t) => t.offset > first.pos[0] && !BLANKS.has(t.type)) ?? lines.text.length;
  }
  return lines.issue(first.message.split("\n")[0], Math.min(at, lines.text.length));
}

/* After the first, a document needs "---"; a document that is only "..." is none. */
function documentError(cst, lines) {
  const documents = cst.filter((token) => token.type === "document");
  for (const [position, doc] of documents.entries()) {
    const started = doc.start.some((t) => t.type === "doc-start");
    if (!started && (position > 0 || doc.value === undefined)) {
      const at = doc.value?.offset ?? cst[cst.indexOf(doc) + 1]?.offset ?? doc.offset;
      return lines.issue(position > 0 ? "did not find expected <document start>" : "did not find expected node content", at);
    }
  }
  if (documents.length > 1) {
    const start = documents[1].start.find((t) => t.type === "doc-start");
    throw lines.issue(`${documents.length} YAML documents in one file`, start.offset, "documents");
  }
  return null;
}

class Nodes {
  constructor(lines, starts) {
    Object.assign(this, { lines, starts, anchors: new Map() });
  }

  /* A missing key or value: an empty plain scalar at mark ``at``. */
  empty(at) {
    return { kind: "scalar", tag: PLAIN_TAG, value: "", style: "", start: at, end: at };
  }

  /* Where the next token starts at or after ``index``. */
  next(index) {
    return this.lines.mark(/^(?:[ \t\r\n]|#[^\n]*)*/.exec(this.lines.text.slice(index))[0].length + index);
  }

  /* An empty node's place, as libyaml puts it: just after its properties, or after the ':' or '-'
   * before it in block context; at the next token in brackets and at the top (the library's is
   * after the blanks). */
  emptyAt(value, flow) {
    let at = value.range[0];
    while (at > 0 && " \t".includes(this.lines.text[at - 1])) at--;
    return this.starts.has(at) || !flow ? this.lines.mark(at) : this.next(value.range[0]);
  }

  /* Where a node starts, as libyaml places it: at its properties, else at its value (a block
   * mapping at its first key's); a one-pair mapping in brackets at its '?'. */
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
    if (!isScalar(value)) this.fill(node, value, flow || node.flow);
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

/* The root node of a one-document text (null for none) with libyaml's marks; throws YamlLoadError. */
export function compose(text) {
  const lines = new Lines(text);
  const bad = characterError(text, lines);
  if (bad) throw bad;
  const cst = Array.from(new Parser().parse(text));
  const docs = Array.from(new Composer(OPTIONS).compose(cst, true, text.length));
  const leafs = leaves(cst);
  const error = libraryError(docs, leafs, lines) || refusal(text, leafs, lines) ||
    cst.reduce((found, token) => found || entryRefusal(token, lines), null) || documentError(cst, lines);
  if (error) throw error;
  if (!cst.some((token) => token.type === "document")) return null;
  const nodes = new Nodes(lines, propertyStarts(cst));
  const root = docs[0].contents;
  return nodes.node(root, null, isScalar(root) && !root.srcToken && !root.anchor && !root.tag);
}
