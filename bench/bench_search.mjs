// The site's search (site/assets/search.js) beside MiniSearch, on generated index entries.
//
// Prints, for each size, what a page pays before its first answer (our records vs MiniSearch's
// index) and per query (a name, two words, a typo), with the ratios measured in the same run
// (machines are noisy; absolute times vary).  MiniSearch is fetched from the npm registry at a
// pinned version into a temporary folder, as scripts/vendor-js.sh fetches the composer's libraries.
//
// Usage: node bench/bench_search.mjs [--items 10000,100000] [--search PATH]
// (--search: another checkout's site/assets/search.js, to time it with this same script)

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const MINISEARCH_VERSION = "7.2.0";
const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const searchFile = resolve(option("--search", fileURLToPath(new URL("../site/assets/search.js", import.meta.url))));
await import(pathToFileURL(searchFile).href);
const search = globalThis.prereqSearch;

/* A seeded generator, so every run searches the same entries. */
function random(seed) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function entries(count) {
  const next = random(42);
  const vocabulary = Array.from({ length: 3000 }, (_, i) => {
    let word = "";
    const length = 4 + (i % 7);
    for (let j = 0; j < length; j++) word += "abcdefghijklmnopqrstuvwxyz"[Math.floor(next() * 26)];
    return word;
  });
  const pick = () => vocabulary[Math.floor(next() * vocabulary.length)];
  const words = (n) => Array.from({ length: n }, pick).join(" ");
  const out = Array.from({ length: count - 2 }, (_, i) => ({
    name: `${pick()}-${pick()}-${i}`, title: words(5), summary: words(30), tags: [pick(), pick(), pick()],
    owners: [pick()], type: ["data", "script", "output", "dockerimage"][i % 4],
  }));
  out.push({ name: "mnist-data", title: "MNIST handwritten digits", summary: words(30), tags: ["vision"], owners: ["vision"], type: "data" });
  out.push({ name: "fashion-mnist", title: "Fashion-MNIST clothing images", summary: words(30), tags: ["vision"], owners: ["vision"], type: "data" });
  return { list: out, twoWords: out[5].title.split(" ").slice(0, 2).join(" ") };
}

function median(times) {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timed(run, repeat = 7, before = () => {}) {
  const times = [];
  let value;
  for (let i = 0; i < repeat; i++) {
    before();
    const start = process.hrtime.bigint();
    value = run();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { ms: median(times), value };
}

async function loadMiniSearch() {
  const folder = mkdtempSync(join(tmpdir(), "bench-search-"));
  execFileSync("npm", ["init", "-y"], { cwd: folder, stdio: "ignore" });
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", `minisearch@${MINISEARCH_VERSION}`],
    { cwd: folder, stdio: "ignore" });
  const module = await import(pathToFileURL(join(folder, "node_modules", "minisearch", "dist", "es", "index.js")).href);
  return { MiniSearch: module.default, folder };
}

function bench(MiniSearch, count) {
  const { list, twoWords } = entries(count);
  // Records are finished by the first search that reads them: the first answer is the records and it.
  const ours = timed(() => {
    const made = list.map((entry) => search.record(entry, [entry.type]));
    search.search(made, "mnist");
    return made;
  }, 3);
  const records = ours.value;
  const fields = ["name", "title", "summary", "tags", "owners", "type"];
  const mini = timed(() => {
    const index = new MiniSearch({
      fields, storeFields: ["name"], idField: "name",
      extractField: (doc, field) => (Array.isArray(doc[field]) ? doc[field].join(" ") : doc[field]),
    });
    index.addAll(list);
    return index;
  }, 3);
  const options = { prefix: true, fuzzy: 0.2, combineWith: "AND", boost: { name: 3, title: 2 } };
  // A query that extends the last one searches only its matches: each timed query follows one no query
  // here extends (a digit), too short to be corrected, so that each is searched as a new query is.
  const unrelated = () => search.search(records, "q9");
  const queries = [["a name", "mnist"], ["two words", twoWords], ["a typo", "mnsit"]];
  const lines = [`${count.toLocaleString("en")} entries: before the first answer ours ${ours.ms.toFixed(0)} ms ` +
    `(records), MiniSearch ${mini.ms.toFixed(0)} ms (index), ${(mini.ms / ours.ms).toFixed(1)}x ours`];
  for (const [label, query] of queries) {
    const a = timed(() => search.search(records, query), 7, unrelated);
    const b = timed(() => mini.value.search(query, options));
    const firstOurs = a.value.hits.length ? a.value.hits[0].record.entry.name : "-";
    const firstMini = b.value.length ? b.value[0].name : "-";
    lines.push(`  ${label} (${query}): ours ${a.ms.toFixed(1)} ms, first ${firstOurs}; MiniSearch ${b.ms.toFixed(1)} ms, ` +
      `first ${firstMini}; ours ${(a.ms / b.ms).toFixed(1)}x MiniSearch's time`);
  }
  return lines.join("\n");
}

const sizes = option("--items", "10000,100000").split(",").map(Number);
const { MiniSearch, folder } = await loadMiniSearch();
try {
  console.log(`search.js: ${searchFile}`);
  for (const count of sizes) console.log(bench(MiniSearch, count));
} finally {
  rmSync(folder, { recursive: true, force: true });
}
