/* The OpenPAI runtime's round trip of a plugin parameter (prereq.openpai.runtime.survives_round_trip).
 *
 * The runtime re-reads a prerequisite's parameters with yaml.safe_load(str(parameters)).  The browser
 * does not imitate Python's str() and PyYAML; roundTrip(value) decides by this rule on Python's repr:
 *   - A string survives when Python's repr writes it in double quotes (it holds ' and no "), which
 *     YAML reads back escape for escape, or when it is printable and holds neither ' nor a
 *     backslash, so that its repr is itself in single quotes, read character for character; any
 *     other string breaks (its repr's escapes are read as text in single quotes).  Printable is
 *     str.isprintable() where the browser can be sure of it (yaml/visiblechars.js); a character it
 *     cannot vouch for counts as escaped, so the browser may call broken what Python would keep.
 *   - An int and a bool survive; a float when its repr has a '.' (YAML 1.1 reads 1e-05, inf and nan
 *     as strings); None breaks (YAML reads None as a string).
 *   - A list or dict survives when everything in it does and each key's repr is at most 1024
 *     characters (PyYAML's limit for a key); it breaks when anything in it breaks.
 * The data is JSON-like, which cannot tell some values apart: a key "null", "NaN", "Infinity" or
 * "1e+16" (the string, or None or such a float), an integral number beyond 2**53 (an int survives, a
 * float does not), a string at the top (str() of it is the text itself, read as YAML).  There the
 * verdict is "unsure", which the job engine takes as broken.  Otherwise it is PyYAML's
 * (tests/js/runtime.test.js holds it to tests/cases/runtime/values.json).
 *
 * Folder openpai/: what OpenPAI does (prereq.openpai): an item's form and its digest, the
 * rest-server's checks of a job, the runtime's round trip of a parameter.
 * May import: core/, yaml/, vendor/.
 */

import { floatRepr } from "../yaml/pyvalues.js";
import { isVisible } from "../yaml/visiblechars.js";

const SIMPLE_KEY = 1024;
const UNSURE_KEY = /^(?:null|NaN|-?Infinity|-?\d+e[-+]\d+)$/;
const [BREAKS, UNSURE, SURVIVES] = [0, 1, 2];

/* The length of Python's repr of `text` when YAML reads that repr back as `text`, else -1. */
function reprLength(text) {
  const double = text.includes("'") && !text.includes('"');
  let length = 2;
  for (const ch of text) {
    const code = ch.codePointAt(0);
    const plain = code >= 0x20 && code < 0x7f ? ch !== "\\" : code > 0x7f && isVisible(ch);
    if (!double && (!plain || ch === "'")) return -1; // in single quotes an escape reads back as itself
    length += plain ? 1 : "\\\t\n\r".includes(ch) ? 2 : code <= 0xff ? 4 : code <= 0xffff ? 6 : 10;
  }
  return length;
}

function verdict(value) {
  if (typeof value === "string") return reprLength(value) >= 0 ? SURVIVES : BREAKS;
  if (typeof value === "boolean") return SURVIVES;
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) || (Number.isFinite(value) && floatRepr(value).includes("."))) return SURVIVES;
    return Number.isInteger(value) ? UNSURE : BREAKS;
  }
  if (value === null || typeof value !== "object") return BREAKS;
  if (Array.isArray(value)) return value.reduce((worst, item) => Math.min(worst, verdict(item)), SURVIVES);
  return Object.entries(value).reduce((worst, [key, item]) => {
    const length = reprLength(key);
    const own = length < 0 || length > SIMPLE_KEY ? BREAKS : UNSURE_KEY.test(key) ? UNSURE : SURVIVES;
    return Math.min(worst, own, verdict(item));
  }, SURVIVES);
}

/* "survives", "breaks" or "unsure" (see above). */
export function roundTrip(value) {
  return ["breaks", "unsure", "survives"][typeof value === "string" ? UNSURE : verdict(value)];
}
