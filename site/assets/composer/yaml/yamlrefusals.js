/* For yamlparse.js: what libyaml refuses and the vendored `yaml` library reads, each in libyaml's words,
 * checked on the library's syntax tree and documents; and where libyaml would name the library's errors.
 *
 * May import: core/, vendor/.
 */

// visit(token, bracket depth, collection entry) each leaf token in text order until one returns something.
export function eachLeaf(tokens, visit) {
  const walk = (token, flow, item) => {
    if (!token) return null;
    if (Array.isArray(token)) {
      for (const child of token) {
        const found = walk(child, flow, item);
        if (found) return found;
      }
      return null;
    }
    if (token.type === "document") return walk(token.start, flow, item) || walk(token.value, flow, item) || walk(token.end, flow, item);
    if (token.type === "block-scalar") {
      const last = token.props[token.props.length - 1];
      const body = { type: "block-scalar-body", offset: last.offset + last.source.length, source: token.source };
      return walk(token.props, flow, item) || visit(body, flow, item);
    }
    if (!token.items) return visit(token, flow, item) || walk(token.end, flow, item);
    const inner = flow + (token.type === "flow-collection" ? 1 : 0);
    let found = walk(token.start, inner, item);
    for (const child of token.items) {
      found ||= walk(child.start, inner, child) || walk(child.key, inner, child) || walk(child.sep, inner, child) ||
        walk(child.value, inner, child);
    }
    return found || walk(token.end, flow, item);
  };
  return walk(tokens, 0, null);
}

export const BLANKS = new Set(["space", "newline", "comment", "block-scalar-header"]);

// Where libyaml refuses a block scalar's body: a tab in a line's indentation, text less indented
// than blank lines before it, or (at the top) in the first column; -1 when none.
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

// By token type: [libyaml's problem, index], or nothing.
const TOKEN_CHECKS = {
  // A tab where libyaml wants indentation: at a line's start, after "- ", "? " or an explicit key's ':'.
  space: ({ token, flow, opens }) => !flow && opens && token.source.includes("\t") &&
    ["found character that cannot start any token", token.offset + token.source.indexOf("\t")],
  // In brackets, a plain scalar starting with '?' or ':', or a ':' then a flow indicator.
  scalar: ({ token, flow, text }) => {
    if (!flow) return null;
    if (/^[?:]/.test(token.source)) return ["while parsing a flow node did not find expected node content", token.offset];
    const colon = /:[,?[\]{}]/.exec(text.slice(token.offset, token.offset + token.source.length + 2));
    return colon && ["while scanning a plain scalar found unexpected ':'", token.offset + colon.index];
  },
  // In brackets, libyaml reads a ':' and a flow indicator after a plain scalar as part of it.
  "map-value-ind": ({ token, flow, text, previous }) => flow && previous?.type === "scalar" &&
    ",?[]{}".includes(text[token.offset + 1] ?? "x") && ["while scanning a plain scalar found unexpected ':'", token.offset],
  // A tag followed by a blank (or a ',' in brackets); anchor and alias names of [0-9A-Za-z_-].
  tag: ({ token, flow, text }) => {
    const end = token.offset + token.source.length;
    return !/^[ \t\r\n]?$/.test(text[end] ?? "") && !(flow && text[end] === ",") &&
      ["while scanning a tag did not find expected whitespace or line break", end];
  },
  anchor: ({ token }) => {
    const name = /^[&*][0-9A-Za-z_-]*/.exec(token.source)[0].length;
    const problem = `while scanning an ${token.type} did not find expected alphabetic or numeric character`;
    return (name === 1 || name < token.source.length) && [problem, token.offset + name];
  },
  // An escape of a surrogate or beyond U+10FFFF in double quotes; a quoted scalar the library
  // closes early (at the end of a line after a doubled quote).
  "double-quoted-scalar": (at) => {
    for (const found of at.token.source.matchAll(/\\(?:([uU])([0-9a-fA-F]{4,8})|[^])/g)) {
      const code = found[1] && parseInt(found[2].slice(0, found[1] === "u" ? 4 : 8), 16);
      if (code >= 0xd800 && (code <= 0xdfff || code > 0x10ffff)) {
        return ["while parsing a quoted scalar found invalid Unicode character escape code", at.token.offset + found.index];
      }
    }
    return closedEarly(at);
  },
  "single-quoted-scalar": (at) => closedEarly(at),
  "block-scalar-body": ({ token, item }) => {
    const at = blockBody(token.source, item === null);
    return at >= 0 && ["while scanning a block scalar found a tab or less indented text", token.offset + at];
  },
};
TOKEN_CHECKS.alias = TOKEN_CHECKS.anchor;

