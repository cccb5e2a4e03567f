/* Where the job engine runs: in a worker when the page may start one, so that its loads of a long job
 * never hold the page, whose own thread only draws; else in the page (the portal plugin: a worker's
 * script must come from the page's origin, and the plugin's does not).  The same calls either way.
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";
import { addToText, removeFromText } from "../jobs/operations.js";
import { analyse } from "./view.js";

/* Files of an index, fetched from API/<path> only. */
export function fetchReader(api) {
  return async (path) => {
    const url = new URL(path, api + "/").href;
    const response = await fetch(url, { cache: "no-cache", credentials: "same-origin" });
    if (!response.ok) throw new PrereqError(`cannot load ${path} (${response.status} ${response.statusText})`,
      { hint: "reload the page; the site may be incomplete" });
    return new Uint8Array(await response.arrayBuffer());
  };
}

export function pageEngine(index) {
  return {
    add: (text, names, options) => addToText(text, names, { ...options, index }),
    remove: (text, names, options) => removeFromText(text, names, { ...options, index }),
    analyse: (text, role) => analyse(index, text, role),
    where: () => "page",
  };
}

export const errorFields = (error) => (error instanceof PrereqError
  ? { prereq: true, message: error.message, hint: error.hint, exitCode: error.exitCode }
  : { message: String(error && error.stack ? error.stack : error) });

/* `setup` ({api, trust}): how the worker loads its own copy of the index.  `inPage()`: the page's
 * engine, which answers until `start()` (called once the page has started: the worker's loading then
 * does not slow the page's own), and for good when no worker starts or one fails.  A call made while
 * the worker loads waits for it. */
export function workerEngine(setup, inPage) {
  let worker = null;
  const pending = new Map();
  let next = 0;
  let viewed = null; // the view that came with the last edit
  const drop = () => {
    worker.terminate();
    worker = null;
    for (const { resolve, reject, again } of pending.values()) again().then(resolve, reject);
    pending.clear();
  };
  const answer = ({ data }) => {
    if ("ready" in data) return data.ready || drop();
    const { resolve, reject } = pending.get(data.id);
    pending.delete(data.id);
    viewed = data.view;
    if (!data.error) resolve(data.result);
    else reject(data.error.prereq ? new PrereqError(data.error.message, data.error) : new Error(data.error.message));
  };
  const start = () => {
    try {
      worker = new Worker(new URL("./engineworker.js", import.meta.url), { type: "module" });
    } catch {
      return; // a script of another origin: the page's engine
    }
    worker.addEventListener("message", answer);
    worker.addEventListener("error", (event) => { // it could not start (an old browser, a policy): the page runs them
      event.preventDefault();
      drop();
    });
    worker.postMessage({ setup });
  };
  const call = (op) => (...args) => (worker === null ? inPage()[op](...args) : new Promise((resolve, reject) => {
    if (op === "analyse" && viewed && viewed.text === args[0] && viewed.role === args[1]) return resolve(viewed.view);
    pending.set(next, { resolve, reject, again: () => inPage()[op](...args) });
    worker.postMessage({ id: next++, op, args });
  }));
  return { add: call("add"), remove: call("remove"), analyse: call("analyse"), start, where: () => (worker ? "worker" : "page") };
}
