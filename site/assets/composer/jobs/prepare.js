/* `prereq job resolve` (tools/prereq/jobs/prepare.py): names only a task role mentions filled in, the
 * user's values rendered, the lock checked, the job checked as OpenPAI would; and what the portal
 * plugin submits and checks.
 * May import: core/, yaml/, openpai/, index/.
 */

import { WorkingCopy, applyEdits } from "./apply.js";
import { JobDocument, TASK_ROLE_FIELDS, referencedOnly } from "./document.js";
import { describeUnquoted, fill } from "./expressions.js";
import { PrereqError } from "../core/errors.js";
import { runtimeParameters } from "../openpai/forms.js";
import { callbackLines, entryDigest, planCallbackLines } from "./loadline.js";
import { formatPath, loadYamlOrNull } from "../yaml/yamlload.js";
import { YamlText } from "../yaml/yamltext.js";
import { closeName, deprecatedNote, loadFor, recordedIndex } from "./operations.js";
import * as placeholders from "../core/placeholders.js";
import { planEdit } from "./plan.js";
import { refuseMissing } from "./needs.js";
import { imageNameProblems, refusals, validateJob } from "../openpai/restserver.js";
import { isObject } from "../openpai/protocol.js";
import { byCodePoint } from "../core/order.js";
import { describeChange } from "./records.js";
import { roundTrip } from "../openpai/runtime.js";
import { changedParameters, misreadRoleNames, plainTimestamps, writtenIn } from "../openpai/plainscalars.js";
import { parseRequirement } from "../core/versions.js";

function suggest(index, name) {
  const close = closeName(name, index.entries.keys());
  return close ? `did you mean '${close}'?` : "search with 'prereq search WORD', or add the item to the job";
}

/* apply.py's path_as_written: where `path` of the job after `edits` stands in the job before them (each
 * list insertion and deletion undone, from the last back; a path into a value an edit wrote is its). */
function pathAsWritten(path, edits) {
  let found = [...path];
  for (const edit of [...edits].reverse()) {
    const [where, depth] = [edit.path, edit.path.length];
    if (found.length < depth || where.slice(0, -1).some((part, i) => part !== found[i])) continue;
    const [at, last] = [found[depth - 1], where[depth - 1]];
    if (edit.op === "set" && at === last) found = [...where];
    else if ((edit.op === "insert" || edit.op === "delete") && Number.isInteger(last) && Number.isInteger(at)) {
      if (edit.op === "insert" && at === last) found = where.slice(0, -1);
      else if (at > last || (edit.op === "delete" && at === last)) found = [...found.slice(0, depth - 1), at + (edit.op === "insert" ? -1 : 1), ...found.slice(depth)];
    }
  }
  return found;
}

/* The edits made go into `edits`. */
function fillIn(job, state, index, missing, indexSource, edits) {
  const next = state.copy({ index: recordedIndex(state.index, state.index || indexSource || index.base)[0] });
  for (const [role, names] of missing) {
    const spec = job.roles[role];
    for (const name of names) {
      if (!index.entries.has(name)) {
        const listed = (spec.prerequisites || []).indexOf(name);
        const path = listed >= 0 ? ["taskRoles", role, "prerequisites", listed]
          : ["taskRoles", role, TASK_ROLE_FIELDS.find((f) => spec[f] === name)];
        throw job.error(path, `task role ${role} names '${name}', which is neither among the job's prerequisites nor in the index`,
          { hint: suggest(index, name) });
      }
      if (!next.selected.has(role)) next.selected.set(role, []);
      const chosen = next.selected.get(role);
      if (!chosen.some((t) => parseRequirement(t).name === name)) chosen.push(name);
    }
  }
  const plan = planEdit(job, state, next, index);
  applyEdits(job.doc, plan.edits);
  job.warnings.push(...plan.warnings);
  edits.push(...plan.edits);
  return plan.changes.map((change) => describeChange(change));
}

function checkLock(job, state, index) {
  const lines = callbackLines(index.root);
  job.topNames().forEach((name, position) => {
    if (state.lock.has(name) && entryDigest(job.data.prerequisites[position], lines) !== state.lock.get(name).digest) {
      job.warnings.push(`${job.whereItem(name)}: ${name} differs from the locked ${name} ${state.lock.get(name).version} (edited by hand?)`);
    }
  });
  for (const name of [...state.lock.keys()].sort(byCodePoint)) {
    const entry = state.lock.get(name);
    let document;
    try {
      document = index.version(name, entry.version);
    } catch (error) {
      if (!(error instanceof PrereqError)) throw error;
      job.warnings.push(`${name} ${entry.version} is locked but not published in the index`);
      continue;
    }
    const note = deprecatedNote(name, entry.version, document);
    if (note) {
      job.warnings.push(note);
    } else if (document.digest !== entry.digest) {
      job.warnings.push(`${name} ${entry.version}: the lock's digest differs from the index's; run 'prereq job lock' to refresh it`);
    }
  }
}

