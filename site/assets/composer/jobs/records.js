/* What job editing reads and returns (tools/prereq/jobs/records.py).
 * May import: core/, yaml/, openpai/, index/.
 */

import { byCodePoint } from "../core/order.js";

export const STATE_KEY = "prereq";
export const STATE_PATH = ["extras", STATE_KEY];

/* extras.prereq.queues' record per task role: only the CLI writes it; edits here keep it. */
export const QUEUE_KEYS = ["queue", "environment", "slots", "libraries", "selected", "entries", "image"];

function queueCopy(record) {
  return Object.fromEntries(QUEUE_KEYS.map((key) => [key, Array.isArray(record[key]) ? [...record[key]] : record[key]]));
}

/* extras.prereq; `bound`: the items prereq put in a task role's data:/script:/output: field. */
export class JobState {
  constructor({ index = null, selected = new Map(), lock = new Map(), bound = new Map(), queues = new Map() } = {}) {
    this.index = index;
    this.selected = selected;
    this.lock = lock;
    this.bound = bound;
    this.queues = queues;
  }

  asData() {
    const data = {};
    if (this.index) data.index = this.index;
    data.selected = {};
    for (const [role, names] of this.selected) if (names.length) data.selected[role] = [...names];
    if ([...this.bound.values()].some((names) => names.length)) {
      data.bound = {};
      for (const [role, names] of this.bound) if (names.length) data.bound[role] = [...names];
    }
    if (this.queues.size) data.queues = Object.fromEntries([...this.queues].map(([role, record]) => [role, queueCopy(record)]));
    data.lock = {};
    for (const name of [...this.lock.keys()].sort(byCodePoint)) {
      const entry = this.lock.get(name);
      data.lock[name] = { version: entry.version, digest: entry.digest };
    }
    return data;
  }

  get empty() {
    return ![...this.selected.values()].some((names) => names.length) && this.lock.size === 0 && this.queues.size === 0;
  }

  copy({ index = null } = {}) {
    return new JobState({
      index: index || this.index,
      selected: new Map([...this.selected].map(([role, names]) => [role, [...names]])),
      lock: new Map(this.lock),
      bound: new Map([...this.bound].map(([role, names]) => [role, [...names]])),
      queues: new Map([...this.queues].map(([role, record]) => [role, queueCopy(record)])),
    });
  }
}

/* ItemChange.describe */
export function describeChange({ action, name, version, previous = null, requiredBy = [], selected = false, reason = "" }) {
  let text = action === "updated" ? `${action} ${name} ${previous} -> ${version}` : `${action} ${name} ${version}`;
  if (requiredBy.length) text += ", required by " + requiredBy.join(", ");
  else if (selected && action === "added") text += ", selected";
  if (reason) text += ` (${reason})`;
  return text;
}
