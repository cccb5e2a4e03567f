/* Python's values and PyYAML's scalar styles, for yamlload.js and yamltext.js.
 *
 * The CLI edits YAML in Python, where 1 and 1.0 are different values, mapping keys may be
 * numbers, booleans or null, and 1, 1.0 and True are one and the same key.  To make the same
 * edits and the same self-checks, the engine keeps Python's types inside:
 *   null / boolean / string     None / bool / str
 *   integer number, BigInt      int (BigInt beyond 2**53, so big ints keep every digit)
 *   PyFloat                     float (always wrapped: JS cannot tell 1.0 from 1)
 *   Array                       list
 *   PyDict                      dict (ordered, any scalar key, Python's key equality)
 * toPlain() turns such a value into the JSON-like data callers see; fromPlain() reads
 * callers' values back (an integral number is an int there: pass a PyFloat for a float 1.0).
 *
 * The second half is the part of PyYAML's emitter (analyze_scalar, choose_scalar_style and the
 * quoted writers, without line folding) that decides how safe_dump writes one string. */

export class PyFloat {
  constructor(value) {
    this.value = Number(value);
  }

  valueOf() {
    return this.value;
  }
}

/* A Python-named exception (KeyError, IndexError, ...), for callers that tell them apart. */
export function pyError(name, message = "") {
  const error = name === "TypeError" ? new TypeError(message) : new Error(message);
  error.name = name;
  return error;
}

function numeric(value) {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number" || typeof value === "bigint") return value;
  if (value instanceof PyFloat) return value.value;
  return undefined;
}

let nanKeys = 0;

/* The identity of a dict key under Python's hash and ==: "1", 1 and 1.0 apart from "1", True == 1. */
export function keyId(key) {
  if (key === null || key === undefined) return "N";
  if (typeof key === "string") return "s" + key;
  const number = numeric(key);
  if (number === undefined) throw pyError("TypeError", `unhashable type: '${typeName(key)}'`);
  if (typeof number === "bigint") return "n" + number.toString();
  if (Number.isNaN(number)) return "nan" + nanKeys++; // every NaN is a key of its own
  if (Number.isInteger(number) && !Number.isSafeInteger(number)) return "n" + BigInt(number).toString();
  return "n" + String(number); // String(-0) is "0", as -0.0 == 0
}

export class PyDict {
  constructor(entries = []) {
    this.keys = [];
    this.vals = [];
    this.ids = new Map();
    for (const [key, value] of entries) this.set(key, value);
  }

  get size() {
    return this.keys.length;
  }

  has(key) {
    return this.ids.has(keyId(key));
  }

  get(key) {
    const at = this.ids.get(keyId(key));
    if (at === undefined) throw pyError("KeyError", pyRepr(key));
    return this.vals[at];
  }

  /* Python's d[key] = value: a new key goes last, a known one keeps its place (and its key object). */
  set(key, value) {
    const id = keyId(key);
    const at = this.ids.get(id);
    if (at !== undefined) {
      this.vals[at] = value;
      return;
    }
    this.ids.set(id, this.keys.length);
    this.keys.push(key);
    this.vals.push(value);
  }

  delete(key) {
    const at = this.ids.get(keyId(key));
    if (at === undefined) throw pyError("KeyError", pyRepr(key));
    this.keys.splice(at, 1);
    this.vals.splice(at, 1);
    this._reindex();
  }

  /* items.insert(position, (key, value)) and the dict rebuilt from the items, as yamledit.set does. */
  insert(position, key, value) {
    const entries = this.entries();
    entries.splice(position, 0, [key, value]);
    this.keys = [];
    this.vals = [];
    this.ids = new Map();
    for (const [k, v] of entries) this.set(k, v);
  }

  entries() {
    return this.keys.map((key, at) => [key, this.vals[at]]);
  }

  _reindex() {
    this.ids = new Map(this.keys.map((key, at) => [keyId(key), at]));
  }
}

export function typeName(value) {
  if (value === null) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (value instanceof PyFloat) return "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "list";
  if (value instanceof PyDict) return "dict";
  return typeof value;
}

