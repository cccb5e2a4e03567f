/* What the rest-server would say of the job before Submit (no DOM): whether the user already has a
 * job of that name (names are unique per user: 409) and whether the user's groups may use its virtual
 * cluster (else 403); the queues the user's groups get (execution/rights.js, as `prereq rights --groups`;
 * reputation is not the portal's to know: 100).  A check the token cannot make says why; it never stops a submission.
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { PrereqError } from "../core/errors.js";
import { userRights } from "../execution/rights.js";
import { NAME_LENGTH } from "../jobs/prepare.js";
import { YamlText } from "../yaml/yamltext.js";

const FRESH_TRIES = 8;

export function nextName(name) {
  const numbered = /^(.*)_([1-9][0-9]*)$/.exec(name);
  const next = numbered ? `${numbered[1]}_${BigInt(numbered[2]) + 1n}` : `${name}_2`; // BigInt: any count of digits
  return next.length <= NAME_LENGTH ? next : "";
}

export async function freshName(server, name) {
  let candidate = name;
  for (let tries = 0; tries < FRESH_TRIES; tries++) {
    candidate = nextName(candidate);
    if (!candidate) return "";
    if (!(await server.hasJob(candidate))) return candidate;
  }
  return "";
}

/* A check not made: error.message (RestServerError's "Cannot …") says which and why. */
const cannot = (before, error) => ({
  state: "unknown",
  message: `${before}${error.message}. You can still submit: the rest-server checks it then.`,
  hint: error.hint || "",
});

export async function checkName(server, name) {
  const check = { check: "name", fresh: "" };
  try {
    if (!(await server.hasJob(name))) return { ...check, state: "free", message: `The name ${name} is free: you have no job of that name.`, hint: "" };
    const fresh = await freshName(server, name);
    return {
      ...check, state: "taken", fresh,
      message: `You already have a job named ${name}: the rest-server would refuse this one (job names are unique per user).`,
      hint: fresh ? `submit it as ${fresh}, or change name: in the YAML` : "change name: in the YAML",
    };
  } catch (error) {
    return { ...check, ...cannot("", error) };
  }
}

/* Not asked about (the rest-server would say it is taken, by this very job); a fresh name offered. */
export async function checkSubmitted(server, name) {
  let fresh = "";
  try {
    fresh = await freshName(server, name);
  } catch (error) { /* the hint says what to do */ }
  return {
    check: "name", state: "submitted", fresh, message: `You submitted ${name} just now.`,
    hint: `to submit it again, give it another name${fresh ? ` (${fresh} is free)` : ": change name: in the YAML"}; job names are unique per user`,
  };
}

/* `record` is null when it could not be read: `recordError` says why. */
export function checkCluster(record, recordError, cluster) {
  const check = { check: "cluster", fresh: "" };
  const mine = record && Array.isArray(record.virtualCluster) ? record.virtualCluster.map(String) : null;
  if (!mine) return { ...check, ...cannot(`Virtual cluster ${cluster} not checked: `, recordError || new Error("your record lists none")) };
  if (mine.includes(cluster)) return { ...check, state: "allowed", message: `Virtual cluster ${cluster}: your groups may use it.`, hint: "" };
  return {
    ...check, state: "denied",
    message: `Your groups may not use the virtual cluster ${cluster}: the rest-server would refuse the job. Yours: ${mine.length ? mine.join(", ") : "none"}.`,
    hint: "set defaults.virtualCluster to one of yours, or pick a queue below",
  };
}

export function withName(text, name) {
  const yaml = new YamlText(text, { source: "job", mergeKeys: true });
  yaml.set(["name"], name);
  return yaml.text;
}

const ASK = "ask your administrators";
export const NO_QUEUE = `No queue is offered to your groups: ${ASK}.`;

export const CATALOG_PATH = "execution/catalog.json";
export const CATALOG_FORMAT = "prereq-execution/1";

export async function loadCatalog(api, fetch = globalThis.fetch) {
  const url = `${api}/${CATALOG_PATH}`;
  const response = await fetch(url, { cache: "no-cache", credentials: "same-origin" });
  if (response.status === 404) return null;
  if (!response.ok) throw new PrereqError(`cannot load the execution catalog (${response.status} ${response.statusText})`,
    { hint: "reload the page; the index may be incomplete" });
  const document = await response.json();
  if (!document || document.format !== CATALOG_FORMAT) {
    throw new PrereqError(`the index's execution catalog is in the format ${JSON.stringify(document && document.format)}, not ${CATALOG_FORMAT}`,
      { hint: "the index is newer or older than this plugin: rebuild the site with the same prereq" });
  }
  const records = (key) => Array.isArray(document[key]) && document[key].every((entry) => entry && typeof entry === "object");
  if (!records("queues") || !records("rights")) {
    throw new PrereqError("the index's execution catalog is not as prereq builds it: its queues and rights are not lists of records",
      { hint: "use its publisher's copy, or rebuild the site with prereq build" });
  }
  return document;
}

/* Every queue the groups give a slot on; `usable` is null when the record lists no virtual clusters. */
export function queueOffers(document, record) {
  const groups = Array.isArray(record.grouplist) ? record.grouplist.map(String) : [];
  const clusters = Array.isArray(record.virtualCluster) ? record.virtualCluster.map(String) : null;
  const queues = new Map(document.queues.map((queue) => [queue.name, queue]));
  return userRights(document, groups).map((right) => {
    const queue = queues.get(right.queue);
    return {
      queue: right.queue, title: queue.title, slots: right.slots, priority: right.priority, groups: right.groups,
      virtualCluster: queue.virtual_cluster, usable: clusters ? clusters.includes(queue.virtual_cluster) : null,
    };
  });
}

/* A new `defaults` goes before `extras`, where the protocol lists it. */
export function withVirtualCluster(text, cluster) {
  const yaml = new YamlText(text, { source: "job", mergeKeys: true });
  if (yaml.get(["defaults"]) && typeof yaml.get(["defaults"]) === "object") yaml.set(["defaults", "virtualCluster"], cluster);
  else yaml.set(["defaults"], { virtualCluster: cluster }, { before: ["extras"] });
  return yaml.text;
}

/* `error` is queueOffers' (null: the groups have no slot on any queue). */
export function noQueueWords(error, { admin, groups }) {
  if (!admin) return { message: NO_QUEUE, hint: "" };
  if (error) return { message: error.message, hint: error.hint || "" };
  return {
    message: `None of the groups ${groups.join(", ") || "(none)"} has a slot on a queue of the execution catalog.`,
    hint: "rights.yaml's rows and owners.yaml's teams give groups their slots; 'prereq rights --groups GROUP' shows them",
  };
}

export function catalogWords(error, { admin }) {
  if (admin) return { message: error.message, hint: error.hint || "" };
  return { message: `The queues cannot be shown: ${error.message}.`, hint: `reload the page; if it stays so, ${ASK}` };
}
