/* A user's rights on the queues of the published execution catalog (api/v1/execution/catalog.json):
 * a port of prereq.execution.rights.user_rights, held equal to it by tests/cases/rights/.
 *
 * Over all the user's groups, a queue gives the most slots and, separately, the highest priority;
 * reputation (a percentage: 100 is x1, 200 is x2) multiplies the slots, rounded down, at most the
 * queue's total slots, and never below one slot for a user who has one.  Groups the catalog does not
 * know (no row, not a group of rights.yaml) are an error only when they leave the user with no queue.
 *
 * Folder execution/: prereq.execution's rights over groups and reputation, ported, on the published
 * catalog document (the composer never reads the registry's files).
 * May import: core/.
 */

import { PrereqError } from "../core/errors.js";

export const FULL_REPUTATION = 100;

/* `slots` times `reputation` percent, rounded down, at most `total`, and at least 1 when `slots` is. */
export function withReputation(slots, reputation, total) {
  if (slots < 1) return 0;
  return Math.max(1, Math.min(Math.floor((slots * reputation) / FULL_REPUTATION), total));
}

/* Over the rows {queue, group, slots, priority} of `groups`: per queue (by name), the most slots,
 * the highest priority and the groups with a row there (as rights.combine). */
export function combine(rows, groups) {
  const chosen = new Set(groups);
  const found = new Map();
  for (const row of rows) {
    if (!chosen.has(row.group)) continue;
    const [most, highest, given] = found.get(row.queue) || [0, 0, []];
    found.set(row.queue, [Math.max(most, row.slots), Math.max(highest, row.priority), [...new Set([...given, row.group])].sort()]);
  }
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/* The groups a published catalog knows besides those with a row: rights.yaml's own (prereq's catalog
 * knows those; owners.yaml's teams it knows only through their rows). */
function knownGroups(document) {
  const groups = document.groups && typeof document.groups === "object" ? document.groups : {};
  return new Set(Object.entries(groups).filter(([, group]) => group && group.from === "rights.yaml").map(([name]) => name));
}

/* The rights of a user in `groups` on every queue of `document` they have a slot on, by queue name:
 * [{queue, slots, priority, group_slots, groups}] (the fields of rights.QueueRight). */
export function userRights(document, groups, { reputation = FULL_REPUTATION } = {}) {
  if (reputation < 0) throw new PrereqError(`reputation ${reputation} is negative`, { hint: "give a percentage: 100 is x1, 200 is x2" });
  const rows = document.rights || [];
  const totals = new Map((document.queues || []).map((queue) => [queue.name, queue.total_slots]));
  const rights = [];
  for (const [queue, [most, priority, given]] of combine(rows, groups)) {
    if (!totals.has(queue)) continue; // a row naming no queue is the catalog's problem (PRQ303)
    const slots = withReputation(most, reputation, totals.get(queue));
    if (slots >= 1) rights.push({ queue, slots, priority, group_slots: most, groups: given });
  }
  const known = knownGroups(document);
  for (const row of rows) known.add(row.group);
  const unknown = [...new Set(groups)].filter((group) => !known.has(group)).sort();
  if (unknown.length && !rights.length) {
    throw new PrereqError(`no rights for the groups ${unknown.join(", ")}: rights.yaml names none of them`,
      { hint: "groups are the teams of owners.yaml and rights.yaml's groups; 'prereq rights' lists every row" });
  }
  return rights;
}
