/* The job engine's shared cases (tests/cases/jobs/) against the composer's JS engine: every case,
 * every step, the same texts, changes, warnings and errors as the Python engine gives.  `lock` is
 * the CLI's alone (no page locks a job): a lock step's expected text is the next step's input.  A
 * case's `browser_refuses: {step, message}` is the one way the engines may part: the composer
 * refuses that step with that message where the CLI takes it; the next step starts from the CLI's text. */

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { Index } from "../../site/assets/composer/index/reader.js";
import { addToText, removeFromText } from "../../site/assets/composer/jobs/operations.js";
import { prepareText } from "../../site/assets/composer/jobs/prepare.js";
import { PrereqError } from "../../site/assets/composer/core/errors.js";
import { parseDocument } from "../../site/assets/vendor/prereq-vendor.js";

const CASES = fileURLToPath(new URL("../cases/", import.meta.url));
const SOURCE = "job.yaml";

function text(path) {
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(readFileSync(path)); // BOM and CRLF kept
}

function yaml(path) {
  const doc = parseDocument(readFileSync(path, "utf-8"));
  assert.equal(doc.errors.length, 0, `${path}: ${doc.errors.map((e) => e.message).join("; ")}`);
  return doc.toJS();
}

async function openIndex(name) {
  const base = `indexes/${name}/api/v1`; // what the job records, as the Python runner's Index.load gives
  return Index.load(base, (path) => readFile(join(CASES, base, path)));
}

const names = (value) => (typeof value === "string" ? [value] : [...value]);

async function runStep(jobText, step, index) {
  const taskRole = step.task_role ?? null;
  if ("add" in step) return addToText(jobText, names(step.add), { index, taskRole, bind: Boolean(step.bind), source: SOURCE });
  if ("remove" in step) return removeFromText(jobText, names(step.remove), { index, taskRole, unbind: Boolean(step.unbind), source: SOURCE });
  if ("resolve" in step) {
    const result = await prepareText(jobText, { index, expressions: (step.resolve || {}).expressions || {}, source: SOURCE });
    return { after: result.text, changes: result.changes, warnings: result.warnings };
  }
  throw new Error(`a step needs add, remove or resolve: ${JSON.stringify(step)}`);
}

export function caseNames() {
  return readdirSync(join(CASES, "jobs"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

for (const name of caseNames()) {
  test(`jobs/${name}`, async () => {
    const folder = join(CASES, "jobs", name);
    const spec = yaml(join(folder, "case.yaml"));
    assert.ok(Array.isArray(spec.steps) && spec.steps.length, "a case needs steps");
    const indexes = new Map();
    let current = text(join(folder, "job.yaml"));
    for (const [position, step] of spec.steps.entries()) {
      const indexName = step.index || spec.index;
      if (!indexes.has(indexName)) indexes.set(indexName, await openIndex(indexName));
      const where = `step ${position + 1}`;
      const refused = spec.browser_refuses?.step === position + 1;
      if ("lock" in step || refused) {
        if (refused) await assert.rejects(runStep(current, step, indexes.get(indexName)), { message: spec.browser_refuses.message }, where);
        if (step.expect.text) current = text(join(folder, step.expect.text));
        continue;
      }
      let outcome;
      try {
        outcome = await runStep(current, step, indexes.get(indexName));
      } catch (error) {
        if (!(error instanceof PrereqError)) throw error;
        assert.deepEqual({ message: error.message, hint: error.hint }, step.expect.error, `${where}: the error`);
        continue;
      }
      assert.equal(step.expect.error, undefined, `${where}: expected ${JSON.stringify(step.expect.error)}`);
      const expected = step.expect.text ? text(join(folder, step.expect.text)) : current;
      assert.equal(outcome.after, expected, `${where}: the text`);
      assert.deepEqual(outcome.changes, step.expect.changes || [], `${where}: the changes`);
      assert.deepEqual(outcome.warnings, step.expect.warnings || [], `${where}: the warnings`);
      current = outcome.after;
    }
  });
}

test("a local index is not recorded in the job and the edit says so; a URL is recorded", async () => {
  const index = await openIndex("tiny");
  const job = text(join(CASES, "jobs", "001-add-one-item", "job.yaml"));
  const local = await addToText(job, ["alpha"], { index, source: SOURCE });
  assert.ok(!local.after.includes("index: indexes/"), "no local folder in extras.prereq");
  assert.deepEqual(local.notes, ["the index indexes/tiny/api/v1 is a local folder, so the job does not record it; " +
    "later commands take it from --index, $PREREQ_INDEX or build/site"]);
  const site = await addToText(job, ["alpha"], { index, indexSource: "https://prereq.example.org/api/v1", source: SOURCE });
  assert.ok(site.after.includes("    index: https://prereq.example.org/api/v1\n") && site.notes.length === 0);
});

test("jobs: an edit's text is given to `shown`, and its check waits for it; the text and changes are as without", async () => {
  const index = await openIndex("story");
  const job = "protocolVersion: 2\nname: j\ntype: job\ntaskRoles:\n  train:\n    instances: 1\n    commands:\n      - python train.py\n";
  const options = { index, taskRole: "train", source: "job" };
  let paint = null;
  const shown = [];
  const adding = addToText(job, ["mnist-data"], { ...options, shown: (text) => (shown.push(text), new Promise((done) => (paint = done))) });
  for (let waited = 0; paint === null; waited++) {
    assert.ok(waited < 1000, "the text is shown (the edit goes in at once)");
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const early = await Promise.race([adding.then(() => "answered"), new Promise((resolve) => setTimeout(resolve, 20, "waiting"))]);
  assert.equal(early, "waiting", "no answer until the page has painted the text");
  paint();
  const [added, plain] = [await adding, await addToText(job, ["mnist-data"], options)];
  assert.deepEqual(shown, [added.after]);
  assert.deepEqual(added, plain);
  // The text shown is the text the edit gives: with the file's BOM, without a final line end it had none of.
  for (const variant of ["\ufeff" + job, job.slice(0, -1), job.replace(/\n/g, "\r\n").slice(0, -2)]) {
    const given = [];
    const result = await addToText(variant, ["mnist-data"], { ...options, shown: async (text) => void given.push(text) });
    assert.deepEqual(given, [result.after], JSON.stringify(variant.slice(0, 3) + "..." + variant.slice(-3)));
  }
  const removed = [];
  const back = await removeFromText(added.after, ["mnist-data"], { ...options, shown: async (text) => void removed.push(text) });
  assert.deepEqual(removed, [back.after]);
  assert.deepEqual(back, await removeFromText(added.after, ["mnist-data"], options));
});
