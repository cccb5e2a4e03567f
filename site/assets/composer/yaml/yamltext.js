/* Editing YAML text in place, a port of prereq.core.yamledit (YamlText, load_error): the same text and
 * edits give the CLI's text, byte for byte.  Each edit checks itself (composer/README.md).  Values are
 * plain JSON-like data, kept in Python's types (pyvalues.js): pass a PyFloat to write a float 1.0.
 * May import: core/, vendor/.
 */

import { PrereqError } from "../core/errors.js";
import {
  PyDict, deepCopy, fromPlain, isPyInt, listIndex, pyEq, pyError, pyStr, strictEqual, toPlain, typeName,
} from "./pyvalues.js";
import { YamlLoadError, formatPath, loadYaml, loadYamlOrNull } from "./yamlload.js";
import { Renderer } from "./yamlrender.js";
import { differences, sharingMarks } from "./yamlshare.js";
import { NotHere, Splicer, applySpans, changedSpan } from "./yamlsplice.js";

export { PyFloat } from "./pyvalues.js";
export { Renderer } from "./yamlrender.js";

/* ``source:line:column: [what: ]why`` for text that loadYaml refused. */
export function loadError(source, exc, { what = "", hint = "fix the YAML first", exitCode = 1 } = {}) {
  const issue = exc.issues[0];
  const where = issue.line ? `${source}:${issue.line}:${issue.column}` : source;
  return new PrereqError(`${where}: ${what ? what + ": " : ""}${issue.message}`, { hint, exitCode });
}

function load(text, source, mergeKeys) {
  try {
    return loadYaml(text, { mergeKeys });
  } catch (error) {
    if (error instanceof YamlLoadError) throw loadError(source, error);
    throw error;
  }
}

// The last text read and its load: the view and the next edit read an edit's text again.
let lastRead = { text: null, mergeKeys: false, loaded: null };

/* yamledit._get: a KeyError, IndexError or TypeError when ``path`` is not there. */
function getPath(data, path) {
  for (const part of path) {
    if (data instanceof PyDict) data = data.get(part);
    else if (Array.isArray(data) && isPyInt(part)) data = data[listIndex(data, part)];
    else throw pyError("TypeError", pyStr(part));
  }
  return data;
}

/* yamledit._detect_style: the file's smallest mapping indent; whether its first block list is indented. */
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

/* Paths are arrays of mapping keys and sequence indexes. */
export class YamlText {
  constructor(text, { source = "<yaml>", mergeKeys = false } = {}) {
    this.source = source;
    this.mergeKeys = mergeKeys;
    // sharedEdits' end: an edit may then change a value shared through an anchor at other paths too.
    this._wanted = null;
    this._spread = null;
    this._spans = null; // the splices of atOnce, when in it
    this.newline = text.includes("\r\n") ? "\r\n" : "\n";
    this._bom = text.startsWith("\ufeff") ? "\ufeff" : "";
    this._setText(text.slice(this._bom.length));
    this.originalLoaded = this._loaded; // for messages about the text as it was read
    this._originalText = this._t;
    this.renderer = detectStyle(this._loaded.root);
  }

  get text() {
    return this._bom + this._t;
  }

  /* A text of this one's, as ``text`` gives it (with the file's BOM). */
  withBom(text) {
    return this._bom + text;
  }

  get data() {
    return this._loaded.data;
  }

  get loaded() {
    return this._loaded;
  }

  /* ``text`` without its BOM; its load and sharingMarks when known. */
  _setText(text, loaded = null, marks = undefined) {
    const known = lastRead.text === text && lastRead.mergeKeys === this.mergeKeys ? lastRead.loaded : null;
    [this._t, this._loaded] = [text, loaded || known || load(text, this.source, this.mergeKeys)];
    lastRead = { text, mergeKeys: this.mergeKeys, loaded: this._loaded };
    this._typed = this._loaded.typed;
    if (marks !== undefined) this._loaded.marks = marks;
  }

  /* Anchors, aliases and merge keys, read once per text. */
  get _textMarks() {
    if (this._loaded.marks === undefined) this._loaded.marks = sharingMarks(this._t);
    return this._loaded.marks;
  }

  get _splicer() {
    return new Splicer(this._t, this._loaded.root, this.renderer, this.newline);
  }

  exists(path) {
    try {
      getPath(this._typed, path);
      return true;
    } catch (error) {
      if (["KeyError", "IndexError", "TypeError"].includes(error.name)) return false;
      throw error;
    }
  }

  get(path, fallback = undefined) {
    return this.exists(path) ? toPlain(getPath(this._typed, path)) : fallback;
  }

