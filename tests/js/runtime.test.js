// The composer's openpai/digest.js and runtime.js against Python's answers in tests/cases/runtime/values.json
// (written by tests/cases/runtime/regen.py).  Run: node --test tests/js/
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { canonicalJson, digest, sha256, utf8 } from "../../site/assets/composer/openpai/digest.js";
import { roundTrip } from "../../site/assets/composer/openpai/runtime.js";
import { isVisible } from "../../site/assets/composer/yaml/visiblechars.js";

const corpus = JSON.parse(readFileSync(new URL("../cases/runtime/values.json", import.meta.url), "utf8"));
const CASES = corpus.cases;

const show = (value) => JSON.stringify(value);

/* What `run` gives: its result, or the name of what it threw. */
function outcome(run) {
  try {
    return { value: run() };
  } catch (error) {
    return { raises: error.name };
  }
}

/* Each case where `actual(entry)` differs from `expected(entry)`, for one readable failure. */
function mismatches(actual, expected) {
  return CASES.map((entry) => ({ value: show(entry.value), got: actual(entry), want: expected(entry) })).filter(
    ({ got, want }) => !isDeepStrictEqual(got, want),
  );
}

function isDeepStrictEqual(a, b) {
  try {
    assert.deepEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

test("runtime/the corpus has at least 300 values and was made with the Unicode of the repr table", () => {
  assert.ok(CASES.length >= 300, `${CASES.length} cases`);
  assert.equal(corpus.unicode, "14.0.0");
});

/* What the CLI's round trip says, as roundTrip words it. */
const python = (entry) => (entry.raises ? "raises" : entry.survives ? "survives" : "breaks");

/* A key JSON-like data holds as a string where a job may have held None, inf, nan or a float
 * written without a '.', an integral number beyond 2**53, a string at the top: roundTrip cannot
 * tell these apart. */
const UNSURE_KEY = /^(?:null|NaN|-?Infinity|-?\d+e[-+]\d+)$/;
const unsureInside = (value) => (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) ||
  (Array.isArray(value) ? value.some(unsureInside) : value !== null && typeof value === "object" &&
    Object.entries(value).some(([key, item]) => UNSURE_KEY.test(key) || unsureInside(item)));
const unsure = (value) => typeof value === "string" || unsureInside(value);

/* A value holding a non-ASCII character the browser cannot vouch for as printable (visiblechars.js):
 * there the browser may call broken what Python keeps, never the reverse. */
const unvouched = (value) => {
  const texts = Array.isArray(value) ? value.map(unvouched) : value !== null && typeof value === "object"
    ? Object.entries(value).flatMap(([key, item]) => [unvouched(key), unvouched(item)]) : [typeof value === "string" &&
      Array.from(value).some((ch) => ch.codePointAt(0) > 0x7f && !isVisible(ch))];
  return texts.some(Boolean);
};

test("runtime/roundTrip never says a value survives that the CLI's round trip breaks", () => {
  const wrong = CASES.filter((entry) => roundTrip(entry.value) === "survives" && python(entry) !== "survives");
  assert.deepEqual(wrong.map((entry) => show(entry.value)), []);
});

test("runtime/roundTrip gives the CLI's verdict, unsure where JSON-like data cannot tell values apart, broken where it cannot vouch for a character", () => {
  assert.ok(CASES.filter((entry) => unsure(entry.value) && typeof entry.value === "object").length >= 4);
  const stricter = CASES.filter((entry) => roundTrip(entry.value) === "breaks" && python(entry) === "survives");
  assert.ok(stricter.length >= 4 && stricter.every((entry) => unvouched(entry.value)), stricter.map((entry) => show(entry.value)).join(" "));
  const differ = CASES.filter((entry) => {
    const found = roundTrip(entry.value);
    return found !== python(entry) && !(found === "unsure" && unsure(entry.value)) && !stricter.includes(entry);
  });
  assert.deepEqual(differ.map((entry) => show(entry.value)), []);
});

test("runtime/canonicalJson is Python's canonical JSON, byte for byte", () => {
  assert.deepEqual(
    mismatches((entry) => canonicalJson(entry.value), (entry) => entry.canonical_json),
    [],
  );
});

test("runtime/digest is Python's digest, and throws where Python's UTF-8 encoding raises", () => {
  const expected = (entry) => (entry.digest_raises ? { raises: entry.digest_raises } : { value: entry.digest });
  assert.deepEqual(mismatches((entry) => outcome(() => digest(entry.value)), expected), []);
});

test("runtime/sha256 gives the FIPS 180-4 example digests", () => {
  const hex = (text) => Array.from(sha256(utf8(text)), (b) => b.toString(16).padStart(2, "0")).join("");
  assert.equal(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(
    hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
  assert.equal(hex("a".repeat(1000000)), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
});
