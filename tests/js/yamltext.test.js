// The YAML-editing corpus (tests/cases/yamledit/*.json) against the composer's engine
// (site/assets/composer/yaml/: yamltext.js, yamlload.js and the modules they use).  Every expectation there
// was made by the Python engine (regen.py); the composer must give the same texts byte for byte, the
// same data and positions, and the same errors: prereq's own words exactly, a syntax error by its kind
// and line (yamlwords.js).  A case's "browser_refuses" is the composer's message where it refuses a
// text the CLI takes (never the other way round).  Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { PyFloat, Renderer, YamlText, loadError } from "../../site/assets/composer/yaml/yamltext.js";
import { YamlLoadError, loadYaml } from "../../site/assets/composer/yaml/yamlload.js";
import { applySpans, changedSpan } from "../../site/assets/composer/yaml/yamlsplice.js";
import { PrereqError } from "../../site/assets/composer/core/errors.js";
import { pyRepr } from "./pyrepr.js";
import { comparedIssue, comparedMessage } from "./yamlwords.js";

const CASES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../cases/yamledit");
const FILES = fs.readdirSync(CASES).filter((name) => name.endsWith(".json")).sort();
const INPUT_KEYS = ["description", "source", "text", "bytes_hex", "ops", "queries", "browser_refuses", "expect"];
const OP_KEYS = { set: ["op", "path", "value", "before", "after"], insert: ["op", "path", "value"], delete: ["op", "path"] };

// -- the format (the same rules as regen.check_input, plus the shape of "expect")
function fail(where, why) {
  throw new Error(`${where}: malformed case: ${why}`);
}

function only(object, keys, where, what) {
  const extra = Object.keys(object).filter((key) => !keys.includes(key));
  if (extra.length) fail(where, `${what} has unknown keys ${extra.join(", ")}`);
}

function checkOp(op, where) {
  if (!op || typeof op !== "object" || !OP_KEYS[op.op]) fail(where, "an op is set, insert or delete");
  only(op, OP_KEYS[op.op], where, "the op");
  if (!Array.isArray(op.path)) fail(where, "an op needs a path list");
  if (op.op !== "delete" && !("value" in op)) fail(where, "set and insert need a value");
  for (const name of ["before", "after"]) if (name in op && !Array.isArray(op[name])) fail(where, `${name} is a list`);
}

function checkEditExpect(expect, where) {
  if ("error" in expect) {
    only(expect, ["error"], where, "expect");
    const error = expect.error;
    only(error, ["type", "at", "message", "hint", "exit_code", "text"], where, "expect.error");
    if (typeof error.type !== "string" || !Number.isInteger(error.at)) fail(where, "an error has a type and the op it happened at");
    if (error.type === "PrereqError" && (typeof error.message !== "string" || typeof error.hint !== "string")) fail(where, "a PrereqError has message and hint");
  } else {
    only(expect, ["text", "repr"], where, "expect");
    if (typeof expect.text !== "string" || typeof expect.repr !== "string") fail(where, "expect has text and repr");
  }
}

function checkLoadExpect(expect, where) {
  if ("error" in expect) {
    only(expect, ["error"], where, "expect");
    const issues = expect.error.issues;
    if (!Array.isArray(issues) || !issues.length) fail(where, "a load error lists its issues");
    for (const issue of issues) only(issue, ["kind", "message", "line", "column"], where, "an issue");
  } else {
    only(expect, ["repr", "data", "positions"], where, "expect");
    if (typeof expect.repr !== "string" || !Array.isArray(expect.positions)) fail(where, "expect has repr and positions");
    for (const position of expect.positions) {
      if (!Array.isArray(position) || position.length !== 4 || !Array.isArray(position[0]) || typeof position[1] !== "boolean") {
        fail(where, "a position is [path, key, line, column]");
      }
    }
  }
}

function checkCase(data, where) {
  if (!data || typeof data !== "object" || Array.isArray(data)) fail(where, "a case is an object");
  only(data, INPUT_KEYS, where, "the case");
  if (typeof data.description !== "string" || !data.description) fail(where, "needs a description");
  if (("text" in data) === ("bytes_hex" in data)) fail(where, "needs exactly one of text and bytes_hex");
  if (typeof (data.text ?? data.bytes_hex) !== "string") fail(where, "text and bytes_hex are strings");
  if (!data.expect || typeof data.expect !== "object") fail(where, "no expect: run tests/cases/yamledit/regen.py");
  if ("browser_refuses" in data && (typeof data.browser_refuses !== "string" || "error" in data.expect)) {
    fail(where, "browser_refuses is the composer's message for a text the CLI takes");
  }
  if ("ops" in data) {
    if (!Array.isArray(data.ops) || "bytes_hex" in data || "queries" in data) fail(where, "an edit case has text and a list of ops");
    data.ops.forEach((op, number) => checkOp(op, `${where} op ${number}`));
    checkEditExpect(data.expect, where);
  } else {
    for (const query of data.queries || []) {
      if (!Array.isArray(query) || query.length !== 2 || !Array.isArray(query[0]) || typeof query[1] !== "boolean") fail(where, "a query is [path, key]");
    }
    checkLoadExpect(data.expect, where);
  }
}

