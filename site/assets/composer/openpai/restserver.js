/* The rest-server's checks after the schema, its HiveD middleware's that need no cluster, and
 * validateJob, as prereq.openpai.protocol.  A problem's source names who refuses: "webportal" ones are
 * warnings (only its submission form refuses), "runtime" ones fail the job once it starts.
 *
 * May import: core/, yaml/, vendor/.
 */

import { PREREQUISITE_TYPES, TASK_ROLE_FIELD_TYPES, TASK_ROLE_NAME, isObject, own, schemaProblems, show } from "./protocol.js";

// The names the rest-server's schema allows: the others are the schema's problem, not the webportal's.
const REST_SERVER_ROLE_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const WARNING_SOURCES = ["webportal"]; // problems that do not stop the rest-server

/* The rest-server's convertName: the name the task role runs under, which the runtime looks up. */
const frameworkRoleName = (role) => role.toLowerCase().replace(/[^a-z0-9]/g, "");

export function refusals(problems) {
  return problems.filter((problem) => !WARNING_SOURCES.includes(problem.source));
}

const problem = (path, message, source = "rest-server") => ({ path, message, source });

export function restServerProblems(job) {
  if (!isObject(job)) return [];
  const problems = [];
  const byType = new Map(PREREQUISITE_TYPES.map((kind) => [kind, new Set()]));
  const prerequisites = own(job, "prerequisites");
  (Array.isArray(prerequisites) ? prerequisites : []).forEach((item, position) => {
    const kind = own(item, "type");
    const name = own(item, "name");
    if (typeof kind !== "string" || !byType.has(kind) || typeof name !== "string") return;
    if (byType.get(kind).has(name)) problems.push(problem(["prerequisites", position], `Duplicate ${kind} prerequisites ${name}.`));
    byType.get(kind).add(name);
  });
  const every = new Set([...byType.values()].flatMap((names) => [...names]));
  const roles = own(job, "taskRoles");
  for (const role of isObject(roles) ? Object.keys(roles) : []) {
    const spec = roles[role];
    const renamed = frameworkRoleName(role);
    if (REST_SERVER_ROLE_NAME.test(role) && renamed !== role) {
      problems.push(problem(["taskRoles", role], `task role name ${show(role)} is accepted by the rest-server, but it names ` +
        `the task role ${show(renamed)} (lower-case letters and digits only), which the runtime then does not find in ` +
        "the job: rename it to match ^[a-z0-9]{1,63}$", "runtime"));
    } else if (REST_SERVER_ROLE_NAME.test(role) && !TASK_ROLE_NAME.test(role)) {
      problems.push(problem(["taskRoles", role], `task role name ${show(role)} is accepted by the rest-server, but the ` +
        "webportal's submission form allows only ^[a-z0-9]{1,63}$ (lower-case letters and digits)", "webportal"));
    }
    if (!isObject(spec)) continue;
    for (const [field, kind] of Object.entries(TASK_ROLE_FIELD_TYPES)) {
      const name = own(spec, field);
      if (typeof name === "string" && !byType.get(kind).has(name)) {
        problems.push(problem(["taskRoles", role, field], `Prerequisite ${name} does not exist.`));
      }
    }
    const names = own(spec, "prerequisites");
    (Array.isArray(names) ? names : []).forEach((name, position) => {
      if (typeof name === "string" && !every.has(name)) {
        problems.push(problem(["taskRoles", role, "prerequisites", position], `Prerequisite ${name} does not exist.`));
      }
    });
  }
  const deployments = own(job, "deployments");
  const seen = new Set();
  (Array.isArray(deployments) ? deployments : []).forEach((deployment, position) => {
    const name = own(deployment, "name");
    if (typeof name !== "string") return; // the protocol schema requires a string name
    if (seen.has(name)) problems.push(problem(["deployments", position], `Duplicate deployments ${name}.`));
    seen.add(name);
  });
  const defaults = own(job, "defaults");
  const deployment = own(defaults, "deployment");
  if (typeof deployment === "string" && !seen.has(deployment)) {
    problems.push(problem(["defaults", "deployment"], `Default deployment ${deployment} does not exist.`));
  }
  return problems;
}

const HIVED_PRIORITY_CLASSES = ["prod", "test", "oppo"]; // its schema's (its convertPriority also maps "crit")
const HIVED_ROLE_NAME = /^[A-Za-z0-9._~]+$/; // its schema's
const HIVED_CELL_FIELDS = ["skuType", "pinnedCellId", "affinityGroupName"];
const HIVED = ["extras", "hivedScheduler"];

