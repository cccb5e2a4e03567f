/* How prereq writes one new scalar: plain when a rule the CLI states alike allows it
 * (prereq.core.yamlrender._plain_ok), else double-quoted; numbers as yaml.safe_dump writes them, and
 * JSON strings (json.dumps, for digests).
 *
 * May import: core/, vendor/.
 */

import { floatRepr, hex, typeName } from "./pyvalues.js";
import { plainValue } from "./yamlload.js";

/* The tags PyYAML's YAML 1.1 resolver gives plain scalars: a string matching one is quoted on output. */
const RESOLVERS_11 = [
  /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/,
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/,
  /^(?:<<)$/,
  /^(?:~|null|Null|NULL|)$/,
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/,
  /^(?:=)$/,
  /^(?:!|&|\*)$/,
];

const INDICATORS = "-?:,[]{}#&*!|>'\"%@`";

/* yamlrender._all_raw: every character is one YAML reads as itself (a plain or single-quoted scalar's). */
const allRaw = (text) => /^[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\u{10000}-\u{10ffff}]*$/u.test(text);

/* Whether a string may be written plain (prereq.core.yamlrender._plain_ok): no indicator or document
 * marker first, no space at either end, no ": " or " #", no flow indicator (nor "?", which ends a
 * plain scalar there for PyYAML) in a flow collection, only characters a stream carries raw, and read
 * as a string by YAML 1.1 (the runtime, the rest-server) and 1.2 (prereq's loader). */
export function plainOk(text, { flow = false } = {}) {
  if (!text || INDICATORS.includes(text[0]) || text[0] === " " || " :".includes(text[text.length - 1])) return false;
  if (text.startsWith("---") || text.startsWith("...") || text.includes(": ") || text.includes(" #")) return false;
  if (flow && /[,?[\]{}]/.test(text)) return false;
  if (!allRaw(text)) return false;
  return !RESOLVERS_11.some((regex) => regex.test(text)) && typeof plainValue(text) === "string";
}

// What a YAML stream may not carry raw (PyYAML's reader refuses it) or reads as a line break.
const NOT_RAW = /[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]/gu; // lone surrogates only, with "u"

/* yamlrender.quoted: single quotes when each character is one YAML reads as itself, else JSON's with
 * what YAML may not carry raw escaped. */
export function quoted(text) {
  if (allRaw(text)) return "'" + text.replace(/'/g, "''") + "'";
  return jsonString(text).replace(NOT_RAW, (ch) => "\\u" + hex(ch.charCodeAt(0), 4));
}

/* yaml.safe_dump of an int or float, as the Renderer writes numbers. */
export function dumpNumber(value) {
  if (typeName(value) === "int") return typeof value === "number" ? BigInt(value).toString() : value.toString();
  const number = Number(value);
  if (Number.isNaN(number)) return ".nan";
  if (!Number.isFinite(number)) return number > 0 ? ".inf" : "-.inf";
  const text = floatRepr(number).toLowerCase();
  return !text.includes(".") && text.includes("e") ? text.replace("e", ".0e") : text;
}

/* json.dumps(text, ensure_ascii=False): JSON.stringify's, but a lone surrogate kept as Python keeps it. */
export function jsonString(text) {
  return JSON.stringify(text).replace(/(?<!\\)((?:\\\\)*)\\u(d[89a-f][0-9a-f]{2})/g, (_, before, code) => before + String.fromCharCode(parseInt(code, 16)));
}
