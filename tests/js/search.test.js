// The search cases (tests/cases/search/*.json) against the site's one search (site/assets/search.js),
// which the header's search box, the catalog and the composer share.  Run: node --test tests/js/

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import "../../site/assets/search.js"; // a classic script: it sets globalThis.prereqSearch

const CASES = join(dirname(fileURLToPath(import.meta.url)), "..", "cases");
const search = globalThis.prereqSearch;

/* The words the site adds for an entry's type (prereq.js's searchRecord): the type, its label and
 * its group's label, from the index root. */
function labelsFrom(root) {
  return (entry) => {
    const group = (root.type_groups || []).find((g) => g.types.includes(entry.type));
    return [entry.type, (root.type_labels || {})[entry.type] || entry.type, group ? group.label : ""];
  };
}

function recordsOf(file) {
  if (file.index) {
    const root = JSON.parse(readFileSync(join(CASES, "indexes", file.index, "api", "v1", "index.json"), "utf8"));
    const labels = labelsFrom(root);
    return root.items.map((entry) => search.record(entry, labels(entry)));
  }
  return file.entries.map((entry) => search.record(entry, entry.labels));
}

for (const name of readdirSync(join(CASES, "search")).filter((n) => n.endsWith(".json")).sort()) {
  const file = JSON.parse(readFileSync(join(CASES, "search", name), "utf8"));
  const records = recordsOf(file);
  for (const item of file.cases) {
    test(`search/${name.replace(/\.json$/, "")}: ${JSON.stringify(item.query)}`, () => {
      const result = search.search(records, item.query);
      const names = result.hits.map((hit) => hit.record.entry.name);
      assert.deepEqual(item.only ? names : names.slice(0, item.first.length), item.first);
      assert.deepEqual(result.corrected, item.corrected || null);
    });
  }
}

test("search/a swap of two letters is one typo, and long words allow two", () => {
  assert.equal(search.distance("mnsit", "mnist", 2), 1);
  assert.equal(search.distance("tensorbaord", "tensorboard", 2), 1);
  assert.equal(search.distance("abc", "xyz", 1), 2); // past the limit: limit + 1
});

test("search/a record keeps the entry and never changes it", () => {
  const entry = Object.freeze({ name: "A-b", title: "T", summary: "S", tags: ["x"], owners: ["o"] });
  const record = search.record(entry, ["data"]);
  assert.equal(record.entry, entry);
  assert.equal(record.name, "a-b");
  assert.equal(search.tier(record, ["a-b"]), 0);
});
