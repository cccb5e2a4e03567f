/* The portal's Clone, back in the plugin, and the texts kept for it (no DOM; composer/README.md, Clone).
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { PrereqError } from "../core/errors.js";
import { blockYamlOfJson } from "../ui/jsonjob.js";
import { readStored, writeStored } from "../ui/jobfile.js";
import { loadYamlOrNull } from "../yaml/yamlload.js";

export const KEPT_KEY = "prereq.webportal.submitted";
const KEPT_JOBS = 20; // the last jobs submitted here whose text is kept

export function cloneRequest(search) {
  const params = new URLSearchParams(search);
  if (params.get("op") !== "resubmit") return null;
  const user = params.get("user") || "";
  const name = params.get("jobname") || params.get("jobName") || ""; // the portal spells it both ways
  return user && name ? { user, name } : null;
}

/* The rest-server's mask of a job's secrets (src/rest-server/src/utils/protocolSecret.js). */
export function maskSecrets(text) {
  return (text + "\nZ").replace(/(^secrets:)[^]*?(^\w)/m, '$1 "******"\n$2').slice(0, -2);
}

/* The text's data as JSON text, to compare what was sent with the config kept; null if unloadable. */
function dataOf(text) {
  const loaded = loadYamlOrNull(text, { mergeKeys: true });
  return loaded === null ? null : JSON.stringify(loaded.data);
}

export class KeptJobs {
  constructor(storage, user) {
    this.storage = storage;
    this.user = user;
  }

  all() {
    const kept = readStored(KEPT_KEY, null, this.storage);
    return kept && kept.user === this.user && kept.jobs && typeof kept.jobs === "object" ? kept.jobs : {};
  }

  /* `text` is the editor's, `sent` the prepared text that was posted. */
  keep(name, text, sent) {
    const jobs = this.all();
    delete jobs[name]; // the newest last: the oldest are dropped first
    jobs[name] = { text, sent: dataOf(maskSecrets(sent)) };
    const names = Object.keys(jobs);
    for (const old of names.slice(0, Math.max(0, names.length - KEPT_JOBS))) delete jobs[old];
    writeStored(KEPT_KEY, { user: this.user, jobs }, this.storage); // storage full or disabled: a clone opens the config
  }

  find(name, config) {
    const job = this.all()[name];
    return job && typeof job.text === "string" && job.sent !== null && job.sent === dataOf(config) ? job.text : null;
  }
}

export async function clonedJob(server, request, kept) {
  const config = await server.jobConfig(request.user, request.name);
  const job = `${request.user}~${request.name}`;
  if (config === null) throw new PrereqError(`Cannot clone ${job}: the rest-server has no such job`, { hint: "it may have been deleted; open another job's Clone" });
  const own = request.user === server.user ? kept.find(request.name, config) : null;
  if (own !== null) return { text: own, message: `opened ${job} as you wrote it in this browser, comments and all` };
  const block = blockYamlOfJson(config);
  // the rest-server's JSON has no final line end; a file would
  if (block !== null) return { text: block.replace(/\n?$/, "\n"), message: `opened ${job} as the rest-server keeps it (it keeps no comments)` };
  return { text: config, message: `opened ${job} as the rest-server keeps it` };
}
