/* PyYAML's nodes (composer.py) from the library's document, and the tags its Resolver (resolver.py)
 * gives plain scalars: {kind, tag, value}, a scalar's value its text, a collection's its children
 * (a mapping's as [key, value] pairs).  The library's own YAML 1.1 schema differs from PyYAML's
 * (1e-05 and 1e+16 are floats there, str in PyYAML; it has no `=` tag), so tags are resolved here.
 *
 * Folder openpai/pyyaml/: PyYAML's safe_load (YAML 1.1) as the OpenPAI runtime reads a plugin
 * parameter back, on the vendored `yaml` library.
 * May import: vendor/.
 */

import { isMap, isPair, isScalar, isSeq } from "../../../vendor/prereq-vendor.js";
import { YamlError } from "./python.js";

export const Y = "tag:yaml.org,2002:";
export const [SCALAR, SEQ, MAP] = ["scalar", "seq", "map"];

export function toNode(item, context) {
  if (item === null || item === undefined) return scalarNode("", true, null); // an empty node
  if (isScalar(item)) {
    const node = scalarNode(scalarValue(item, context.source), item.type === "PLAIN", item.tag ?? null);
    return anchored(item, context.anchors, node);
  }
  if (!isMap(item) && !isSeq(item)) {
    if (!context.anchors.has(item.source)) throw new YamlError(`found undefined alias '${item.source}'`);
    return context.anchors.get(item.source);
  }
  const kind = isMap(item) ? MAP : SEQ;
  const node = anchored(item, context.anchors, { kind, tag: item.tag && item.tag !== "!" ? item.tag : Y + kind });
  node.value = item.items.map((child) => childNode(child, kind, context));
  return node;
}

// A block scalar that ends the text without a line break has no final "\n" in PyYAML.
function scalarValue(item, source) {
  const value = item.source ?? String(item.value);
  const last = item.type.startsWith("BLOCK") && item.range[1] >= source.length && !/[\r\n]$/.test(source);
  return last && value.endsWith("\n") ? value.slice(0, -1) : value;
}

function childNode(child, kind, context) {
  if (!isPair(child)) return toNode(child, context);
  const pair = [toNode(child.key, context), toNode(child.value, context)];
  return kind === MAP ? pair : { kind: MAP, tag: Y + "map", value: [pair] }; // [a: b] is a one-pair map
}

// Registered before the node's children are read, as PyYAML does, so an alias inside may point to it.
function anchored(item, anchors, node) {
  if (!item.anchor) return node;
  if (anchors.has(item.anchor)) throw new YamlError(`found duplicate anchor '${item.anchor}'`);
  anchors.set(item.anchor, node);
  return node;
}

// ------------------------------------------------------------------------------ resolving (resolver.py)

// Python's $ also matches before a final "\n".  In PyYAML's order, each with its first characters.
export const END = "(?=\\n?$)";
const RESOLVERS = [
  ["bool", "yYnNtTfFoO", String.raw`yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF`],
  [
    "float",
    "-+0123456789.",
    String.raw`[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?` +
      String.raw`|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)`,
  ],
  [
    "int",
    "-+0123456789",
    String.raw`[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+` +
      String.raw`|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+`,
  ],
  ["merge", "<", "<<"],
  ["null", "~nN", "~|null|Null|NULL|"],
  [
    "timestamp",
    "0123456789",
    String.raw`[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?` +
      String.raw`(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?` +
      String.raw`(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?`,
  ],
  ["value", "=", "="],
  ["yaml", "!&*", String.raw`!|&|\*`],
].map(([name, first, pattern]) => ({ tag: Y + name, first, regexp: new RegExp(`^(?:${pattern})${END}`) }));

/* PyYAML resolves a plain scalar without a tag, and any scalar tagged "!", by its value. */
export function scalarNode(value, plain, tag) {
  const implicit = (plain && tag === null) || tag === "!";
  return { kind: SCALAR, tag: implicit ? resolve(value) : (tag ?? Y + "str"), value };
}

function resolve(value) {
  if (value === "") return Y + "null";
  const found = RESOLVERS.find(({ first, regexp }) => first.includes(value[0]) && regexp.test(value));
  return found ? found.tag : Y + "str";
}
