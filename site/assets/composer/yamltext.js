/* Edit YAML text in place: a port of prereq.yamledit (YamlText, Renderer, load_error).
 *
 * Each edit finds the characters of the value it touches (node marks from yamlload.js, which
 * are libyaml's) and replaces, inserts or deletes only those lines; everything else stays byte for
 * byte (comments, blank lines, quoting, key order, CRLF line ends, a BOM).  New values are
 * written in block style in the file's own indentation; flow collections stay flow collections.
 * Every edit checks itself: the new text is loaded again and must give the old data with the
 * one change; else the enclosing collection is written anew, and when even that fails the edit
 * is refused with a PrereqError and the text is unchanged.
 *
 * For the same text and the same edits this gives the same text as the CLI, byte for byte.
 * Values and paths are plain JSON-like data; internally they are kept in Python's types
 * (yamlscalar.js), so an integral number is an int (pass a PyFloat to write a float 1.0). */

import { PrereqError } from "./errors.js";
import { YamlLoadError, compose, loadYaml } from "./yamlload.js";
import {
  PyDict, deepCopy, dumpNumber, dumpString, fromPlain, isPrintable, isPyInt, jsonString, pyEq, pyError, pyRepr,
  pyStr, strictEqual, toPlain, typeName,
} from "./yamlscalar.js";

export { PyFloat } from "./yamlscalar.js"; // for a float with an integral value: set(path, new PyFloat(1))

/* A splice does not apply to this layout: fall back to rewriting the parent. */
class NotHere extends Error {}

/* The PrereqError for text that loadYaml refused: ``source:line:column: [what: ]why``. */
export function loadError(source, exc, { what = "", hint = "fix the YAML first", exitCode = 1 } = {}) {
  const issue = exc.issues[0];
  const where = issue.line ? `${source}:${issue.line}:${issue.column}` : source;
  return new PrereqError(`${where}: ${what ? what + ": " : ""}${issue.message}`, { hint, exitCode });
}

function load(text, source) {
  try {
    return loadYaml(text);
  } catch (error) {
    if (error instanceof YamlLoadError) throw loadError(source, error);
    throw error;
  }
}

function isDict(value) {
  if (value instanceof PyDict) return true;
  const proto = value !== null && typeof value === "object" && !Array.isArray(value) ? Object.getPrototypeOf(value) : undefined;
  return proto === Object.prototype || proto === null;
}

function dictEntries(value) {
  return value instanceof PyDict ? value.entries() : Object.entries(value);
}

function isEmptyCollection(value) {
  return Array.isArray(value) ? value.length === 0 : isDict(value) && dictEntries(value).length === 0;
}

/* True when ``text`` after ``k: `` loads (strictly, YAML 1.2 core) as ``value``. */
function readsBack(text, value) {
  try {
    return pyEq(loadYaml("k: " + text + "\n").typed, new PyDict([["k", value]]));
  } catch (error) {
    if (error instanceof YamlLoadError) return false;
    throw error;
  }
}

/* Block-style YAML for new values, in the file's own indentation (plain or Python-typed values). */
export class Renderer {
  constructor({ indent = 2, indentSequences = true } = {}) {
    this.indent = indent;
    this.indentSequences = indentSequences;
  }

  /* A one-line scalar, or "" when ``value`` needs a block (multi-line string). */
  scalar(value) {
    if (value === null) return "null";
    if (typeof value === "boolean") return value ? "true" : "false";
    const type = isDict(value) ? "dict" : typeName(value);
    if (type === "int" || type === "float") return dumpNumber(value);
    if (isEmptyCollection(value)) return type === "dict" ? "{}" : "[]";
    if (typeof value !== "string") throw pyError("TypeError", `cannot write a ${type} as YAML`);
    if (value.includes("\n") && Renderer.literalOk(value)) return "";
    if (!value.includes("\n") && !value.includes("\r")) {
      const text = dumpString(value);
      if (!text.includes("\n") && readsBack(text, value)) return text;
    }
    return jsonString(value); // JSON strings are YAML double-quoted scalars
  }

  static literalOk(value) {
    if (" \t\n".includes(value[0]) || value.includes("\r")) return false;
    return Array.from(value).every((ch) => isPrintable(ch) || ch === "\n" || ch === "\t") && !value.includes("\ufeff");
  }

