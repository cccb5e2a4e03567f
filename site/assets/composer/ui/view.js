/* What the composer's list shows for one task role, and the version picker's choices (no DOM).
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { JobDocument, TASK_ROLE_FIELDS, referencedOnly } from "../jobs/document.js";
import { loadFor } from "../jobs/operations.js";
import { parseRequirement } from "../core/versions.js";

export async function analyse(index, text, role) {
  const job = new JobDocument(text, "job");
  const state = job.state(index.root.range_hint);
  await loadFor(index, job, state);
  const roles = job.roleOrder();
  if (!roles.includes(role)) role = roles[0];
  const selections = state.selected.get(role) || [];
  const pinned = new Map([...state.lock].map(([name, entry]) => [name, entry.version]));
  // What the page shows of each (a worker sends it: not the forms).
  const closure = (selections.length ? index.closure(selections, { locked: pinned }) : [])
    .map(({ name, version, requiredBy, selected }) => ({ name, version, requiredBy, selected }));
  const inClosure = new Map(closure.map((r) => [r.name, r]));
  const spec = job.roles[role];
  const named = new Set((spec.prerequisites || []).filter((n) => !inClosure.has(n)));
  for (const field of TASK_ROLE_FIELDS) if (typeof spec[field] === "string" && !inClosure.has(spec[field])) named.add(spec[field]);
  const elsewhere = new Map();
  for (const [other, list] of state.selected) {
    if (other === role) continue;
    for (const name of list.map((t) => parseRequirement(t).name)) {
      if (!elsewhere.has(name)) elsewhere.set(name, []);
      elsewhere.get(name).push(other);
    }
  }
  return { // plain data: a worker sends it to the page (engine.js)
    role, roles, state, closure, inClosure, named, elsewhere,
    selected: new Set(selections.map((t) => parseRequirement(t).name)),
    ranges: new Map(selections.map((t) => [parseRequirement(t).name, parseRequirement(t).range])),
    handTop: new Set(job.topNames().filter((n) => n !== null && !state.lock.has(n))),
    name: typeof job.data.name === "string" ? job.data.name : "job",
    versions: new Map(closure.map((r) => [r.name, index.versions(r.name)])), // for versionChoices
  };
}

/* Per task role, the registry items it names that the job does not define (a template selects them). */
export function namedItems(index, text) {
  const named = [...referencedOnly(new JobDocument(text, "job"))].map(([role, names]) => [role, names.filter((n) => index.entries.has(n))]);
  return new Map(named.filter(([, names]) => names.length));
}

/* `published`: ascending; `range` null: any version.  A range of the job's own that no option is comes first. */
export function versionChoices(published, range) {
  const versions = [...published].reverse();
  const lines = [];
  for (const version of versions) {
    const [major, minor] = version.split(/[.+-]/);
    if (!lines.some((line) => line.major === major && line.minor === minor)) lines.push({ major, minor });
  }
  const compatible = lines.map(({ major, minor }) => ({
    value: `^${major}.${minor}`,
    label: major === "0" ? `^0.${minor}: a 0.${minor}.x version` : `^${major}.${minor}: ${major}.${minor} or a newer ${major}.x`,
  }));
  const exact = versions.map((version) => ({ value: version, label: `${version} exactly` }));
  const groups = [{ label: "", options: [{ value: "", label: "any compatible version" }] }];
  if (range && ![...compatible, ...exact].some((option) => option.value === range)) {
    groups[0].options.push({ value: range, label: `${range} (as the job says)` });
  }
  groups.push({ label: "compatible with", options: compatible }, { label: "exactly", options: exact });
  return groups;
}
