/* `prereq job add` and `remove` on a job's text (tools/prereq/jobs/operations.py).  `indexSource`: the
 * index a job records when it records none (the CLI's --index, the composer's site).
 * May import: core/, yaml/, openpai/, index/.
 */

import { applyEditsShown } from "./apply.js";
import { JobDocument, showScalar } from "./document.js";
import { PrereqError } from "../core/errors.js";
import { BINDING_FIELDS, planEdit } from "./plan.js";
import { describeChange } from "./records.js";
import { foldName, parseRequirement } from "../core/versions.js";

// The plan and its application run as two tasks, not one: a page stays responsive between them.
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

async function edited(job, text, plan, { changes = plan.changes, notes = [], told = [], shown = null } = {}) {
  await nextTask();
  await applyEditsShown(job.doc, plan.edits, shown && ((spliced) => shown(job.textOf(spliced))));
  return {
    before: text, after: job.text, changes: changes.map((change) => describeChange(change)),
    warnings: [...notes, ...plan.warnings, ...plan.needs], notes: told,
  };
}

export async function loadFor(index, job, state, extra = []) {
  const names = [...extra, ...state.lock.keys(), ...[...state.selected.values()].flat().map((t) => parseRequirement(t).name)];
  for (const spec of Object.values(job.roles)) {
    for (const name of spec.prerequisites || []) names.push(name);
    for (const value of Object.values(spec)) if (typeof value === "string") names.push(value);
  }
  await index.ensure(names);
}

/* recorded_index: a URL means the same on every machine and is recorded; a local folder is not. */
export function recordedIndex(recorded, used) {
  if (used.startsWith("http://") || used.startsWith("https://") || used === recorded) return [used, []];
  if (recorded) return [recorded, []];
  return [null, [`the index ${used} is a local folder, so the job does not record it; ` +
    "later commands take it from --index, $PREREQ_INDEX or build/site"]];
}

/* Several when named (task roles sharing a YAML anchor change together), else the job's only one. */
function pickRoles(job, taskRole) {
  const roles = job.roleOrder();
  if (typeof taskRole === "string") return [job.requireRole(taskRole)];
  if (Array.isArray(taskRole) && taskRole.length) return [...new Set(taskRole.map((role) => job.requireRole(role)))];
  if (roles.length === 1) return roles;
  throw new PrereqError(`${job.source} has ${roles.length} task roles: ${roles.join(", ")}`,
    { hint: "name one with --task-role ROLE" });
}

/* add --bind: an item prereq bound to the field gives way, one the user wrote there is refused. */
function bind(job, state, index, name, roles) {
  const kind = index.entries.get(name).type;
  if (!BINDING_FIELDS.includes(kind)) {
    throw new PrereqError(`${name} is a ${kind} item: only data, script and output items bind to a task role's field`,
      { hint: `add ${name} without --bind` });
  }
  for (const role of roles) {
    if (!state.bound.has(role)) state.bound.set(role, []);
    const bound = state.bound.get(role);
    const current = job.roles[role][kind];
    if (current !== undefined && current !== null && current !== name && !bound.includes(current)) {
      throw job.error(["taskRoles", role, kind], `task role ${role} already has ${kind}: ${showScalar(current)}, which prereq did not bind`,
        { hint: `remove that line to bind ${name}, or add ${name} without --bind` });
    }
    const kindOf = (n) => (index.entries.has(n) ? index.entries.get(n).type : undefined);
    state.bound.set(role, [...bound.filter((n) => kindOf(n) !== kind), name]);
  }
}

/* difflib.SequenceMatcher(None, a, b).ratio(), as the CLI suggests: no junk heuristic, since names
 * are far shorter than its 200 characters. */
function ratio(a, b) {
  const matches = (x, y) => {
    if (!x.length || !y.length) return 0;
    let best = [0, 0, 0];
    for (let i = 0; i < x.length; i++) {
      for (let j = 0; j < y.length; j++) {
        let k = 0;
        while (i + k < x.length && j + k < y.length && x[i + k] === y[j + k]) k++;
        if (k > best[2]) best = [i, j, k];
      }
    }
    const [i, j, k] = best;
    return k ? k + matches(x.slice(0, i), y.slice(0, j)) + matches(x.slice(i + k), y.slice(j + k)) : 0;
  };
  return (2 * matches(a, b)) / (a.length + b.length || 1);
}

