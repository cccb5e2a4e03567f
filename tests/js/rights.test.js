// The rights cases (tests/cases/rights/) against the composer's execution/rights.js, which reads the
// published catalog (api/v1/execution/catalog.json) of the case's index.  Run: node --test tests/js/
// Every expectation was made by the Python engine (tests/cases/rights/regen.py).

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { PrereqError } from "../../site/assets/composer/core/errors.js";
import { userRights } from "../../site/assets/composer/execution/rights.js";

const CASES = join(dirname(fileURLToPath(import.meta.url)), "..", "cases");

function outcome(kase) {
  const document = JSON.parse(readFileSync(join(CASES, "indexes", kase.index, "api", "v1", "execution", "catalog.json"), "utf8"));
  try {
    return { rights: userRights(document, kase.groups, { reputation: kase.reputation }) };
  } catch (error) {
    if (!(error instanceof PrereqError)) throw error;
    return { error: error.message, hint: error.hint };
  }
}

for (const name of readdirSync(join(CASES, "rights")).filter((n) => /^[0-9]{3}-.*\.json$/.test(n)).sort()) {
  test(`rights/${name.slice(0, -5)}`, () => {
    const kase = JSON.parse(readFileSync(join(CASES, "rights", name), "utf8"));
    assert.deepEqual(outcome(kase), kase.expect);
  });
}