  literal(value, column) {
    const trailing = value.length - value.replace(/\n+$/, "").length;
    const chomp = trailing === 0 ? "-" : trailing === 1 ? "" : "+";
    const body = chomp === "+" ? value.slice(0, value.length - trailing) : value.replace(/\n$/, "");
    const lines = body.split("\n").map((line) => (line ? " ".repeat(column) + line : ""));
    if (chomp === "+") lines.push(...Array(trailing - 1).fill(""));
    return ["|" + chomp, ...lines];
  }

  isBlock(value) {
    return (isDict(value) || Array.isArray(value)) && !isEmptyCollection(value);
  }

  /* The text after ``key:`` (a key at ``column``) or ``-`` (a dash at ``column``): the first element
   * continues the indicator's line (it starts with a space or is empty), the others are whole lines. */
  afterIndicator(value, column, { inSequence }) {
    if (!this.isBlock(value)) {
      const scalar = this.scalar(value);
      if (scalar) return [" " + scalar];
      const literal = this.literal(value, column + (inSequence ? 2 : this.indent));
      return [" " + literal[0], ...literal.slice(1)];
    }
    if (inSequence) {
      // "- key: value" / "- - item": the collection starts on the dash's line.
      const lines = this.lines(value, column + 2);
      return [" " + lines[0].slice(column + 2), ...lines.slice(1)];
    }
    const child = column + (isDict(value) || this.indentSequences ? this.indent : 0);
    return ["", ...this.lines(value, child)];
  }

  /* A non-empty mapping or sequence as block lines starting at ``column``. */
  lines(value, column) {
    const out = [];
    if (isDict(value)) {
      for (const [key, child] of dictEntries(value)) out.push(...this.pair(key, child, column));
      return out;
    }
    for (const child of value) {
      const rest = this.afterIndicator(child, column, { inSequence: true });
      out.push(" ".repeat(column) + "-" + rest[0], ...rest.slice(1));
    }
    return out;
  }

  pair(key, value, column) {
    let keyText = this.scalar(key);
    if (!keyText || keyText.startsWith("[") || keyText.startsWith("{")) keyText = jsonString(pyStr(key));
    const rest = this.afterIndicator(value, column, { inSequence: false });
    return [" ".repeat(column) + keyText + ":" + rest[0], ...rest.slice(1)];
  }

  /* A flow collection on one line (for collections the file writes in flow style). */
  flow(value) {
    if (isDict(value)) return "{" + dictEntries(value).map(([k, v]) => `${this.flowScalar(k)}: ${this.flow(v)}`).join(", ") + "}";
    if (Array.isArray(value)) return "[" + value.map((item) => this.flow(item)).join(", ") + "]";
    return this.flowScalar(value);
  }

  flowScalar(value) {
    if (typeof value === "string") {
      const text = dumpString(value, { flow: true });
      return !text.includes("\n") && readsBack("[" + text + "]", [value]) ? text : jsonString(value);
    }
    return this.scalar(value) || jsonString(String(value));
  }
}

// ------------------------------------------------------------------------------ paths

/* list[index] as Python indexes: negative from the end, bools as 0 and 1. */
function listIndex(list, index) {
  let at = Number(index);
  if (at < 0) at += list.length;
  if (!(at >= 0 && at < list.length)) throw pyError("IndexError", "list index out of range");
  return at;
}

function getPath(data, path) {
  for (const part of path) {
    if (data instanceof PyDict) data = data.get(part);
    else if (Array.isArray(data) && isPyInt(part)) data = data[listIndex(data, part)];
    else throw pyError("TypeError", pyRepr(part));
  }
  return data;
}

function isLookupError(error) {
  return ["KeyError", "IndexError", "TypeError"].includes(error.name);
}

function show(path) {
  let out = "";
  for (const part of path) out += isPyInt(part) ? `[${pyRepr(part)}]` : (out ? "." : "") + pyStr(part);
  return out;
}

function isEmptyPlain(node) {
  return node.kind === "scalar" && node.value === "" && node.style === "" && node.start.index === node.end.index;
}

