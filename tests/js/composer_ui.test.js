/* The composer's editor functions that touch no page (site/assets/composer/ui/): JSON into block
 * YAML as the engines' first edit writes it (jsonjob.js, against the shared case 156 and every job of
 * the corpus as JSON), the job's data out as JSON, the line an error names (editor.js) and the
 * version picker's choices (view.js), on the cases' indexes. */

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { PrereqError } from "../../site/assets/composer/core/errors.js";
import { Index } from "../../site/assets/composer/index/reader.js";
import { addToText } from "../../site/assets/composer/jobs/operations.js";
import { errorLine } from "../../site/assets/composer/ui/editor.js";
import { blockYamlOfJson, jobAsJson } from "../../site/assets/composer/ui/jsonjob.js";
import { versionChoices } from "../../site/assets/composer/ui/view.js";
import { loadYaml } from "../../site/assets/composer/yaml/yamlload.js";

const CASES = fileURLToPath(new URL("../cases/", import.meta.url));
const JSON_CASE = join(CASES, "jobs", "156-json-job-becomes-block-yaml");

async function openIndex(name) {
  const base = `indexes/${name}/api/v1`;
  const index = await Index.load(base, (path) => readFile(join(CASES, base, path)));
  return index;
}

const read = (path) => new TextDecoder("utf-8", { ignoreBOM: true }).decode(readFileSync(path));

test("composer/JSON becomes the block YAML the engines' first edit writes", async () => {
  const index = await openIndex("tiny");
  const json = read(join(JSON_CASE, "job.yaml"));
  const yaml = blockYamlOfJson(json);
  assert.ok(yaml !== null && !yaml.includes('"protocolVersion"'));
  assert.deepEqual(loadYaml(yaml).data, JSON.parse(json));
  // Editing the converted text gives the case's own step: the same bytes as editing the JSON.
  const added = await addToText(yaml, ["alpha"], { index, source: "job.yaml" });
  assert.equal(added.after, read(join(JSON_CASE, "step-1.yaml")));
  assert.equal(blockYamlOfJson(yaml), null); // YAML stays as it is
});

test("composer/every job of the corpus, written as JSON, comes back as block YAML with the same data", () => {
  let converted = 0;
  for (const name of readdirSync(join(CASES, "jobs"))) {
    let data;
    try {
      data = loadYaml(read(join(CASES, "jobs", name, "job.yaml"))).data;
    } catch (error) {
      continue; // a malformed job of the 17x cases
    }
    if (data === null || typeof data !== "object" || Array.isArray(data)) continue;
    for (const json of [JSON.stringify(data, null, 2), JSON.stringify(data), "\ufeff" + JSON.stringify(data, null, 1).replace(/\n/g, "\r\n")]) {
      const yaml = blockYamlOfJson(json);
      assert.ok(yaml !== null, name);
      assert.deepEqual(loadYaml(yaml).data, data, name);
      assert.equal(yaml.startsWith("\ufeff"), json.startsWith("\ufeff"), name);
      assert.equal(yaml.includes("\r\n"), json.includes("\r\n"), name);
      converted += 1;
    }
  }
  assert.ok(converted > 200, `${converted} texts converted`);
});

test("composer/what is not a JSON object is left as it is", () => {
  for (const text of ["", "name: x\n", "[1, 2]", '"job"', "{name: flow-yaml}", '{"a": 1', '{"a": 1, "a": 2}', "{}\n{}"]) {
    assert.equal(blockYamlOfJson(text), null, text);
  }
});

test("composer/the job out as JSON: json.dumps' layout, floats and big integers kept", () => {
  const yaml = "# a comment\nname: x\nratio: 1.0\nbig: 123456789012345678901\nkeys: {1: one, false: no, null: nothing}\n" +
    "empty: {}\nnone: []\nlist:\n  - 'café'\n  - {a: 1e16}\n";
  const json = jobAsJson(yaml, "job");
  assert.equal(json, [
    "{", '  "name": "x",', '  "ratio": 1.0,', '  "big": 123456789012345678901,',
    '  "keys": {', '    "1": "one",', '    "false": "no",', '    "null": "nothing"', "  },",
    '  "empty": {},', '  "none": [],', '  "list": [', '    "café",', "    {", '      "a": 1e+16', "    }", "  ]", "}", "",
  ].join("\n"));
  assert.deepEqual(JSON.parse(json), { ...loadYaml(yaml).data, big: 123456789012345678901 });
  assert.throws(() => jobAsJson("a:\n  b: [.inf]\n", "job"), (error) => error instanceof PrereqError &&
    error.message === "a.b[0] is inf, which JSON cannot hold");
  assert.throws(() => jobAsJson("a: [\n", "job"), (error) => error instanceof PrereqError && error.message.startsWith("job:2:1: "));
});

test("composer/the line an error names in the job", () => {
  const error = (message) => new PrereqError(message);
  assert.deepEqual(errorLine(error("job:12:5: mapping values are not allowed here")), { aboutJob: true, line: 12 });
  assert.deepEqual(errorLine(error("job:7: task role 1 is not a string")), { aboutJob: true, line: 7 });
  assert.deepEqual(errorLine(error("job: not an OpenPAI job")), { aboutJob: true, line: 0 });
  assert.deepEqual(errorLine(error("no prerequisite named 'x' in the index")), { aboutJob: false, line: 0 });
  assert.deepEqual(errorLine(new Error("job:3: a bug's message")), { aboutJob: false, line: 0 });
  assert.deepEqual(errorLine(null), { aboutJob: false, line: 0 });
});

test("composer/the version picker offers any version, each major.minor as a range, and each version exactly", async () => {
  const index = await openIndex("tiny");
  await index.ensure(["store"]);
  const values = (groups) => groups.map((group) => [group.label, group.options.map((option) => option.value)]);
  assert.deepEqual(values(versionChoices(index.versions("store"), null)), [
    ["", [""]], ["compatible with", ["^2.0", "^1.1", "^1.0"]], ["exactly", ["2.0.0", "1.1.0", "1.0.0"]],
  ]);
  const own = versionChoices(index.versions("store"), ">=1.0 <2");
  assert.deepEqual(own[0].options, [{ value: "", label: "any compatible version" }, { value: ">=1.0 <2", label: ">=1.0 <2 (as the job says)" }]);
  assert.equal(versionChoices(index.versions("store"), "^1.1")[0].options.length, 1); // offered already
  assert.equal(versionChoices(index.versions("store"), null)[1].options[0].label, "^2.0: 2.0 or a newer 2.x");
  // Every choice is a range `prereq job add store@RANGE` takes, and gives the newest version it allows.
  const picked = [];
  for (const { value } of versionChoices(index.versions("store"), null).slice(1).flatMap((group) => group.options)) {
    const result = await addToText("name: x\ntaskRoles:\n  t: {commands: [a]}\n", [`store@${value}`], { index, source: "job" });
    picked.push(result.changes[0]);
  }
  assert.deepEqual(picked, ["2.0.0", "1.1.0", "1.1.0", "2.0.0", "1.1.0", "1.0.0"].map((v) => `added store ${v}, selected`));
});