export function isPyInt(value) {
  return typeName(value) === "int" || typeof value === "boolean"; // bool is an int in Python
}

/* Python's a == b (1 == 1.0 == True, dicts regardless of order). */
export function pyEq(a, b) {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined || y !== undefined) return x !== undefined && y !== undefined && x == y; // eslint-disable-line eqeqeq -- exact BigInt/number comparison
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => pyEq(item, b[i]));
  if (a instanceof PyDict) {
    return b instanceof PyDict && a.size === b.size && a.keys.every((key, i) => b.has(key) && pyEq(a.vals[i], b.get(key)));
  }
  return a === b;
}

/* yamledit._equal: equal data with the same types and the same key order (NaN equals NaN). */
export function strictEqual(a, b) {
  if (typeName(a) !== typeName(b)) return false;
  if (a instanceof PyDict) {
    return a.size === b.size && a.keys.every((key, i) => pyEq(key, b.keys[i])) &&
      a.keys.every((key, i) => strictEqual(a.vals[i], b.get(key)));
  }
  if (Array.isArray(a)) return a.length === b.length && a.every((item, i) => strictEqual(item, b[i]));
  if (typeName(a) === "float" && Number.isNaN(Number(a))) return Number.isNaN(Number(b));
  return pyEq(a, b);
}

export function deepCopy(value) {
  if (Array.isArray(value)) return value.map(deepCopy);
  if (value instanceof PyDict) return new PyDict(value.entries().map(([key, item]) => [key, deepCopy(item)]));
  return value;
}

// ------------------------------------------------------------------------------ Python's repr

export function isPrintable(ch) {
  return ch === " " || !/[\p{C}\p{Z}]/u.test(ch); // str.isprintable
}

function hex(code, width) {
  return code.toString(16).padStart(width, "0");
}

function strRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f) out += "\\x" + hex(code, 2);
    else if (code < 0x7f || isPrintable(ch)) out += ch;
    else if (code <= 0xff) out += "\\x" + hex(code, 2);
    else if (code <= 0xffff) out += "\\u" + hex(code, 4);
    else out += "\\U" + hex(code, 8);
  }
  return out + quote;
}