function expressionWhere(job, key, path) {
  const value = job.doc.get(path);
  const template = typeof value === "string"
    ? placeholders.find(value).find((t) => t.namespace === "expression" && t.key === key) : undefined;
  const found = template ? job.whereText(template.text) : null;
  if (found) return found;
  const entry = path[0] === "prerequisites" ? job.doc.get(path.slice(0, 2)) : undefined;
  if (entry && typeof entry === "object" && !Array.isArray(entry)) return `${job.source}: prerequisite ${entry.name} (from the index)`;
  return job.source;
}

function renderExpressions(job, values, liftedKeys) {
  const missing = new Map();
  const renders = [];
  for (const [path, value] of placeholders.strings(job.data)) {
    const found = placeholders.find(value).filter((t) => t.namespace === "expression");
    if (!found.length) continue;
    for (const template of found) {
      if (!placeholders.isKnown(template)) {
        throw job.error(path, `${template.text} is not a valid expression reference`, { hint: "write <% expression.KEY %>" });
      }
      if (!Object.prototype.hasOwnProperty.call(values, template.key) && !missing.has(template.key)) missing.set(template.key, path);
    }
    const [rendered, unquoted] = fill(value, path, (k) => (Object.prototype.hasOwnProperty.call(values, k) ? values[k] : null));
    renders.push([path, rendered]);
    job.warnings.push(...unquoted.map((found) => describeUnquoted(found, expressionWhere(job, found.key, path))));
  }
  if (missing.size) {
    const lines = [...missing].map(([key, path]) => `${expressionWhere(job, key, path)}: <% expression.${key} %> has no stored value`);
    throw new PrereqError(lines.join("\n"), {
      exitCode: 1, hint: "store your value with: " + [...missing.keys()].map((k) => `prereq expression set ${k} VALUE`).join("; "),
    });
  }
  // The runtime re-reads plugin parameters: broken by the filling in is refused, broken as written
  // warned of; "unsure" counts as broken after, unbroken before (refuse more than the CLI, never less).
  const isPlugin = (item) => item && typeof item === "object" && !Array.isArray(item) && "plugin" in item;
  const verdict = (item) => roundTrip(runtimeParameters(item, liftedKeys));
  const before = new Map((job.data.prerequisites || []).flatMap((item, i) => (isPlugin(item) ? [[i, verdict(item)]] : [])));
  for (const [path, rendered] of renders) job.doc.set(path, rendered);
  (job.data.prerequisites || []).forEach((item, position) => {
    const [was, is] = [before.get(position), verdict(item)];
    if (was === undefined || is === "survives") return;
    const where = job.whereItem(item.name);
    if ([was, is].includes("unsure") && was !== "breaks") {
      throw new PrereqError(`${where}: the composer cannot tell whether ${item.name} reaches its runtime plugin intact ` +
        "after your stored expressions were filled in (a key such as 'null', or a number beyond 2**53)",
      { exitCode: 1, hint: "resolve the job with 'prereq job resolve', which can" });
    }
    const message = `${where}: ${item.name} would reach its runtime plugin changed or broken ` +
      "(the runtime re-reads plugin parameters from their Python repr)";
    if (was === "survives") {
      throw new PrereqError(message + " after your stored expressions were filled in",
        { exitCode: 1, hint: "avoid stored values that hold both quote kinds or backslashes" });
    }
    job.warnings.push(message);
  });
}

const STOPPED_BY = {
  schema: "the rest-server refuses it when it is submitted",
  "rest-server": "the rest-server refuses it when it is submitted",
  runtime: "the runtime fails it when the job starts (the rest-server does not check this)",
  entrypoint: "the rest-server writes it into the task role's command otherwise than as written",
};

/* Also as data in `error.problems`, for a page that shows each on its own line. */
function refused(job, problems) {
  const parts = new Map();
  const listed = [];
  for (const p of problems) {
    const part = STOPPED_BY[p.source];
    if (!parts.has(part)) parts.set(part, []);
    parts.get(part).push(`${job.where(p.path)}: ${formatPath(p.path, { empty: "(job)" })}: ${p.message}`);
    listed.push({ ...p, line: job.line(p.path), stoppedBy: part });
  }
  const text = [...parts].map(([part, lines]) => `\n  ${part}:` + lines.map((line) => `\n    ${line}`).join("")).join("");
  const [submitted, changed] = [parts.has(STOPPED_BY["rest-server"]), parts.has(STOPPED_BY.entrypoint)];
  const error = new PrereqError(`OpenPAI would ${submitted ? "refuse" : changed ? "change" : "fail"} the job:${text}`,
    { exitCode: 1, hint: submitted || changed ? "fix the job before submitting it" : "fix the job; OpenPAI finds this out only once it starts" });
  error.problems = listed;
  return error;
}

