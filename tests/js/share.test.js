// The share cases (tests/cases/share/) against the composer's jobs/share.js.
// Run from the repository: node --test tests/js/
// Every expectation was made by the Python engine (tests/cases/share/regen.py).

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { PrereqError } from "../../site/assets/composer/core/errors.js";
import { shareEntry } from "../../site/assets/composer/jobs/share.js";
import { comparedMessage } from "./yamlwords.js";

const CASES = join(dirname(fileURLToPath(import.meta.url)), "..", "cases");
const ROOT = JSON.parse(readFileSync(join(CASES, "indexes", "story", "api", "v1", "index.json"), "utf8"));

function outcome(kase) {
  try {
    const shared = shareEntry(kase.job, kase.entry, {
      owner: kase.owner,
      format: ROOT.item_format,
      taken: ROOT.items.map((entry) => entry.name),
      asName: kase.as ?? null,
      source: "job.yaml",
    });
    return { name: shared.name, text: shared.text };
  } catch (error) {
    if (!(error instanceof PrereqError)) throw error;
    return { error: comparedMessage(error.message), hint: error.hint };
  }
}

const names = readdirSync(join(CASES, "share")).filter((n) => /^[0-9]{3}-.*\.json$/.test(n)).sort();

for (const name of names) {
  test(`share/${name.slice(0, -5)}`, () => {
    const kase = JSON.parse(readFileSync(join(CASES, "share", name), "utf8"));
    const expect = "error" in kase.expect ? { ...kase.expect, error: comparedMessage(kase.expect.error) } : kase.expect;
    assert.deepEqual(outcome(kase), expect);
  });
}

test("share: the corpus is there", () => assert.ok(names.length >= 20));