  /* A new key goes after the last of ``after`` there, else before the first of ``before``, else last;
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
    const [keys, at] = this._ownPosition(parentPath, parent.keys, position);
    this._edit(parentPath, (container) => container.insert(position, key, deepCopy(value)),
      () => this._splicer.insertKey(parentPath, at, key, value, keys));
  }

  /* ``path`` ends with the index in its list (its length appends). */
  insert(path, value) {
    value = fromPlain(value);
    if (!path.length) throw pyError("IndexError", "tuple index out of range");
    const parentPath = path.slice(0, -1);
    const index = path[path.length - 1];
    const parent = getPath(this._typed, parentPath);
    if (!Array.isArray(parent)) throw new PrereqError(`${this.source}: ${this._show(parentPath)} is not a list`);
    checkInsertIndex(index, parent.length);
    this._edit(parentPath, (container) => container.splice(Number(index), 0, deepCopy(value)),
      () => this._splicer.insertItems(parentPath, Number(index), [value]));
  }

  /* yamledit.insert_many: ``insert`` at index, index + 1..., read and checked once; else one by one. */
  insertMany(path, values) {
    const parentPath = path.slice(0, -1);
    const index = Number(path[path.length - 1]);
    const parent = this.exists(parentPath) ? getPath(this._typed, parentPath) : null;
    if (values.length > 1 && Array.isArray(parent) && index >= 0 && index <= parent.length) {
      const typed = values.map(fromPlain);
      const expected = deepCopy(this._typed);
      getPath(expected, parentPath).splice(index, 0, ...typed.map(deepCopy));
      if (this._batch(() => this._splicer.insertItems(parentPath, index, typed), expected)) return;
    }
    values.forEach((value, offset) => this.insert([...parentPath, index + offset], value));
  }

  /* yamledit.delete_many: ``delete`` of each, read and checked once; else one by one from the last. */
  deleteMany(parentPath, positions) {
    const ordered = [...new Set(positions.map(Number))].sort((a, b) => b - a);
    const parent = this.exists(parentPath) ? getPath(this._typed, parentPath) : null;
    if (ordered.length > 1 && Array.isArray(parent) && ordered.every((p) => p >= 0 && p < parent.length)) {
      const expected = deepCopy(this._typed);
      for (const position of ordered) getPath(expected, parentPath).splice(position, 1);
      if (this._batch(() => this._splicer.deleteItems(parentPath, ordered), expected)) return;
    }
    for (const position of ordered) this.delete([...parentPath, position]);
  }

  /* yamledit.at_once: ``run``'s edits spliced against this one text and checked by one load, else run again. */
  atOnce(run) {
    this.settleAtOnce(this.spliceAtOnce(run), run);
  }

  /* atOnce's splice: null when ``run`` changes nothing, else {base, text}: the text before, and the one
   * spliced (null when the edits cannot go in at once).  Until settleAtOnce, the data is the planned. */
  spliceAtOnce(run) {
    const base = [this._t, this._loaded];
    this._spans = [];
    try {
      run();
      return this._spans.length ? { base, text: applySpans(this._t, this._spans) } : null;
    } catch {
      return { base, text: null }; // what cannot go in at once is made one edit at a time
    } finally {
      this._spans = null;
    }
  }

  /* atOnce's check: the spliced text taken when it loads to the planned data and keeps what is shared,
   * else ``run`` again, one edit at a time, on the text before. */
  settleAtOnce(spliced, run) {
    if (spliced === null) return;
    let loaded = null;
    try {
      loaded = spliced.text ? loadYamlOrNull(spliced.text, { mergeKeys: this.mergeKeys }) : null;
    } catch {
      // not loaded: one edit at a time, below
    }
    const marks = loaded && strictEqual(loaded.typed, this._typed) ? this._keptMarks(spliced.text) : null;
    if (marks !== null) return this._setText(spliced.text, loaded, marks);
    this._setText(...spliced.base);
    run();
  }

  /* In atOnce: the splice's span of the text as it is, and its data for the next edits. */
  _defer(newText, expected) {
    if (newText == null) throw new NotHere();
    this._spans.push(changedSpan(this._t, newText));
    this._typed = expected;
    return true;
  }

  /* yamledit._own_position: in atOnce, ``position`` among the data's ``keys`` as one among the text's. */
  _ownPosition(parentPath, keys, position) {
    if (!this._spans) return [keys, position];
    const own = getPath(this._loaded.typed, parentPath).keys;
    const earlier = keys.slice(0, position).filter((key) => own.some((k) => pyEq(k, key)));
    return [own, earlier.length ? own.findIndex((k) => pyEq(k, earlier[earlier.length - 1])) + 1 : 0];
  }

