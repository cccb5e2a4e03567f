// ui/engineworker.js's rehearsal: the edit the worker makes while the user reads the list, so that
// the first real one runs warm code.  Run from the repository: node --test tests/js/

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { Index } from "../../site/assets/composer/index/reader.js";

const CASES = fileURLToPath(new URL("../cases/", import.meta.url));
const heard = [];
globalThis.self = { addEventListener: (kind) => heard.push(kind), postMessage() {} }; // the worker's global
const { rehearsalIndex, rehearse } = await import("../../site/assets/composer/ui/engineworker.js");

async function story() {
  const base = "indexes/story/api/v1";
  const reads = [];
  const index = await Index.load(base, (path) => (reads.push(path), readFile(join(CASES, base, path))));
  reads.length = 0;
  return { index, reads };
}

test("rehearsal: its items are the engine's to add and remove, and nothing is read for them", async () => {
  const { index, reads } = await story();
  const rehearsal = rehearsalIndex(index);
  const names = rehearsal.closure(["rehearsal-0"]).map((r) => r.name);
  assert.equal(names.length, 30);
  assert.equal(names.at(-1), "rehearsal-0", "a chain: requirements first");
  let asked = 0; // before each round, and after its add and its view: two rounds, then the third's ask
  await rehearse(index, { until: () => asked++ === 6 }); // throws unless each round gives back the empty job
  assert.equal(asked, 7);
  assert.deepEqual(reads, [], "a rehearsal fetches nothing");
  assert.equal(index.documents.size, 0, "nor touches the real index");
  assert.deepEqual(heard, ["message"]);
});

test("rehearsal: none once the user has called", async () => {
  const { index } = await story();
  let asked = 0;
  await rehearse(index, { until: () => (asked++, true) });
  assert.equal(asked, 1, "asked once, before any round");
});
