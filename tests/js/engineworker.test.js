// ui/engineworker.js's reads and messages.  The worker fetches its index's files through engine.js's
// fetchReader, and a read's own deadline (a pack's, packs.json's: PACK_IDLE_SECONDS, not a file's 60 s)
// must reach it, or a stalled packs.json holds every first check for a minute (the clock is Node's
// mock).  An edit the page paints is posted before the load that checks it, which waits for the page.
// Run from the repository: node --test tests/js/

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { mock, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Index, PACK_IDLE_SECONDS } from "../../site/assets/composer/index/reader.js";
import { addToText } from "../../site/assets/composer/jobs/operations.js";
import { EMPTY_JOB, START_ROLE } from "../../site/assets/composer/ui/jobfile.js";

const STORY = fileURLToPath(new URL("../cases/indexes/story/api/v1/", import.meta.url));
const API = "https://prereq.test/api/v1";

let listener = null;
const posted = [];
const fetched = [];
globalThis.self = { addEventListener: (kind, handler) => (listener = handler), postMessage: (message) => posted.push(message) };
let stalled = true;
// packs.json never answers while `stalled` (until its read is aborted); every other file is the story index's own.
globalThis.fetch = async (url, { signal } = {}) => {
  const path = String(url).slice(API.length + 1);
  fetched.push(path);
  if (path !== "packs.json" || !stalled) return new Response(await readFile(join(STORY, path)));
  return new Promise((resolve, reject) => signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
};
await import("../../site/assets/composer/ui/engineworker.js");

const settle = async () => { for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve)); };
const until = async (found) => { while (!posted.some(found)) await settle(); return posted.find(found); };

async function setUp() {
  const files = new Map();
  for (const path of ["index.json", "openpai/job.schema.json"]) files.set(path, await readFile(join(STORY, path)));
  posted.length = 0;
  listener({ data: { setup: { api: API, trust: null, files } } });
  return until((message) => "ready" in message);
}

test("worker reads: a stalled packs.json is passed over after PACK_IDLE_SECONDS, and the item's own file read", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    assert.equal((await setUp()).ready, true);
    listener({ data: { id: 1, op: "prefetch", args: [["apt-proxy"]] } });
    await settle();
    assert.deepEqual(fetched, ["packs.json"], "the pack map is asked for first, and does not answer");
    mock.timers.tick(PACK_IDLE_SECONDS * 1000 - 1);
    await settle();
    assert.deepEqual(fetched, ["packs.json"], "not given up before its deadline");
    mock.timers.tick(1);
    await settle();
    assert.deepEqual(fetched, ["packs.json", "prerequisites/apt-proxy.json"], "given up at its deadline, not a file's");
    assert.equal((await until((message) => message.id === 1)).error, undefined);
  } finally {
    mock.timers.reset();
  }
});

test("worker: an edit's text is posted before the load that checks it, which waits for the page's frame", async () => {
  stalled = false;
  assert.equal((await setUp()).ready, true);
  const options = { indexSource: API, taskRole: START_ROLE, source: "job" };
  listener({ data: { id: 11, op: "add", args: [EMPTY_JOB, ["mnist-data"], { ...options, shown: true }] } });
  const early = await until((message) => message.of === 11);
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.ok(!posted.some((message) => message.id === 11), "no answer until the page has painted the text");
  listener({ data: { painted: 11 } });
  const { result, error } = await until((message) => message.id === 11);
  assert.equal(error, undefined);
  assert.equal(early.shown, result.after, "the text checked is the text shown");
  const index = await Index.load(API, (path) => readFile(join(STORY, path)));
  assert.equal(result.after, (await addToText(EMPTY_JOB, ["mnist-data"], { ...options, index })).after);
});
