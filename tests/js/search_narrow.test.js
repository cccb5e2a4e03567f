// A query typed key by key searches only the last query's matches when it extends it (search.js's
// lastMatches): every key's results are those of the same query searched afresh, on records that
// have no last query, whether it extends the last one, shortens it, adds a word or changes it.
// Run: node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";

import "../../site/assets/search.js"; // a classic script: it sets globalThis.prereqSearch

const search = globalThis.prereqSearch;
const WORDS = ["mnist", "data", "image", "classification", "fashion", "ist", "da", "é", "µm", "a-b"];

function entries(count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const word = (k) => WORDS[(i * k + 3) % WORDS.length];
    out.push({
      name: `${word(7)}-${word(3)}${i % 5 ? "" : "-" + word(11)}-${i}`,
      title: `${word(5)} ${word(2)}`, summary: `${word(13)} ${word(17)}.${word(19)}`,
      tags: [word(23)], owners: [`team-${i % 4}`]
    });
  }
  return out;
}

const made = () => entries(500).map((entry) => search.record(entry, ["data"]));
const shown = (result) => [result.hits.map((hit) => [hit.record.entry.name, hit.tier]), result.corrected];

test("search/a query typed key by key finds what it finds afresh", () => {
  const typed = made();
  const keys = [];
  const type = (text) => { for (let i = 1; i <= text.length; i++) keys.push(text.slice(0, i)); };
  type("image classification");
  keys.push("image class", "image", "");
  type("da ist");
  keys.push("da is", "mnist da", "mnsit", "mnsit d", "team-1 data", "team-1 data zz", "team-1 data");
  type("fashion-mnist");
  for (const query of keys) {
    assert.deepEqual(shown(search.search(typed, query)), shown(search.search(made(), query)), query);
  }
});

test("search/a filtered search does not narrow the next one", () => {
  const records = made();
  const keep = (record) => record.entry.owners[0] === "team-2";
  const filtered = search.search(records, "data", keep);
  assert.ok(filtered.hits.every((hit) => keep(hit.record)));
  assert.deepEqual(shown(search.search(records, "data image")), shown(search.search(made(), "data image")));
});