function readCase(name) {
  const where = `tests/cases/yamledit/${name}`;
  let data;
  try {
    data = JSON.parse(fs.readFileSync(path.join(CASES, name), "utf8"));
  } catch (error) {
    fail(where, `not JSON (${error.message})`);
  }
  checkCase(data, where);
  return data;
}

// -- running a case on the port
function describeError(error, at, text) {
  const out = { type: error.name, at };
  if (error instanceof PrereqError) Object.assign(out, { message: error.message, hint: error.hint, exit_code: error.exitCode });
  if (text !== null) out.text = text;
  return out;
}

function applyOp(doc, op) {
  if (op.op === "set") doc.set(op.path, op.value, { before: op.before || [], after: op.after || [] });
  else if (op.op === "insert") doc.insert(op.path, op.value);
  else doc.delete(op.path);
}

function runEdit(data) {
  let doc;
  try {
    doc = new YamlText(data.text, { source: data.source ?? "<yaml>" });
  } catch (error) {
    return { error: describeError(error, -1, null) };
  }
  for (const [at, op] of data.ops.entries()) {
    try {
      applyOp(doc, op);
    } catch (error) {
      return { error: describeError(error, at, doc.text) };
    }
  }
  return { text: doc.text, repr: pyRepr(doc.loaded.typed) };
}

function hexBytes(hex) {
  return new Uint8Array(hex.match(/../g)?.map((pair) => parseInt(pair, 16)) || []);
}

function runLoad(data) {
  let loaded;
  try {
    loaded = loadYaml(data.bytes_hex !== undefined ? hexBytes(data.bytes_hex) : data.text);
  } catch (error) {
    if (!(error instanceof YamlLoadError)) throw error;
    return { error: { issues: error.issues.map(({ kind, message, line, column }) => ({ kind, message, line, column })) } };
  }
  const out = { repr: pyRepr(loaded.typed) };
  if ("data" in data.expect) out.data = loaded.data;
  out.positions = (data.expect.positions || []).map(([where, key]) => [where, key, ...loaded.position(where, { key })]);
  return out;
}

test("the corpus has cases of both kinds, all well-formed", () => {
  const cases = FILES.map(readCase);
  assert.ok(cases.length >= 80, `only ${cases.length} cases`);
  assert.ok(cases.some((data) => "ops" in data) && cases.some((data) => !("ops" in data)));
  assert.equal(new Set(cases.map((data) => data.description)).size, cases.length, "descriptions are unique");
});

/* The expectation as compared: a syntax error by its kind and line (yamlwords.js). */
function compared(expect) {
  if (expect.error?.issues) return { error: { issues: expect.error.issues.map(comparedIssue) } };
  if (expect.error?.message) return { error: { ...expect.error, message: comparedMessage(expect.error.message) } };
  return expect;
}

for (const name of FILES) {
  test(`yamledit/${name.replace(/\.json$/, "")}`, () => {
    const data = readCase(name);
    const actual = "ops" in data ? runEdit(data) : runLoad(data);
    if (data.browser_refuses !== undefined) {
      const refusal = actual.error?.issues?.[0]?.message ?? actual.error?.message;
      assert.equal(refusal, data.browser_refuses, `${data.description}: the composer refuses it`);
      return;
    }
    assert.deepStrictEqual(compared(actual), compared(data.expect), data.description);
  });
}

// -- the API around the corpus (what tests/test_yamledit.py checks outside the corpus format)
test("loadError formats load errors of texts and of bytes alike", () => {
  let caught;
  try {
    loadYaml(new Uint8Array([0x61, 0x3a, 0x20, 0x31, 0x0a, 0x62, 0x3a, 0x20, 0xff, 0x0a]));
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof YamlLoadError);
  const error = loadError("f.yaml", caught, { what: "not valid YAML", hint: "h", exitCode: 2 });
  assert.ok(error instanceof PrereqError);
  assert.deepStrictEqual([error.message, error.hint, error.exitCode], ["f.yaml:2:4: not valid YAML: not valid UTF-8 (byte 0xff)", "h", 2]);
});