function sameKey(keyNode, key) {
  if (typeof key === "string") return keyNode.value === key;
  if (keyNode.style !== "") return false;
  let data;
  try {
    data = loadYaml(`k: ${keyNode.value}\n`).typed;
  } catch (error) {
    if (error instanceof YamlLoadError) return false;
    throw error;
  }
  if (!(data instanceof PyDict)) throw pyError("TypeError", "'NoneType' object is not subscriptable");
  return pyEq(data.get("k"), key);
}

/* str.lstrip() with Python's whitespace (not JavaScript's: NEL yes, BOM no). */
function pyLstrip(text) {
  return text.replace(/^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/, "");
}

// ------------------------------------------------------------------------------ the document

/* A YAML document as text, edited in place.  Paths are arrays of mapping keys and sequence indexes. */
export class YamlText {
  constructor(text, { source = "<yaml>" } = {}) {
    this.source = source;
    this.newline = text.includes("\r\n") ? "\r\n" : "\n";
    this._bom = text.startsWith("\ufeff") ? "\ufeff" : "";
    this._setText(text.slice(this._bom.length));
    this.originalLoaded = this._loaded; // positions in the text as it was read, for messages about it
    this.renderer = this._detectStyle();
  }

  /* The whole current text. */
  get text() {
    return this._bom + this._t;
  }

  /* The current data, plain JSON-like (see yamlload.js for floats and non-string keys). */
  get data() {
    return this._loaded.data;
  }

  /* The strict load of the current text, with positions (as yamledit's; originalLoaded is the first one). */
  get loaded() {
    return this._loaded;
  }

  /* Take ``text`` (without BOM) as the body; its nodes are composed only when a splice needs them. */
  _setText(text, loaded = null) {
    this._t = text;
    this._loaded = loaded || load(text, this.source);
    this._typed = this._loaded.typed;
    this._rootNode = undefined;
  }

  get _root() {
    if (this._rootNode === undefined) this._rootNode = compose(this._t);
    return this._rootNode;
  }

  exists(path) {
    try {
      getPath(this._typed, path);
      return true;
    } catch (error) {
      if (isLookupError(error)) return false;
      throw error;
    }
  }

  get(path, fallback = undefined) {
    try {
      return toPlain(getPath(this._typed, path));
    } catch (error) {
      if (isLookupError(error)) return fallback;
      throw error;
    }
  }

  _node(path) {
    let node = this._root;
    for (const part of path) {
      if (node?.kind === "map") node = this._pair(node, part)[2];
      else if (node?.kind === "seq" && isPyInt(part)) node = node.value[listIndex(node.value, part)];
      else throw pyError("KeyError", pyRepr(part));
    }
    if (node === null) throw pyError("KeyError", pyRepr(path));
    return node;
  }

  _pair(node, key) {
    for (const [position, [keyNode, valueNode]] of node.value.entries()) {
      if (keyNode.kind === "scalar" && sameKey(keyNode, key)) return [position, keyNode, valueNode];
    }
    throw pyError("KeyError", pyRepr(key));
  }

  _detectStyle() {
    const indents = [];
    const sequenceStyles = [];
    const walk = (node) => {
      if (node?.kind === "map" && !node.flow) {
        for (const [keyNode, valueNode] of node.value) {
          const below = valueNode.start.line > keyNode.start.line;
          if (valueNode.kind === "map" && !valueNode.flow && valueNode.value.length) {
            const step = valueNode.start.column - keyNode.start.column;
            if (step > 0 && below) indents.push(step);
          }
          if (valueNode.kind === "seq" && !valueNode.flow && valueNode.value.length && below) {
            sequenceStyles.push(valueNode.start.column > keyNode.start.column);
          }
          walk(valueNode);
        }
      } else if (node?.kind === "seq") {
        node.value.forEach(walk);
      }
    };
    walk(this._root);
    const indent = indents.length ? indents.reduce((a, b) => Math.min(a, b)) : 2;
    return new Renderer({ indent: Math.max(indent, 1), indentSequences: sequenceStyles.length ? sequenceStyles[0] : true });
  }

  // -- positions (UTF-16 indexes into the body; columns in code points, as libyaml and Python count)
  _lineStart(index) {
    return index > 0 ? this._t.lastIndexOf("\n", index - 1) + 1 : 0;
  }

