/* Deciding an edit (tools/prereq/jobs/plan.py): the edits that make a job carry exactly the new
 * extras.prereq's selections, and what to report.  Pure: it never touches the text.
 * May import: core/, yaml/, openpai/, index/.
 */

import { PrereqError } from "../core/errors.js";
import { isCmd, orderedForm } from "../openpai/forms.js";
import { postOrder } from "../core/graph.js";
import { TASK_ROLE_FIELDS, roleNames, topEntries, topNames } from "./document.js";
import { byCodePoint } from "../core/order.js";
import { STATE_KEY, STATE_PATH } from "./records.js";
import { WorkingCopy } from "./apply.js";
import { addNotes } from "./needs.js";
import { callbackLines, entryDigest, planCallbackLines, planLoadLine } from "./loadline.js";
import { ownRunners, refuseItemConflicts, runner } from "./conflicts.js";
import { formNeeds } from "../openpai/needs.js";
import { parseRequirement } from "../core/versions.js";

export const BINDING_FIELDS = ["data", "script", "output"]; // task role fields naming the item `<% $data... %>` reads
const AFTER_PREREQUISITES = ["parameters", "secrets", "jobRetryCount", "taskRoles", "deployments", "defaults", "extras"];

/* Where `name` goes: before the first entry that needs it, after its own requirements. */
export function insertPosition(names, name, needs) {
  const first = names.findIndex((other) => other && needs.get(other)?.has(name));
  const last = names.findLastIndex((other) => other && needs.get(name)?.has(other));
  const position = first < 0 ? names.length : first;
  return last >= position ? last + 1 : position;
}

function closureOf(index, selections, locked) {
  return selections.length ? index.closure(selections, { locked }) : [];
}

function references(job, managed, oldRoles, bound) {
  const found = new Map();
  for (const role of job.roleOrder()) {
    const spec = job.roles[role];
    for (const name of spec.prerequisites || []) {
      if (managed.has(name) && !(oldRoles.get(role) || new Set()).has(name) && !found.has(name)) {
        found.set(name, `task role ${role} lists it`);
      }
    }
    for (const field of TASK_ROLE_FIELDS) {
      const name = spec[field];
      if (typeof name === "string" && managed.has(name) && !(bound.get(role) || []).includes(name) && !found.has(name)) {
        found.set(name, `the ${field} of task role ${role} names it`);
      }
    }
  }
  return found;
}

function wantedClosures(job, old, next, index) {
  const oldVersions = new Map([...old.lock].map(([name, entry]) => [name, entry.version]));
  const oldRoles = new Map();
  for (const [role, names] of old.selected) {
    try {
      oldRoles.set(role, new Set(closureOf(index, names, oldVersions).map((r) => r.name)));
    } catch (error) {
      if (!(error instanceof PrereqError)) throw error;
      oldRoles.set(role, new Set(old.lock.keys()));
    }
  }
  const refs = references(job, new Set(old.lock.keys()), oldRoles, old.bound);
  const selections = [...next.selected.values()].flat();
  const versions = new Map(closureOf(index, [...selections, ...[...refs.keys()].sort(byCodePoint)], oldVersions)
    .map((r) => [r.name, r]));
  const deps = new Map([...versions.keys()].map((name) => [name, []]));
  for (const r of versions.values()) {
    for (const requirer of r.requiredBy) {
      if (!deps.has(requirer)) deps.set(requirer, []);
      if (!deps.get(requirer).includes(r.name)) deps.get(requirer).push(r.name);
    }
  }
  const pinned = new Map([...versions].map(([name, r]) => [name, r.version]));
  const roles = new Map();
  for (const [role, names] of next.selected) {
    if (names.length) roles.set(role, index.closure(names, { locked: pinned }).map((r) => r.name));
  }
  // graph.transitive_requirements
  const needs = new Map([...deps].map(([name, direct]) => [name, new Set(postOrder(direct, (n) => deps.get(n) || []).filter((n) => n !== name))]));
  return { versions, needs, roles, oldRoles, references: refs };
}