// HiveD makes its own checks only once its schema passes.
export function hivedProblems(job) {
  const extras = own(job, "extras");
  if (!isObject(extras) || !Object.prototype.hasOwnProperty.call(extras, "hivedScheduler")) return [];
  const config = extras.hivedScheduler;
  const problems = hivedSchemaProblems(config);
  if (problems.length) return problems;
  const roles = own(job, "taskRoles");
  let hived = own(config, "taskRoles");
  // its Object.keys: the indexes, and no role is named "0"
  if ((typeof hived === "string" || Array.isArray(hived)) && hived.length) hived = { 0: null };
  return hivedRoleProblems(isObject(roles) ? roles : {}, isObject(hived) ? hived : {});
}

function hivedSchemaProblems(config) {
  if (!isObject(config)) return [problem(HIVED, `${show(config)} is not of type "object"`)];
  const problems = [];
  const priority = own(config, "jobPriorityClass");
  if (priority !== undefined && !HIVED_PRIORITY_CLASSES.includes(priority)) {
    problems.push(problem([...HIVED, "jobPriorityClass"],
      `${show(priority)} is not one of HiveD's priority classes ${show(HIVED_PRIORITY_CLASSES)}`));
  }
  const roles = own(config, "taskRoles");
  if (!isObject(roles)) return problems; // its schema gives taskRoles no type
  if (!Object.keys(roles).length) problems.push(problem([...HIVED, "taskRoles"], "{} should name at least one task role"));
  for (const [name, spec] of Object.entries(roles)) {
    const path = [...HIVED, "taskRoles", name];
    if (!HIVED_ROLE_NAME.test(name)) {
      problems.push(problem(path, `HiveD task role name ${show(name)} does not match ^[A-Za-z0-9._~]+$`));
    } else if (!isObject(spec)) {
      problems.push(problem(path, `${show(spec)} is not of type "object"`));
    } else {
      for (const key of HIVED_CELL_FIELDS) {
        const value = own(spec, key);
        if (value !== undefined && value !== null && typeof value !== "string") {
          problems.push(problem([...path, key], `${show(value)} is not of type "string", "null"`));
        }
      }
    }
  }
  return problems;
}

function hivedRoleProblems(roles, hived) {
  const problems = [];
  const groups = new Map();
  for (const [name, spec] of Object.entries(hived)) {
    const path = [...HIVED, "taskRoles", name];
    if (!Object.prototype.hasOwnProperty.call(roles, name)) {
      problems.push(problem(path, `Taskrole ${name} does not exist.`));
      continue;
    }
    const cell = [own(spec, "skuType") ?? null, own(spec, "pinnedCellId") ?? null];
    if (!cell.includes(null)) {
      problems.push(problem(path, `Taskrole ${name} has both skuType and pinnedCellId, only one is allowed.`));
    }
    const group = own(spec, "affinityGroupName") ?? null;
    if (group === null) continue;
    if (!groups.has(group)) groups.set(group, cell);
    if (groups.get(group).some((value, i) => value !== cell[i])) {
      problems.push(problem([...path, "affinityGroupName"], `AffinityGroup ${group} has inconsistent skuType or pinnedCellId.`));
    }
  }
  return problems;
}

// The rest-server accepts a dockerImage named like another type's prerequisite (names are unique per
// type), but the runtime's image check looks prerequisites up by name alone and fails.
export function imageNameProblems(job) {
  const items = isObject(job) && Array.isArray(own(job, "prerequisites")) ? job.prerequisites : [];
  const kinds = new Map();
  for (const item of items) {
    const [name, kind] = [own(item, "name"), own(item, "type")];
    if (typeof name === "string" && typeof kind === "string") kinds.set(name, [...(kinds.get(name) || []), kind]);
  }
  const roles = own(job, "taskRoles");
  const problems = [];
  for (const role of isObject(roles) ? Object.keys(roles) : []) {
    const name = own(roles[role], "dockerImage");
    const found = typeof name === "string" ? kinds.get(name) || [] : [];
    const others = found.filter((kind) => kind !== "dockerimage");
    if (found.includes("dockerimage") && others.length) {
      problems.push(problem(["taskRoles", role, "dockerImage"], `dockerImage ${name} of task role ${role} shares its name ` +
        `with the ${others[0]} prerequisite ${name}: the runtime's image check looks prerequisites up by name alone and fails; rename one`, "runtime"));
    }
  }
  return problems;
}

/* protocol.py's cluster_problems: the rest-server's put finds the user's clusters by includes, so by no number. */
function clusterProblems(job) {
  const cluster = own(own(job, "defaults"), "virtualCluster");
  if (cluster === null || cluster === undefined || typeof cluster === "string") return [];
  const message = `${show(cluster)} is not a name: the rest-server finds no virtual cluster of yours by it and forbids the job`;
  return [problem(["defaults", "virtualCluster"], message + " (quote it)")];
}

export function validateJob(job, schema) {
  return [...schemaProblems(job, schema), ...restServerProblems(job), ...hivedProblems(job), ...clusterProblems(job)];
}
