/* The OpenPAI runtime's round trip of a plugin parameter, yaml.safe_load(str(parameters)), decided
 * by a rule on Python's repr instead of imitating it (README.md: "openpai/runtime.js").
 *
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