function refuseConflicts(job, old, wanted) {
  job.topNames().forEach((name, position) => {
    if (wanted.versions.has(name) && !old.lock.has(name)) {
      throw job.error(["prerequisites", position],
        `the job's own prerequisite '${name}' has the name of a registry item; prereq does not overwrite it`,
        { hint: `rename or remove your '${name}' to use the registry's, or keep yours and do not select the registry item` });
    }
  });
  for (const [role, names] of wanted.roles) {
    const images = names.filter((n) => wanted.versions.get(n).openpai.type === "dockerimage");
    if (images.length > 1) {
      throw new PrereqError(`task role ${role} would get two docker images: ${images[0]} and ${images[1]}`,
        { hint: "select only one dockerimage item per task role" });
    }
    const current = job.roles[role].dockerImage;
    if (images.length && current !== undefined && current !== null && current !== images[0]) {
      throw job.error(["taskRoles", role, "dockerImage"],
        `task role ${role} already uses dockerImage '${current}'; ${images[0]} is another image`,
        { hint: `remove its dockerImage line to use ${images[0]}, or do not select ${images[0]}` });
    }
  }
}

function refuseRoleConflicts(job, wanted) {
  for (const [role, names] of wanted.roles) {
    const items = names.map((n) => runner(n, n, wanted.versions.get(n).openpai.plugin, { conflicts: wanted.versions.get(n).conflicts }));
    const listed = new Set(job.roles[role].prerequisites || []);
    refuseItemConflicts(job, role, items, new Set(names.filter((n) => !listed.has(n))), ownRunners(job, role, wanted.versions));
  }
}

function planTop(work, job, old, wanted, index, warnings, lines) {
  for (let position = topEntries(work.data).length - 1; position >= 0; position--) {
    const name = topNames(work.data)[position];
    if (old.lock.has(name) && !wanted.versions.has(name)) {
      work.delete(topEntries(work.data).length === 1 ? ["prerequisites"] : ["prerequisites", position]);
    }
  }
  topNames(work.data).forEach((name, position) => {
    if (name === null || !wanted.versions.has(name) || !old.lock.has(name)) return;
    const chosen = wanted.versions.get(name);
    const before = old.lock.get(name);
    const edited = entryDigest(topEntries(work.data)[position], lines) !== before.digest;
    if (before.version === chosen.version && before.digest === chosen.digest) {
      if (edited) warnings.push(`${job.whereItem(name)}: ${name} was edited by hand since prereq added it; left as it is`);
      return;
    }
    if (edited) warnings.push(`${job.whereItem(name)}: ${name} was edited by hand; replaced by ${name} ${chosen.version} from the index`);
    work.set(["prerequisites", position], orderedForm(index, chosen.openpai));
  });
  for (const [name, chosen] of wanted.versions) {
    const names = topNames(work.data);
    if (names.includes(name)) continue;
    const form = orderedForm(index, chosen.openpai);
    if (work.get(["prerequisites"]) === undefined || work.get(["prerequisites"]) === null) {
      work.set(["prerequisites"], [form], { before: AFTER_PREREQUISITES });
    } else {
      work.insert(["prerequisites", insertPosition(names, name, wanted.needs)], form);
    }
  }
}

function planRole(work, role, old, wanted) {
  const wantedNames = wanted.roles.get(role) || [];
  const stale = new Set([...(wanted.oldRoles.get(role) || [])].filter((name) => old.lock.has(name)));
  const path = ["taskRoles", role, "prerequisites"];
  let current = roleNames(work.data, role);
  for (let position = current.length - 1; position >= 0; position--) {
    if (stale.has(current[position]) && !wantedNames.includes(current[position])) {
      work.delete(roleNames(work.data, role).length === 1 ? path : [...path, position]);
    }
  }
  for (const name of wantedNames) {
    current = roleNames(work.data, role);
    if (current.includes(name)) continue;
    if (!current.length && (work.get(path) === undefined || work.get(path) === null)) {
      work.set(path, [name], { after: ["dockerImage"], before: ["resourcePerInstance", "commands"] });
    } else {
      work.insert([...path, insertPosition(current, name, wanted.needs)], name);
    }
  }
  const images = wantedNames.filter((n) => wanted.versions.get(n).openpai.type === "dockerimage");
  const image = work.data.taskRoles[role].dockerImage;
  if (images.length && (image === undefined || image === null)) {
    work.set(["taskRoles", role, "dockerImage"], images[0],
      { after: ["instances"], before: ["resourcePerInstance", "commands", "prerequisites"] });
  }
}