  /* The splice's text, taken when it loads to ``expected`` (or _sharedChange) and keeps what is shared. */
  _batch(splice, expected, parentPath = null) {
    if (this._spans) return this._defer(splice(), expected);
    const newText = tryAttempt(splice);
    const loaded = newText === null ? null : loadYamlOrNull(newText, { mergeKeys: this.mergeKeys });
    const fits = loaded !== null && (strictEqual(loaded.typed, expected) || (parentPath !== null && this._sharedChange(parentPath)));
    const marks = fits ? this._keptMarks(newText) : null;
    if (marks !== null) this._setText(newText, loaded, marks);
    return marks !== null;
  }

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

  // -- values shared through anchors (aliases, merge keys)

  /* An alias or merge key: one edit may change a value in several places. */
  get shares() {
    return this._textMarks.some(([kind]) => kind === "*" || kind === "<<");
  }

  /* A batch of edits ending at ``wanted``: an edit of a shared value changes every path sharing it; the
   * end must give ``wanted``, else the text is restored and the change refused, naming the anchor. */
  sharedEdits(wanted, run) {
    const saved = [this._t, this._loaded];
    [this._wanted, this._spread] = [fromPlain(wanted), null];
    try {
      run();
      const wrong = differences(this._typed, this._wanted, [])[0];
      if (wrong) throw this._sharingRefusal(this._spread ?? wrong[0]);
    } catch (error) {
      this._setText(...saved);
      throw error;
    } finally {
      this._wanted = null;
    }
  }

  /* A refusal points at the first place where an edit changed what shares its value. */
  _sharedChange(parentPath) {
    if (this._wanted === null) return false;
    if (this._spread === null) this._spread = parentPath;
    return true;
  }

  /* ``newText``'s marks if it kept every anchor, alias and merge key, else null: a rewrite writes shared
   * values out in full. */
  _keptMarks(newText) {
    const marks = this._textMarks;
    if (!marks.length) return marks;
    const [found, count] = [sharingMarks(newText), (list) => list.map(([kind, name]) => `${kind}${name}`).sort().join("\n")];
    return count(found) === count(marks) ? found : null;
  }

  _sharingRefusal(path) {
    const marks = sharingMarks(this._originalText);
    const aliased = new Set(marks.filter(([kind]) => kind === "*").map(([, name]) => name));
    const anchors = marks.filter(([kind, name]) => kind === "&" && aliased.has(name));
    const at = path.length ? this.originalLoaded.position(path)[0] : 1;
    const earlier = anchors.filter(([, , line]) => line <= at);
    const before = earlier.length ? earlier : anchors;
    if (!before.length) {
      return new PrereqError(`${this.source}: cannot change ${formatPath(path)} alone: the merge key ('<<') there shares it`,
        { hint: "write the part that differs out in full instead of merging it, or edit it by hand", exitCode: 1 });
    }
    const [, name, line] = before[before.length - 1];
    const uses = marks.filter(([kind, alias]) => kind === "*" && alias === name).map(([, , where]) => where).join(", ");
    return new PrereqError(`${this.source}: cannot change ${formatPath(path)} alone: it shares the YAML anchor &${name} ` +
      `(line ${line}) with what uses it (line ${uses})`, {
      hint: `make the same change wherever &${name} is used (select the same items in each task role ` +
        "that shares it), or write the part that differs out in full instead of aliasing or merging it",
      exitCode: 1,
    });
  }

  /* The self-checking edit: the splice, else each enclosing collection written anew. */
  _edit(parentPath, apply, splice) {
    const expected = deepCopy(this._typed);
    apply(parentPath.length ? getPath(expected, parentPath) : expected);
    const attempts = [splice];
    for (let cut = parentPath.length; cut >= 0; cut--) {
      attempts.push(() => this._splicer.rewrite(parentPath.slice(0, cut), getPath(expected, parentPath.slice(0, cut))));
    }
    if (attempts.some((attempt) => this._batch(attempt, expected, parentPath))) return;
    throw new PrereqError(`${this.source}: cannot edit ${this._show(parentPath)} without changing other values`,
      { hint: "simplify the YAML layout there (anchors, complex keys), or edit it by hand" });
  }
}

/* Python's errors in its order: ``0 <= index <= length`` first, then list.insert's own check. */
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

function insertPosition(parent, before, after) {
  const indexOf = (key) => parent.keys.findIndex((k) => pyEq(k, key));
  const afterFound = after.filter((key) => parent.has(key));
  const beforeFound = before.filter((key) => parent.has(key));
  if (afterFound.length) return Math.max(...afterFound.map(indexOf)) + 1;
  if (beforeFound.length) return Math.min(...beforeFound.map(indexOf));
  return parent.size;
}
