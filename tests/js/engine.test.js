// ui/engine.js: where the composer's engine runs, with a stand-in for the browser's Worker.
// Run from the repository: node --test tests/js/

import assert from "node:assert/strict";
import { resolveObjectURL } from "node:buffer";
import { test } from "node:test";

import { PrereqError } from "../../site/assets/composer/core/errors.js";
import { fetchReader, workerEngine } from "../../site/assets/composer/ui/engine.js";

/* A Worker that records what it is sent; the test answers for it. */
class StandIn {
  static last = null;
  constructor(url, options) {
    this.url = String(url);
    this.source = this.url.startsWith("blob:") ? resolveObjectURL(this.url) : null; // what it was started from
    this.options = options;
    this.sent = [];
    this.listeners = { message: [], error: [], messageerror: [] };
    this.terminated = false;
    StandIn.last = this;
  }

  addEventListener(kind, listener) { this.listeners[kind].push(listener); }
  postMessage(data) { this.sent.push(structuredClone(data)); }
  terminate() { this.terminated = true; }
  say(data) { for (const listener of this.listeners.message) listener({ data: structuredClone(data) }); }
  fail(kind = "error") { for (const listener of this.listeners[kind]) listener({ preventDefault() {} }); }
}

function pageCalls() {
  const calls = [];
  const engine = {
    add: async (...args) => { calls.push(["add", ...args]); return { after: "in the page" }; },
    remove: async (...args) => { calls.push(["remove", ...args]); return { after: "" }; },
    analyse: async (...args) => { calls.push(["analyse", ...args]); return { role: "page" }; },
    where: () => "page",
  };
  return { calls, inPage: () => engine };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

globalThis.location = { origin: "null" }; // a page of the file: URLs the modules are read from

/* An engine whose worker (a StandIn) has been started and said it is ready. */
function started(inPage) {
  globalThis.Worker = StandIn;
  const engine = workerEngine({ api: "API" }, inPage);
  engine.start();
  StandIn.last.say({ ready: true });
  return { engine, worker: StandIn.last };
}

test("engine: the page's engine answers until start, then the worker, which gets the setup first", async () => {
  globalThis.Worker = StandIn;
  const { calls, inPage } = pageCalls();
  const engine = workerEngine({ api: "API", trust: null }, inPage);
  assert.deepEqual(await engine.analyse("job", "train"), { role: "page" });
  assert.equal(engine.where(), "page");
  engine.start();
  const worker = StandIn.last;
  assert.match(worker.url, /ui\/engineworker\.js$/);
  assert.deepEqual(worker.options, { type: "module" });
  assert.equal(engine.where(), "worker");
  const added = engine.add("job", ["a"], { taskRole: "train" });
  assert.deepEqual(worker.sent, [{ setup: { api: "API", trust: null } }, { id: 0, op: "add", args: ["job", ["a"], { taskRole: "train" }] }]);
  worker.say({ ready: true });
  worker.say({ id: 0, result: { after: "job with a" }, viewing: "train" });
  assert.deepEqual(await added, { after: "job with a" });
  assert.equal(calls.length, 1, "only the start's analysis ran in the page");
});

test("engine: a page of another origin (the portal plugin's) starts a worker of its own that imports the site's", async () => {
  globalThis.location = { origin: "https://portal.example" };
  try {
    const { worker } = started(pageCalls().inPage);
    assert.match(worker.url, /^blob:/);
    assert.deepEqual(worker.options, { type: "module" });
    const script = new URL("../../site/assets/composer/ui/engineworker.js", import.meta.url).href;
    assert.equal(await worker.source.text(), `import ${JSON.stringify(script)};`);
    assert.equal(resolveObjectURL(worker.url), undefined, "the blob's URL is revoked once the worker has it");
  } finally {
    globalThis.location = { origin: "null" };
  }
});

test("engine: the view of an edit's text is not asked for again, and may come after the page asks", async () => {
  const { engine, worker } = started(pageCalls().inPage);
  const added = engine.add("job", ["a"], { taskRole: "train" });
  worker.say({ id: 0, result: { after: "job with a" }, viewing: "train" });
  await added;
  const view = engine.analyse("job with a", "train");
  await settled();
  assert.equal(worker.sent.length, 2, "no message for the view: it is on its way");
  worker.say({ of: 0, view: { role: "train", closure: [] } });
  assert.deepEqual(await view, { role: "train", closure: [] });
  const again = engine.analyse("job with a", "train"); // taken once: asked again, it is asked of the worker
  assert.deepEqual(worker.sent.at(-1), { id: 1, op: "analyse", args: ["job with a", "train"] });
  worker.say({ id: 1, result: { role: "train" }, viewing: null });
  assert.deepEqual(await again, { role: "train" });
  const other = engine.analyse("job with a", "evaluate"); // another role: not that view
  assert.deepEqual(worker.sent.at(-1).args, ["job with a", "evaluate"]);
  worker.say({ id: 2, result: { role: "evaluate" }, viewing: null });
  await other;
});

test("engine: an answer to a call that changes no text (a prefetch) keeps the view on its way", async () => {
  const { engine, worker } = started(pageCalls().inPage);
  const added = engine.add("job", ["a"], { taskRole: "train" });
  const prefetched = engine.prefetch(["b"]);
  worker.say({ id: 0, result: { after: "job with a" }, viewing: "train" });
  worker.say({ id: 1, result: undefined, viewing: null });
  await Promise.all([added, prefetched]);
  const view = engine.analyse("job with a", "train");
  await settled();
  assert.deepEqual(worker.sent.map((message) => message.op ?? "setup"), ["setup", "add", "prefetch"], "the view is not asked for");
  worker.say({ of: 0, view: { role: "train" } });
  assert.deepEqual(await view, { role: "train" });
});

test("engine: a view the worker could not make is asked for again; an error comes back a PrereqError", async () => {
  const { engine, worker } = started(pageCalls().inPage);
  const removed = engine.remove("job", ["a"], { taskRole: "train" });
  worker.say({ id: 0, result: { after: "job" }, viewing: "train" });
  await removed;
  const view = engine.analyse("job", "train");
  worker.say({ of: 0, view: null });
  await settled();
  assert.deepEqual(worker.sent.at(-1), { id: 1, op: "analyse", args: ["job", "train"] });
  worker.say({ id: 1, error: { prereq: true, message: "job:3:1: bad", hint: "fix it", exitCode: 1 } });
  await assert.rejects(view, (error) => error instanceof PrereqError && error.hint === "fix it" && error.exitCode === 1);
  const bug = engine.add("job", ["b"], {});
  worker.say({ id: 2, error: { message: "TypeError: x is undefined" } });
  await assert.rejects(bug, (error) => !(error instanceof PrereqError) && /TypeError/.test(error.message));
  // Submit's preparation (the plugin's checks) runs there too, its refusal's problems kept for their lines.
  const prepared = engine.prepare("job", { submitFrom: "prereq" });
  assert.deepEqual(worker.sent.at(-1), { id: 3, op: "prepare", args: ["job", { submitFrom: "prereq" }] });
  const problems = [{ path: ["taskRoles", "train"], message: "bad", source: "schema", line: 3, stoppedBy: "the rest-server" }];
  worker.say({ id: 3, error: { prereq: true, message: "OpenPAI would refuse the job", hint: "fix it", exitCode: 1, problems } });
  await assert.rejects(prepared, (error) => error instanceof PrereqError && JSON.stringify(error.problems) === JSON.stringify(problems));
});

test("engine: an edit's text before its check is given to the page's `shown`, and the worker told once it is painted", async () => {
  const { engine, worker } = started(pageCalls().inPage);
  const painted = [];
  let paint = null;
  const shown = (text) => (painted.push(text), new Promise((resolve) => (paint = resolve)));
  const added = engine.add("job", ["a"], { taskRole: "train", shown });
  assert.deepEqual(worker.sent.at(-1), { id: 0, op: "add", args: ["job", ["a"], { taskRole: "train", shown: true }] }, "a flag crosses, not the function");
  worker.say({ of: 0, shown: "job with a" });
  await settled();
  assert.deepEqual(painted, ["job with a"]);
  assert.equal(worker.sent.length, 2, "nothing said until the page has painted it");
  paint();
  await settled();
  assert.deepEqual(worker.sent.at(-1), { painted: 0 });
  worker.say({ id: 0, result: { after: "job with a" } });
  assert.deepEqual(await added, { after: "job with a" });
  // A page whose `shown` fails still lets the check go on; a text for a call no longer pending is told painted.
  const again = engine.add("job", ["b"], { shown: () => Promise.reject(new Error("no frame")) });
  worker.say({ of: 1, shown: "job with b" });
  await settled();
  assert.deepEqual(worker.sent.at(-1), { painted: 1 });
  worker.say({ id: 1, result: { after: "job with b" } });
  await again;
  worker.say({ of: 7, shown: "stale" });
  await settled();
  assert.deepEqual(worker.sent.at(-1), { painted: 7 });
  const thrown = engine.add("job", ["c"], { shown: () => { throw new Error("a page's bug"); } }); // the check goes on
  worker.say({ of: 2, shown: "job with c" });
  await settled();
  assert.deepEqual(worker.sent.at(-1), { painted: 2 });
  worker.say({ id: 2, result: { after: "job with c" } });
  await thrown;
});

test("engine: a worker that fails is dropped, and the page makes the calls it had", async () => {
  const { calls, inPage } = pageCalls();
  const { engine, worker } = started(inPage);
  const added = engine.add("job", ["a"], { taskRole: "train" });
  worker.fail();
  assert.deepEqual(await added, { after: "in the page" });
  assert.ok(worker.terminated);
  assert.equal(engine.where(), "page");
  await engine.remove("job", ["a"], {});
  assert.deepEqual(calls.map(([op]) => op), ["add", "remove"]);

  const viewing = started(inPage); // it fails while a view is on its way
  const edited = viewing.engine.add("job", ["a"], { taskRole: "train", view: true });
  viewing.worker.say({ id: 0, result: { after: "job with a" }, viewing: "train" });
  await edited;
  const view = viewing.engine.analyse("job with a", "train");
  viewing.worker.fail("messageerror");
  assert.deepEqual(await view, { role: "page" });
  viewing.worker.say({ id: 0, result: { after: "late" }, viewing: null }); // a late answer: nobody waits for it
  viewing.worker.say({ of: 0, view: { role: "late" } });
  assert.equal(viewing.engine.where(), "page");

  const unready = started(inPage); // its index could not be read
  const pending = unready.engine.analyse("job", "train");
  unready.worker.say({ ready: false });
  assert.deepEqual(await pending, { role: "page" });
  assert.equal(unready.engine.where(), "page");
});

test("engine: Submit's preparation the worker could not import is made by the page, then and after", async () => {
  const { calls, inPage } = pageCalls();
  const page = inPage();
  page.prepare = async (...args) => { calls.push(["prepare", ...args]); return { job: "prepared in the page" }; };
  page.submissionFacts = async (...args) => { calls.push(["submissionFacts", ...args]); return { missing: [] }; };
  const { engine, worker } = started(inPage);
  const refused = engine.prepare("bad job", {});
  worker.say({ id: 0, error: { prereq: true, message: "job.yaml:3: not a job", problems: [] } });
  await assert.rejects(refused, (error) => error instanceof PrereqError, "the job's own problem is the answer");
  const prepared = engine.prepare("job", {});
  worker.say({ id: 1, error: { message: "Failed to fetch dynamically imported module: .../jobs/prepare.js" } });
  assert.deepEqual(await prepared, { job: "prepared in the page" });
  assert.deepEqual(await engine.submissionFacts("job"), { missing: [] });
  assert.deepEqual(calls.map(([op]) => op), ["prepare", "submissionFacts"]);
  assert.equal(worker.sent.filter((message) => message.op).length, 2, "after the failure, the page is asked at once");
  const added = engine.add("job", ["a"], {});
  assert.equal(worker.sent.at(-1).op, "add", "edits stay in the worker");
  worker.say({ id: 2, result: { after: "job with a" } });
  assert.deepEqual(await added, { after: "job with a" });
});

test("engine: a worker not ready in time (its scripts stalled, no error comes) is dropped for the page", { timeout: 5000 }, async () => {
  const { calls, inPage } = pageCalls();
  globalThis.Worker = StandIn;
  const engine = workerEngine({ api: "API" }, inPage, { readySeconds: 0.02 });
  engine.start();
  const stalled = StandIn.last;
  const added = engine.add("job", ["a"], { taskRole: "train" });
  assert.deepEqual(await added, { after: "in the page" });
  assert.ok(stalled.terminated);
  assert.equal(engine.where(), "page");
  assert.deepEqual(calls.map(([op]) => op), ["add"]);

  const timely = workerEngine({ api: "API" }, inPage, { readySeconds: 0.02 });
  timely.start();
  StandIn.last.say({ ready: true });
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.equal(timely.where(), "worker", "a worker that said it is ready has no deadline");
  assert.ok(!StandIn.last.terminated);
});

test("engine: where no worker can start (a script of another origin), the page's engine does all", async () => {
  globalThis.Worker = class { constructor() { throw new Error("SecurityError"); } };
  const { calls, inPage } = pageCalls();
  const engine = workerEngine({ api: "API" }, inPage);
  engine.start();
  assert.equal(engine.where(), "page");
  await engine.add("job", ["a"], {});
  assert.equal(calls.length, 1);
});

test("engine: the index's files are fetched below its api/v1 only, whatever path a file of it names", async () => {
  const fetched = [];
  globalThis.fetch = async (url) => {
    fetched.push(url);
    return new Response(new Uint8Array(2));
  };
  const read = fetchReader("https://site.example/prereq/api/v1");
  assert.equal((await read("prerequisites/a.json")).length, 2);
  for (const path of ["../index.html", "https://elsewhere.example/x", "//elsewhere.example/x", "/api/v1/x"]) {
    await assert.rejects(read(path), (error) => error instanceof PrereqError && /outside/.test(error.message) && /publisher/.test(error.hint), path);
  }
  assert.deepEqual(fetched, ["https://site.example/prereq/api/v1/prerequisites/a.json"]);
});

/* As fetch answers: `chunks` one every `every` ms, or none; an abort of `signal` errors the body. */
function answering(chunks, every) {
  return async (url, { signal }) => new Response(new ReadableStream({
    async start(out) {
      signal.addEventListener("abort", () => out.error(signal.reason));
      for (const chunk of chunks) {
        await new Promise((resolve) => setTimeout(resolve, every));
        if (signal.aborted) return;
        out.enqueue(chunk);
      }
      if (every !== null) out.close();
    },
  }));
}

test("engine: a file of the index that stalls or cannot be had is a PrereqError, one that comes slowly is waited for", async () => {
  const read = fetchReader("https://site.example/prereq/api/v1", { seconds: 0.05 });
  const stalled = (error) => error instanceof PrereqError && error.message === "cannot load packs.json (nothing came for 0.05 s)" &&
    /reload/.test(error.hint);
  globalThis.fetch = (url, { signal }) => new Promise((resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
  await assert.rejects(read("packs.json"), stalled, "no answer at all");
  globalThis.fetch = answering([new Uint8Array([1])], null);
  await assert.rejects(read("packs.json"), stalled, "an answer whose body stops");
  globalThis.fetch = answering([1, 2, 3, 4, 5, 6].map((n) => new Uint8Array([n])), 30); // 180 ms in all, never 50 without a byte
  assert.deepEqual([...await read("index.json")], [1, 2, 3, 4, 5, 6]);
  const late = answering([new Uint8Array([7])], 35); // the headers after 35 ms, the byte 35 ms after them
  globalThis.fetch = async (url, init) => (await new Promise((resolve) => setTimeout(resolve, 35)), late(url, init));
  assert.deepEqual([...await read("index.json")], [7]);
  const patient = fetchReader("https://site.example/prereq/api/v1", { seconds: 30 });
  globalThis.fetch = answering([new Uint8Array([1])], null);
  await assert.rejects(patient("packs/0123456789abcdef.ndjson.gz", { seconds: 0.05 }),
    (error) => error instanceof PrereqError && /nothing came for 0\.05 s/.test(error.message), "a call's own deadline");
  globalThis.fetch = async () => { throw null; }; // eslint-disable-line no-throw-literal
  await assert.rejects(read("index.json"), (error) => error instanceof PrereqError && error.message === "cannot load index.json (null)");
  globalThis.fetch = async () => { throw new TypeError("Failed to fetch"); }; // as a browser says a refused connection
  await assert.rejects(read("index.json"), (error) => error instanceof PrereqError && error.message === "cannot load index.json (Failed to fetch)");
  globalThis.fetch = async () => new Response(null, { status: 404, statusText: "Not Found" });
  await assert.rejects(read("index.json"), (error) => error instanceof PrereqError && error.message === "cannot load index.json (404 Not Found)");
});