function planBindings(work, role, old, next, wanted) {
  const spec = ["taskRoles", role];
  for (const name of old.bound.get(role) || []) {
    for (const field of BINDING_FIELDS) {
      if (!(next.bound.get(role) || []).includes(name) && work.get([...spec, field]) === name) work.delete([...spec, field]);
    }
  }
  for (const name of next.bound.get(role) || []) {
    const kind = wanted.versions.get(name).openpai.type;
    if (BINDING_FIELDS.includes(kind) && work.get([...spec, kind]) !== name) {
      work.set([...spec, kind], name, { after: ["dockerImage"], before: ["prerequisites", "resourcePerInstance"] });
    }
  }
}

function planRecord(work, next, wanted) {
  next.lock = new Map([...wanted.versions].map(([name, r]) => [name, { version: r.version, digest: r.digest }]));
  if (!next.empty) {
    work.set(STATE_PATH, next.asData());
  } else if (work.exists(STATE_PATH)) {
    const extras = work.data.extras;
    const only = extras && typeof extras === "object" && Object.keys(extras).length === 1 && STATE_KEY in extras;
    work.delete(only ? ["extras"] : STATE_PATH);
  }
}

export function itemChanges(old, versions, present) {
  const out = [];
  for (const [name, r] of versions) {
    const requiredBy = r.requiredBy.filter((n) => versions.has(n));
    const previous = old.lock.get(name);
    if (!old.lock.has(name) || !present.has(name)) {
      out.push({ action: "added", name, version: r.version, requiredBy, selected: r.selected });
    } else if (previous && previous.version !== r.version) {
      out.push({ action: "updated", name, version: r.version, previous: previous.version, requiredBy, selected: r.selected });
    }
  }
  const chosen = new Set([...old.selected.values()].flat().map((text) => parseRequirement(text).name));
  for (const name of [...old.lock.keys()].filter((n) => !versions.has(n)).sort(byCodePoint)) {
    out.push({ action: "removed", name, version: old.lock.get(name).version, reason: chosen.has(name) ? "" : "no longer needed" });
  }
  return out;
}

/* Items already in the job that another task role now runs too. */
export function roleChanges(job, next, wanted, changes) {
  const added = new Set(changes.filter((change) => change.action === "added").map((change) => change.name));
  const out = [];
  for (const [role, names] of wanted.roles) {
    const listed = new Set(job.roles[role].prerequisites || []);
    const chosen = new Set((next.selected.get(role) || []).map((text) => parseRequirement(text).name));
    for (const name of names) {
      if (listed.has(name) || added.has(name)) continue;
      const r = wanted.versions.get(name);
      out.push({ action: "added", name, version: r.version, requiredBy: r.requiredBy.filter((n) => names.includes(n)),
        selected: chosen.has(name), reason: `to task role ${role}` });
    }
  }
  return out;
}

/* Locked versions stay while they fit. */
export function planEdit(job, old, next, index) {
  const wanted = wantedClosures(job, old, next, index);
  refuseConflicts(job, old, wanted);
  refuseRoleConflicts(job, wanted);
  const changes = itemChanges(old, wanted.versions, new Set(job.topNames()));
  changes.push(...roleChanges(job, next, wanted, changes));
  const warnings = [];
  const work = new WorkingCopy(job.data);
  const lines = callbackLines(index.root);
  planTop(work, job, old, wanted, index, warnings, lines);
  for (const role of job.roleOrder()) {
    planRole(work, role, old, wanted);
    planBindings(work, role, old, next, wanted);
    const needed = roleNames(work.data, role).some((n) => wanted.versions.has(n) && isCmd(wanted.versions.get(n).openpai));
    planLoadLine(work, job, role, needed, index, warnings);
  }
  planCallbackLines(work, lines);
  planRecord(work, next, wanted);
  // An older index publishes no needs: read them from the form, as Python does.
  const needsOf = (name) => (wanted.versions.has(name) ?
    wanted.versions.get(name).needs || formNeeds(wanted.versions.get(name).openpai) : null);
  const needs = addNotes(job.data, work.data, job.roleOrder(), needsOf);
  return { edits: work.edits, changes, warnings, closure: wanted.versions, references: wanted.references, needs };
}
