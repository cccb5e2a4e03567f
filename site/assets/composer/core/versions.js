/* Semantic versions and npm ranges (tools/prereq/core/versions.py), with the vendored node-semver.
 * May import: vendor/.
 */

import { semver } from "../../vendor/prereq-vendor.js";

/* One entry of `require` or a selection: `name` or `name@range` (range null: any version). */
export function parseRequirement(text) {
  const at = text.indexOf("@");
  const name = (at < 0 ? text : text.slice(0, at)).trim();
  const range = at < 0 ? "" : text.slice(at + 1).trim();
  return { name, range: range || null };
}

/* Names compare equal after folding case and '-'/'_': people type them both ways. */
export function foldName(name) {
  return name.toLowerCase().replace(/_/g, "-");
}

const MAX_RANGE_LENGTH = 256; // as the CLI: longer ranges are refused before parsing (backtracking)

export const isRange = (text) => text.length <= MAX_RANGE_LENGTH && semver.validRange(text) !== null;

// node-semver's validRange and satisfies answer null and false for a string they cannot parse.  It parses
// the range on every call, and a plan asks the same pairs once per level of its deepest chain: kept here.
const answers = new Map(); // range -> version -> answer
const ANSWERS_KEPT = 1 << 16; // past it the answers start again: an index may name any number
let kept = 0;

export function satisfies(version, range) {
  if (range == null) return true;
  if (answers.get(range)?.has(version)) return answers.get(range).get(version);
  const answer = range.length <= MAX_RANGE_LENGTH && semver.satisfies(version, range);
  if (kept === ANSWERS_KEPT) {
    answers.clear();
    kept = 0;
  }
  kept += 1;
  (answers.get(range) ?? answers.set(range, new Map()).get(range)).set(version, answer);
  return answer;
}

export function sortVersions(versions) {
  return [...versions].sort((a, b) => semver.compare(a, b));
}
