// The plain version choice settles on chains of any real depth (tests/test_resolver_depth.py, the same
// chains against tools/prereq/index/resolver.py).  Run from the repository: node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";

import { chooseVersions } from "../../site/assets/composer/index/resolver.js";

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
