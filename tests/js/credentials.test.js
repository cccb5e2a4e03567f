// The credentials cases (tests/cases/credentials/cases.json, made by the Python engine: regen.py) against
// the composer's jobs/credentials.js: what the Share panel finds in a prerequisite is what `prereq share`
// finds, in the same order (its message keeps it).  Run: node --test tests/js/
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { scanDocument } from "../../site/assets/composer/jobs/credentials.js";
import { loadYaml } from "../../site/assets/composer/yaml/yamlload.js";

const { cases } = JSON.parse(readFileSync(new URL("../cases/credentials/cases.json", import.meta.url), "utf8"));

test("credentials: the corpus has cases, some refused and some not", () => {
  assert.ok(cases.length > 200);
  assert.ok(cases.filter((kase) => kase.expect.length).length > 100);
  assert.ok(cases.filter((kase) => !kase.expect.length).length > 50);
});

for (const { name, yaml, expect, pad } of cases) {
  test(`credentials/${name}`, () => {
    const text = pad ? yaml.replace("{pad}", pad[0].repeat(pad[1])) : yaml;
    const found = scanDocument(loadYaml(text, { mergeKeys: true }).typed);
    assert.deepEqual(found.map(([path, leak]) => [path, leak.line, leak.kind, leak.literal, leak.key === true]), expect);
  });
}