/* close_name: difflib.get_close_matches(name, names, n=1), case and '-'/'_' folded; ties to the greater. */
export function closeName(name, names) {
  const folded = new Map();
  for (const other of names) if (!folded.has(foldName(other))) folded.set(foldName(other), other);
  let best = null;
  for (const other of folded.keys()) {
    const score = ratio(other, foldName(name));
    if (score >= 0.6 && (!best || score > best[0] || (score === best[0] && other > best[1]))) best = [score, other];
  }
  return best ? folded.get(best[1]) : null;
}

function unknownItem(index, name) {
  const close = closeName(name, index.entries.keys());
  return new PrereqError(`no prerequisite named '${name}' in the index`,
    { hint: close ? `did you mean '${close}'?` : "search with 'prereq search WORD'" });
}

export async function addToText(text, names, { index, indexSource = null, taskRole = null, bind: binding = false, source = "<job>", shown = null }) {
  const job = new JobDocument(text, source);
  const old = job.state(index.root.range_hint);
  const roles = pickRoles(job, taskRole);
  // As the CLI: the index given is recorded, else the job's own stays.
  const [recorded, told] = recordedIndex(old.index, indexSource || old.index || index.base);
  const next = old.copy({ index: recorded });
  const notes = [];
  await loadFor(index, job, old, names.map((n) => parseRequirement(n).name));
  for (const textName of names) {
    const requirement = parseRequirement(textName);
    if (!requirement.name) throw new PrereqError(`'${textName}' is not NAME or NAME@RANGE`);
    if (!index.entries.has(requirement.name)) throw unknownItem(index, requirement.name);
    if (binding) bind(job, next, index, requirement.name, roles);
    for (const role of roles) {
      if (!next.selected.has(role)) next.selected.set(role, []);
      const chosen = next.selected.get(role);
      const same = chosen.flatMap((t, i) => (parseRequirement(t).name === requirement.name ? [i] : []));
      if (!same.length) {
        chosen.push(textName);
        continue;
      }
      // Binding a selected item is how one binds: no note.
      if (chosen[same[0]] === textName && !binding) notes.push(`${requirement.name} is already selected in task role ${role}`);
      chosen[same[0]] = textName;
      for (const extra of same.slice(1).reverse()) chosen.splice(extra, 1);
    }
  }
  const plan = planEdit(job, old, next, index);
  for (const change of plan.changes) { // said now, not only at 'job resolve'
    if (change.action !== "added" && change.action !== "updated") continue;
    const note = deprecatedNote(change.name, change.version, index.version(change.name, change.version));
    if (note) notes.push(note);
  }
  return edited(job, text, plan, { notes, told, shown });
}

export function deprecatedNote(name, version, document) {
  const deprecated = document.item.deprecated;
  if (!deprecated || (typeof deprecated === "object" && !Object.keys(deprecated).length)) return null; // Python's falsy
  // An index's item is not checked by its schema: a string is the reason, and only strings are said.
  const said = typeof deprecated === "object" && !Array.isArray(deprecated) ? deprecated : { reason: deprecated };
  const text = `${name} ${version} is deprecated: ${typeof said.reason === "string" ? said.reason.trim() : ""}`;
  return typeof said.replacement === "string" && said.replacement ? `${text} Use ${said.replacement} instead.` : text;
}

function rolesNamed(taskRole) {
  if (typeof taskRole === "string") return [taskRole];
  return Array.isArray(taskRole) && taskRole.length ? [...taskRole] : null;
}