test("a PyFloat writes a float with an integral value; a number writes an int", () => {
  const doc = new YamlText("a: 1\n");
  doc.set(["a"], new PyFloat(1));
  doc.set(["b"], 2);
  assert.equal(doc.text, "a: 1.0\nb: 2\n");
  assert.deepStrictEqual(doc.data, { a: 1, b: 2 });
});

test("loaded follows the edits, originalLoaded keeps the positions of the text as read", () => {
  const doc = new YamlText("a:\n  - x\n  - y\n");
  doc.insert(["a", 0], "w");
  assert.deepStrictEqual(doc.loaded.position(["a", 2]), [4, 5]);
  assert.deepStrictEqual(doc.originalLoaded.position(["a", 1]), [3, 5]);
  assert.equal(doc.get(["a", 9], "none"), "none");
  assert.equal(doc.exists(["a", 2]), true);
});

test("a text an edit wrote is read once: the next reader of it gets the edit's own load", () => {
  const doc = new YamlText("a: 1\nlist:\n  - x\n");
  doc.insertMany(["list", 1], ["y", "z"]);
  doc.set(["b"], { c: [1, 2] });
  const again = new YamlText(doc.text); // the composer's view of the new text, then its next edit
  assert.equal(again.loaded, doc.loaded);
  assert.deepEqual(again.data, { a: 1, list: ["x", "y", "z"], b: { c: [1, 2] } });
  again.delete(["a"]);
  assert.equal(again.text, "list:\n  - x\n  - y\n  - z\nb:\n  c:\n    - 1\n    - 2\n");
  assert.equal(new YamlText(again.text).loaded, again.loaded);
  assert.notEqual(new YamlText(again.text, { mergeKeys: true }).loaded, again.loaded); // read as another loader would
  assert.deepEqual(new YamlText(doc.text).data, doc.data); // an older text is read again, to the same data
});

test("a plan's edits go in at once, set and checked once, as the one-by-one edits would write them", (t) => {
  const run = (doc) => {
    doc.set(["b"], { c: 1 });
    doc.insert(["list", 1], "y");
    doc.set(["a"], 2);
  };
  const [atOnce, oneByOne] = [new YamlText("a: 1\nlist:\n  - x\nz: 0\n"), new YamlText("a: 1\nlist:\n  - x\nz: 0\n")];
  const setText = t.mock.method(atOnce, "_setText");
  atOnce.atOnce(() => run(atOnce));
  run(oneByOne);
  assert.equal(setText.mock.callCount(), 1);
  assert.equal(atOnce.text, oneByOne.text);
  assert.equal(atOnce.text, "a: 2\nlist:\n  - x\n  - y\nz: 0\nb:\n  c: 1\n");
});

test("at once in two steps: the spliced text, then its check; a text the check refuses is made again one by one", () => {
  const run = (doc) => {
    doc.insert(["list", 1], "y");
    doc.set(["a"], 2);
  };
  const [checked, refused] = [new YamlText("a: 1\nlist:\n  - x\n"), new YamlText("a: 1\nlist:\n  - x\n")];
  const spliced = checked.spliceAtOnce(() => run(checked));
  assert.equal(spliced.text, "a: 2\nlist:\n  - x\n  - y\n");
  assert.equal(checked.text, "a: 1\nlist:\n  - x\n", "nothing is taken before the check");
  checked.settleAtOnce(spliced, () => run(checked));
  assert.equal(checked.text, spliced.text);
  const wrong = refused.spliceAtOnce(() => run(refused));
  refused.settleAtOnce({ ...wrong, text: wrong.text.replace("- y", "- z") }, () => run(refused)); // loads to other data
  assert.equal(refused.text, spliced.text, "the one-by-one edits' text, not the refused one");
  assert.equal(new YamlText("a: 1\n").spliceAtOnce(() => {}), null, "no edit: nothing to check");
});

test("edits that cannot go in at once go in one by one, to the same text", () => {
  const run = (doc) => {
    doc.set(["b"], { c: 1 });
    doc.set(["b", "d"], 2); // inside what the edit before writes: the text has no lines for it yet
    doc.insert(["list", 1], "y");
  };
  const [atOnce, oneByOne] = [new YamlText("a: 1\nlist:\n  - x\n"), new YamlText("a: 1\nlist:\n  - x\n")];
  atOnce.atOnce(() => run(atOnce));
  run(oneByOne);
  assert.equal(atOnce.text, oneByOne.text);
  assert.equal(atOnce.text, "a: 1\nlist:\n  - x\n  - y\nb:\n  c: 1\n  d: 2\n");
});

