// The plain version choice settles on chains of any real depth, and locks that all fit are taken in one
// pass (tests/test_resolver_depth.py, the same chains against tools/prereq/index/resolver.py).  Run from
// the repository: node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";

import { PrereqError } from "../../site/assets/composer/core/errors.js";
import { satisfies } from "../../site/assets/composer/core/versions.js";
import { chooseVersions } from "../../site/assets/composer/index/resolver.js";
import { semver } from "../../site/assets/vendor/prereq-vendor.js";

function chain(depth) {
  const versions = new Map();
  const requires = new Map();
  for (let i = 0; i < depth; i++) {
    versions.set(`n${i}`, ["1.0.0", "1.1.0"]);
    for (const v of ["1.0.0", "1.1.0"]) requires.set(`n${i} ${v}`, i + 1 < depth ? [{ name: `n${i + 1}`, range: "^1.0" }] : []);
  }
  return { versionsOf: (n) => versions.get(n), requiresOf: (n, v) => requires.get(`${n} ${v}`) };
}

for (const depth of [1, 99, 101, 300]) {
  test(`resolver: a chain ${depth} deep is chosen whole`, () => {
    const choice = chooseVersions([{ name: "n0", range: null }], chain(depth));
    assert.equal(choice.order.length, depth);
    assert.equal(choice.order[0], `n${depth - 1}`);
    assert.deepEqual(new Set(choice.versions.values()), new Set(["1.1.0"]));
  });
}

const locks = (count, changed = {}) => new Map([...Array.from({ length: count }, (_, i) => [`n${i}`, "1.0.0"]), ...Object.entries(changed)]);

for (const [what, locked, onePass] of [
  ["every lock fits: kept, in one pass", locks(60), true],
  ["the last item unlocked: the plain choice", locks(59), false],
  ["a lock not published: the plain choice", locks(60, { n30: "2.0.0" }), false],
]) {
  test(`resolver: a chain 60 deep with locks, ${what}`, () => {
    const { versionsOf, requiresOf } = chain(60);
    const reads = [];
    const choice = chooseVersions([{ name: "n0", range: null }], { versionsOf, requiresOf: (n, v) => (reads.push(n), requiresOf(n, v)), locked });
    const unlocked = new Set([...Array(60).keys()].map((i) => `n${i}`).filter((n) => !locked.has(n)));
    const expected = (name) => (unlocked.has(name) || locked.get(name) === "2.0.0" ? "1.1.0" : "1.0.0");
    assert.deepEqual([...choice.versions], choice.order.map((name) => [name, expected(name)]));
    const most = Math.max(...[...new Set(reads)].map((name) => reads.filter((n) => n === name).length));
    assert.equal(most <= 4, onePass, `read at most ${most} times`); // the plain choice: once a round
  });
}

/* As tests/test_resolver_depth.py: a name the index has not leaves the locks to the plain choice. */
test("resolver: a name the index has not leaves the locks to the plain choice", () => {
  const versions = new Map([["alpha", ["1.0.0", "2.0.0"]], ["store", ["1.1.0", "2.0.0"]]]);
  const requires = new Map([["alpha 1.0.0", [{ name: "store", range: "^1" }]], ["alpha 2.0.0", [{ name: "ghost", range: null }]],
    ["store 1.1.0", []], ["store 2.0.0", []]]);
  const versionsOf = (name) => {
    if (!versions.has(name)) throw new PrereqError(`no prerequisite named '${name}' in the index`);
    return versions.get(name);
  };
  const choose = (requests, locked) => [...chooseVersions(requests, { versionsOf, requiresOf: (n, v) => requires.get(`${n} ${v}`), locked: new Map(Object.entries(locked)) }).versions];
  assert.deepEqual(choose([{ name: "alpha", range: "^1" }], { alpha: "2.0.0", store: "2.0.0", ghost: "1.0.0" }), [["store", "1.1.0"], ["alpha", "1.0.0"]]);
  assert.deepEqual(choose([{ name: "alpha", range: null }], { alpha: "1.0.0", store: "1.1.0" }), [["store", "1.1.0"], ["alpha", "1.0.0"]]);
  assert.throws(() => choose([{ name: "alpha", range: "^9" }, { name: "ghost", range: null }], {}),
    (error) => error instanceof PrereqError && error.message === "no published version of alpha meets alpha@^9 (your selection)");
});

/* As tests/test_resolver_depth.py: in a search, a version that requires its own item must meet that range. */
test("resolver: a version that requires its own item takes only a range it meets itself", () => {
  const versions = new Map([["n0", []], ["n1", ["1.0.0"]], ["n2", ["1.0.0", "1.1.0", "2.0.0"]]]);
  const requires = new Map([["n1 1.0.0", [{ name: "n1", range: "<1.1.0" }]], ["n2 1.0.0", []], ["n2 1.1.0", [{ name: "n0", range: "~1.0.0" }]],
    ["n2 2.0.0", [{ name: "n1", range: "<1.1.0" }, { name: "n2", range: "^1.0.0" }]]]);
  const choice = chooseVersions([{ name: "n2", range: null }], { versionsOf: (n) => versions.get(n), requiresOf: (n, v) => requires.get(`${n} ${v}`) });
  assert.deepEqual([...choice.versions], [["n2", "1.0.0"]]);
});

/* node-semver parses a range on every call; the plain choice asks the same pairs once per level of the
 * chain (300 deep: 300 rounds), so core/versions.js keeps each answer: a pair goes to node-semver once. */
test("resolver: each version and range is asked of node-semver once, however deep the chain", () => {
  const asked = new Map();
  const real = semver.satisfies;
  semver.satisfies = (version, range) => (asked.set(`${version} ${range}`, (asked.get(`${version} ${range}`) || 0) + 1), real(version, range));
  try {
    const depth = 300;
    const { versionsOf, requiresOf } = chain(depth);
    const once = (n, v) => requiresOf(n, v).map((r) => ({ ...r, range: "^1.0.0-once" })); // asked by no other test
    const choice = chooseVersions([{ name: "n0", range: "^1.0.0-once" }], { versionsOf, requiresOf: once });
    assert.equal(choice.order.length, depth);
    assert.deepEqual([...asked.keys()].sort(), ["1.0.0 ^1.0.0-once", "1.1.0 ^1.0.0-once"]);
    assert.deepEqual([...asked.values()], [1, 1]);
    assert.equal(satisfies("1.1.0", "^1.0.0-once"), true);
    assert.equal(asked.get("1.1.0 ^1.0.0-once"), 1);
    // What is kept is bounded (an index may name any number of versions and ranges): 65,536 answers,
    // then anew, however they are spread over ranges.
    for (let patch = 0; patch < 1 << 16; patch++) satisfies(`1.0.${patch}`, patch % 2 ? "^1.0.0" : `^1.0.${patch % 64}`);
    satisfies("1.1.0", "^1.0.0-once");
    assert.equal(asked.get("1.1.0 ^1.0.0-once"), 2);
  } finally {
    semver.satisfies = real;
  }
});
