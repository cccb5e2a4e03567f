// ui/engineworker.js's reads: the worker fetches its index's files through engine.js's fetchReader,
// and a read's own deadline (a pack's, packs.json's: PACK_IDLE_SECONDS, not a file's 60 s) must reach
// it, or a stalled packs.json holds every first check for a minute.  The clock is Node's mock.
// Run from the repository: node --test tests/js/

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { mock, test } from "node:test";
import { fileURLToPath } from "node:url";

import { PACK_IDLE_SECONDS } from "../../site/assets/composer/index/reader.js";

const STORY = fileURLToPath(new URL("../cases/indexes/story/api/v1/", import.meta.url));
const API = "https://prereq.test/api/v1";

let listener = null;
const posted = [];
const fetched = [];
globalThis.self = { addEventListener: (kind, handler) => (listener = handler), postMessage: (message) => posted.push(message) };
// packs.json never answers (until its read is aborted); every other file is the story index's own.
globalThis.fetch = async (url, { signal } = {}) => {
  const path = String(url).slice(API.length + 1);
  fetched.push(path);
  if (path !== "packs.json") return new Response(await readFile(join(STORY, path)));
  return new Promise((resolve, reject) => signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
};
await import("../../site/assets/composer/ui/engineworker.js");

const settle = async () => { for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve)); };

test("worker reads: a stalled packs.json is passed over after PACK_IDLE_SECONDS, and the item's own file read", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const files = new Map();
    for (const path of ["index.json", "openpai/job.schema.json"]) files.set(path, await readFile(join(STORY, path)));
    listener({ data: { setup: { api: API, trust: null, files } } });
    while (!posted.some((message) => "ready" in message)) await settle();
    assert.ok(posted.some((message) => message.ready === true));
    listener({ data: { id: 1, op: "prefetch", args: [["apt-proxy"]] } });
    await settle();
    assert.deepEqual(fetched, ["packs.json"], "the pack map is asked for first, and does not answer");
    mock.timers.tick(PACK_IDLE_SECONDS * 1000 - 1);
    await settle();
    assert.deepEqual(fetched, ["packs.json"], "not given up before its deadline");
    mock.timers.tick(1);
    await settle();
    assert.deepEqual(fetched, ["packs.json", "prerequisites/apt-proxy.json"], "given up at its deadline, not a file's");
    while (!posted.some((message) => message.id === 1)) await settle();
    assert.equal(posted.find((message) => message.id === 1).error, undefined);
  } finally {
    mock.timers.reset();
  }
});
