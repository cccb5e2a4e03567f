/* Python's str() of a value built from JSON, as the OpenPAI runtime writes a plugin parameter before
 * it reads it back (prereq.openpai.runtime.survives_round_trip): quote choice, escapes and
 * str.isprintable of Python 3.11.  Numbers: a safe integer is a Python int, any other number a float
 * (see digest.js).
 *
 * Folder openpai/: what OpenPAI does (prereq.openpai): an item's form and its digest, the
 * rest-server's checks of a job, the runtime's round trip of a parameter.
 * May import: core/, yaml/, vendor/.
 */

import { isPrintable } from "../yaml/pyprintable.js";
import { pythonFloatRepr } from "./digest.js";

export function pythonRepr(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return Number.isSafeInteger(value) ? String(value) : pythonFloatRepr(value);
  if (typeof value === "string") return reprString(value);
  if (Array.isArray(value)) return "[" + value.map(pythonRepr).join(", ") + "]";
  return "{" + Object.entries(value).map(([k, v]) => reprString(k) + ": " + pythonRepr(v)).join(", ") + "}";
}

const REPR_ESCAPES = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/* unicode_repr: single quotes unless the text has ' and no "; escapes for the quote, the backslash,
 * \t \n \r and every character str.isprintable rejects. */
function reprString(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (ch === quote) out += "\\" + ch;
    else if (REPR_ESCAPES[ch]) out += REPR_ESCAPES[ch];
    else if (code < 0x7f ? code >= 0x20 : isPrintable(ch)) out += ch;
    else if (code <= 0xff) out += "\\x" + hex(code, 2);
    else if (code <= 0xffff) out += "\\u" + hex(code, 4);
    else out += "\\U" + hex(code, 8);
  }
  return out + quote;
}

function hex(code, width) {
  return code.toString(16).padStart(width, "0");
}
