/* PyYAML's SafeConstructor (constructor.py) on the nodes of nodes.js, giving python.js's values, in
 * the order PyYAML's generators run, which decides the error a document raises first.  Merge keys
 * are merged as PyYAML merges them (the library merges `<<` its own way).
 *
 * Folder openpai/pyyaml/: PyYAML's safe_load (YAML 1.1) as the OpenPAI runtime reads a plugin
 * parameter back, on the vendored `yaml` library.
 * May import: vendor/.
 */

import { MAP, SCALAR, SEQ, Y } from "./nodes.js";
import { PyDict, PyOther, YamlError } from "./python.js";
import { constructBinary, constructBool, constructFloat, constructInt, constructTimestamp } from "./scalars.js";

const isHashable = (data) => !Array.isArray(data) && !(data instanceof PyDict) && data?.type !== "set";

/* construct_document: a scalar at once, a collection as an empty object filled in later, in the order
 * PyYAML's state generators run (which decides the error a document raises first). */
export function construct(root) {
  const done = new Map();
  const building = new Set();
  const later = [];
  const object = (node) => {
    if (done.has(node)) return done.get(node);
    if (building.has(node)) throw new YamlError("found unconstructable recursive node");
    building.add(node);
    const make = Object.hasOwn(CONSTRUCTORS, node.tag) ? CONSTRUCTORS[node.tag] : constructUndefined;
    const data = make(node, { object, later: (fill) => later.push(fill) });
    done.set(node, data);
    building.delete(node);
    return data;
  };
  const data = object(root);
  while (later.length) later.shift()();
  return data;
}

function constructUndefined(node) {
  throw new YamlError(`could not determine a constructor for the tag '${node.tag}'`);
}

/* SafeConstructor.construct_scalar: a mapping with a `=` key stands for that key's value. */
function constructScalar(node) {
  if (node.kind === MAP) {
    const pair = node.value.find(([key]) => key.tag === Y + "value");
    if (pair) return constructScalar(pair[1]);
  }
  if (node.kind !== SCALAR) throw new YamlError(`expected a scalar node, but found ${node.kind}`);
  return node.value;
}

function constructMapping(node, object) {
  if (node.kind !== MAP) throw new YamlError(`expected a mapping node, but found ${node.kind}`);
  flattenMapping(node);
  const entries = [];
  for (const [keyNode, valueNode] of node.value) {
    const key = object(keyNode);
    if (!isHashable(key)) throw new YamlError("found unhashable key");
    entries.push([key, object(valueNode)]);
  }
  return entries;
}

/* Merge keys (<<) pull in the pairs of a mapping or a list of mappings, the first one winning; a `=`
 * key is a str key inside a mapping.  As in PyYAML the merge key goes before what it merges is
 * flattened, so a mapping that merges itself ends. */
function flattenMapping(node) {
  const merged = [];
  const seen = new Set();
  const take = (source) => {
    if (source.kind !== MAP) throw new YamlError(`expected a mapping for merging, but found ${source.kind}`);
    flattenMapping(source);
    for (const pair of source.value.filter(([key]) => !seen.has(key))) merged.push(pair), seen.add(pair[0]);
  };
  for (let index = 0; index < node.value.length; ) {
    const [key, value] = node.value[index];
    if (key.tag !== Y + "merge") {
      if (key.tag === Y + "value") key.tag = Y + "str";
      index++;
      continue;
    }
    node.value.splice(index, 1);
    if (value.kind === SCALAR) throw new YamlError("expected a mapping or list of mappings for merging");
    for (const source of value.kind === SEQ ? value.value : [value]) take(source);
  }
  if (merged.length) node.value = merged.concat(node.value);
}

function constructPairs(node, { object, later }) {
  const pairs = [];
  later(() => {
    if (node.kind !== SEQ) throw new YamlError(`expected a sequence, but found ${node.kind}`);
    for (const sub of node.value) {
      if (sub.kind !== MAP || sub.value.length !== 1) throw new YamlError("expected a mapping of length 1");
      object(sub.value[0][0]);
      object(sub.value[0][1]);
      pairs.push(new PyOther("tuple"));
    }
  });
  return pairs;
}

const CONSTRUCTORS = {
  [Y + "null"]: (node) => (constructScalar(node), null),
  [Y + "bool"]: (node) => constructBool(constructScalar(node)),
  [Y + "int"]: (node) => constructInt(constructScalar(node)),
  [Y + "float"]: (node) => constructFloat(constructScalar(node)),
  [Y + "binary"]: (node) => constructBinary(constructScalar(node)),
  [Y + "timestamp"]: (node) => constructTimestamp(constructScalar(node), node),
  [Y + "omap"]: constructPairs,
  [Y + "pairs"]: constructPairs,
  [Y + "str"]: constructScalar,
  [Y + "set"]: (node, { object, later }) => {
    later(() => constructMapping(node, object));
    return new PyOther("set");
  },
  [Y + "seq"]: (node, { object, later }) => {
    const list = [];
    later(() => {
      if (node.kind !== SEQ) throw new YamlError(`expected a sequence node, but found ${node.kind}`);
      list.push(...node.value.map(object));
    });
    return list;
  },
  [Y + "map"]: (node, { object, later }) => {
    const dict = new PyDict();
    later(() => dict.update(constructMapping(node, object)));
    return dict;
  },
};
