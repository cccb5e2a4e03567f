/* PyYAML's constructors of scalars: bools, ints and floats through Python's int() and float() (which
 * refuse 0x_ and 0b_ that the library takes), base64 binaries and timestamps that Python's datetime
 * refuses out of range (2001-02-30 is a ValueError, a date in March to the library).  Where Python
 * raises another exception than a YAMLError, pyError names it.
 *
 * Folder openpai/pyyaml/: PyYAML's safe_load (YAML 1.1) as the OpenPAI runtime reads a plugin
 * parameter back, on the vendored `yaml` library.
 * May import: vendor/.
 */

import { END, SCALAR } from "./nodes.js";
import { PyFloat, PyOther, YamlError, pyError } from "./python.js";

const BOOLS = new Map([["yes", true], ["no", false], ["true", true], ["false", false], ["on", true], ["off", false]]);

export function constructBool(value) {
  const key = value.toLowerCase();
  if (!BOOLS.has(key)) throw pyError("KeyError", `'${key}'`);
  return BOOLS.get(key);
}

/* A sign, then "0", 0b.., 0x.., 0.. (octal), sexagesimal a:b:c or decimal, each through int(). */
export function constructInt(text) {
  let value = text.replaceAll("_", "");
  const sign = firstChar(value) === "-" ? -1n : 1n;
  if ("+-".includes(firstChar(value))) value = value.slice(1);
  if (value === "0") return 0n;
  if (value.startsWith("0b")) return sign * pyInt(value.slice(2), 2);
  if (value.startsWith("0x")) return sign * pyInt(value.slice(2), 16);
  if (firstChar(value) === "0") return sign * pyInt(value, 8);
  if (value.includes(":")) return sign * value.split(":").reduce((sum, part) => sum * 60n + pyInt(part, 10), 0n);
  return sign * pyInt(value, 10);
}

export function constructFloat(text) {
  let value = text.replaceAll("_", "").toLowerCase();
  const sign = firstChar(value) === "-" ? -1 : 1;
  if ("+-".includes(firstChar(value))) value = value.slice(1);
  if (value === ".inf") return new PyFloat(sign * Infinity);
  if (value === ".nan") return new PyFloat(NaN);
  if (!value.includes(":")) return new PyFloat(sign * pyFloat(value));
  const digits = value.split(":").map(pyFloat).reverse(); // all of them read first, as in PyYAML
  return new PyFloat(sign * digits.reduce(([sum, base], digit) => [sum + digit * base, base * 60], [0, 1])[0]);
}

/* value[0] in Python: IndexError on an empty string. */
function firstChar(value) {
  if (value === "") throw pyError("IndexError", "string index out of range");
  return value[0];
}

// str.isspace, what int() and float() strip around their argument.
const PY_SPACE = String.raw`[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*`;
const DIGITS = { 2: "[01]", 8: "[0-7]", 10: "[0-9]", 16: "[0-9a-fA-F]" };
const PREFIX = { 2: "(?:0[bB])?", 8: "(?:0[oO])?", 10: "", 16: "(?:0[xX])?" };
const FLOAT = new RegExp(
  String.raw`^${PY_SPACE}([-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|inf|infinity|nan))${PY_SPACE}$`,
  "i",
);

/* int(text, base): Unicode decimal digits count as 0-9, whitespace around is stripped. */
function pyInt(text, base) {
  const ascii = asciiDigits(text);
  const match = new RegExp(`^${PY_SPACE}([-+]?)${PREFIX[base]}(${DIGITS[base]}+)${PY_SPACE}$`).exec(ascii);
  if (!match) throw pyError("ValueError", `invalid literal for int() with base ${base}: '${text}'`);
  const digits = [...match[2]].reduce((sum, d) => sum * BigInt(base) + BigInt(parseInt(d, 16)), 0n);
  return match[1] === "-" ? -digits : digits;
}

function pyFloat(text) {
  const match = FLOAT.exec(asciiDigits(text));
  if (!match) throw pyError("ValueError", `could not convert string to float: '${text}'`);
  const word = match[1].replace(/^[-+]/, "").toLowerCase();
  if (word === "nan") return NaN;
  if (word.startsWith("inf")) return match[1].startsWith("-") ? -Infinity : Infinity;
  return Number(match[1]);
}

/* Decimal digits of other scripts as ASCII: Unicode puts each script's 0-9 at consecutive code
 * points, so a digit's value is its distance from the start of its run of digits, modulo 10. */
function asciiDigits(text) {
  const isDigit = (code) => /\p{Nd}/u.test(String.fromCodePoint(code));
  return text.replace(/\p{Nd}/gu, (ch) => {
    const code = ch.codePointAt(0);
    let start = code;
    while (isDigit(start - 1)) start--;
    return String((code - start) % 10);
  });
}

/* base64.decodebytes as binascii.a2b_base64 reads: other characters skipped, padding ends it. */
export function constructBinary(text) {
  if (/[^\x00-\x7f]/.test(text)) throw new YamlError("failed to convert base64 data into ascii");
  let [quad, pads] = [0, 0];
  for (const ch of text) {
    if (ch === "=") {
      if (quad >= 2 && quad + ++pads >= 4) return new PyOther("bytes");
    } else if (/[A-Za-z0-9+/]/.test(ch)) {
      [quad, pads] = [(quad + 1) % 4, 0];
    }
  }
  if (quad !== 0) throw new YamlError("failed to decode base64 data");
  return new PyOther("bytes");
}

const TIMESTAMP = new RegExp(
  String.raw`^([0-9]{4})-([0-9][0-9]?)-([0-9][0-9]?)(?:(?:[Tt]|[ \t]+)([0-9][0-9]?):([0-9][0-9]):([0-9][0-9])` +
    String.raw`(?:\.[0-9]*)?(?:[ \t]*(Z|([-+])([0-9][0-9]?)(?::([0-9][0-9]))?))?)?${END}`,
);

/* datetime.date, datetime.datetime and datetime.timezone, which raise ValueError out of range. */
export function constructTimestamp(text, node) {
  if (node.kind !== SCALAR) throw pyError("TypeError", "expected string or bytes-like object"); // re.match(list)
  const match = TIMESTAMP.exec(text);
  if (!match) throw pyError("AttributeError", "'NoneType' object has no attribute 'groupdict'");
  const number = (group) => (group && /^[0-9]+$/.test(group) ? Number(group) : group);
  const [year, month, day, hour, minute, second, , sign, tzHour = 0, tzMinute = 0] = match.slice(1).map(number);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  const date = year >= 1 && day >= 1 && day <= days; // days is undefined for month 0 or 13+
  const time = hour === undefined || (hour <= 23 && minute <= 59 && second <= 59);
  const zone = !sign || tzHour * 60 + tzMinute < 24 * 60;
  if (!date || !time || !zone) throw pyError("ValueError", "timestamp out of range");
  return new PyOther(hour === undefined ? "date" : "datetime");
}
