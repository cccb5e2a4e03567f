// The index reader cases (tests/cases/reader/) against the composer's index/reader.js.
// Run from the repository: node --test tests/js/
// Every expectation was made by the Python reader (tests/cases/reader/regen.py).

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { PrereqError } from "../../site/assets/composer/core/errors.js";
import { Index } from "../../site/assets/composer/index/reader.js";

const CASES = join(dirname(fileURLToPath(import.meta.url)), "..", "cases");
const TINY_ROOT = join(CASES, "indexes", "tiny", "api", "v1", "index.json");

/* The changed root of indexes/tiny a case describes (as reader_corpus.changed_root does). */
function changedRoot(change) {
  if ("replace" in change) return change.replace;
  const root = JSON.parse(readFileSync(TINY_ROOT, "utf8"));
  Object.assign(root, change.set || {});
  for (const key of change.delete || []) delete root[key];
  return root;
}

async function outcome(change) {
  const body = new TextEncoder().encode(JSON.stringify(changedRoot(change)));
  try {
    const api = dirname(TINY_ROOT);
    const index = await Index.load("BASE", async (path) => (path === "index.json" ? body : readFileSync(join(api, path))));
    return { items: index.entries.size };
  } catch (error) {
    if (!(error instanceof PrereqError)) throw error;
    return { error: error.message, hint: error.hint };
  }
}

for (const name of readdirSync(join(CASES, "reader")).filter((n) => /^[0-9]{3}-.*\.json$/.test(n)).sort()) {
  test(`reader/${name.slice(0, -5)}`, async () => {
    const kase = JSON.parse(readFileSync(join(CASES, "reader", name), "utf8"));
    assert.deepEqual(await outcome(kase.change), kase.expect);
  });
}

/* The browser's own (the CLI reads item files as it needs them, so no shared case): a require chain
 * three items deep (mnist-data -> base-tools -> apt-proxy) is fetched in two rounds, not
 * three: an item file's closures name the rest at once (a 150-item closure was 19 rounds). */
test("index fetching: ensure asks for a closure's files in two rounds: the item's, then the rest at once", async () => {
  const api = join(CASES, "indexes", "story", "api", "v1");
  const asked = [];
  let [round, pending] = [0, 0];
  const read = (path) => {
    asked.push([round, path]);
    pending += 1;
    return new Promise((resolve) => setTimeout(() => {
      pending -= 1;
      if (pending === 0) round += 1;
      resolve(readFileSync(join(api, path)));
    }, 0));
  };
  const index = await Index.load("BASE", read);
  const start = round;
  await index.ensure(["mnist-data"]);
  const rounds = asked.filter(([at]) => at >= start).map(([at, path]) => `${at - start} ${path}`);
  assert.deepEqual(rounds.sort(), ["0 prerequisites/mnist-data.json", "1 prerequisites/apt-proxy.json",
    "1 prerequisites/base-tools.json", "1 prerequisites/nfs-storage-1.json"]);
});
