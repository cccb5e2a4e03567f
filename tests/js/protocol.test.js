// The OpenPAI protocol cases (tests/cases/protocol/) against the composer's openpai/protocol.js.
// Run from the repository: node --test tests/js/
// Every expectation was made by the Python checks (tests/cases/protocol/regen.py); this port must
// give the same problems, in the same order, word for word.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  PREREQUISITE_TYPES, TASK_ROLE_FIELD_TYPES, TASK_ROLE_FIELDS, TASK_ROLE_NAME, patternRegExp, schemaProblems, show, unsupportedKeywords,
} from "../../site/assets/composer/openpai/protocol.js";
import { validateJob } from "../../site/assets/composer/openpai/restserver.js";

const CASES = join(dirname(fileURLToPath(import.meta.url)), "..", "cases", "protocol");
const CASE_NAME = /^[0-9]{3}-[a-z0-9]+(?:-[a-z0-9]+)*\.json$/;
const SOURCES = ["schema", "rest-server", "runtime", "webportal"];
const schema = JSON.parse(readFileSync(join(CASES, "schema.json"), "utf8"));
const files = readdirSync(CASES).filter((name) => name.endsWith(".json") && name !== "schema.json").sort();

/* A case file's content, or an assertion failure saying why it is not a well-formed case. */
function loadCase(name) {
  assert.match(name, CASE_NAME, `${name}: a case file is named NNN-slug.json`);
  const text = readFileSync(join(CASES, name), "utf8");
  let data;
  try {
    data = JSON.parse(text);
  } catch (error) {
    assert.fail(`${name}: not JSON: ${error.message}`);
  }
  assert.ok(data !== null && typeof data === "object" && !Array.isArray(data), `${name}: a case is an object`);
  assert.deepEqual(Object.keys(data), ["description", "job", "expect"], `${name}: a case has description, job, expect`);
  assert.ok(typeof data.description === "string" && data.description.trim(), `${name}: the description is a non-empty string`);
  assert.ok(Array.isArray(data.expect), `${name}: expect is a list`);
  for (const problem of data.expect) {
    const where = `${name}: ${JSON.stringify(problem)}`;
    assert.ok(problem !== null && typeof problem === "object" && !Array.isArray(problem), `${where}: a problem is an object`);
    assert.deepEqual(Object.keys(problem), ["path", "message", "source"], `${where}: a problem has path, message, source`);
    assert.ok(Array.isArray(problem.path), `${where}: path is a list`);
    for (const part of problem.path) {
      assert.ok(typeof part === "string" || (Number.isInteger(part) && part >= 0), `${where}: a path part is a key or an index`);
    }
    assert.ok(typeof problem.message === "string" && problem.message, `${where}: message is a non-empty string`);
    assert.ok(SOURCES.includes(problem.source), `${where}: source is one of ${SOURCES.join(", ")}`);
  }
  return data;
}

test("the corpus has cases, numbered once each", () => {
  assert.ok(files.length >= 50, `only ${files.length} cases`);
  const numbers = files.map((name) => name.slice(0, 3));
  assert.equal(new Set(numbers).size, numbers.length, "two cases share a number");
  assert.deepEqual(readdirSync(CASES).filter((name) => name.endsWith(".json") && name !== "schema.json" && !CASE_NAME.test(name)), []);
});

for (const name of files) {
  test(`protocol/${name.replace(/\.json$/, "")}`, () => {
    const data = loadCase(name);
    assert.deepEqual(validateJob(data.job, schema), data.expect, data.description);
  });
}

test("the schema uses only the keywords protocol.js implements", () => {
  assert.deepEqual(unsupportedKeywords(schema), []);
  assert.throws(() => schemaProblems([], { type: "array", maxItems: 1 }), /cannot word: maxItems/);
  assert.throws(() => schemaProblems({}, { additionalProperties: { type: "string" } }), /additionalProperties \(a schema\)/);
  // Keywords draft 7 does not know are ignored, as jsonschema ignores them (even Object.prototype's names).
  assert.deepEqual(schemaProblems(1, { $comment: "c", title: "t", constructor: 1, toString: 2, type: "integer" }), []);
});

test("the constants the job editor uses", () => {
  assert.deepEqual(PREREQUISITE_TYPES, ["script", "output", "data", "dockerimage"]);
  assert.deepEqual(TASK_ROLE_FIELDS, ["dockerImage", "data", "script", "output"]);
  assert.deepEqual(Object.entries(TASK_ROLE_FIELD_TYPES),
    [["dockerImage", "dockerimage"], ["data", "data"], ["script", "script"], ["output", "output"]]);
  assert.ok(TASK_ROLE_NAME.test("train") && TASK_ROLE_NAME.test("train\n") && !TASK_ROLE_NAME.test("Train"));
});

test("values are shown as the CLI shows them", () => {
  assert.equal(show({ a: [1, 2.5, null, true], "b\n": {} }), '{"a": [1, 2.5, null, true], "b\\n": {}}');
  assert.equal(show(1e21), "1e+21");
  assert.equal(show(-0), "0");
  assert.equal(show(Number.NaN), "NaN");
  assert.equal(show(-Infinity), "-Infinity");
  assert.equal(show("\ud800"), '"\\ud800"');
});

test("patterns follow Python's re", () => {
  assert.ok(patternRegExp("^a$").test("a\n"));
  assert.ok(!patternRegExp("^a$").test("a\n\n"));
  assert.ok(patternRegExp("^[$]$").test("$"));
  assert.ok(patternRegExp("^\\$$").test("$\n"));
  assert.ok(patternRegExp("^[]a]+$").test("]a"));
});
