/* The job on its ways out of the plugin (no DOM): prepared as `prereq job resolve` does, then posted
 * to the rest-server as text (comments kept) or handed to the portal's submission page (comments lost).
 * extras.submitFrom names the admin's plugin entry: the portal's Clone reads it to come back here.
 *
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { prepareText } from "../jobs/prepare.js";
import { YamlText } from "../yaml/yamltext.js";

export const HANDOVER_KEY = "marketItem";
export const SUBMISSION_PAGE = "/submit.html";

/* {text, data, name, changes, warnings}: the job as OpenPAI is to receive it; else a PrereqError. */
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

/* As the old marketplace's "Use": the submission page builds its form from localStorage.marketItem. */
export function handOver(storage, data) {
  const copy = JSON.parse(JSON.stringify(data));
  if (copy.extras && typeof copy.extras === "object") delete copy.extras.submitFrom;
  storage.setItem(HANDOVER_KEY, JSON.stringify(copy));
  return SUBMISSION_PAGE;
}
