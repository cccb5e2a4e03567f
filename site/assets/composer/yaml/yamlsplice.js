/* The splices of prereq.core.yamledit: one edit's new text (without BOM), where the node marks say.
 * Indexes are UTF-16; columns count code points, as libyaml and Python do.
 * May import: core/, vendor/.
 */

import { PY_SPACE } from "../core/placeholders.js";
import { isPyInt, listIndex, pyEq, pyError, pyStr } from "./pyvalues.js";
import { loadYamlOrNull } from "./yamlload.js";
import { isDict } from "./yamlrender.js";

/* yamlsplice.changed_span: the shortest span of ``old`` that ``newText`` replaces, [start, end, text],
 * its ends on code points (as Python's are). */
export function changedSpan(old, newText) {
  const limit = Math.min(old.length, newText.length);
  let start = commonLength((n) => old.slice(0, n) === newText.slice(0, n), limit);
  if (start > 0 && isHalf(old, start - 1, 0xd800)) start -= 1;
  let tail = commonLength((n) => old.slice(old.length - n) === newText.slice(newText.length - n), limit - start);
  if (tail > 0 && isHalf(old, old.length - tail, 0xdc00)) tail -= 1;
  return [start, old.length - tail, newText.slice(start, newText.length - tail)];
}

const isHalf = (text, at, first) => text.charCodeAt(at) >= first && text.charCodeAt(at) <= first + 0x3ff;

