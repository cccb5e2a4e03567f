/* The job engine in a worker (engine.js starts it): its own copy of the index, loaded once from the
 * setup message (then {ready}); each call answered with plain data or an error's fields, an edit's
 * followed by the view of its text.  Until the first call it rehearses an edit (below).
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";
import { Index } from "../index/reader.js";
import { digest } from "../openpai/forms.js";
import { formNeeds } from "../openpai/needs.js";
import { errorFields, fetchReader, pageEngine, take } from "./engine.js";
import { EMPTY_JOB, START_ROLE } from "./jobfile.js";

let engine = null;
let edited = false; // once the user has edited, the rehearsal is over
export let rehearsal = null; // the setup's: what ended it, and after how many rounds
const painted = new Map(); // edit's id -> what goes on once the page has painted its text

// The rehearsal (composer/README.md, where the engine runs): chains of up to REHEARSED items, warming cold code.
const REHEARSED = 30;
const REHEARSAL_MS = 1000;
const REHEARSALS = 40;
const EDITS = new Set(["add", "remove", "analyse"]); // the plugin's checks (prepare, submissionFacts) are not

export function rehearsalIndex(index) {
  const names = Array.from({ length: REHEARSED }, (_, i) => `rehearsal-${i}`);
  const rehearsal = new Index({ ...index.root, items: names.map((name) => ({ name, type: "script", sha256: name })) },
    { base: index.base, read: () => Promise.reject(new Error("a rehearsal reads nothing")) });
  names.forEach((name, i) => {
    const [variable, start] = [`REHEARSAL_${i}_DIR`, index.root.callback_lines?.other ?? ":"];
    const openpai = { name, type: "script", version: "1.0.0", contributor: "prereq", description: `item ${i}`,
      plugin: "com.microsoft.pai.runtimeplugin.cmd", failurePolicy: "fail", callbacks: [{ event: "taskStarts",
        commands: [start, `export ${variable}=/tmp/${name}`, `mkdir -p "$${variable}"`, `echo "ready in $${variable}"`] }] };
    const version = { version: "1.0.0", item: { require: names.slice(i + 1, i + 3).map((other) => `${other}@^1.0`) },
      openpai, digest: digest(openpai), needs: formNeeds(openpai) };
    rehearsal.documents.set(name, { name, versions: [version] });
  });
  return rehearsal;
}

/* {ended: "edit" | "time" | "rounds", rounds}: the rounds that gave back the empty job. */
export async function rehearse(index, { until = () => edited, ms = REHEARSAL_MS } = {}) {
  const edit = pageEngine(rehearsalIndex(index));
  const options = { indexSource: index.base, taskRole: START_ROLE, source: "job" };
  const end = performance.now() + ms;
  let ended = null;
  const more = async () => { // a call that came meanwhile goes first
    await new Promise((resolve) => setTimeout(resolve, 0));
    ended = until() ? "edit" : performance.now() >= end ? "time" : null;
    return !ended;
  };
  for (let round = 0; round < REHEARSALS; round++) {
    const name = `rehearsal-${Math.max(0, REHEARSED - 2 - 2 * round)}`; // short chains first: cold steps are short
    if (!await more()) return { ended, rounds: round };
    const added = await edit.add(EMPTY_JOB, [name], options);
    if (!await more()) return { ended, rounds: round };
    await edit.analyse(added.after, START_ROLE);
    if (!await more()) return { ended, rounds: round };
    const removed = await edit.remove(added.after, [name], options);
    if (removed.after !== EMPTY_JOB) throw new Error("a rehearsal did not give back the job it started from");
  }
  return { ended: "rounds", rounds: REHEARSALS };
}

self.addEventListener("message", async ({ data }) => {
  if (data.setup) {
    const { api, trust, files } = data.setup;
    const fetched = fetchReader(api);
    const read = (path, options) => (files.has(path) ? Promise.resolve(files.get(path)) : fetched(path, options));
    // Once loaded, neither map keeps the root's bytes (MBs), as the page does not.
    const loaded = Index.load(api, read, { trust })
      .then((index) => (files.clear(), index.loadedFiles.clear(), index.packMap(), index));
    engine = loaded.then(pageEngine);
    engine.then(() => self.postMessage({ ready: true }), () => self.postMessage({ ready: false }));
    const failed = (error) => (console.warn("prereq: the engine's rehearsal failed:", error), { ended: "error", rounds: 0 });
    rehearsal = loaded.then((index) => rehearse(index).catch(failed), () => ({ ended: "no index", rounds: 0 }));
    return;
  }
  if ("painted" in data) return take(painted, data.painted)?.();
  if (EDITS.has(data.op)) edited = true;
  if (data.args[2]?.shown === true) { // the page paints the edit's text before its check (engine.js)
    data.args[2].shown = (text) => new Promise((resolve) => (painted.set(data.id, resolve), self.postMessage({ of: data.id, shown: text })));
  }
  try {
    const ready = await engine;
    const result = await ready[data.op](...data.args);
    // An edit the page draws is sent at once, the view of its text right after: the page asks for that next.
    const role = data.op !== "analyse" && data.args[2]?.view ? data.args[2].taskRole : null;
    self.postMessage({ id: data.id, result, viewing: typeof role === "string" ? role : null });
    if (typeof role !== "string") return;
    const view = await ready.analyse(result.after, role).catch(() => null);
    try {
      self.postMessage({ of: data.id, view });
    } catch {
      self.postMessage({ of: data.id, view: null });
    }
  } catch (error) {
    if (!(error instanceof PrereqError)) console.error(error); // a bug: its stack in the console, as the page's would be
    self.postMessage({ id: data.id, error: errorFields(error) });
  }
});