function notSelected(job, state, name, taskRole) {
  const names = job.topNames();
  if (names.includes(name) && !state.lock.has(name)) {
    return job.error(["prerequisites", names.indexOf(name)], `${name} was written by hand in the job; prereq leaves it alone`,
      { hint: "delete it from the YAML yourself", exitCode: 2 });
  }
  if (state.lock.has(name)) {
    const named = rolesNamed(taskRole);
    const where = named ? ` in task role ${named.join(", ")}` : "";
    return new PrereqError(`${name} is not selected${where}: it is in the job because other items require it`,
      { hint: "remove the items that require it (see extras.prereq.selected)" });
  }
  const close = closeName(name, [...state.selected.values()].flat().map((t) => parseRequirement(t).name));
  return new PrereqError(`${name} is not in the job`,
    { hint: close ? `did you mean '${close}'?` : "see extras.prereq.selected for what prereq added" });
}

function unselect(job, old, names, taskRole) {
  const next = old.copy();
  const named = rolesNamed(taskRole);
  // Each name once: "remove alpha alpha" must not look for alpha in a role it already left.
  for (const name of new Set(names.map((text) => parseRequirement(text).name))) {
    let selecting = [...old.selected].filter(([, chosen]) => chosen.some((t) => parseRequirement(t).name === name))
      .map(([role]) => role);
    if (named) selecting = selecting.filter((role) => named.includes(role));
    if (!selecting.length) throw notSelected(job, old, name, taskRole);
    if (selecting.length > 1 && !named) {
      throw new PrereqError(`${name} is selected in task roles ${selecting.join(", ")}`,
        { hint: "name one with --task-role ROLE, or several (--task-role A --task-role B)" });
    }
    for (const role of selecting) {
      next.selected.set(role, next.selected.get(role).filter((t) => parseRequirement(t).name !== name));
      if (!next.selected.get(role).length) next.selected.delete(role);
      next.bound.set(role, (next.bound.get(role) || []).filter((n) => n !== name));
      if (!next.bound.get(role).length) next.bound.delete(role);
    }
  }
  return next;
}

/* remove --unbind: the fields are cleared, the items stay selected. */
function unbindNames(old, names, taskRole) {
  const next = old.copy();
  const unbound = [];
  const named = rolesNamed(taskRole);
  for (const name of new Set(names.map((text) => parseRequirement(text).name))) {
    const roles = [...old.bound].filter(([role, bound]) => bound.includes(name) && (!named || named.includes(role)))
      .map(([role]) => role);
    if (!roles.length) {
      throw new PrereqError(`${name} is not bound${named ? ` in task role ${named.join(", ")}` : ""}`,
        { hint: "see extras.prereq.bound for what prereq bound" });
    }
    for (const role of roles) {
      next.bound.set(role, next.bound.get(role).filter((n) => n !== name));
      if (!next.bound.get(role).length) next.bound.delete(role);
      unbound.push([name, role]);
    }
  }
  return { next, unbound };
}

export async function removeFromText(text, names, { index, taskRole = null, unbind = false, source = "<job>", shown = null }) {
  const job = new JobDocument(text, source);
  const old = job.state(index.root.range_hint);
  for (const role of rolesNamed(taskRole) || []) job.requireRole(role);
  if (unbind) {
    const { next, unbound } = unbindNames(old, names, taskRole);
    await loadFor(index, job, old);
    const plan = planEdit(job, old, next, index);
    const done = unbound.map(([name, role]) => ({ action: "unbound", name, version: plan.closure.get(name).version, reason: `task role ${role}` }));
    return edited(job, text, plan, { changes: [...plan.changes, ...done], shown });
  }
  const next = unselect(job, old, names, taskRole);
  await loadFor(index, job, old);
  const plan = planEdit(job, old, next, index);
  const changes = [...plan.changes];
  for (const name of new Set(names.map((n) => parseRequirement(n).name))) {
    const kept = plan.closure.get(name);
    if (!kept) continue;
    let reason = "still selected in another task role";
    if (kept.requiredBy.length) reason = "still required by " + kept.requiredBy.join(", ");
    else if (plan.references.has(name)) reason = plan.references.get(name);
    changes.push({ action: "kept", name, version: kept.version, reason });
  }
  return edited(job, text, plan, { changes, shown });
}
