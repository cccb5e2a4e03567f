/* A job as prereq reads it (tools/prereq/jobs/document.py): a YamlText, its shape and extras.prereq
 * checked.  The checks read the Python-typed data (keys may be numbers or null, as the CLI sees them);
 * the rest reads plain data, so the planner uses the free functions on its working copy too.
 * May import: core/, yaml/, openpai/, index/.
 */

import { PrereqError } from "../core/errors.js";
import { TASK_ROLE_FIELDS as PROTOCOL_FIELDS, isObject } from "../openpai/protocol.js";
import * as placeholders from "../core/placeholders.js";
import { JobState, QUEUE_KEYS, STATE_PATH } from "./records.js";
import { PyDict, PyFloat, floatRepr, toPlain, typeName } from "../yaml/pyvalues.js";
import { YamlText } from "../yaml/yamltext.js";
import { isRange, parseRequirement } from "../core/versions.js";

export const TASK_ROLE_FIELDS = [...PROTOCOL_FIELDS];
const STATE_HINT = "extras.prereq is written by prereq: {index, selected: {ROLE: [NAME[@RANGE]]}, bound: {ROLE: [NAME]}, " +
  "lock: {NAME: {version, digest}}}";

// document.py's _V1_TO_V2
const V1_TO_V2 = "write it as a v2 job: 'protocolVersion: 2', 'name' for jobName, 'type: job', and taskRoles as a mapping " +
  "from each role's name to its keys (taskNumber as instances, cpuNumber/memoryMB/gpuNumber under " +
  "resourcePerInstance as cpu/memoryMB/gpu, command as a list of commands, image as dockerImage naming a " +
  "'type: dockerimage' prerequisite)";

const QUEUES_HINT = "extras.prereq.queues is written by 'prereq job add --queue': {ROLE: {queue, environment, slots, " +
  "libraries, selected, entries, image}}; run it again to rewrite it";

/* document.py's _queue_record */
function isQueueRecord(record) {
  if (!(record instanceof PyDict) || record.size !== QUEUE_KEYS.length || !QUEUE_KEYS.every((key) => record.has(key))) return false;
  const strings = (value) => Array.isArray(value) && value.every((n) => typeof n === "string");
  const slots = record.get("slots");
  return ["libraries", "selected", "entries"].every((key) => strings(record.get(key))) &&
    typeof record.get("queue") === "string" && typeof record.get("environment") === "string" &&
    typeName(slots) === "int" && slots >= 1 && (record.get("image") === null || typeof record.get("image") === "string");
}

export function topEntries(data) {
  return data.prerequisites || [];
}

export function topNames(data) {
  return topEntries(data).map((item) => (isObject(item) && typeof item.name === "string" ? item.name : null));
}

export function roleNames(data, role) {
  return [...(data.taskRoles[role].prerequisites || [])];
}

/* prepare.py's _referenced_only: per task role, the names it lists or binds that no entry of the job defines. */
export function referencedOnly(job) {
  const defined = new Set(job.topNames().filter(Boolean));
  const missing = new Map();
  for (const role of job.roleOrder()) {
    const spec = job.roles[role];
    const names = [...(spec.prerequisites || []), ...TASK_ROLE_FIELDS.filter((f) => typeof spec[f] === "string").map((f) => spec[f])];
    for (const name of names) {
      if (defined.has(name)) continue;
      if (!missing.has(role)) missing.set(role, []);
      if (!missing.get(role).includes(name)) missing.get(role).push(name);
    }
  }
  return missing;
}

/* json.dumps, as the CLI's show_scalar writes a non-string. */
function jsonOf(value) {
  if (value instanceof PyFloat) return floatRepr(value.value);
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return "[" + value.map(jsonOf).join(", ") + "]";
  if (value instanceof PyDict) {
    return "{" + value.entries().map(([k, v]) => `${JSON.stringify(typeof k === "string" ? k : jsonOf(k))}: ${jsonOf(v)}`).join(", ") + "}";
  }
  return JSON.stringify(value);
}

export function showScalar(value) {
  return typeof value === "string" ? `'${value}'` : jsonOf(value);
}

function typedGet(data, key) {
  return data instanceof PyDict && data.has(key) ? data.get(key) : undefined;
}

/* The CLI's `x or default`: empty lists and mappings are false too. */
function orDefault(value, fallback) {
  const empty = value === undefined || value === null || value === false || value === 0 || value === "" ||
    (Array.isArray(value) && !value.length) || (value instanceof PyDict && !value.size);
  return empty ? fallback : value;
}

export class JobDocument {
  constructor(text, source) {
    this.source = source;
    this.doc = new YamlText(text, { source, mergeKeys: true }); // as OpenPAI reads jobs
    this.initial = this.doc.loaded; // positions in the file as the user wrote it
    this.warnings = [];
    this.finalLineEnd = text === "" || text.endsWith("\n"); // a file without one keeps having none
    this.initialLines = text.split(/\r\n|\n|\r/);
    this.checkShape(this.initial.typed);
  }

  get data() {
    return this.doc.data;
  }

  get text() {
    return this.textOf(this.doc.text);
  }

