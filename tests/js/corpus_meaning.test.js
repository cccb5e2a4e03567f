/* What the job cases' expected texts mean to OpenPAI's rest-server: js-yaml 3.13.1's safeLoad (the
 * rest-server's loader, pinned in .venv/npm by scripts/setup.sh --test) must load each text a step
 * yields (step-N.yaml, job.yaml) to the data in its meaning file (step-N.json, job.json), the same
 * files tests/cases/test_cases_py.py checks PyYAML (the runtime's loader) against.  Meaning files hold
 * JSON, a timestamp as {"!!timestamp": ISO string} (tests/cases/meaning.py). */

import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const JOBS = join(REPO, "tests", "cases", "jobs");
const JS_YAML = join(REPO, ".venv", "npm", "node_modules", "js-yaml");
const VERSION = "3.13.1";

function loader() {
  assert.ok(existsSync(join(JS_YAML, "package.json")), `${JS_YAML} is missing: ./scripts/setup.sh --test installs it`);
  return createRequire(import.meta.url)(JS_YAML);
}

/* js-yaml's data in the meaning files' form: a Date is a timestamp; nothing JSON cannot hold. */
function asJson(value, where = "the top") {
  if (value instanceof Date) return { "!!timestamp": value.toISOString() };
  if (Array.isArray(value)) return value.map((item, position) => asJson(item, `${where}[${position}]`));
  if (value !== null && typeof value === "object") {
    assert.ok(Object.getPrototypeOf(value) === Object.prototype, `${where}: ${value.constructor.name} is not JSON data`);
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asJson(item, `${where}.${key}`)]));
  }
  assert.ok(typeof value !== "number" || Number.isFinite(value), `${where}: ${value} is not JSON data`);
  return value;
}

test("meaning/the loader is the rest-server's js-yaml 3.13.1", () => {
  loader();
  assert.equal(JSON.parse(readFileSync(join(JS_YAML, "package.json"), "utf8")).version, VERSION);
});

const cases = readdirSync(JOBS, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();

test("meaning/the cases have meaning files", () => {
  const files = cases.flatMap((name) => readdirSync(join(JOBS, name)).filter((file) => file.endsWith(".json")));
  assert.ok(files.length >= 100, `only ${files.length} meaning files`);
});

for (const name of cases) {
  test(`meaning/${name}`, () => {
    const yaml = loader();
    const folder = join(JOBS, name);
    for (const file of readdirSync(folder).filter((f) => f.endsWith(".json")).sort()) {
      const textFile = file.replace(/\.json$/, ".yaml");
      const loaded = yaml.safeLoad(readFileSync(join(folder, textFile), "utf8"));
      assert.deepStrictEqual(asJson(loaded), JSON.parse(readFileSync(join(folder, file), "utf8")), textFile);
    }
  });
}