  /* The index just past the line break of the line holding ``index``. */
  _lineEnd(index) {
    const found = this._t.indexOf("\n", index);
    return found < 0 ? this._t.length : found + 1;
  }

  /* Only blanks before ``index`` on its line. */
  _ownsLine(index) {
    return /^[ \t]*$/.test(this._t.slice(this._lineStart(index), index));
  }

  /* Just past the last character that belongs to ``node`` (not trailing blank lines or comments). */
  _contentEnd(node) {
    const block = (node.kind === "map" || node.kind === "seq") && !node.flow && node.value.length;
    if (block && node.kind === "map") {
      const [keyNode, valueNode] = node.value[node.value.length - 1];
      const valueEnd = this._contentEnd(valueNode);
      return Math.max(valueEnd, this._colonEnd(keyNode));
    }
    if (block) return this._contentEnd(node.value[node.value.length - 1]);
    let end = node.end.index;
    if (node.kind === "scalar" && (node.style === "|" || node.style === ">")) {
      while (end > node.start.index && " \t\r\n".includes(this._t[end - 1])) end--;
    }
    return end;
  }

  _colonEnd(keyNode) {
    let index = keyNode.end.index;
    while (index < this._t.length && " \t".includes(this._t[index])) index++;
    if (this._t[index] !== ":") throw new NotHere();
    return index + 1;
  }

  _dash(item) {
    let index = item.start.index - 1;
    while (index >= 0 && " \t".includes(this._t[index])) index--;
    if (index < 0 || this._t[index] !== "-") throw new NotHere();
    return index;
  }

  /* The start of the comment lines right above ``lineStart`` (they belong to what follows). */
  _aboveComments(lineStart) {
    let at = lineStart;
    while (at > 0) {
      const previous = this._lineStart(at - 1);
      if (!pyLstrip(this._t.slice(previous, at)).startsWith("#")) break;
      at = previous;
    }
    return at;
  }

  _column(index) {
    return Array.from(this._t.slice(this._lineStart(index), index)).length;
  }

  _join(lines) {
    return lines.join(this.newline);
  }

  // -- editing
  /* Set a mapping key (replace its value, or add the key) or a sequence item.  A new key goes after
   * the last of ``after`` that the mapping has, else before the first of ``before``, else at the end;
   * missing parent mappings are created. */
  set(path, value, { before = [], after = [] } = {}) {
    if (!path.length) throw pyError("ValueError", "cannot replace the whole document");
    value = fromPlain(value);
    if (this.exists(path)) {
      const current = getPath(this._typed, path);
      if (pyEq(current, value) && typeName(current) === typeName(value)) return;
      this._edit(path.slice(0, -1), (parent) => assign(parent, path[path.length - 1], value),
        () => this._spliceReplace(path, value));
      return;
    }
    const parentPath = path.slice(0, -1);
    const key = path[path.length - 1];
    if (!this.exists(parentPath) || getPath(this._typed, parentPath) === null) {
      if (parentPath.length && !isPyInt(key)) {
        this.set(parentPath, new PyDict([[key, deepCopy(value)]]));
        return;
      }
    }
    const parent = getPath(this._typed, parentPath);
    if (!(parent instanceof PyDict)) {
      throw new PrereqError(`${this.source}: ${show(parentPath)} is not a mapping; cannot add ${pyRepr(key)}`);
    }
    const position = insertPosition(parent, before, after);
    this._edit(parentPath, (container) => container.insert(position, key, deepCopy(value)),
      () => this._spliceInsertKey(parentPath, position, key, value));
  }

  /* Insert ``value`` into the sequence at ``path`` minus its last part, at that index (its length appends). */
  insert(path, value) {
    value = fromPlain(value);
    if (!path.length) throw pyError("IndexError", "tuple index out of range");
    const parentPath = path.slice(0, -1);
    const index = path[path.length - 1];
    const parent = getPath(this._typed, parentPath);
    if (!Array.isArray(parent)) throw new PrereqError(`${this.source}: ${show(parentPath)} is not a list`);
    if (!isPyInt(index)) throw pyError("TypeError", `'<=' not supported for ${pyRepr(index)}`);
    if (!(Number(index) >= 0 && Number(index) <= parent.length)) throw pyError("IndexError", pyRepr(index));
    this._edit(parentPath, (container) => container.splice(Number(index), 0, deepCopy(value)),
      () => this._spliceInsertItem(parentPath, Number(index), value));
  }

