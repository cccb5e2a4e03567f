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