  /* The job's text for the YamlText's ``text`` (a spliced one too): no final line end when the file had none. */
  textOf(text) {
    if (this.finalLineEnd) return text;
    return text.endsWith("\r\n") ? text.slice(0, -2) : text.endsWith("\n") ? text.slice(0, -1) : text;
  }

  get roles() {
    return this.data.taskRoles;
  }

  /* The file's order: a plain object lists "1" before "train". */
  roleOrder() {
    return this.initial.typed.get("taskRoles").keys.filter((role) => Object.prototype.hasOwnProperty.call(this.roles, role));
  }

  topNames() {
    return topNames(this.data);
  }

  /* `path`'s line in the user's text, or its nearest ancestor's. */
  line(path, { key = false } = {}) {
    return this.initial.position(path, { key })[0];
  }

  where(path, { key = false } = {}) {
    return `${this.source}:${this.line(path, { key })}`;
  }

  whereItem(name) {
    const items = isObject(this.initial.data) ? this.initial.data.prerequisites : null;
    const position = Array.isArray(items) ? items.findIndex((item) => isObject(item) && item.name === name) : -1;
    return position >= 0 ? this.where(["prerequisites", position]) : this.source;
  }

  whereText(needle) {
    const found = placeholders.strings(this.initial.data).find(([, value]) => value.includes(needle));
    return found ? this.where(found[0]) : null;
  }

  error(path, message, { hint = "", exitCode = 1, key = false } = {}) {
    return new PrereqError(`${this.where(path, { key })}: ${message}`, { hint, exitCode });
  }

  requireRole(role) {
    if (!Object.prototype.hasOwnProperty.call(this.roles, role)) {
      throw new PrereqError(`${this.source}: no task role '${role}'`, { hint: "task roles: " + this.roleOrder().join(", ") });
    }
    return role;
  }

  /* document.py's _refuse_v1 */
  refuseV1(typed, roles) {
    if (typed.has("protocolVersion") || (!typed.has("jobName") && !Array.isArray(roles))) return;
    throw this.error(typed.has("jobName") ? ["jobName"] : ["taskRoles"],
      "this is an OpenPAI v1 job (jobName, taskRoles as a list); prereq edits v2 jobs", { hint: V1_TO_V2, key: true });
  }

  checkShape(typed) {
    if (!(typed instanceof PyDict)) {
      throw new PrereqError(`${this.source}: not an OpenPAI job (the file is not a YAML mapping)`, {
        hint: "an OpenPAI job is keys and values: 'protocolVersion: 2', 'name: ...', 'taskRoles: ...'", exitCode: 1,
      });
    }
    const roles = typedGet(typed, "taskRoles");
    this.refuseV1(typed, roles);
    if (!(roles instanceof PyDict) || !roles.size) {
      throw this.error(typed.has("taskRoles") ? ["taskRoles"] : [], "an OpenPAI job needs 'taskRoles' with at least one task role");
    }
    for (const [role, spec] of roles.entries()) {
      if (typeof role !== "string") {
        throw this.error(["taskRoles", role], `task role name ${showScalar(role)} is not a string`, {
          hint: "OpenPAI task role names are strings such as 'train'; quote a name that YAML would read as a number, " +
            "boolean or null", key: true,
        });
      }
      if (!(spec instanceof PyDict)) {
        throw this.error(["taskRoles", role], `task role ${role} is not a mapping`, {
          hint: "write its keys under its name: instances, dockerImage, resourcePerInstance, commands",
        });
      }
      const names = typedGet(spec, "prerequisites");
      if (names !== undefined && names !== null && !(Array.isArray(names) && names.every((n) => typeof n === "string"))) {
        throw this.error(["taskRoles", role, "prerequisites"], `taskRoles.${role}.prerequisites must be a list of prerequisite names`);
      }
    }
    const top = typedGet(typed, "prerequisites");
    if (top !== undefined && top !== null && !Array.isArray(top)) {
      throw this.error(["prerequisites"], "'prerequisites' must be a list", { hint: "write each one as an entry: '- name: ...'" });
    }
    (Array.isArray(top) ? top : []).forEach((item, position) => {
      if (item instanceof PyDict && item.has("name") && typeof item.get("name") !== "string") {
        throw this.error(["prerequisites", position, "name"], `prerequisite name ${showScalar(item.get("name"))} is not a string`,
          { hint: "task roles refer to prerequisites by name: write a string" });
      }
    });
  }

