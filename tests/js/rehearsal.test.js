// ui/engineworker.js's rehearsal: the edits the worker makes while the user reads the list, so that
// the first real one runs warm code.  Run from the repository: node --test tests/js/

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { Index } from "../../site/assets/composer/index/reader.js";
import { EMPTY_JOB, START_ROLE } from "../../site/assets/composer/ui/jobfile.js";

const CASES = fileURLToPath(new URL("../cases/", import.meta.url));
const STORY = "indexes/story/api/v1";

// The worker's global, and a network that answers nothing: the worker must not need it.
let listener = null;
const posted = [];
const fetched = [];
globalThis.self = { addEventListener: (kind, handler) => (listener = handler), postMessage: (message) => posted.push(message) };
globalThis.fetch = async (url) => (fetched.push(String(url)), Promise.reject(new TypeError("no network in this test")));
const worker = await import("../../site/assets/composer/ui/engineworker.js");

async function story() {
  const reads = [];
  const index = await Index.load(STORY, (path) => (reads.push(path), readFile(join(CASES, STORY, path))));
  reads.length = 0;
  return { index, reads };
}

const snapshot = (index) => JSON.stringify({ root: index.root, entries: [...index.entries.keys()],
  documents: [...index.documents.keys()], packs: index.packs, lines: [...index.lines.keys()] });

test("rehearsal: a chain of its own, requirements first", async () => {
  const { index } = await story();
  const names = worker.rehearsalIndex(index).closure(["rehearsal-0"]).map((r) => r.name);
  assert.equal(names.length, 30);
  assert.equal(names.at(-1), "rehearsal-0");
});

test("rehearsal: every round gives back the empty job, and neither reads nor changes the real index", async () => {
  const { index, reads } = await story();
  const [before, schema] = [snapshot(index), index.jobSchema];
  // Throws unless each round gives back the empty job; every chain length up to 30 is met on the way.
  assert.deepEqual(await worker.rehearse(index, { until: () => false, ms: Infinity }), { ended: "rounds", rounds: 40 });
  assert.deepEqual(reads, [], "a rehearsal reads nothing");
  assert.equal(snapshot(index), before, "nor touches the real index");
  assert.equal(index.jobSchema, schema);
});

test("rehearsal: none once the user has edited", async () => {
  const { index } = await story();
  let asked = 0;
  assert.deepEqual(await worker.rehearse(index, { until: () => (asked++, true) }), { ended: "edit", rounds: 0 });
  assert.equal(asked, 1, "asked once, before any step");
});

async function answer(id) {
  while (!posted.some((message) => message.id === id)) await new Promise((resolve) => setTimeout(resolve, 1));
  return posted.find((message) => message.id === id);
}

test("rehearsal: the worker's ends at the user's first edit, not at the plugin's checks", async () => {
  const files = new Map();
  for (const path of ["index.json", "openpai/job.schema.json"]) files.set(path, await readFile(join(CASES, STORY, path)));
  listener({ data: { setup: { api: "https://prereq.test/api/v1", trust: null, files } } });
  while (!posted.some((message) => message.ready)) await new Promise((resolve) => setTimeout(resolve, 1));
  listener({ data: { id: 1, op: "submissionFacts", args: [EMPTY_JOB] } });
  assert.ok(!(await answer(1)).error);
  // Had the check ended it, it would have ended as an edit by its next step (the pause gives it a few);
  // it may only have run out of time meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const early = await Promise.race([worker.rehearsal, new Promise((resolve) => setTimeout(resolve, 0, null))]);
  if (early) assert.equal(early.ended, "time");
  listener({ data: { id: 2, op: "analyse", args: [EMPTY_JOB, START_ROLE] } });
  assert.ok(!(await answer(2)).error);
  const ended = await worker.rehearsal;
  assert.equal(ended.ended, early ? "time" : "edit");
  assert.deepEqual(fetched, ["https://prereq.test/api/v1/packs.json"], "the worker's own index asks for its pack map; the rehearsal for nothing");
});

test("rehearsal: an index that cannot be loaded is no rehearsal's failure", async () => {
  const warned = [];
  const warn = console.warn;
  console.warn = (...words) => warned.push(words.join(" "));
  try {
    listener({ data: { setup: { api: "https://prereq.test/api/v1", trust: null, files: new Map() } } });
    assert.deepEqual(await worker.rehearsal, { ended: "no index", rounds: 0 });
    assert.deepEqual(warned, []);
    assert.ok(posted.some((message) => message.ready === false));
  } finally {
    console.warn = warn;
  }
});
