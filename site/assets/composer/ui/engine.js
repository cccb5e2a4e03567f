/* Where the job engine runs: in a worker when the page may start one, so that its loads of a long job
 * never hold the page, whose thread only draws; else in the page.  The same calls either way.
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";
import { addToText, removeFromText } from "../jobs/operations.js";
import { analyse } from "./view.js";

const IDLE_SECONDS = 60; // a file that sends nothing for so long has stalled: an error, not a busy composer
const READY_SECONDS = 30; // a worker not ready by then (its scripts stalled) is dropped: the page edits

/* Files of an index, fetched from API/<path> only; a slow one is waited for while bytes come, until
 * nothing came for `seconds` (a call's own, else the reader's). */
export function fetchReader(api, { seconds: idle = IDLE_SECONDS } = {}) {
  return async (path, { seconds = idle } = {}) => {
    const url = new URL(path, api + "/").href;
    if (!url.startsWith(api + "/")) throw new PrereqError(`the index names ${JSON.stringify(path)}, outside ${api}`,
      { hint: "it is not as prereq builds it: use its publisher's copy" });
    const control = new AbortController();
    let [timer, why] = [null, ""];
    const wait = () => (clearTimeout(timer), timer = setTimeout(() => control.abort(), seconds * 1000));
    try {
      wait();
      const response = await fetch(url, { cache: "no-cache", credentials: "same-origin", signal: control.signal });
      wait(); // the headers came
      if (response.ok) {
        const watched = response.body?.pipeThrough(new TransformStream({ transform: (chunk, out) => (wait(), out.enqueue(chunk)) }));
        return new Uint8Array(await new Response(watched).arrayBuffer());
      }
      why = `${response.status} ${response.statusText}`;
    } catch (error) { // the network's, or the deadline's
      why = control.signal.aborted ? `nothing came for ${seconds} s` : String(error?.message ?? error);
    } finally {
      clearTimeout(timer);
    }
    throw new PrereqError(`cannot load ${path} (${why})`, { hint: "reload the page; the site may be incomplete" });
  };
}

// Submit's preparation and the checks before it: the portal plugin's only, so loaded when it first asks.
const submission = () => import("../jobs/prepare.js");
const LOADED_LATE = new Set(["prepare", "submissionFacts"]);

export function pageEngine(index) {
  return {
    add: (text, names, options) => addToText(text, names, { ...options, index }),
    remove: (text, names, options) => removeFromText(text, names, { ...options, index }),
    analyse: (text, role) => analyse(index, text, role),
    prepare: async (text, options) => (await submission()).prepareJob(text, { ...options, index }),
    submissionFacts: async (text) => (await submission()).submissionFacts(text),
    prefetch: async (names) => void await index.ensure(names), // the files an edit of them would read
    where: () => "page",
  };
}

export const errorFields = (error) => (error instanceof PrereqError
  ? { prereq: true, message: error.message, hint: error.hint, exitCode: error.exitCode, problems: error.problems }
  : { message: String(error && error.message ? error.message : error) });
const fromFields = (fields) => (fields.prereq
  ? Object.assign(new PrereqError(fields.message, fields), { problems: fields.problems }) : new Error(fields.message));

/* A map's value, taken out of it. */
export function take(map, key) {
  const value = map.get(key);
  map.delete(key);
  return value;
}

/* Null when none starts (a policy, an old browser).  A page of another origin (the portal plugin's)
 * starts a blob of its own that imports the site's script. */
function newWorker() {
  const script = new URL("./engineworker.js", import.meta.url);
  try {
    if (script.origin === globalThis.location.origin) return new Worker(script, { type: "module" });
    const own = URL.createObjectURL(new Blob([`import ${JSON.stringify(script.href)};`], { type: "text/javascript" }));
    const worker = new Worker(own, { type: "module" });
    URL.revokeObjectURL(own); // parsed into the worker's address: it needs the URL no more
    return worker;
  } catch {
    return null;
  }
}

/* `setup`: {api, trust, files} (README.md's messages); `inPage()`: the page's engine, until `start()` or for good. */
export function workerEngine(setup, inPage, { readySeconds = READY_SECONDS } = {}) {
  let [worker, deadline, next] = [null, 0, 0];
  const [pending, viewing] = [new Map(), new Map()]; // call's id -> its promise's ends; edit's id -> what settles its view
  let lateInPage = false; // the worker could not import Submit's preparation: the page's engine makes it
  let viewed = null; // {text, role, view: a promise}: the view of the last edit's text, sent after it
  const drop = () => {
    clearTimeout(deadline);
    if (worker === null) return;
    worker.terminate();
    worker = null;
    viewing.forEach((done) => done(null));
    viewing.clear();
    for (const { resolve, reject, again } of pending.values()) again().then(resolve, reject);
    pending.clear();
  };
  const answer = ({ data }) => {
    if ("ready" in data) return data.ready ? clearTimeout(deadline) : drop();
    if ("shown" in data) { // an edit's text before its check: the check goes on once the page has painted it
      const painting = new Promise((resolve) => resolve(pending.get(data.of)?.shown?.(data.shown))); // a throw too
      return painting.catch(() => {}).then(() => worker?.postMessage({ painted: data.of }));
    }
    if ("view" in data) return take(viewing, data.of)?.(data.view);
    if (!pending.has(data.id)) return; // after a drop: the page made that call
    const { resolve, reject, op, again } = take(pending, data.id);
    if (data.error && !data.error.prereq && LOADED_LATE.has(op)) { // a failed import stays failed in that worker
      lateInPage = true;
      return again().then(resolve, reject);
    }
    if (op === "add" || op === "remove") viewed = null; // a new text: the last one's view is of no use
    if (typeof data.viewing === "string") {
      viewed = { text: data.result.after, role: data.viewing, view: new Promise((done) => viewing.set(data.id, done)) };
    }
    if (!data.error) resolve(data.result);
    else reject(fromFields(data.error));
  };
  const start = () => {
    if ((worker = newWorker()) === null) return;
    worker.addEventListener("message", answer);
    for (const kind of ["error", "messageerror"]) { // it could not start (an old browser, a policy): the page runs them
      worker.addEventListener(kind, (event) => (event.preventDefault(), drop()));
    }
    worker.postMessage({ setup });
    deadline = setTimeout(drop, readySeconds * 1000);
  };
  const post = (op, args) => new Promise((resolve, reject) => {
    // A function cannot cross to the worker: `shown` goes as true, and the text it is given comes back.
    const shown = typeof args[2]?.shown === "function" ? args[2].shown : null;
    pending.set(next, { resolve, reject, op, shown, again: () => inPage()[op](...args) });
    worker.postMessage({ id: next++, op, args: shown ? [args[0], args[1], { ...args[2], shown: true }] : args });
  });
  const call = (op) => (...args) => {
    if (worker === null || (lateInPage && LOADED_LATE.has(op))) return inPage()[op](...args);
    if (op !== "analyse" || !viewed || viewed.text !== args[0] || viewed.role !== args[1]) return post(op, args);
    const coming = viewed.view;
    viewed = null;
    return coming.then((view) => view || call(op)(...args));
  };
  return { add: call("add"), remove: call("remove"), analyse: call("analyse"), prepare: call("prepare"),
    submissionFacts: call("submissionFacts"), prefetch: call("prefetch"), start, where: () => (worker ? "worker" : "page") };
}
