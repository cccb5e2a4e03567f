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

/* The words the site adds for an entry's type (finding.js's searchRecord, prereq.index.search.labels_of):
 * the type and its label, from the index root; not its group's label. */
function labelsFrom(root) {
  return (entry) => [entry.type, (root.type_labels || {})[entry.type] || entry.type];
}

function readApi(index, file) {
  return JSON.parse(readFileSync(join(CASES, "indexes", index, "api", "v1", file), "utf8"));
}

function recordsOfRoot(root) {
  const labels = labelsFrom(root);
  return root.items.map((entry) => search.record(entry, labels(entry)));
}

/* A case file's records, the words a typo is corrected to counted by search.js; and for a committed
 * index, the same records again with the vocabulary its catalog file carries (the build's count,
 * prereq.index.search), as the catalog page takes it. */
function recordsOf(file) {
  if (!file.entries) {
    const root = readApi(file.index, "index.json"), vocabulary = readApi(file.index, "catalog.json").vocabulary;
    const given = recordsOfRoot(root);
    assert.ok(search.useVocabulary(given, vocabulary.words, vocabulary.counts));
    return [["", recordsOfRoot(root)], [" (the catalog file's vocabulary)", given]];
  }
  return [["", file.entries.map((entry) => search.record(entry, entry.labels))]];
}

for (const name of readdirSync(join(CASES, "search")).filter((n) => n.endsWith(".json")).sort()) {
  const file = JSON.parse(readFileSync(join(CASES, "search", name), "utf8"));
  for (const [how, records] of recordsOf(file)) {
    for (const item of file.cases) {
      test(`search/${name.replace(/\.json$/, "")}: ${JSON.stringify(item.query)}${how}`, () => {
        const result = search.search(records, item.query);
        const names = result.hits.map((hit) => hit.record.entry.name);
        assert.deepEqual(item.only ? names : names.slice(0, item.first.length), item.first);
        assert.deepEqual(result.corrected, item.corrected || null);
      });
    }
  }
}

for (const index of readdirSync(join(CASES, "indexes")).sort()) {
  test(`search/${index}'s catalog file carries the words search.js counts, in its order`, () => {
    const counted = search.vocabulary(recordsOfRoot(readApi(index, "index.json")));
    const pairs = counted.words.map((word, i) => [word, counted.counts[i]]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const shipped = readApi(index, "catalog.json").vocabulary;
    assert.ok(pairs.length > 0);
    assert.deepEqual(shipped.words, pairs.map(([word]) => word));
    assert.deepEqual(shipped.counts, pairs.map(([, count]) => count));
  });
}

test("search/a typo is corrected from the vocabulary given, and a given one that does not hold together is refused", () => {
  const entries = [{ name: "alpha-tool", title: "Alpha", summary: "A zebra", tags: [], owners: [] }];
  const counted = entries.map((entry) => search.record(entry, []));
  assert.deepEqual(search.correct(counted, ["zebar"]), ["zebra"]);
  // The given vocabulary leaves "zebra" out: a typo of it is not corrected (the words were not counted).
  const given = entries.map((entry) => search.record(entry, []));
  assert.ok(search.useVocabulary(given, ["a", "alpha", "tool"], [1, 1, 1]));
  assert.equal(search.correct(given, ["zebar"]), null);
  for (const [words, counts] of [[["alpha"], [1, 1]], [["alpha", 3], [1, 1]], [["alpha", ""], [1, 1]], [["alpha"], [0]],
    [["alpha"], [1.5]], [["alpha"], ["2"]], [["alpha"], [2]], [null, []]]) { // [2]: more entries than there are
    const records = entries.map((entry) => search.record(entry, []));
    assert.equal(search.useVocabulary(records, words, counts), false, JSON.stringify([words, counts]));
    assert.deepEqual(search.vocabulary(records), { words: ["alpha", "tool", "a", "zebra"], counts: [1, 1, 1, 1] }); // counted instead
  }
});

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

test("search/of a given vocabulary, a typo is corrected to the nearest word some entry holds", () => {
  // A file from another build, or lower-cased by another Unicode version, may list words no entry
  // holds: "mnsut" (one typo from "mnsit" too, and used more) finds nothing, so "mnist" is suggested.
  const entries = [{ name: "mnist-data", title: "MNIST", summary: "", tags: [], owners: [] }];
  const records = entries.map((entry) => search.record(entry, []));
  assert.ok(search.useVocabulary(records, ["data", "mnist", "mnsut"], [1, 1, 1]));
  const result = search.search(records, "mnsit");
  assert.deepEqual(result.corrected, ["mnist"]);
  assert.deepEqual(result.hits.map((hit) => hit.record.entry.name), ["mnist-data"]);
});

test("search/the vocabulary of records not yet finished is counted from their whole text", () => {
  const records = search.records([{ name: "mnist-data", title: "Handwritten digits", summary: "", tags: [], owners: [] }], () => []);
  assert.deepEqual(search.vocabulary(records).words.sort(), ["data", "digits", "handwritten", "mnist"]);
  assert.deepEqual(search.search(records, "digtis").corrected, ["digits"]);
});
