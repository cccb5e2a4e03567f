/* The portal's Clone, back in the plugin (no DOM).  On the page of a job whose extras.submitFrom names
 * a plugin, the portal's Clone button opens that plugin's page with the job's namespace and name
 * (`plugin.html?op=resubmit&type=job&user=USER&jobname=NAME&index=N`, microsoft/pai's
 * job-detail/components/clone-button.jsx); the plugin reads the job's config from the rest-server
 * (GET /api/v2/jobs/USER~NAME/config, as the portal's submission page does) and opens it.
 *
 * What the rest-server keeps is the YAML text as submitted with its `secrets:` replaced by "******",
 * but it answers it parsed, as JSON: comments do not come back from it.  So the plugin also keeps,
 * in this browser, the text the user had in the editor for each job it submitted (comments, and
 * `<% expression.KEY %>` unrendered), with what the rest-server was sent; a clone opens that text
 * when the rest-server's config is still what was sent, and the rest-server's own (as block YAML)
 * otherwise.  Kept texts belong to the user who submitted them: another user signing in on this
 * browser starts with none, and only the user's own jobs are looked up.  (They hold what the editor
 * held, secrets included, as the composer's draft in the same storage already does.)
 *
 * Folder webportal/: the composer as an OpenPAI webportal plugin (webportal/prereq-plugin.js): the
 * rest-server's job and user APIs, the user's record and the queues its groups get, the shadow root
 * the composer is mounted into.
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { PrereqError } from "../core/errors.js";
import { blockYamlOfJson } from "../ui/jsonjob.js";
import { loadYamlOrNull } from "../yaml/yamlload.js";

export const KEPT_KEY = "prereq.webportal.submitted";
const KEPT_JOBS = 20; // the last jobs submitted from this browser whose text is kept

/* {user, name} of a Clone that opened the plugin, or null. */
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

/* The data of a YAML (or JSON) text as JSON text, to compare what was sent with what is kept; null
 * when it does not load. */
function dataOf(text) {
  const loaded = loadYamlOrNull(text, { mergeKeys: true });
  return loaded === null ? null : JSON.stringify(loaded.data);
}

/* The texts of the jobs the user submitted from this browser, in its storage. */
export class KeptJobs {
  constructor(storage, user) {
    this.storage = storage;
    this.user = user;
  }

  all() {
    try {
      const kept = JSON.parse(this.storage.getItem(KEPT_KEY) || "null");
      return kept && kept.user === this.user && kept.jobs && typeof kept.jobs === "object" ? kept.jobs : {};
    } catch (error) {
      return {};
    }
  }

  /* Keep `text` (the editor's) for the job `name`, as submitted in `sent` (the prepared text). */
  keep(name, text, sent) {
    const jobs = this.all();
    delete jobs[name]; // the newest last: the oldest are dropped first
    jobs[name] = { text, sent: dataOf(maskSecrets(sent)) };
    const names = Object.keys(jobs);
    for (const old of names.slice(0, Math.max(0, names.length - KEPT_JOBS))) delete jobs[old];
    try {
      this.storage.setItem(KEPT_KEY, JSON.stringify({ user: this.user, jobs }));
    } catch (error) { /* storage full or disabled: a clone then opens the rest-server's config */ }
  }

  /* The editor's text of the job, when the rest-server's `config` is still what was sent; else null. */
  find(name, config) {
    const job = this.all()[name];
    return job && typeof job.text === "string" && job.sent !== null && job.sent === dataOf(config) ? job.text : null;
  }
}

/* {text, message} to open for the Clone `request`, or a PrereqError. */
export async function clonedJob(server, request, kept) {
  const config = await server.jobConfig(request.user, request.name);
  const job = `${request.user}~${request.name}`;
  if (config === null) throw new PrereqError(`Cannot clone ${job}: the rest-server has no such job`, { hint: "it may have been deleted; open another job's Clone" });
  const own = request.user === server.user ? kept.find(request.name, config) : null;
  if (own !== null) return { text: own, message: `opened ${job} as you wrote it in this browser, comments and all` };
  const block = blockYamlOfJson(config);
  // The rest-server's JSON ends without a line end; the editor's text gets one, as a file would.
  if (block !== null) return { text: block.replace(/\n?$/, "\n"), message: `opened ${job} as the rest-server keeps it (it keeps no comments)` };
  return { text: config, message: `opened ${job} as the rest-server keeps it` };
}
