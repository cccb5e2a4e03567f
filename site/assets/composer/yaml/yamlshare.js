/* A YAML text's anchors, aliases and merge keys, and where two values differ (yamlsplice.sharing_marks,
 * yamledit._differences): yamltext.js checks with them that a batch of edits keeps shared values shared.
 *
 * May import: core/, vendor/.
 */

import { Parser } from "../../vendor/prereq-vendor.js";
import { PyDict, pyEq, typeName } from "./pyvalues.js";

// Each anchor, alias and << key as [mark, name, line, offset], in text order (the CST keeps them all).
export function sharingMarks(text) {
  if (!/[&*]|<</.test(text)) return [];
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  const lineOf = (offset) => {
    let [low, high] = [0, starts.length - 1];
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
  const marks = [];
  const visit = (token, key) => {
    if (!token || typeof token !== "object") return;
    if (Array.isArray(token)) return token.forEach((item) => visit(item, false));
    if (token.type === "anchor" || token.type === "alias") {
      marks.push([token.type === "anchor" ? "&" : "*", token.source.slice(1), lineOf(token.offset), token.offset]);
    } else if (key && token.type === "scalar" && token.source === "<<") {
      marks.push(["<<", "", lineOf(token.offset), token.offset]);
    }
    for (const field of ["start", "props", "key", "sep", "value", "items", "end"]) visit(token[field], field === "key");
  };
  for (const token of new Parser().parse(text)) visit(token, false);
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