  /* extras.prereq, checked; `rangeHint`: the index's hint for a bad range. */
  state(rangeHint) {
    const typed = this.doc.loaded.typed;
    const extras = typedGet(typed, "extras");
    if (extras !== undefined && extras !== null && !(extras instanceof PyDict)) {
      throw this.error(["extras"], "extras must be a mapping",
        { hint: "OpenPAI keeps extras free-form, as a mapping; prereq records its items under extras.prereq" });
    }
    const raw = typedGet(extras, STATE_PATH[1]);
    if (raw === undefined || raw === null) return new JobState();
    if (!(raw instanceof PyDict)) throw this.error(STATE_PATH, "extras.prereq must be a mapping", { hint: STATE_HINT });
    const index = typedGet(raw, "index");
    if (index !== undefined && index !== null && typeof index !== "string") {
      throw this.error([...STATE_PATH, "index"], "extras.prereq.index must be a string (a build folder or URL)", { hint: STATE_HINT });
    }
    const selected = this.selected(orDefault(typedGet(raw, "selected"), new PyDict()), rangeHint);
    return new JobState({
      index: index || null,
      selected,
      lock: this.lock(orDefault(typedGet(raw, "lock"), new PyDict())),
      bound: this.bound(orDefault(typedGet(raw, "bound"), new PyDict()), selected),
      queues: this.queues(orDefault(typedGet(raw, "queues"), new PyDict())),
    });
  }

  queues(queues) {
    const path = [...STATE_PATH, "queues"];
    if (!(queues instanceof PyDict)) throw this.error(path, "extras.prereq.queues must map task roles to queues", { hint: QUEUES_HINT });
    for (const [role, record] of queues.entries()) {
      if (typeof role !== "string" || !Object.prototype.hasOwnProperty.call(this.roles, role)) {
        throw this.error([...path, role], `extras.prereq.queues names task role ${showScalar(role)}, which the job does not have`, {
          hint: `rename it there too when you rename a task role (task roles: ${this.roleOrder().join(", ")})`,
        });
      }
      if (!isQueueRecord(record)) throw this.error([...path, role], `extras.prereq.queues.${role} is not what prereq wrote there`, { hint: QUEUES_HINT });
    }
    return new Map(queues.entries().map(([role, record]) => [role, toPlain(record)]));
  }

  /* Each bound item must be one the task role selects (`job add --bind` records both): document.py's _bound. */
  bound(bound, selected) {
    const shaped = bound instanceof PyDict && [...bound.entries()].every(([role, names]) => typeof role === "string" &&
      Object.prototype.hasOwnProperty.call(this.roles, role) && Array.isArray(names) && names.every((n) => typeof n === "string"));
    if (!shaped) {
      throw this.error([...STATE_PATH, "bound"], "extras.prereq.bound must map the job's task roles to lists of names", { hint: STATE_HINT });
    }
    for (const [role, names] of bound.entries()) {
      const chosen = new Set((selected.get(role) || []).map((text) => parseRequirement(text).name));
      names.forEach((name, position) => {
        if (chosen.has(name)) return;
        throw this.error([...STATE_PATH, "bound", role, position], `extras.prereq.bound.${role} names ${name}, which the task role does not select`,
          { hint: `bind only what extras.prereq.selected.${role} lists (job add --bind records both)` });
      });
    }
    return new Map([...bound.entries()].map(([role, names]) => [role, [...names]]));
  }

  selected(selected, rangeHint) {
    if (!(selected instanceof PyDict)) {
      throw this.error([...STATE_PATH, "selected"], "extras.prereq.selected must map task roles to lists", { hint: STATE_HINT });
    }
    const out = new Map();
    for (const [role, names] of selected.entries()) {
      const path = [...STATE_PATH, "selected", role];
      if (!Array.isArray(names) || !names.every((n) => typeof n === "string")) {
        throw this.error(path, `extras.prereq.selected.${role} must be a list of NAME[@RANGE]`, { hint: STATE_HINT });
      }
      if (typeof role !== "string" || !Object.prototype.hasOwnProperty.call(this.roles, role)) {
        throw this.error(path, `extras.prereq.selected names task role ${showScalar(role)}, which the job does not have`, {
          hint: `rename it there too when you rename a task role (task roles: ${this.roleOrder().join(", ")})`,
        });
      }
      names.forEach((text, position) => {
        const requirement = parseRequirement(text);
        if (!requirement.name) {
          throw this.error([...path, position], `'${text}' in extras.prereq.selected.${role} is not NAME or NAME@RANGE`, { hint: STATE_HINT });
        }
        if (requirement.range && !isRange(requirement.range)) {
          throw this.error([...path, position], `${text} in extras.prereq.selected.${role} has an invalid version range`, { hint: rangeHint });
        }
      });
      out.set(role, [...names]);
    }
    return out;
  }

  lock(lock) {
    if (!(lock instanceof PyDict)) throw this.error([...STATE_PATH, "lock"], "extras.prereq.lock must be a mapping", { hint: STATE_HINT });
    const out = new Map();
    for (const [name, entry] of lock.entries()) {
      if (typeof name !== "string") {
        throw this.error([...STATE_PATH, "lock", name], `extras.prereq.lock names ${showScalar(name)}, which is not a string`,
          { hint: "run 'prereq job lock' to rewrite the lock", key: true });
      }
      const version = typedGet(entry, "version");
      const digest = typedGet(entry, "digest");
      if (!(entry instanceof PyDict) || typeof version !== "string" || typeof digest !== "string") {
        throw this.error([...STATE_PATH, "lock", name], `extras.prereq.lock.${name} needs version and digest strings`,
          { hint: "run 'prereq job lock' to rewrite the lock" });
      }
      out.set(name, { version, digest });
    }
    return out;
  }
}