/* repr(float): the shortest digits that read back, in Python's layout (1e+16, 0.0001, 1.0). */
export function floatRepr(value) {
  if (Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const [mantissa, exponentText] = Math.abs(value).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const exponent = Number(exponentText);
  const sign = value < 0 ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? "." + digits.slice(1) : "";
    return `${sign}${digits[0]}${fraction}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  return `${sign}${whole}.${digits.slice(exponent + 1) || "0"}`;
}

export function pyRepr(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : floatRepr(value);
  if (value instanceof PyFloat) return floatRepr(value.value);
  if (typeof value === "string") return strRepr(value);
  if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
  if (value instanceof PyDict) return "{" + value.entries().map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ") + "}";
  return String(value);
}

/* str(value) for a path part: strings as they are, the rest as repr. */
export function pyStr(value) {
  return typeof value === "string" ? value : pyRepr(value);
}

// ------------------------------------------------------------------------------ plain data

/* How json.dumps writes a dict key: True as "true", 1.0 as "1.0", inf as "Infinity". */
function jsonKey(key) {
  if (typeof key === "string") return key;
  if (key === null) return "null";
  if (typeof key === "boolean") return key ? "true" : "false";
  const value = Number(key);
  if (typeName(key) === "float") return Number.isNaN(value) ? "NaN" : Number.isFinite(value) ? floatRepr(value) : value > 0 ? "Infinity" : "-Infinity";
  return key.toString();
}

/* The JSON-like data for a Python-typed value (keys as json.dumps writes them, the last of equal keys wins). */
export function toPlain(value) {
  if (value instanceof PyFloat) return value.value;
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof PyDict) {
    const out = {};
    for (const [key, item] of value.entries()) {
      Object.defineProperty(out, jsonKey(key), { value: toPlain(item), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/* A caller's value in Python's types: integral numbers are ints, other numbers floats. */
export function fromPlain(value) {
  if (value === null || typeof value === "string" || typeof value === "boolean" || typeof value === "bigint") return value;
  if (typeof value === "number") {
    if (!Number.isInteger(value)) return new PyFloat(value);
    return Number.isSafeInteger(value) ? value : BigInt(value);
  }
  if (value instanceof PyFloat) return value;
  if (Array.isArray(value)) return value.map(fromPlain);
  if (value instanceof PyDict) return new PyDict(value.entries().map(([key, item]) => [fromPlain(key), fromPlain(item)]));
  const proto = typeof value === "object" ? Object.getPrototypeOf(value) : undefined;
  if (proto === Object.prototype || proto === null) return new PyDict(Object.keys(value).map((key) => [key, fromPlain(value[key])]));
  throw pyError("TypeError", `cannot write a ${value === undefined ? "undefined" : value.constructor?.name || typeof value} as YAML`);
}

// ------------------------------------------------------------------------------ PyYAML's scalar styles

const EMITTER_BREAKS = "\n\x85\u2028\u2029";
const WHITESPACE = "\0 \t\r\n\x85\u2028\u2029";

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

function pyMatch(regex, text) {
  // Python's "$" also matches before one final newline.
  return regex.test(text) || (text.endsWith("\n") && regex.test(text.slice(0, -1)));
}

function isUnicodeChar(ch) {
  const code = ch.codePointAt(0);
  return (code === 0x85 || (code >= 0xa0 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code < 0x10ffff)) && code !== 0xfeff;
}

function scanIndicators(chars) {
  const found = { block: false, flow: false, breaks: false, special: false, leadingSpace: false, leadingBreak: false,
    trailingSpace: false, trailingBreak: false, breakSpace: false, spaceBreak: false };
  if (chars.slice(0, 3).join("") === "---" || chars.slice(0, 3).join("") === "...") found.block = found.flow = true;
  let precededByWhitespace = true;
  let followedByWhitespace = chars.length === 1 || WHITESPACE.includes(chars[1]);
  let previousSpace = false;
  let previousBreak = false;
  chars.forEach((ch, index) => {
    if (index === 0) {
      if ("#,[]{}&*!|>'\"%@`".includes(ch)) found.flow = found.block = true;
      if ("?:".includes(ch)) {
        found.flow = true;
        if (followedByWhitespace) found.block = true;
      }
      if (ch === "-" && followedByWhitespace) found.flow = found.block = true;
    } else {
      if (",?[]{}".includes(ch)) found.flow = true;
      if (ch === ":") {
        found.flow = true;
        if (followedByWhitespace) found.block = true;
      }
      if (ch === "#" && precededByWhitespace) found.flow = found.block = true;
    }
    if (EMITTER_BREAKS.includes(ch)) found.breaks = true;
    if (!(ch === "\n" || (ch >= " " && ch <= "~")) && !isUnicodeChar(ch)) found.special = true;
    if (ch === " ") {
      if (index === 0) found.leadingSpace = true;
      if (index === chars.length - 1) found.trailingSpace = true;
      if (previousBreak) found.breakSpace = true;
      [previousSpace, previousBreak] = [true, false];
    } else if (EMITTER_BREAKS.includes(ch)) {
      if (index === 0) found.leadingBreak = true;
      if (index === chars.length - 1) found.trailingBreak = true;
      if (previousSpace) found.spaceBreak = true;
      [previousSpace, previousBreak] = [false, true];
    } else {
      [previousSpace, previousBreak] = [false, false];
    }
    precededByWhitespace = WHITESPACE.includes(ch);
    followedByWhitespace = index + 2 >= chars.length || WHITESPACE.includes(chars[index + 2]);
  });
  return found;
}