function commonLength(same, limit) {
  let [low, high] = [0, limit];
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (same(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/* yamlsplice.apply_spans: each span replaced, or null when two overlap or touch (their order would matter). */
export function applySpans(text, spans) {
  const ordered = [...spans].sort((a, b) => a[0] - b[0]);
  if (ordered.some((span, i) => i > 0 && ordered[i - 1][1] >= span[0])) return null;
  return ordered.reduceRight((out, [start, end, replacement]) => out.slice(0, start) + replacement + out.slice(end), text);
}

/* The splice does not fit this layout: YamlText rewrites the parent instead. */
export class NotHere extends Error {}

function isEmptyPlain(node) {
  return node.kind === "scalar" && node.value === "" && node.style === "" && node.start.index === node.end.index;
}

/* yamledit._same_key: the key node stands for ``key`` (a non-string key as its plain scalar loads). */
function sameKey(keyNode, key) {
  if (typeof key === "string") return keyNode.value === key;
  if (keyNode.style !== "") return false;
  const loaded = loadYamlOrNull(`k: ${keyNode.value}\n`);
  if (loaded === null) return false;
  if (!isDict(loaded.typed)) throw pyError("TypeError", "'NoneType' object is not subscriptable");
  return pyEq(loaded.typed.get("k"), key);
}

const PY_LEADING_SPACE = new RegExp(`^[${PY_SPACE}]+`); // str.lstrip()'s: Python's whitespace (NEL yes, BOM no)

const ALIAS = /[ \t]*\*[^\s,[\]{}]+/y; // an alias as written: "*name" (yamlsplice.py's _ALIAS)
const isMergeKey = (keyNode) => keyNode.kind === "scalar" && keyNode.value === "<<" && keyNode.style === "";

/* yamlsplice._holder: the mapping whose own text holds ``key``, ``node`` or a ``<<`` source (first
 * source first, as the loaders merge). */
function holder(node, key) {
  if (node.value.some(([k]) => !isMergeKey(k) && k.kind === "scalar" && sameKey(k, key))) return node;
  for (const [keyNode, valueNode] of node.value) {
    if (!isMergeKey(keyNode)) continue;
    for (const source of valueNode.kind === "seq" ? valueNode.value : [valueNode]) {
      if (source.kind !== "map") continue;
      try {
        return holder(source, key);
      } catch (error) {
        if (error.name !== "KeyError") throw error;
      }
    }
  }
  throw pyError("KeyError", pyStr(key));
}

export class Splicer {
  constructor(text, root, renderer, newline) {
    Object.assign(this, { t: text, root, renderer, newline });
  }

  // -- nodes
  node(path) {
    let node = this.root;
    for (const part of path) {
      if (node?.kind === "map") node = this.pair(holder(node, part), part)[2];
      else if (node?.kind === "seq" && isPyInt(part)) node = node.value[listIndex(node.value, part)];
      else throw pyError("KeyError", pyStr(part));
    }
    if (node === null) throw pyError("KeyError", path.map(pyStr).join("."));
    return node;
  }

  /* [position, key node, value node] of ``key`` in a mapping node. */
  pair(node, key) {
    for (const [position, [keyNode, valueNode]] of node.value.entries()) {
      if (keyNode.kind === "scalar" && sameKey(keyNode, key)) return [position, keyNode, valueNode];
    }
    throw pyError("KeyError", pyStr(key));
  }

  parentOf(path) {
    return path.length > 1 ? this.node(path.slice(0, -1)) : this.root;
  }

  // -- positions
  lineStart(index) {
    return index > 0 ? this.t.lastIndexOf("\n", index - 1) + 1 : 0;
  }

  /* Just past the line break of ``index``'s line. */
  lineEnd(index) {
    const found = this.t.indexOf("\n", index);
    return found < 0 ? this.t.length : found + 1;
  }

  ownsLine(index) {
    return /^[ \t]*$/.test(this.t.slice(this.lineStart(index), index));
  }

  /* Just past the last character that belongs to ``node`` (not trailing blank lines or comments). */
  contentEnd(node) {
    const block = (node.kind === "map" || node.kind === "seq") && !node.flow && node.value.length;
    if (block && node.kind === "map") {
      return this.valueEnd(...node.value[node.value.length - 1]); // yamlsplice.py's _content_end
    }
    if (block) return this.contentEnd(node.value[node.value.length - 1]);
    let end = node.end.index;
    if (node.kind === "scalar" && (node.style === "|" || node.style === ">")) {
      while (end > node.start.index && " \t\r\n".includes(this.t[end - 1])) end--;
    }
    return end;
  }

  /* Past a value written as an alias (`key: *name`), which stands there and not where its anchored node
   * (`valueNode`, the composer's) is; null for a value written in place. */
  aliasEnd(keyNode, valueNode) {
    const at = this.colonEnd(keyNode);
    ALIAS.lastIndex = at;
    return valueNode.start.index < at && ALIAS.exec(this.t) ? ALIAS.lastIndex : null;
  }

  valueEnd(keyNode, valueNode) {
    return isEmptyPlain(valueNode) ? this.colonEnd(keyNode) : this.aliasEnd(keyNode, valueNode) ?? this.contentEnd(valueNode);
  }

  itemEnd(dash, item) {
    return isEmptyPlain(item) ? dash + 1 : this.contentEnd(item);
  }

  /* Past ``node``'s anchor and tag (``&a !!map``), which a replaced value keeps; 0 without them. */
  propertiesEnd(node) {
    let index = node.start.index;
    let end = 0;
    while (this.t[index] === "&" || this.t[index] === "!") {
      while (index < this.t.length && !" \t\r\n".includes(this.t[index])) index++;
      end = index;
      while (this.t[index] === " " || this.t[index] === "\t") index++;
    }
    return end;
  }

  firstContent(node) {
    const first = node.value[0];
    return node.kind === "map" ? first[0].start.index : this.dash(first);
  }

  colonEnd(keyNode) {
    let index = keyNode.end.index;
    while (index < this.t.length && " \t".includes(this.t[index])) index++;
    if (this.t[index] !== ":") throw new NotHere();
    return index + 1;
  }

  dash(item) {
    let index = item.start.index - 1;
    while (index >= 0 && " \t".includes(this.t[index])) index--;
    if (index < 0 || this.t[index] !== "-") throw new NotHere();
    return index;
  }

  /* The comment lines right above belong to what follows. */
  aboveComments(lineStart) {
    let at = lineStart;
    while (at > 0) {
      const previous = this.lineStart(at - 1);
      if (!this.t.slice(previous, at).replace(PY_LEADING_SPACE, "").startsWith("#")) break;
      at = previous;
    }
    return at;
  }

  column(index) {
    return Array.from(this.t.slice(this.lineStart(index), index)).length;
  }

  join(lines) {
    return lines.join(this.newline);
  }

  // -- splices
  rewrite(path, value) {
    if (path.length) return this.replace(path, value);
    if (!this.renderer.isBlock(value)) return this.renderer.scalar(value) + this.newline;
    const body = this.join(this.renderer.lines(value, 0));
    if (this.root === null) return body + this.newline;
    const start = this.lineStart(this.root.start.index);
    return this.t.slice(0, start) + body + this.t.slice(this.contentEnd(this.root));
  }

  replace(path, value) {
    const parent = this.parentOf(path);
    const node = this.node(path);
    if (parent?.flow) throw new NotHere(); // rewrite the flow parent whole
    const inSequence = parent?.kind === "seq";
    let start;
    let column;
    if (inSequence) { // else a mapping: node() found ``path`` in its parent
      const dash = this.dash(node);
      start = dash + 1;
      column = this.column(dash);
    } else {
      const keyNode = this.pair(holder(parent, path[path.length - 1]), path[path.length - 1])[1];
      start = this.colonEnd(keyNode);
      column = this.column(keyNode.start.index);
    }
    const end = isEmptyPlain(node) ? start : this.contentEnd(node);
    start = Math.max(start, this.propertiesEnd(node));
    const within = this.replaceCollection(node, value, start, end, inSequence);
    if (within !== null) return within;
    return this.t.slice(0, start) + this.join(this.renderer.afterIndicator(value, column, { inSequence })) + this.t.slice(end);
  }

  /* Flow stays flow, block stays block; else null. */
  replaceCollection(node, value, start, end, inSequence) {
    if (node.flow && node.value.length && this.renderer.isBlock(value)) {
      return this.t.slice(0, start) + " " + this.renderer.flow(value) + this.t.slice(end);
    }
    const blockNode = (node.kind === "map" || node.kind === "seq") && node.value.length > 0 && !node.flow;
    if (!inSequence && this.renderer.isBlock(value) && blockNode && this.ownsLine(this.firstContent(node)) &&
        isDict(value) === (node.kind === "map")) {
      // Keep the lines before it (an anchor or comment after "key:") and its own indentation.
      const at = this.lineStart(this.firstContent(node));
      const lines = this.renderer.lines(value, this.column(this.firstContent(node)));
      return this.t.slice(0, at) + this.join(lines) + this.t.slice(end);
    }
    return null;
  }

  /* ``keys`` include merged ones: the new key goes after the mapping's own last key before ``position``,
   * else after its merge keys. */
  insertKey(parentPath, position, key, value, keys = []) {
    const node = parentPath.length ? this.node(parentPath) : this.root;
    if (node?.kind !== "map" || node.flow || !node.value.length) throw new NotHere();
    if (node.value.some(([k]) => isMergeKey(k))) {
      const earlier = keys.slice(0, position);
      const after = node.value.flatMap(([k], i) => (!isMergeKey(k) && earlier.some((e) => sameKey(k, e)) ? [i] : []));
      const merges = node.value.flatMap(([k], i) => (isMergeKey(k) ? [i] : []));
      position = (after.length ? after[after.length - 1] : merges[merges.length - 1]) + 1;
    }
    if (position < node.value.length) {
      const keyNode = node.value[position][0];
      if (!this.ownsLine(keyNode.start.index)) throw new NotHere();
      return this.insertLinesAt(keyNode.start.index, this.renderer.pair(key, value, this.column(keyNode.start.index)));
    }
    const [previousKey, previousValue] = node.value[position - 1];
    const column = this.column(node.value[0][0].start.index);
    return this.insertLinesAfter(this.valueEnd(previousKey, previousValue), this.renderer.pair(key, value, column));
  }

  /* The same text as inserting each at ``index``, ``index + 1``... */
  insertItems(parentPath, index, values) {
    const node = this.node(parentPath);
    if (node.kind !== "seq" || node.flow || !node.value.length) throw new NotHere(); // the fallback rewrites the list
    const lines = (column) => this.renderer.lines(values, column); // the items' lines, as a list's
    if (index < node.value.length) {
      const dash = this.dash(node.value[index]);
      if (!this.ownsLine(dash)) throw new NotHere();
      return this.insertLinesAt(dash, lines(this.column(dash)));
    }
    const last = node.value[node.value.length - 1];
    const dash = this.dash(last);
    if (!this.ownsLine(dash)) throw new NotHere();
    return this.insertLinesAfter(this.itemEnd(dash, last), lines(this.column(dash)));
  }

  /* The same text as deleting each, from the last; at least one item stays. */
  deleteItems(parentPath, positions) {
    const parent = this.node(parentPath);
    if (parent.kind !== "seq" || parent.flow || parent.value.length <= positions.length) throw new NotHere();
    let text = this.t;
    for (const position of [...positions].sort((a, b) => b - a)) { // from the end: earlier offsets stay true
      const item = parent.value[position];
      const first = this.dash(item);
      const end = this.itemEnd(first, item);
      if (!this.ownsLine(first)) throw new NotHere();
      text = text.slice(0, this.lineStart(first)) + text.slice(this.lineEnd(Math.max(end - 1, first)));
    }
    return text;
  }

  /* New lines above ``index``'s line and the comments that describe it. */
  insertLinesAt(index, lines) {
    const at = this.aboveComments(this.lineStart(index));
    return this.t.slice(0, at) + this.join(lines) + this.newline + this.t.slice(at);
  }

  insertLinesAfter(end, lines) {
    const at = end > 0 ? this.lineEnd(Math.max(end - 1, 0)) : 0;
    let block = this.join(lines) + this.newline;
    if (at === this.t.length && !this.t.endsWith("\n")) block = this.newline + block;
    return this.t.slice(0, at) + block + this.t.slice(at);
  }

  /* The key's or item's lines go, with a trailing comment on its last line. */
  delete(path) {
    const key = path[path.length - 1];
    const parent = this.parentOf(path);
    if (parent?.kind === "seq") return this.deleteItems(path.slice(0, -1), [listIndex(parent.value, key)]);
    const holding = parent?.kind === "map" ? holder(parent, key) : null; // a merged key, where it is written
    if (!holding || holding.flow || holding.value.length < 2) throw new NotHere(); // the fallback writes the parent anew
    const [, keyNode, valueNode] = this.pair(holding, key);
    const [first, end] = [keyNode.start.index, this.valueEnd(keyNode, valueNode)];
    if (!this.ownsLine(first)) throw new NotHere();
    return this.t.slice(0, this.lineStart(first)) + this.t.slice(this.lineEnd(Math.max(end - 1, first)));
  }
}
