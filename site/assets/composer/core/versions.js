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

// node-semver's validRange and satisfies answer null and false for a string they cannot parse.
export const satisfies = (version, range) => range == null || (range.length <= MAX_RANGE_LENGTH && semver.satisfies(version, range));

export function sortVersions(versions) {
  return [...versions].sort((a, b) => semver.compare(a, b));
}