/* Emitter.analyze_scalar with allow_unicode: which styles can write ``text``. */
export function analyzeScalar(text) {
  if (!text) return { empty: true, multiline: false, flowPlain: false, blockPlain: true, single: true };
  const f = scanIndicators(Array.from(text));
  const allow = { empty: false, multiline: f.breaks, flowPlain: true, blockPlain: true, single: true };
  if (f.leadingSpace || f.leadingBreak || f.trailingSpace || f.trailingBreak) allow.flowPlain = allow.blockPlain = false;
  if (f.breakSpace) allow.flowPlain = allow.blockPlain = allow.single = false;
  if (f.spaceBreak || f.special) allow.flowPlain = allow.blockPlain = allow.single = false;
  if (f.breaks) allow.flowPlain = allow.blockPlain = false;
  if (f.flow) allow.flowPlain = false;
  if (f.block) allow.blockPlain = false;
  return allow;
}

function writeSingleQuoted(text, indent) {
  const chars = Array.from(text);
  let out = "'";
  let spaces = false;
  let breaks = false;
  let start = 0;
  for (let end = 0; end <= chars.length; end++) {
    const ch = end < chars.length ? chars[end] : null;
    if (spaces) {
      if (ch !== " ") {
        out += chars.slice(start, end).join("");
        start = end;
      }
    } else if (breaks) {
      if (ch === null || !EMITTER_BREAKS.includes(ch)) {
        if (chars[start] === "\n") out += "\n";
        out += chars.slice(start, end).join("") + " ".repeat(indent); // the breaks, then write_indent
        start = end;
      }
    } else if (ch === null || " \n\x85\u2028\u2029'".includes(ch)) {
      if (start < end) out += chars.slice(start, end).join("");
      start = end;
    }
    if (ch === "'") {
      out += "''";
      start = end + 1;
    }
    if (ch !== null) {
      spaces = ch === " ";
      breaks = EMITTER_BREAKS.includes(ch);
    }
  }
  return out + "'";
}

const ESCAPES = { "\0": "0", "\x07": "a", "\b": "b", "\t": "t", "\n": "n", "\x0b": "v", "\f": "f", "\r": "r",
  "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_", "\u2028": "L", "\u2029": "P" };

function writeDoubleQuoted(text) {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0);
    const plain = (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd);
    if (plain && !"\"\\\x85\u2028\u2029\ufeff".includes(ch)) out += ch;
    else if (ESCAPES[ch] !== undefined) out += "\\" + ESCAPES[ch];
    else if (code <= 0xff) out += "\\x" + hex(code, 2).toUpperCase();
    else if (code <= 0xffff) out += "\\u" + hex(code, 4).toUpperCase();
    else out += "\\U" + hex(code, 8).toUpperCase();
  }
  return out + '"';
}

/* What yaml.safe_dump(text, allow_unicode=True, width=huge) writes for a string, without the document
 * end marker: at the root (``flow`` false) or as the item of a one-item flow sequence (``flow`` true). */
export function dumpString(text, { flow = false } = {}) {
  const analysis = analyzeScalar(text);
  const implicit = !RESOLVERS_11.some((regex) => pyMatch(regex, text));
  if (implicit && (flow ? analysis.flowPlain : analysis.blockPlain)) return text;
  if (analysis.single) return writeSingleQuoted(text, flow ? 4 : 2); // the emitter's indent there
  return writeDoubleQuoted(text);
}

/* yaml.safe_dump of an int or float, as the Renderer writes numbers. */
export function dumpNumber(value) {
  if (typeName(value) === "int") return value.toString();
  const number = Number(value);
  if (Number.isNaN(number)) return ".nan";
  if (!Number.isFinite(number)) return number > 0 ? ".inf" : "-.inf";
  const text = floatRepr(number).toLowerCase();
  return !text.includes(".") && text.includes("e") ? text.replace("e", ".0e") : text;
}

/* json.dumps(text, ensure_ascii=False): JSON strings are YAML double-quoted scalars. */
export function jsonString(text) {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (ch === '"' || ch === "\\") out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (code < 0x20) out += "\\u" + hex(code, 4);
    else out += ch; // lone surrogates too, as Python keeps them
  }
  return out + '"';
}
