// A search record's parts (site/assets/search.js's record) are cut from its whole text lower-cased once:
// each part is what lower-casing it alone gives, and the text is the parts joined by line breaks, for
// letters whose case depends on their neighbours (Σ at a word's end) or whose lower case is longer (İ).
// Run: node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";

import "../../site/assets/search.js"; // a classic script: it sets globalThis.prereqSearch

const search = globalThis.prereqSearch;
const PIECES = ["MNIST", "data", "ΟΔΟΣ", "Σ", "İstanbul", "ß", "É", "µ", " ", "-", "\u00c5", "ǅ", "x"];

test("search/a record's parts are each lower-cased as on its own", () => {
  let seed = 5;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const text = (count) => Array.from({ length: count }, () => PIECES[Math.floor(next() * PIECES.length)]).join("");
  for (let i = 0; i < 300; i++) {
    const entry = { name: text(2), title: text(3), summary: text(6), tags: [text(1)], owners: [text(1), text(1)] };
    if (i % 10 === 0) delete entry.summary;
    const rec = search.record(entry, ["Data", "Datasets"]);
    const meta = [entry.title, entry.tags.join(" "), entry.owners.join(" "), "Data Datasets"].join("\n").toLowerCase();
    assert.equal(rec.name, entry.name.toLowerCase());
    assert.equal(rec.meta, meta);
    assert.equal(rec.summary, String(entry.summary || "").toLowerCase());
    assert.equal(rec.text, rec.name + "\n" + rec.meta + "\n" + rec.summary);
  }
});

test("search/records finished when first searched find what record()s find", () => {
  const entries = Array.from({ length: 700 }, (_, i) => ({
    name: `${PIECES[i % PIECES.length]}-${i}`, title: PIECES[(i * 3) % PIECES.length] + " set",
    summary: `${PIECES[(i * 7) % PIECES.length]} of ${i}`, tags: [PIECES[(i * 5) % PIECES.length]], owners: ["team"]
  }));
  const labels = () => ["data", "Datasets"];
  const eager = entries.map((entry) => search.record(entry, labels(entry)));
  const lazy = search.records(entries, labels), warmed = search.records(entries, labels);
  assert.deepEqual(lazy.map((rec) => rec.name), eager.map((rec) => rec.name));
  assert.equal(search.warm(warmed, 250), false); // finished in part
  const shown = (result) => [result.hits.map((hit) => [hit.record.entry.name, hit.tier]), result.corrected];
  assert.deepEqual(shown(search.search(lazy, "")), shown(search.search(eager, "")));
  for (const query of ["mnist", "set of", "datsets", "ΟΔΟΣ", "team"]) {
    assert.deepEqual(shown(search.search(lazy, query)), shown(search.search(eager, query)), query);
    assert.deepEqual(shown(search.search(warmed, query)), shown(search.search(eager, query)), query);
  }
  assert.deepEqual(lazy.map(({ name, meta, summary, text }) => [name, meta, summary, text]),
    eager.map(({ name, meta, summary, text }) => [name, meta, summary, text]));
});
