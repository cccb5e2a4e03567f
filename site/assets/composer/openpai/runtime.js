/* The OpenPAI runtime's round trip of a plugin parameter (prereq.openpai.runtime.survives_round_trip).
 *
 * The runtime re-reads a prerequisite's parameters with yaml.safe_load(str(parameters)).  The browser
 * does not imitate Python's str() and PyYAML: survivesRoundTrip(value) is true only when this rule
 * proves the value comes back unchanged, and the job engine takes anything else as broken.
 *   - A string survives when Python's repr writes it in double quotes (it holds ' and no "), which
 *     YAML reads back escape for escape, or when it is printable (str.isprintable) and holds neither
 *     ' nor a backslash, so that its repr is itself in single quotes, read character for character.
 *   - An int and a bool survive; a float when its repr has a '.' (YAML 1.1 reads 1e-05, inf and nan
 *     as strings); None never (YAML reads None as a string).
 *   - A list or dict survives when everything in it does and each key's repr is at most 1024
 *     characters (PyYAML's limit for a key).  A dict's keys come from JSON-like data as strings: one
 *     that may have been None, inf, nan or a float written without a '.' ("null", "1e+16") is not proven.
 *   - At the top only a list or a dict: str() of a string is the string itself, read as YAML.
 * Numbers: a safe integer is an int (a float 1.0 survives as well), any other number a float.
 * The rule gives PyYAML's verdict but for those keys and numbers beyond 2**53 (tests/js/runtime.test.js).
 *
 * Folder openpai/: what OpenPAI does (prereq.openpai): an item's form and its digest, the
 * rest-server's checks of a job, the runtime's round trip of a parameter.
 * May import: core/, yaml/, vendor/.
 */

import { floatRepr } from "../yaml/pyvalues.js";
import { isPrintable } from "../yaml/pyprintable.js";

const SIMPLE_KEY = 1024;
const UNPROVEN_KEY = /^(?:null|NaN|-?Infinity|-?\d+e[-+]\d+)$/;

/* The length of Python's repr of `text` when YAML reads that repr back as `text`, else -1. */
function reprLength(text) {
  const double = text.includes("'") && !text.includes('"');
  let length = 2;
  for (const ch of text) {
    const code = ch.codePointAt(0);
    const plain = code >= 0x20 && code < 0x7f ? ch !== "\\" : code > 0x7f && isPrintable(ch);
    if (!double && (!plain || ch === "'")) return -1; // in single quotes an escape reads back as itself
    length += plain ? 1 : "\\\t\n\r".includes(ch) ? 2 : code <= 0xff ? 4 : code <= 0xffff ? 6 : 10;
  }
  return length;
}

function survives(value) {
  if (typeof value === "string") return reprLength(value) >= 0;
  if (typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isSafeInteger(value) || (Number.isFinite(value) && floatRepr(value).includes("."));
  if (Array.isArray(value)) return value.every(survives);
  if (value === null || typeof value !== "object") return false;
  return Object.entries(value).every(([key, item]) => {
    const length = UNPROVEN_KEY.test(key) ? -1 : reprLength(key);
    return length >= 0 && length <= SIMPLE_KEY && survives(item);
  });
}

export function survivesRoundTrip(value) {
  return typeof value === "object" && value !== null && survives(value);
}
