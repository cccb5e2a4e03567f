/* The OpenPAI runtime's round trip of a plugin parameter, as prereq.openpai.runtime.survives_round_trip.
 *
 * The runtime re-reads every parameter with yaml.safe_load(str(value)): Python's str() (pystr.js),
 * then PyYAML's YAML 1.1 SafeLoader (pyyaml/).  A value survives when what comes back equals it.
 * survivesRoundTrip(value) gives Python's verdict for values built from JSON.
 *
 * Numbers: a safe integer is a Python int, any other number a float (see digest.js).  The verdict is
 * the same either way except for an integral float >= 2**53 that Python read as an int: 1e16 here
 * writes "1e+16" (a str to PyYAML: no survival), the int 10000000000000000 survives.
 *
 * Where Python's survives_round_trip raises (a top-level string such as "0x_", "2001-02-30" or
 * "!!int x" reaches int() or datetime() inside PyYAML), this throws an Error named after the Python
 * exception (ValueError, KeyError, IndexError, AttributeError, TypeError).
 *
 * Folder openpai/: what OpenPAI does (prereq.openpai): an item's form and its digest, the
 * rest-server's checks of a job, the runtime's round trip of a parameter.
 * May import: core/, yaml/, vendor/.
 */

import { pythonRepr } from "./pystr.js";
import { safeLoad } from "./pyyaml/load.js";
import { PyDict, PyFloat, YamlError } from "./pyyaml/python.js";

export function survivesRoundTrip(value) {
  let loaded;
  try {
    loaded = safeLoad(typeof value === "string" ? value : pythonRepr(value));
  } catch (error) {
    if (error instanceof YamlError) return false;
    throw error;
  }
  return pyEquals(loaded, value);
}

/* Python's == between what came back and a JSON value (True == 1 == 1.0; "1" != 1). */
function pyEquals(loaded, original) {
  if (typeof original === "string") return loaded === original;
  if (original === null || original === undefined) return loaded === null;
  if (typeof original === "number" || typeof original === "boolean") return numberEquals(loaded, Number(original));
  if (Array.isArray(original)) {
    if (!Array.isArray(loaded) || loaded.length !== original.length) return false;
    return original.every((item, i) => pyEquals(loaded[i], item));
  }
  const keys = Object.keys(original);
  if (!(loaded instanceof PyDict) || loaded.others || loaded.strings.size !== keys.length) return false;
  return keys.every((key) => loaded.strings.has(key) && pyEquals(loaded.strings.get(key), original[key]));
}

function numberEquals(loaded, x) {
  if (typeof loaded === "boolean") return (loaded ? 1 : 0) === x;
  if (typeof loaded === "bigint") return Number.isInteger(x) && BigInt(x) === loaded;
  return loaded instanceof PyFloat && loaded.value === x;
}