const CLOSED = { "single-quoted-scalar": /'(?:[^']|'')*'/y, "double-quoted-scalar": /"(?:[^"\\]|\\[^])*"/y };

function closedEarly({ token, text }) {
  const closed = CLOSED[token.type];
  closed.lastIndex = token.offset;
  const real = closed.exec(text)?.[0];
  return real !== token.source && ["while scanning a quoted scalar", real ? token.offset + real.length : text.length];
}

/* The first token-level refusal of libyaml's that the library does not make. */
export function refusal(text, cst, lines) {
  const at = { text, previous: null }; // reused for every token
  return eachLeaf(cst, (token, flow, item) => {
    const type = at.previous?.type;
    at.opens = !at.previous || type === "newline" || type === "seq-item-ind" || type === "explicit-key-ind" ||
      (type === "map-value-ind" && item?.explicitKey);
    [at.token, at.flow, at.item] = [token, flow, item];
    const found = TOKEN_CHECKS[token.type]?.(at);
    if (found) return lines.issue(...found);
    if (!BLANKS.has(token.type) || token.type === "newline") at.previous = token;
    return null;
  });
}

// Entries libyaml refuses: a ':' with nothing before it (an anchor or tag makes an empty key), an implicit
// key whose ':' is on another line, one out of its mapping's column, a lone '?' in brackets before another.
export function entryRefusal(token, lines, flow = false) {
  for (const [index, item] of (token?.items ?? []).entries()) {
    const inner = flow || token.type === "flow-collection";
    const colon = item.sep?.find((t) => t.type === "map-value-ind");
    const explicit = item.explicitKey || item.start.some((t) => t.type === "explicit-key-ind");
    if (colon && !explicit && !item.key && !item.start.some((t) => t.type === "anchor" || t.type === "tag")) {
      const problem = inner ? "while parsing a flow node did not find expected node content"
        : "while parsing a block mapping did not find expected key";
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

// The library's earliest error or directive warning (libyaml refuses those), where libyaml finds it:
// an implicit key's ':' when the key runs over lines or holds a mapping, the token after a key with no ':'.
export function libraryError(docs, cst, lines) {
  const found = docs.flatMap((doc) => [...doc.errors, ...doc.warnings.filter((w) => w.code === "BAD_DIRECTIVE")]);
  if (!found.length) return null;
  const first = found.reduce((a, b) => (b.pos[0] < a.pos[0] ? b : a));
  const after = (test) => eachLeaf(cst, (token) => token.offset >= first.pos[0] && test(token) && token)?.offset;
  let at = first.pos[0];
  if (/^Implicit keys|^Nested mappings/.test(first.message)) at = after((t) => t.type === "map-value-ind") ?? at;
  if (/^Implicit map keys need to be followed/.test(first.message)) {
    at = after((t) => t.offset > first.pos[0] && !BLANKS.has(t.type)) ?? lines.text.length;
  }
  return lines.issue(first.message.split("\n")[0], Math.min(at, lines.text.length));
}

// After the first, a document needs "---"; a document that is only "..." is none.
export function documentError(cst, lines) {
  const documents = cst.filter((token) => token.type === "document");
  for (const [position, doc] of documents.entries()) {
    const started = doc.start.some((t) => t.type === "doc-start");
    const empty = doc.value === undefined && !doc.start.some((t) => t.type === "anchor" || t.type === "tag");
    if (!started && (position > 0 || empty)) {
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
