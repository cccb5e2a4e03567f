// The search's shortcuts give the results of its plain definition (site/assets/search.js): a word
// starts a word of the text when some token of tokens(text) starts with it; hits are sorted by
// tier, then by name, stably; the vocabulary counted ahead (warm) is the one counted at once.
// Random entries, with the separators, letters beyond ASCII and case-only name twins that could
// tell them apart.  Run: node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";

import "../../site/assets/search.js"; // a classic script: it sets globalThis.prereqSearch

const search = globalThis.prereqSearch;
const PIECES = ["mn", "ist", "data", "é", "µ", "-", "_", ".", " ", "\u00e9t\u00e9", "Img", "a", "b", "ab", "0", "9", "/", "ß"];

function random(seed) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function textOf(next, length) {
  let out = "";
  for (let i = 0; i < length; i++) out += PIECES[Math.floor(next() * PIECES.length)];
  return out;
}

function entries(next, count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const name = i % 7 === 3 && out.length ? out[out.length - 1].name.toUpperCase() : textOf(next, 3) + i;
    out.push({ name, title: textOf(next, 4), summary: textOf(next, 12), tags: [textOf(next, 2)], owners: [textOf(next, 1)] });
  }
  return out;
}

/* The tier of one word as search.js's header defines it, from the tokens of each part. */
function plainWordTier(rec, word) {
  if (rec.text.indexOf(word) === -1) return -1;
  const starts = (part) => search.tokens(part).some((token) => token.startsWith(word));
  if (starts(rec.name)) return 2;
  if (rec.name.indexOf(word) !== -1 || starts(rec.meta)) return 3;
  if (starts(rec.summary)) return 4;
  return 5;
}

function plainTier(rec, list) {
  if (!list.length) return 6;
  let worst = 0;
  for (const word of list) {
    const t = plainWordTier(rec, word);
    if (t === -1) return -1;
    worst = Math.max(worst, t);
  }
  if (rec.name === list.join("-") || rec.name === list.join(" ")) return 0;
  if (rec.name.startsWith(list.join("-"))) return 1;
  return worst;
}

function plainSearch(records, list) {
  const hits = records.map((record) => ({ record, tier: plainTier(record, list) })).filter((hit) => hit.tier !== -1);
  return hits.sort((a, b) => a.tier - b.tier || (a.record.name < b.record.name ? -1 : a.record.name > b.record.name ? 1 : 0));
}

test("search/tiers and order are those of the plain definition", () => {
  const next = random(7);
  const records = entries(next, 400).map((entry) => search.record(entry, ["data"]));
  for (let i = 0; i < 300; i++) {
    const query = textOf(next, 1 + Math.floor(next() * 2)).toLowerCase() + (i % 3 ? "" : " " + textOf(next, 1));
    const list = search.words(query);
    for (const rec of records.slice(0, 50)) assert.equal(search.tier(rec, list), plainTier(rec, list), `${query} in ${rec.text}`);
    const result = search.search(records, query);
    if (result.corrected) continue;
    const ours = result.hits.map((hit) => [hit.record.entry.name, hit.tier]);
    assert.deepEqual(ours, plainSearch(records, list).map((hit) => [hit.record.entry.name, hit.tier]), query);
  }
});

test("search/a vocabulary counted ahead corrects as one counted when the typo comes", () => {
  const typos = ["mnsit", "daat", "imgg", "etee", "istt"];
  const made = () => entries(random(11), 600).map((entry) => search.record(entry, ["data"]));
  const cold = made(), warmed = made(), partly = made();
  assert.equal(search.warm(warmed, 100000), true);
  assert.equal(search.warm(partly, 250), false);
  for (const typo of typos) {
    const expected = search.search(cold, typo);
    for (const records of [warmed, partly]) {
      const result = search.search(records, typo);
      assert.deepEqual(result.corrected, expected.corrected, typo);
      assert.deepEqual(result.hits.map((hit) => hit.record.entry.name), expected.hits.map((hit) => hit.record.entry.name));
    }
  }
});
