/* Edit YAML text in place: a port of prereq.core.yamledit (YamlText, load_error).
 *
 * Each edit finds the characters of the value it touches (node marks from yamlload.js, which
 * are libyaml's) and replaces, inserts or deletes only those lines; everything else stays byte for
 * byte (comments, blank lines, quoting, key order, CRLF line ends, a BOM).  New values are
 * written in block style in the file's own indentation; flow collections stay flow collections.
 * Every edit checks itself: the new text is loaded again and must give the old data with the
 * one change; else the enclosing collection is written anew, and when even that fails the edit
 * is refused with a PrereqError and the text is unchanged.
 *
 * Owns: YamlText (reading paths, the file's style, set / insert / delete and the self-checking
 * edit) and loadError.  The splices are yamlsplice.js's, the new values' text yamlrender.js's.
 * For the same text and the same edits this gives the same text as the CLI, byte for byte.
 * Values and paths are plain JSON-like data; internally they are kept in Python's types
 * (pyvalues.js), so an integral number is an int (pass a PyFloat to write a float 1.0).
 *
 * Folder yaml/: prereq.core's YAML loading with positions and in-place editing, and the Python values
 * they work in.
 * May import: core/, vendor/.
 */

import { PrereqError } from "../core/errors.js";
import {
  PyDict, deepCopy, fromPlain, isPyInt, listIndex, pyEq, pyError, pyStr, strictEqual, toPlain, typeName,
} from "./pyvalues.js";
import { YamlLoadError, compose, formatPath, loadYaml, loadYamlOrNull } from "./yamlload.js";
import { Renderer } from "./yamlrender.js";
import { NotHere, Splicer } from "./yamlsplice.js";

export { PyFloat } from "./pyvalues.js"; // for a float with an integral value: set(path, new PyFloat(1))
export { Renderer } from "./yamlrender.js";

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

/* yamledit._get: the value at ``path``; KeyError, IndexError or TypeError when it is not there. */
function getPath(data, path) {
  for (const part of path) {
    if (data instanceof PyDict) data = data.get(part);
    else if (Array.isArray(data) && isPyInt(part)) data = data[listIndex(data, part)];
    else throw pyError("TypeError", pyStr(part));
  }
  return data;
}

function isLookupError(error) {
  return ["KeyError", "IndexError", "TypeError"].includes(error.name);
}

/* The Renderer for the file's style: the smallest indentation step of a block mapping under its
 * key, and whether the first block list under a key is indented (yamledit's _detect_style). */
function detectStyle(root) {
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
  walk(root);
  const indent = indents.length ? indents.reduce((a, b) => Math.min(a, b)) : 2;
  return new Renderer({ indent: Math.max(indent, 1), indentSequences: sequenceStyles.length ? sequenceStyles[0] : true });
}

/* A YAML document as text, edited in place.  Paths are arrays of mapping keys and sequence indexes. */
export class YamlText {
  constructor(text, { source = "<yaml>" } = {}) {
    this.source = source;
    this.newline = text.includes("\r\n") ? "\r\n" : "\n";
    this._bom = text.startsWith("\ufeff") ? "\ufeff" : "";
    this._setText(text.slice(this._bom.length));
    this.originalLoaded = this._loaded; // positions in the text as it was read, for messages about it
    this.renderer = detectStyle(this._root);
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

  /* The splices of the current text, in the file's style. */
  get _splicer() {
    return new Splicer(this._t, this._root, this.renderer, this.newline);
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
        () => this._splicer.replace(path, value));
      return;
    }
    const parentPath = path.slice(0, -1);
    const key = path[path.length - 1];
    const missingParent = !this.exists(parentPath) || getPath(this._typed, parentPath) === null;
    if (missingParent && parentPath.length && !isPyInt(key)) {
      this.set(parentPath, new PyDict([[key, deepCopy(value)]]));
      return;
    }
    const parent = getPath(this._typed, parentPath);
    if (!(parent instanceof PyDict)) {
      throw new PrereqError(`${this.source}: ${this._show(parentPath)} is not a mapping; cannot add '${pyStr(key)}'`);
    }
    const position = insertPosition(parent, before, after);
    this._edit(parentPath, (container) => container.insert(position, key, deepCopy(value)),
      () => this._splicer.insertKey(parentPath, position, key, value));
  }

  /* Insert ``value`` into the sequence at ``path`` minus its last part, at that index (its length appends). */
  insert(path, value) {
    value = fromPlain(value);
    if (!path.length) throw pyError("IndexError", "tuple index out of range");
    const parentPath = path.slice(0, -1);
    const index = path[path.length - 1];
    const parent = getPath(this._typed, parentPath);
    if (!Array.isArray(parent)) throw new PrereqError(`${this.source}: ${this._show(parentPath)} is not a list`);
    checkInsertIndex(index, parent.length);
    this._edit(parentPath, (container) => container.splice(Number(index), 0, deepCopy(value)),
      () => this._splicer.insertItem(parentPath, Number(index), value));
  }

  /* Remove a mapping key or a sequence item, with its lines. */
  delete(path) {
    if (!this.exists(path)) throw pyError("KeyError", path.map(pyStr).join("."));
    if (!path.length) throw pyError("IndexError", "tuple index out of range");
    const key = path[path.length - 1];
    const remove = (container) => (Array.isArray(container) ? container.splice(listIndex(container, key), 1) : container.delete(key));
    this._edit(path.slice(0, -1), remove, () => this._splicer.delete(path));
  }

  _show(path) {
    return formatPath(path, { empty: "the document" });
  }

  /* The self-checking edit: the splice, else each enclosing collection written anew. */
  _edit(parentPath, apply, splice) {
    const expected = deepCopy(this._typed);
    apply(parentPath.length ? getPath(expected, parentPath) : expected);
    const attempts = [splice];
    for (let cut = parentPath.length; cut >= 0; cut--) {
      attempts.push(() => this._splicer.rewrite(parentPath.slice(0, cut), getPath(expected, parentPath.slice(0, cut))));
    }
    for (const attempt of attempts) {
      const newText = tryAttempt(attempt);
      const loaded = newText === null ? null : loadYamlOrNull(newText);
      if (loaded !== null && strictEqual(loaded.typed, expected)) {
        this._setText(newText, loaded);
        return;
      }
    }
    throw new PrereqError(`${this.source}: cannot edit ${this._show(parentPath)} without changing other values`,
      { hint: "simplify the YAML layout there (anchors, complex keys), or edit it by hand" });
  }
}

/* ``0 <= index <= length`` as Python checks it (the range first), then list.insert's own check. */
function checkInsertIndex(index, length) {
  const type = typeName(index);
  if (!["int", "bool", "float"].includes(type)) {
    throw pyError("TypeError", `'<=' not supported between instances of 'int' and '${type}'`);
  }
  if (!(Number(index) >= 0 && Number(index) <= length)) throw pyError("IndexError", pyStr(index));
  if (type === "float") throw pyError("TypeError", "'float' object cannot be interpreted as an integer");
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
  else throw pyError("TypeError", pyStr(key));
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
