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

export function isRange(text) {
  if (text.length > MAX_RANGE_LENGTH) return false;
  try {
    return semver.validRange(text) !== null;
  } catch {
    return false;
  }
}

export function satisfies(version, range) {
  if (range === null || range === undefined) return true;
  if (range.length > MAX_RANGE_LENGTH) return false;
  try {
    return semver.satisfies(version, range);
  } catch {
    return false;
  }
}

export function sortVersions(versions) {
  return [...versions].sort((a, b) => semver.compare(a, b));
}
