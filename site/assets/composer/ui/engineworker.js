/* The job engine in a worker (engine.js starts it): its own copy of the index, loaded once from the
 * setup message (then {ready}); each call answered with plain data (an edit's with its text's view) or
 * an error's fields.
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { Index } from "../index/reader.js";
import { errorFields, fetchReader, pageEngine } from "./engine.js";

let engine = null;

self.addEventListener("message", async ({ data }) => {
  if (data.setup) {
    const { api, trust } = data.setup;
    engine = Index.load(api, fetchReader(api), { trust }).then(pageEngine);
    engine.then(() => self.postMessage({ ready: true }), () => self.postMessage({ ready: false }));
    return;
  }
  try {
    const ready = await engine;
    const result = await ready[data.op](...data.args);
    // The view of an edit's text comes with it: the page asks for it next (one message, not two).
    const role = data.op === "analyse" ? null : data.args[2]?.taskRole;
    const view = typeof role === "string" ? await ready.analyse(result.after, role).catch(() => null) : null;
    self.postMessage({ id: data.id, result, view: view && { text: result.after, role, view } });
  } catch (error) {
    self.postMessage({ id: data.id, error: errorFields(error) });
  }
});
