/* Applying a plan (tools/prereq/jobs/apply.py): edits recorded on a working copy of the data, then
 * replayed on the job's YamlText, so that what the planner reads after an edit is what the text holds.
 * May import: core/, yaml/, openpai/, index/.
 */

import { equal } from "../openpai/protocol.js"; // Python's == on plain data too: mapping key order aside

function at(data, path) {
  return path.reduce((value, key) => value[key], data);
}

function clone(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function has(container, key) {
  if (Array.isArray(container)) return typeof key === "number" && key >= 0 && key < container.length;
  return container !== null && typeof container === "object" && Object.prototype.hasOwnProperty.call(container, key);
}

export class WorkingCopy {
  constructor(data) {
    this.data = clone(data);
    this.edits = [];
  }

  get(path, fallback = undefined) {
    let value = this.data;
    for (const key of path) {
      if (!has(value, key)) return fallback;
      value = value[key];
    }
    return value;
  }

  exists(path) {
    const missing = {};
    return this.get(path, missing) !== missing;
  }

  set(path, value, { before = [], after = [] } = {}) {
    this.edits.push({ op: "set", path, value: clone(value), before, after });
    this._set(path, clone(value), before, after);
  }

  _set(path, value, before, after) {
    const parentPath = path.slice(0, -1);
    const key = path[path.length - 1];
    if (this.exists(path)) {
      at(this.data, parentPath)[key] = value;
      return;
    }
    const parentMissing = !this.exists(parentPath) || this.get(parentPath) === null;
    if (parentMissing && parentPath.length && typeof key !== "number") {
      this._set(parentPath, { [key]: value }, [], []);
      return;
    }
    const parent = at(this.data, parentPath);
    const keys = Object.keys(parent);
    let position = keys.length;
    const presentAfter = after.filter((k) => keys.includes(k));
    const presentBefore = before.filter((k) => keys.includes(k));
    if (presentAfter.length) position = Math.max(...presentAfter.map((k) => keys.indexOf(k))) + 1;
    else if (presentBefore.length) position = Math.min(...presentBefore.map((k) => keys.indexOf(k)));
    const entries = Object.entries(parent);
    entries.splice(position, 0, [key, value]);
    for (const k of keys) delete parent[k];
    for (const [k, v] of entries) parent[k] = v;
  }

  insert(path, value) {
    this.edits.push({ op: "insert", path, value: clone(value) });
    at(this.data, path.slice(0, -1)).splice(path[path.length - 1], 0, clone(value));
  }

  delete(path) {
    this.edits.push({ op: "delete", path });
    const parent = at(this.data, path.slice(0, -1));
    const key = path[path.length - 1];
    if (!has(parent, key)) throw new Error(`no ${key} to delete`); // as Python's KeyError
    if (Array.isArray(parent)) parent.splice(key, 1);
    else delete parent[key];
  }
}

/* A run of inserts into (or deletes from) one list goes in at once: the text is read once, not per edit. */
export function applyEdits(doc, edits) {
  if (doc.shares) applyShared(doc, edits);
  else doc.atOnce(runOf(doc, edits));
}

/* applyEdits, with the spliced text given to `shown` if any (and awaited) before the load that checks it: a
 * page paints it meanwhile (composer/README.md, where the engine runs). */
export async function applyEditsShown(doc, edits, shown) {
  if (doc.shares) return applyShared(doc, edits);
  const run = runOf(doc, edits);
  const spliced = doc.spliceAtOnce(run);
  if (spliced?.text && typeof shown === "function") await shown(doc.withBom(spliced.text));
  doc.settleAtOnce(spliced, run);
}

function runOf(doc, edits) {
  const folded = checkedFold(doc.data, edits);
  return () => applyRuns(doc, folded);
}

/* apply._checked_fold: fold(edits) when it gives what they give (it moves an edit before the ones between). */
function checkedFold(data, edits) {
  try {
    const folded = fold(edits);
    const end = (run) => JSON.stringify(run.reduce((copy, edit) => (replay(copy, edit), copy), new WorkingCopy(data)).data);
    return folded.length < edits.length && end(folded) === end(edits) ? folded : edits;
  } catch {
    return edits; // a value not where the fold put it
  }
}

/* apply._folded: each edit touching lines of the text as it is (an edit inside a value an earlier set
 * writes goes into that value; a set or delete drops the earlier edits inside what it writes or removes). */
function fold(edits) {
  let out = [];
  const copies = new Map(); // a set that took edits -> the working copy of its value (copied once)
  const under = (path, prefix) => path.length > prefix.length && prefix.every((part, i) => part === path[i]);
  for (const edit of edits) {
    if (edit.op === "set" || edit.op === "delete") out = out.filter((held) => !under(held.path, edit.path));
    const holders = out.map((held, i) => (held.op === "set" && (under(edit.path, held.path) || same(edit.path, held.path)) ? i : -1));
    const at = Math.max(...holders, -1);
    if (at < 0 || !under(edit.path, out[at].path)) {
      out.push(edit);
      continue;
    }
    if (!copies.has(out[at])) {
      const copy = new WorkingCopy({ value: out[at].value });
      out[at] = { ...out[at], value: copy.data.value };
      copies.set(out[at], copy);
    }
    replay(copies.get(out[at]), { ...edit, path: ["value", ...edit.path.slice(out[at].path.length)] });
  }
  return out;
}

const same = (a, b) => a.length === b.length && a.every((part, i) => part === b[i]);

function applyRuns(doc, edits) {
  let run = [];
  for (const edit of [...edits, null]) {
    if (edit !== null && run.length && continues(run, edit)) {
      run.push(edit);
      continue;
    }
    if (run.length > 1 && run[0].op === "set") replay(doc, { ...run[0], value: [...run[0].value, ...run.slice(1).map((e) => e.value)] });
    else if (run.length > 1 && run[0].op === "insert") doc.insertMany(run[0].path, run.map((e) => e.value));
    else if (run.length > 1) doc.deleteMany(run[0].path.slice(0, -1), run.map((e) => e.path[e.path.length - 1]));
    else if (run.length) replay(doc, run[0]);
    run = edit === null ? [] : [edit];
  }
}

/* apply._continues (the planner deletes from a list's end, so a run of deletes goes backwards). */
function continues(run, edit) {
  const [first, last] = [run[0], run[run.length - 1]];
  const parent = (e) => JSON.stringify(e.path.slice(0, -1));
  const at = (e) => e.path[e.path.length - 1];
  if (first.op === "set" && Array.isArray(first.value) && edit.op === "insert" && parent(edit) === JSON.stringify(first.path)) {
    return at(edit) === first.value.length + run.length - 1;
  }
  if (edit.op !== first.op || !["insert", "delete"].includes(edit.op) || parent(edit) !== parent(first)) return false;
  if (![first, last, edit].every((e) => typeof at(e) === "number")) return false;
  return edit.op === "insert" ? at(edit) === at(first) + run.length : at(edit) === at(last) - 1;
}

function replay(target, edit) {
  if (edit.op === "set") target.set(edit.path, edit.value, { before: edit.before, after: edit.after });
  else if (edit.op === "insert") target.insert(edit.path, edit.value);
  else target.delete(edit.path);
}

/* apply._apply_shared: an edit of an anchored value changes it wherever it is used, so a later edit
 * may find its work done and is left out; the text must end as planned, else sharedEdits refuses. */
function applyShared(doc, edits) {
  const wanted = new WorkingCopy(doc.data);
  for (const edit of edits) replay(wanted, edit);
  const step = new WorkingCopy(doc.data);
  doc.sharedEdits(wanted.data, () => {
    for (const edit of edits) {
      replay(step, edit);
      if (!done(doc, step, edit)) replay(doc, edit);
    }
  });
}

/* apply._done */
function done(doc, step, edit) {
  const parent = edit.path.slice(0, -1);
  if (edit.op === "delete" && !doc.exists(edit.path)) return true;
  if (typeof edit.path[edit.path.length - 1] === "number") return doc.exists(parent) && equal(doc.get(parent), step.get(parent));
  return edit.op !== "delete" && doc.exists(edit.path) && equal(doc.get(edit.path), edit.value);
}