  /* Remove a mapping key or a sequence item, with its lines. */
  delete(path) {
    if (!this.exists(path)) throw pyError("KeyError", pyRepr(path));
    if (!path.length) throw pyError("IndexError", "tuple index out of range");
    const key = path[path.length - 1];
    const remove = (container) => (Array.isArray(container) ? container.splice(listIndex(container, key), 1) : container.delete(key));
    this._edit(path.slice(0, -1), remove, () => this._spliceDelete(path));
  }

  /* The self-checking edit: the splice, else each enclosing collection written anew. */
  _edit(parentPath, apply, splice) {
    const expected = deepCopy(this._typed);
    apply(parentPath.length ? getPath(expected, parentPath) : expected);
    const attempts = [splice];
    for (let cut = parentPath.length; cut >= 0; cut--) {
      attempts.push(() => this._rewrite(parentPath.slice(0, cut), getPath(expected, parentPath.slice(0, cut))));
    }
    for (const attempt of attempts) {
      const newText = tryAttempt(attempt);
      if (newText === null) continue;
      let loaded;
      try {
        loaded = loadYaml(newText);
      } catch (error) {
        if (error instanceof YamlLoadError) continue;
        throw error;
      }
      if (strictEqual(loaded.typed, expected)) {
        this._setText(newText, loaded);
        return;
      }
    }
    throw new PrereqError(`${this.source}: cannot edit ${show(parentPath) || "the document"} without changing other values`,
      { hint: "simplify the YAML layout there (anchors, complex keys), or edit it by hand" });
  }

  _rewrite(path, value) {
    if (path.length) return this._spliceReplace(path, value);
    if (!this.renderer.isBlock(value)) return this.renderer.scalar(value) + this.newline;
    const node = this._root;
    const body = this._join(this.renderer.lines(value, 0));
    if (node === null) return body + this.newline;
    const start = this._lineStart(node.start.index);
    const end = this._contentEnd(node);
    return this._t.slice(0, start) + body + this._t.slice(end);
  }

  // -- splices
  _spliceReplace(path, value) {
    const parent = path.length > 1 ? this._node(path.slice(0, -1)) : this._root;
    const node = this._node(path);
    if (parent?.flow) throw new NotHere(); // rewrite the flow parent whole
    let start;
    let column;
    const inSequence = parent?.kind === "seq";
    if (parent?.kind === "map") {
      const keyNode = this._pair(parent, path[path.length - 1])[1];
      start = this._colonEnd(keyNode);
      column = this._column(keyNode.start.index);
    } else if (inSequence) {
      const dash = this._dash(node);
      start = dash + 1;
      column = this._column(dash);
    } else {
      throw new NotHere();
    }
    const end = isEmptyPlain(node) ? start : this._contentEnd(node);
    const t = this._t;
    if (node.flow && node.value.length && this.renderer.isBlock(value)) {
      return t.slice(0, start) + " " + this.renderer.flow(value) + t.slice(end);
    }
    const blockNode = (node.kind === "map" || node.kind === "seq") && node.value.length > 0 && !node.flow;
    if (!inSequence && this.renderer.isBlock(value) && blockNode && this._ownsLine(node.start.index) &&
        isDict(value) === (node.kind === "map")) {
      // Block collection for block collection: keep the lines before it (a comment after "key:")
      // and its own indentation.
      const at = this._lineStart(node.start.index);
      const lines = this.renderer.lines(value, this._column(node.start.index));
      return t.slice(0, at) + this._join(lines) + t.slice(end);
    }
    const rest = this.renderer.afterIndicator(value, column, { inSequence });
    const text = rest[0] + (rest.length > 1 ? this.newline + this._join(rest.slice(1)) : "");
    return t.slice(0, start) + text + t.slice(end);
  }

