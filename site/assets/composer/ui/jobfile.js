/* The job's text into and out of the page: the job a user starts from, the draft kept between visits
 * (prereq.js states the storage contract) and the download.
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";
import { parseRequirement } from "../core/versions.js";
import { addToText } from "../jobs/operations.js";
import { YamlLoadError, decodeUtf8 } from "../yaml/yamlload.js";
import { loadError } from "../yaml/yamltext.js";

const DRAFT_KEY = "prereq.composer.draft";
export const START_ROLE = "taskrole";

export const EMPTY_JOB = [
  "# An OpenPAI job (protocol version 2).  Check prerequisites in the list: they are added below,",
  "# with everything they require, and listed in the task role they run in.  Check a Docker image",
  "# item too (it becomes the task role's dockerImage), or write your own image in 'prerequisites'.",
  "protocolVersion: 2",
  "name: my-job",
  "type: job",
  "jobRetryCount: 0",
  "taskRoles:",
  "  taskrole:",
  "    instances: 1",
  "    resourcePerInstance:",
  "      cpu: 4",
  "      memoryMB: 8192",
  "      gpu: 1",
  "    commands:",
  "      - echo 'your commands here'",
  "defaults:",
  "  virtualCluster: default",
  "",
].join("\n");

function unusable(index, wanted) {
  const name = parseRequirement(wanted).name;
  const entry = index.entries.get(name);
  if (!entry) return `the index has no item named ${name}`;
  return entry.type === "dockerimage" ? "" : `${name} is a ${entry.type} item, not a Docker image`;
}

/* The empty job on the starting image, as `prereq job add --task-role taskrole IMAGE` writes it: the
 * host's image (the plugin's entry), else the index's start_image; on a problem, the next is tried. */
export async function startingJob(index, { image = null, indexSource = null } = {}) {
  const problems = [];
  const named = [["entry", image], ["index", index.root.start_image]].filter(([, wanted]) => typeof wanted === "string" && wanted.trim());
  for (const [from, wanted] of named) {
    let reason = unusable(index, wanted.trim());
    if (!reason) {
      try {
        const result = await addToText(EMPTY_JOB, [wanted.trim()], { index, indexSource, taskRole: START_ROLE, source: "job" });
        return { text: result.after, image: parseRequirement(wanted).name, from, problems };
      } catch (error) {
        if (!(error instanceof PrereqError)) throw error;
        reason = error.message;
      }
    }
    problems.push({ from, image: wanted.trim(), reason });
  }
  return { text: EMPTY_JOB, image: null, from: null, problems };
}

export async function openingJob(index, host) {
  const starting = await startingJob(index, { image: host.image, indexSource: host.indexSource });
  const draft = loadDraft();
  return { starting, text: draft ? draft.text : starting.text, role: draft ? draft.role : "" };
}

/* JSON kept in `storage` (this browser's); `fallback` when it is missing, broken or refused. */
export function readStored(key, fallback, storage = null) {
  try {
    const value = JSON.parse((storage || window.localStorage).getItem(key) || "null");
    return value === null ? fallback : value;
  } catch (error) {
    return fallback;
  }
}

export function writeStored(key, value, storage = null) {
  try {
    (storage || window.localStorage).setItem(key, JSON.stringify(value));
  } catch (error) { /* storage full or disabled: kept until the page closes */ }
}

export const saveDraft = (text, role) => writeStored(DRAFT_KEY, { text, role });

function loadDraft() {
  const draft = readStored(DRAFT_KEY, null);
  const usable = draft !== null && typeof draft === "object" && typeof draft.text === "string" && draft.text.trim();
  return usable ? { text: draft.text, role: typeof draft.role === "string" ? draft.role : "" } : null;
}

const TYPES = { yaml: "application/yaml;charset=utf-8", json: "application/json;charset=utf-8" };

export function download(text, jobName, format = "yaml") {
  const name = (jobName || "job").replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^[.-]+/, "") || "job";
  const blob = new Blob([text], { type: TYPES[format] });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name + "." + format;
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/* An opened file's text, read as the CLI reads a job file: UTF-8, else refused at its first bad byte
 * (File.text() would put U+FFFD in its place unsaid). */
export async function openedText(file) {
  const source = /^job(?::|$)/.test(file.name) ? `./${file.name}` : file.name; // "job:…" names the editor's text
  let bytes;
  try {
    bytes = new Uint8Array(await file.arrayBuffer());
  } catch (error) { // gone or unreadable since it was chosen
    throw new PrereqError(`cannot read ${source} (${error?.message ?? error})`, { hint: "choose the file again" });
  }
  try {
    return decodeUtf8(bytes);
  } catch (error) {
    throw error instanceof YamlLoadError ? loadError(source, error, { hint: "save the file as UTF-8" }) : error;
  }
}

/* A link's ?template= and ?add=, taken out of the address, so that a reload does not start or add again. */
export function takeLinkRequest() {
  const address = new URL(window.location.href);
  const request = { template: address.searchParams.get("template"), add: address.searchParams.get("add") };
  ["template", "add"].forEach((name) => address.searchParams.delete(name));
  if (request.template !== null || request.add !== null) window.history.replaceState(null, "", address.pathname + address.search + address.hash);
  return request;
}
