/* Python's repr() of the composer's Python-typed values (site/assets/composer/yaml/pyvalues.js), which
 * the YAML-editing corpus records for each loaded text (regen.py writes repr(data)): it tells 1.0
 * from 1 and {1: ...} from {'1': ...}.  Only the tests need it: the composer never writes a repr. */

import { PyDict, PyFloat, floatRepr, hex, pyStr } from "../../site/assets/composer/yaml/pyvalues.js";
import { isPrintable } from "./pyprintable.js";

function strRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\t" || ch === "\n" || ch === "\r") out += JSON.stringify(ch).slice(1, -1);
    else if (code < 0x20 || code === 0x7f) out += "\\x" + hex(code, 2);
    else if (code < 0x7f || isPrintable(ch)) out += ch;
    else out += code <= 0xff ? "\\x" + hex(code, 2) : code <= 0xffff ? "\\u" + hex(code, 4) : "\\U" + hex(code, 8);
  }
  return out + quote;
}

export function pyRepr(value) {
  if (typeof value === "string") return strRepr(value);
  if (value instanceof PyFloat) return floatRepr(value.value);
  if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
  if (value instanceof PyDict) return "{" + value.entries().map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ") + "}";
  return pyStr(value);
}
