/* The job on its ways out of the plugin (no DOM): prepared as `prereq job resolve` prepares it (the
 * same engine: names only a task role mentions filled in, the user's `<% expression.KEY %>` values
 * rendered, the lock checked, the rest-server's and the runtime's checks, secrets and bindings the
 * items need), then either posted as text to the rest-server or handed to the portal's own
 * submission page.
 *
 * Submitted, the text keeps every comment; `extras.submitFrom` names the admin's plugin entry (its
 * `id`), which the portal's Clone button reads to bring the user back to this plugin.  The hand-off
 * is the job as data in localStorage.marketItem (what the old marketplace's "Use" did), which the
 * submission page turns into its form: comments do not survive it, and the page drops submitFrom.
 *
 * Folder webportal/: the composer as an OpenPAI webportal plugin (webportal/prereq-plugin.js): the
 * rest-server's job and user APIs, the user's record and the queues its groups get, the shadow root
 * the composer is mounted into.
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { prepareText } from "../jobs/prepare.js";
import { YamlText } from "../yaml/yamltext.js";

export const HANDOVER_KEY = "marketItem";
export const SUBMISSION_PAGE = "/submit.html";

/* {text, data, name, changes, warnings}: the job as OpenPAI is to receive it, or a PrereqError. */
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

/* The hand-off to the portal's submission page: the prepared job's data, as its form reads it. */
export function handOver(storage, data) {
  const copy = JSON.parse(JSON.stringify(data));
  if (copy.extras && typeof copy.extras === "object") delete copy.extras.submitFrom;
  storage.setItem(HANDOVER_KEY, JSON.stringify(copy));
  return SUBMISSION_PAGE;
}