  _spliceInsertKey(parentPath, position, key, value) {
    const node = parentPath.length ? this._node(parentPath) : this._root;
    if (node?.kind !== "map" || node.flow || !node.value.length) throw new NotHere();
    if (position < node.value.length) {
      const keyNode = node.value[position][0];
      if (!this._ownsLine(keyNode.start.index)) throw new NotHere();
      return this._insertLinesAt(keyNode.start.index, this.renderer.pair(key, value, this._column(keyNode.start.index)));
    }
    const [previousKey, previousValue] = node.value[position - 1];
    const column = this._column(node.value[0][0].start.index);
    const end = isEmptyPlain(previousValue) ? this._colonEnd(previousKey) : this._contentEnd(previousValue);
    return this._insertLinesAfter(end, this.renderer.pair(key, value, column));
  }

  /* New lines before the line holding ``index``, above the comments that describe that line. */
  _insertLinesAt(index, lines) {
    const at = this._aboveComments(this._lineStart(index));
    return this._t.slice(0, at) + this._join(lines) + this.newline + this._t.slice(at);
  }

  _insertLinesAfter(end, lines) {
    const at = end > 0 ? this._lineEnd(Math.max(end - 1, 0)) : 0;
    let block = this._join(lines) + this.newline;
    if (at === this._t.length && !this._t.endsWith("\n")) block = this.newline + block;
    return this._t.slice(0, at) + block + this._t.slice(at);
  }

  _spliceInsertItem(parentPath, index, value) {
    const node = this._node(parentPath);
    if (node.kind !== "seq" || node.flow || !node.value.length) throw new NotHere(); // the fallback rewrites the list
    if (index < node.value.length) {
      const dash = this._dash(node.value[index]);
      if (!this._ownsLine(dash)) throw new NotHere();
      return this._insertLinesAt(dash, this._itemLines(value, this._column(dash)));
    }
    const last = node.value[node.value.length - 1];
    const dash = this._dash(last);
    if (!this._ownsLine(dash)) throw new NotHere();
    return this._insertLinesAfter(isEmptyPlain(last) ? dash + 1 : this._contentEnd(last), this._itemLines(value, this._column(dash)));
  }

  _itemLines(value, column) {
    const rest = this.renderer.afterIndicator(value, column, { inSequence: true });
    return [" ".repeat(column) + "-" + rest[0], ...rest.slice(1)];
  }

  _spliceDelete(path) {
    const parent = path.length > 1 ? this._node(path.slice(0, -1)) : this._root;
    if (parent.flow || parent.value.length < 2) throw new NotHere(); // the fallback writes the (flow or empty) parent anew
    let first;
    let end;
    if (parent.kind === "map") {
      const [, keyNode, valueNode] = this._pair(parent, path[path.length - 1]);
      first = keyNode.start.index;
      end = isEmptyPlain(valueNode) ? this._colonEnd(keyNode) : this._contentEnd(valueNode);
    } else {
      const valueNode = parent.value[listIndex(parent.value, path[path.length - 1])];
      first = this._dash(valueNode);
      end = isEmptyPlain(valueNode) ? first + 1 : this._contentEnd(valueNode);
    }
    if (!this._ownsLine(first)) throw new NotHere();
    // A trailing comment on the last line goes with the value.
    return this._t.slice(0, this._lineStart(first)) + this._t.slice(this._lineEnd(Math.max(end - 1, first)));
  }
}

function tryAttempt(attempt) {
  try {
    return attempt() ?? null;
  } catch (error) {
    if (error instanceof NotHere) return null;
    throw error;
  }
}

function assign(container, key, value) {
  if (container instanceof PyDict) container.set(key, deepCopy(value));
  else if (Array.isArray(container) && isPyInt(key)) container[listIndex(container, key)] = deepCopy(value);
  else throw pyError("TypeError", pyRepr(key));
}

/* Where a new key goes: after the last of ``after`` present, else before the first of ``before``, else last. */
function insertPosition(parent, before, after) {
  const indexOf = (key) => parent.keys.findIndex((k) => pyEq(k, key));
  const afterFound = after.filter((key) => parent.has(key));
  const beforeFound = before.filter((key) => parent.has(key));
  if (afterFound.length) return Math.max(...afterFound.map(indexOf)) + 1;
  if (beforeFound.length) return Math.min(...beforeFound.map(indexOf));
  return parent.size;
}
