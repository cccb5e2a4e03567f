/* prereq marketplace: the one search of the site, shared by the header's search box
 * (assets/header-search.js), the catalog (assets/catalog.js) and the job composer (through
 * window.prereq in assets/finding.js).  It reads the published index's entries (api/v1/catalog.json,
 * or the root index.json) as they are: nothing is rebuilt in the browser but a lower-cased copy of
 * each entry's words.
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
   * known by (its type, the type's label, the type group's label).  Nothing is cut into words here:
   * a word's place is found in the text itself (startsWord), so a page pays little before its first
   * answer and keeps no list of words per entry (at 100,000 entries those lists cost more to make
   * and collect than the whole search). */
  function record(entry, labels) {
    var name = String(entry.name || ""), summary = String(entry.summary || "");
    var meta = [entry.title, (entry.tags || []).join(" "), (entry.owners || []).join(" "), (labels || []).join(" ")].join("\n");
    var raw = name + "\n" + meta + "\n" + summary;
    var text = raw.toLowerCase(), metaEnd = name.length + 1 + meta.length, cut = text.length === raw.length;
    // The meta and summary are cut from the whole text, lower-cased once (a line break bounds a letter's
    // case as the part's end would), unless a letter's lower case is longer (İ): then each on its own.
    // The name is lower-cased on its own (the same letters): a slice of the text is slow to compare,
    // and the name order compares names 1.7 million times.
    return { entry: entry, name: name.toLowerCase(), meta: cut ? text.slice(name.length + 1, metaEnd) : meta.toLowerCase(),
      summary: cut ? text.slice(metaEnd + 1) : summary.toLowerCase(), text: text };
  }

  /* The records of `entries` with their words lower-cased only when a search first needs them, or
   * while the page is idle (warm): a page that first shows every entry draws them without waiting
   * for 100,000 texts to be lower-cased (about 200 ms).  labelsOf(entry): record()'s labels.  Until
   * finished a record has its name only (its place in the name order); finish() gives it the rest,
   * which search() and warm() do (tier() needs finished records). */
  var unfinished = new WeakMap(); // records -> {labelsOf, next: the first record not finished}
  function records(entries, labelsOf) {
    var out = entries.map(function (entry) {
      return { entry: entry, name: String(entry.name || "").toLowerCase(), meta: "", summary: "", text: "" };
    });
    if (out.length) unfinished.set(out, { labelsOf: labelsOf, next: 0 });
    return out;
  }

  /* Finish up to `count` more records of a records() list (every one when no count); true once all
   * are (at once for a list of record()s). */
  function finish(list, count) {
    var state = unfinished.get(list);
    if (!state) return true;
    var end = count === undefined ? list.length : Math.min(list.length, state.next + count);
    for (; state.next < end; state.next++) {
      var rec = list[state.next], full = record(rec.entry, state.labelsOf(rec.entry));
      rec.meta = full.meta; rec.summary = full.summary; rec.text = full.text; // the name is the same
    }
    if (state.next < list.length) return false;
    unfinished.delete(list);
    return true;
  }

  /* Is a code unit one SPLIT cuts at (anything but a letter or digit, as the class above says)? */
  function isSeparator(code) {
    return !((code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 0xb5 || code >= 0xc0);
  }

  /* Does a token of lower-cased `text` (tokens(text)) start with `word`?  The same answer as
   * tokens(text).some(t => t.startsWith(word)), without cutting the text: an occurrence of the word
   * at the text's start or just after a separator.  `plain`: the word holds no separator (one that
   * does starts no token). */
  function startsWord(text, word, plain) {
    if (!plain) return false;
    for (var at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
      if (at === 0 || isSeparator(text.charCodeAt(at - 1))) return true;
    }
    return false;
  }

  /* The tier of one word in a record (2..5), or -1 when it is nowhere. */
  function wordTier(rec, word, plain) {
    if (rec.text.indexOf(word) === -1) return -1; // the cheap test first: most entries stop here
    if (startsWord(rec.name, word, plain)) return 2;
    if (rec.name.indexOf(word) !== -1 || startsWord(rec.meta, word, plain)) return 3;
    if (startsWord(rec.summary, word, plain)) return 4;
    return 5;
  }

  /* What tier() needs of a list of words, worked out once per list (a search asks for every record
   * with the same list): its words joined both ways, and which of them hold no separator. */
  var lastList = null, lastQuery = null;
  function query(list) {
    if (list !== lastList) {
      lastList = list;
      lastQuery = { dashed: list.join("-"), spaced: list.join(" "), plain: list.map(function (word) { return !SPLIT.test(word); }) };
    }
    return lastQuery;
  }

  /* The record's tier for these words (see the top), or -1 when it does not match; 6 without words. */
  function tier(rec, list) {
    if (!list.length) return 6;
    var worst = 0, asked = query(list);
    for (var i = 0; i < list.length; i++) {
      var t = wordTier(rec, list[i], asked.plain[i]);
      if (t === -1) return -1;
      if (t > worst) worst = t;
    }
    if (rec.name === asked.dashed || rec.name === asked.spaced) return 0;
    if (rec.name.lastIndexOf(asked.dashed, 0) === 0) return 1;
    return worst;
  }

  /* Each record's place in name order, computed once per list of records (a stable sort: records
   * with the same lower-cased name keep their order): {order, rank}, order[rank[i]] === records[i].
   * A search walks the records as they are (in memory order: walking them in name order made every
   * record a cache miss, 3x the time at 100,000 entries) and puts each hit at its rank; the hits come
   * out by tier, then by name, with no sort (sorting every keystroke's hits was the biggest part). */
  var nameOrders = new WeakMap();
  function nameOrder(records) {
    var found = nameOrders.get(records);
    if (!found) {
      var order = records.slice().sort(function (a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : 0; });
      var places = new Map();
      order.forEach(function (rec, place) { places.set(rec, place); });
      var rank = new Int32Array(records.length);
      for (var i = 0; i < records.length; i++) rank[i] = places.get(records[i]);
      found = { order: order, rank: rank };
      nameOrders.set(records, found);
    }
    return found;
  }

  /* Every word the records use, with how many records use it: {words, counts}, counts[i] being
   * words[i]'s.  Given whole by the catalog file (useVocabulary: the build counted it), or counted
   * here once per list of records, a part at a time by warm() while the page is idle and the rest
   * when a query first needs a correction (at 100,000 entries the whole of it takes about a second).
   * While counting: seen, word -> {count, last} (`last`: the last record counted, so a record counts
   * a word once). */
  var vocabularies = new WeakMap();
  function vocabularyState(records) {
    var state = vocabularies.get(records);
    if (!state) {
      state = { seen: new Map(), next: 0, words: null, counts: null };
      vocabularies.set(records, state);
    }
    return state;
  }

  function countWords(state, records, end) {
    for (; state.next < end; state.next++) {
      // The text's words are its parts' words: the parts are joined by a separator ("\n").
      var found = records[state.next].text.split(SPLIT);
      for (var i = 0; i < found.length; i++) {
        var word = found[i];
        if (!word) continue;
        var known = state.seen.get(word);
        if (!known) state.seen.set(word, { count: 1, last: state.next });
        else if (known.last !== state.next) { known.count++; known.last = state.next; }
      }
    }
  }

  function vocabulary(records) {
    var state = vocabularyState(records);
    if (!state.words) {
      finish(records);
      countWords(state, records, records.length);
      state.words = [];
      state.counts = [];
      state.seen.forEach(function (use, word) { state.words.push(word); state.counts.push(use.count); });
      state.seen = null;
    }
    return state;
  }

  /* Take the vocabulary of `records` from the catalog file (its `vocabulary`: words and counts, as
   * prereq.index.search counts them) instead of counting it; false, and nothing taken, when the two
   * lists do not hold together (then it is counted as without a file).  A word given is suggested
   * only if some record's text holds it (nearest): a file from another build, or lower-cased by
   * another Unicode version than the browser's, never leads a typo to a word that finds nothing. */
  function useVocabulary(records, words, counts) {
    if (!Array.isArray(words) || !Array.isArray(counts) || words.length !== counts.length) return false;
    for (var i = 0; i < words.length; i++) {
      if (typeof words[i] !== "string" || !words[i] || !Number.isInteger(counts[i]) || counts[i] < 1 ||
          counts[i] > records.length) return false;
    }
    vocabularies.set(records, { seen: null, next: records.length, words: words, counts: counts, given: true });
    return true;
  }

  /* Finish, then count the words of (unless they were given: useVocabulary), up to `count` more
   * records ahead of a search or a typo; true once every record is.  Searching gives the same
   * results with or without it. */
  function warm(records, count) {
    if (!finish(records, count)) return false;
    var state = vocabularyState(records);
    if (state.seen) countWords(state, records, Math.min(records.length, state.next + count));
    return state.next >= records.length;
  }

  /* warm() the records while the page is idle, 250 records (about 3 ms) at a time for as long as
   * each idle period lasts, so the first typo does not wait for every record's words; a query that
   * needs them sooner counts the rest itself.  Without requestIdleCallback (Safari): 10 ms every 50. */
  var WARM_SLICE = 250;
  function warmWhileIdle(records) {
    var later = scope.requestIdleCallback || function (step) {
      return scope.setTimeout(function () {
        var start = Date.now();
        step({ timeRemaining: function () { return 10 - (Date.now() - start); } });
      }, 50);
    };
    later(function step(deadline) {
      var done = warm(records, WARM_SLICE);
      while (!done && deadline.timeRemaining() > 4) done = warm(records, WARM_SLICE);
      if (!done) later(step);
    });
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

  /* The nearest known word for a word no record uses, or null: fewest typos, then the most used,
   * then the first in JavaScript's order; of a given vocabulary, the nearest that some record's text
   * holds.  The vocabulary is counted only for a word that may have typos (3 letters have none). */
  function nearest(word, records) {
    var limit = typosAllowed(word);
    if (!limit || SPLIT.test(word)) return null;
    var known = vocabulary(records), words = known.words, counts = known.counts, near = [];
    for (var i = 0; i < words.length; i++) {
      var d = distance(word, words[i], limit);
      if (d <= limit) near.push({ word: words[i], distance: d, count: counts[i] });
    }
    near.sort(function (a, b) {
      return a.distance - b.distance || b.count - a.count || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0);
    });
    var used = function (candidate) { return records.some(function (rec) { return rec.text.indexOf(candidate.word) !== -1; }); };
    var best = known.given ? near.find(used) : near[0];
    return best ? best.word : null;
  }

  /* The query with each word that no record uses replaced by the nearest word, or null when
   * nothing changes (no typo, or none that a known word explains). */
  function correct(records, list) {
    var changed = false;
    var out = list.map(function (word) {
      var known = records.some(function (rec) { return rec.text.indexOf(word) !== -1; });
      if (known) return word;
      var fixed = nearest(word, records);
      if (fixed && fixed !== word) { changed = true; return fixed; }
      return word;
    });
    return changed ? out : null;
  }

  /* The records the last query matched, per list of records: {words, matched}, matched[i] set for
   * the i-th record in name order.  A query matches exactly the records whose text holds each of
   * its words (tier() is -1 for no other reason), so when every word of the last query is part of a
   * word of the next one (a word typed further, a word added), the next one's matches are among the
   * last one's: only those are searched again, with the same results (search_fast.test.js). */
  var lastMatches = new WeakMap();
  function narrows(last, list) {
    return last.words.every(function (word) {
      return list.some(function (other) { return other.indexOf(word) !== -1; });
    });
  }

  /* Search `records` for `text`: {hits: [{record, tier}] best first, words, corrected}.  `keep(record)`
   * (optional) filters beforehand (the catalog's facets); `corrected` is the words searched instead
   * when the query itself found nothing, else null. */
  function search(records, text, keep) {
    var list = words(text);
    if (list.length) finish(records);
    var names = nameOrder(records), order = names.order, rank = names.rank;
    var last = keep ? null : lastMatches.get(records);
    var run = function (query, within, matched) {
      var tierAt = new Int8Array(order.length).fill(-1), starts = [0, 0, 0, 0, 0, 0, 0, 0]; // tiers 0..6: tier()
      for (var i = 0; i < records.length; i++) {
        var place = rank[i];
        if (within && !within[place]) continue;
        var rec = records[i];
        if (keep && !keep(rec)) continue;
        var t = tier(rec, query);
        if (t === -1) continue;
        tierAt[place] = t;
        starts[t + 1]++;
        if (matched) matched[place] = 1;
      }
      for (var k = 1; k < starts.length; k++) starts[k] += starts[k - 1];
      var hits = new Array(starts[starts.length - 1]);
      for (var at = 0; at < order.length; at++) {
        var found = tierAt[at];
        if (found !== -1) hits[starts[found]++] = { record: order[at], tier: found };
      }
      return hits;
    };
    var matched = keep ? null : new Uint8Array(order.length);
    var hits = run(list, last && narrows(last, list) ? last.matched : null, matched);
    if (matched) lastMatches.set(records, { words: list, matched: matched });
    var corrected = null;
    if (!hits.length && list.length) {
      corrected = correct(records, list);
      if (corrected) hits = run(corrected, null, null);
      if (!hits.length) corrected = null;
    }
    return { hits: hits, words: list, corrected: corrected };
  }

  scope.prereqSearch = Object.freeze({
    tokens: tokens,
    words: words,
    record: record,
    records: records,
    tier: tier,
    correct: correct,
    search: search,
    warm: warm,
    warmWhileIdle: warmWhileIdle,
    useVocabulary: useVocabulary,
    vocabulary: function (records) { var known = vocabulary(records); return { words: known.words, counts: known.counts }; },
    distance: distance
  });
})(typeof window !== "undefined" ? window : globalThis);
