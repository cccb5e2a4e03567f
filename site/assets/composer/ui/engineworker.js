/* The job engine in a worker (engine.js starts it): its own copy of the index, loaded once from the
 * setup message (then {ready}); each call answered with plain data or an error's fields, an edit's
 * followed by the view of its text.
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";
import { Index } from "../index/reader.js";
import { errorFields, fetchReader, pageEngine } from "./engine.js";

let engine = null;

self.addEventListener("message", async ({ data }) => {
  if (data.setup) {
    const { api, trust, files } = data.setup;
    const fetched = fetchReader(api);
    const read = (path) => (files.has(path) ? Promise.resolve(files.get(path)) : fetched(path));
    // Once loaded, neither map keeps the root's bytes (MBs), as the page does not.
    engine = Index.load(api, read, { trust })
      .then((index) => (files.clear(), index.loadedFiles.clear(), index.packMap(), pageEngine(index)));
    engine.then(() => self.postMessage({ ready: true }), () => self.postMessage({ ready: false }));
    return;
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