export async function prepareText(text, { index, indexSource = null, expressions = {}, source = "<job>" }) {
  const job = new JobDocument(text, source);
  let state = job.state(index.root.range_hint);
  let changes = [];
  await loadFor(index, job, state);
  const missing = referencedOnly(job);
  const edits = []; // prereq's own, which the paths of OpenPAI's problems are read back through
  if (missing.size) {
    changes = fillIn(job, state, index, missing, indexSource, edits);
    state = job.state(index.root.range_hint);
  }
  checkLock(job, state, index);
  // What runs first may have moved by hand since the callback lines were placed.
  const lines = new WorkingCopy(job.data);
  planCallbackLines(lines, callbackLines(index.root));
  applyEdits(job.doc, lines.edits);
  edits.push(...lines.edits);
  renderExpressions(job, expressions, index.root.lifted_keys);
  const [data, written] = [job.initial.data, writtenIn(job.initial, job.initialLines)];
  const asWritten = [...plainTimestamps(data, written), ...misreadRoleNames(data, written), ...changedParameters(data, written)];
  const prepared = [...validateJob(job.data, index.jobSchema), ...imageNameProblems(job.data)];
  const found = [...asWritten, ...prepared.map((p) => ({ ...p, path: pathAsWritten(p.path, edits) }))];
  const problems = refusals(found);
  for (const p of found) {
    if (!problems.includes(p)) job.warnings.push(`${job.where(p.path)}: ${formatPath(p.path, { empty: "(job)" })}: ${p.message}`);
  }
  if (problems.length) throw refused(job, problems);
  refuseMissing(job);
  return { text: job.text, data: job.data, changes, warnings: job.warnings };
}

/* {text, data, name, changes, warnings}: the job as OpenPAI is to receive it from the portal plugin
 * (extras.submitFrom names its entry: the portal's Clone reads it to come back); else a PrereqError. */
export async function prepareJob(text, { index, indexSource, expressions = {}, submitFrom = "" }) {
  const prepared = await prepareText(text, { index, indexSource, expressions, source: "job" });
  let out = prepared.text;
  let data = prepared.data;
  if (submitFrom) {
    const yaml = new YamlText(out, { source: "job", mergeKeys: true });
    yaml.set(["extras", "submitFrom"], submitFrom);
    out = yaml.text;
    data = yaml.data;
  }
  return { text: out, data, name: typeof data.name === "string" ? data.name : "", changes: prepared.changes, warnings: prepared.warnings };
}

export const DEFAULT_CLUSTER = "default"; // when defaults.virtualCluster is absent, as the rest-server reads it
const NAME = /^[a-zA-Z0-9_-]+$/; // the protocol's: the rest-server refuses other names before any check
export const NAME_LENGTH = 255;

/* {name, cluster}, or null when the text is not a job yet; name "" when unusable.  `loaded`: the text as
 * loadYamlOrNull reads it with merge keys (the rest-server's js-yaml applies them). */
export function jobTarget(text, loaded = loadYamlOrNull(text, { mergeKeys: true })) {
  const data = loaded && loaded.data;
  if (!isObject(data)) return null;
  const defaults = isObject(data.defaults) ? data.defaults : {};
  // As the rest-server's put: null is the default cluster, and a number stays one (it is found among no names).
  const cluster = defaults.virtualCluster === null || defaults.virtualCluster === undefined ? DEFAULT_CLUSTER : defaults.virtualCluster;
  const name = typeof data.name === "string" && NAME.test(data.name) && data.name.length <= NAME_LENGTH ? data.name : "";
  return { name, cluster };
}

/* [{role, line}]: the task roles naming no dockerImage, once merge keys are applied, with the line of their name. */
export function rolesWithoutImage(text, loaded = loadYamlOrNull(text, { mergeKeys: true })) {
  const roles = loaded && isObject(loaded.data) && isObject(loaded.data.taskRoles) ? loaded.data.taskRoles : {};
  return Object.keys(roles).filter((role) => isObject(roles[role]) && [undefined, null, ""].includes(roles[role].dockerImage))
    .map((role) => ({ role, line: loaded.position(["taskRoles", role], { key: true })[0] }));
}

/* What the portal plugin's checks read of a job, from one load: its target and its imageless roles. */
export function submissionFacts(text) {
  const loaded = loadYamlOrNull(text, { mergeKeys: true });
  return { target: jobTarget(text, loaded), missing: rolesWithoutImage(text, loaded) };
}