test("spans are the shortest, end on code points, and may neither overlap nor touch", () => {
  assert.deepEqual(changedSpan("a: 1\nb: 2\n", "a: 1\nx: 0\nb: 2\n"), [5, 5, "x: 0\n"]);
  assert.deepEqual(changedSpan("a\u{1f600}b", "a\u{1f601}b"), [1, 3, "\u{1f601}"]); // not half a pair
  assert.deepEqual(changedSpan("same", "same"), [4, 4, ""]);
  assert.equal(applySpans("abcdef", [[4, 5, "E"], [0, 1, "A"]]), "AbcdEf");
  assert.equal(applySpans("abcdef", [[0, 2, "X"], [2, 3, "Y"]]), null);
  assert.equal(applySpans("abcdef", [[0, 3, "X"], [2, 4, "Y"]]), null);
});

test("the Renderer writes plain values as block YAML that reads back", () => {
  const value = { callbacks: [{ event: "taskStarts", commands: ["echo 'x'", "multi\nline"] }], empty: [],
    nested: [["a", "b"], { c: null }], n: 1.5, flag: false };
  const text = new Renderer({ indent: 2 }).lines(value, 0).join("\n") + "\n";
  assert.deepStrictEqual(loadYaml(text).data, value);
});

test("a plan's edits are not folded past what makes, moves or removes the value they go into", async () => {
  const { applyEdits } = await import("../../site/assets/composer/jobs/apply.js");
  const text = "a: 1\nl:\n  - a: 1\n";
  const plans = [ // as tests/test_edit_at_once.py: a wrong job, a wrong job, an error
    [{ op: "set", path: ["b"], value: { x: 1 } }, { op: "delete", path: ["b"] }, { op: "set", path: ["b", "c"], value: 2 }],
    [{ op: "set", path: ["l", 0], value: { a: 2 } }, { op: "insert", path: ["l", 0], value: { b: 1 } }, { op: "set", path: ["l", 0, "c"], value: 3 }],
    [{ op: "set", path: ["k", "k"], value: "w" }, { op: "delete", path: ["k"] }],
  ];
  for (const edits of plans.map((plan) => plan.map((edit) => ({ before: [], after: [], ...edit })))) {
    const [applied, oneByOne] = [new YamlText(text), new YamlText(text)];
    applyEdits(applied, edits);
    for (const edit of edits) {
      if (edit.op === "set") oneByOne.set(edit.path, edit.value);
      else if (edit.op === "insert") oneByOne.insert(edit.path, edit.value);
      else oneByOne.delete(edit.path);
    }
    assert.equal(applied.text, oneByOne.text);
  }
});

test("positions are found at every depth under keys of every kind, as the load recorded them", () => {
  const loaded = loadYaml("a:\n  - {1: x, 2.5: [y, {k: z}]}\n'1': w\n");
  assert.deepStrictEqual(loaded.position(["a", 0, 1]), [2, 9]);
  assert.deepStrictEqual(loaded.position(["a", 0, 1], { key: true }), [2, 6]);
  assert.deepStrictEqual(loaded.position(["a", 0, new PyFloat(1)]), [2, 9], "1.0 is the key 1, as in Python");
  assert.deepStrictEqual(loaded.position(["a", 0, 2.5, 1, "k"]), [2, 25]);
  assert.deepStrictEqual(loaded.position(["1"]), [3, 6]);
  assert.deepStrictEqual(loaded.position([1]), [1, 1], "the int 1 is not the string '1': the root's");
});

test("the sharing marks take lines only: no code points counted per mark on a line of astral text", async () => {
  const { sharingMarks } = await import("../../site/assets/composer/yaml/yamlshare.js");
  const { Lines } = await import("../../site/assets/composer/yaml/yamlparse.js");
  const text = "name: x\nk: [\u{1F600}, &a x, " + "*a, ".repeat(50) + "]\nm: {<<: {z: 1}}\n";
  const mark = Lines.prototype.mark;
  Lines.prototype.mark = () => assert.fail("a column counted: a pass over the line for each alias");
  try {
    const marks = sharingMarks(text);
    assert.deepEqual(marks.slice(0, 2), [["&", "a", 2, text.indexOf("&a")], ["*", "a", 2, text.indexOf("*a")]]);
    assert.deepEqual(marks.at(-1), ["<<", "", 3, text.indexOf("<<")]);
    assert.equal(marks.length, 52);
  } finally {
    Lines.prototype.mark = mark;
  }
});
