/* A user's rights on the queues of the published execution catalog: a port of
 * prereq.execution.rights.user_rights, held equal to it by tests/cases/rights/.
 * May import: core/.
 */

import { PrereqError } from "../core/errors.js";

export const FULL_REPUTATION = 100;

export function withReputation(slots, reputation, total) {
  if (slots < 1) return 0;
  return Math.max(1, Math.min(Math.floor((slots * reputation) / FULL_REPUTATION), total));
}

/* Per queue, sorted: [most slots, highest priority, groups with a row] (as rights.combine). */
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

/* Groups known without a row: rights.yaml's (owners.yaml's teams are known only by their rows). */
function knownGroups(document) {
  const groups = document.groups && typeof document.groups === "object" ? document.groups : {};
  return new Set(Object.entries(groups).filter(([, group]) => group && group.from === "rights.yaml").map(([name]) => name));
}

/* [{queue, slots, priority, group_slots, groups}], the fields of rights.QueueRight. */
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
