/* The job engine in a worker (engine.js starts it): its own copy of the index, loaded once from the
 * setup message (then {ready}); each call answered with plain data or an error's fields, an edit's
 * followed by the view of its text.
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
    // An edit's text is sent at once, its view right after: the page asks for that next.
    const role = data.op === "analyse" ? null : data.args[2]?.taskRole;
    self.postMessage({ id: data.id, result, viewing: typeof role === "string" ? role : null });
    if (typeof role === "string") self.postMessage({ of: data.id, view: await ready.analyse(result.after, role).catch(() => null) });
  } catch (error) {
    self.postMessage({ id: data.id, error: errorFields(error) });
  }
});
