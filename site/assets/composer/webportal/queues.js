/* The queues the user's groups get (no DOM): the index's execution catalog, the record's grouplist
 * and execution/rights.js, as `prereq rights --groups`.  Reputation is not the portal's to know: 100 (x1).
 *
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { PrereqError } from "../core/errors.js";
import { userRights } from "../execution/rights.js";
import { YamlText } from "../yaml/yamltext.js";

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
