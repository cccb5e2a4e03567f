/* A YAML text's anchors, aliases and merge keys, and where two values differ (yamlsplice.sharing_marks,
 * yamledit._differences): yamltext.js checks with them that a batch of edits keeps shared values shared.
 *
 * May import: core/, vendor/.
 */

import { Parser } from "../../vendor/prereq-vendor.js";
import { PyDict, pyEq, typeName } from "./pyvalues.js";
import { Lines } from "./yamlparse.js";
import { eachLeaf } from "./yamlrefusals.js";

// Each anchor, alias and << key as [mark, name, line, offset], in text order (the CST keeps them all).
export function sharingMarks(text) {
  if (!/[&*]|<</.test(text)) return [];
  const [lines, marks] = [new Lines(text), []];
  eachLeaf(Array.from(new Parser().parse(text)), (token, flow, item) => {
    const merge = token.type === "scalar" && token.source === "<<" && item?.key === token;
    const mark = token.type === "anchor" ? "&" : token.type === "alias" ? "*" : merge ? "<<" : null;
    if (mark) marks.push([mark, merge ? "" : token.source.slice(1), lines.line(token.offset) + 1, token.offset]);
  });
  return marks.sort((a, b) => a[3] - b[3]);
}

export const MISSING = Symbol("missing");

// The smallest paths where ``a`` and ``b`` differ (key order aside), with a's value.
export function differences(a, b, path) {
  if (a instanceof PyDict && b instanceof PyDict) {
    const keys = [...a.keys, ...b.keys.filter((key) => !a.has(key))];
    return keys.flatMap((key) => differences(a.has(key) ? a.get(key) : MISSING, b.has(key) ? b.get(key) : MISSING, [...path, key]));
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    return a.flatMap((item, index) => differences(item, b[index], [...path, index]));
  }
  if (a === MISSING || b === MISSING) return a === b ? [] : [[path, a]];
  return typeName(a) === typeName(b) && pyEq(a, b) ? [] : [[path, a]];
}
