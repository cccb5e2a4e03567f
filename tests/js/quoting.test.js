// The quoting cases (tests/cases/quoting/cases.json, made by the Python engine: regen.py) against the
// composer's jobs/expressions.js: a stored value filled into a bash command, quoted where it stands or
// named as left as written, with the same text and the same contexts.  Run: node --test tests/js/
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { fillCommand } from "../../site/assets/composer/jobs/expressions.js";

const { cases } = JSON.parse(readFileSync(new URL("../cases/quoting/cases.json", import.meta.url), "utf8"));

test("quoting: the corpus has cases", () => assert.ok(cases.length > 200));

for (const [index, { command, values, expect }] of cases.entries()) {
  test(`quoting/${index}: ${JSON.stringify(command).slice(0, 40)} with ${JSON.stringify(values.v).slice(0, 16)}`, () => {
    const [filled, unquoted] = fillCommand(command, (key) => (Object.hasOwn(values, key) ? values[key] : null));
    assert.deepEqual({ filled, unquoted: unquoted.map(({ key, context }) => [key, context]) }, expect);
  });
}
