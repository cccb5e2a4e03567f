/* Python's values for the YAML engine, and the way in and out of them (fromPlain, toPlain).  The CLI
 * edits YAML in Python, where 1 and 1.0 differ and 1, 1.0 and True are one key: to make the same edits
 * the engine keeps an int as a number (a BigInt beyond 2**53), a float as a PyFloat, a dict as a PyDict.
 *
 * May import: core/, vendor/.
 */

export class PyFloat {
  constructor(value) {
    this.value = Number(value);
  }

  valueOf() {
    return this.value;
  }
}

// Callers tell KeyError, IndexError, ... apart by name.
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

// A dict key's identity under Python's hash and ==: True, 1 and 1.0 are one key, "1" another.
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
    this._fill(entries);
  }

  get size() {
    return this.keys.length;
  }

  has(key) {
    return this.ids.has(keyId(key));
  }

  get(key) {
    const at = this.ids.get(keyId(key));
    if (at === undefined) throw pyError("KeyError", pyStr(key));
    return this.vals[at];
  }

  // As Python's d[key] = value: a known key keeps its place and its key object.
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
    if (at === undefined) throw pyError("KeyError", pyStr(key));
    this._fill(this.entries().filter((_, i) => i !== at));
  }

  // As yamledit.set: insert into the items, then rebuild the dict from them.
  insert(position, key, value) {
    const entries = this.entries();
    entries.splice(position, 0, [key, value]);
    this._fill(entries);
  }

  entries() {
    return this.keys.map((key, at) => [key, this.vals[at]]);
  }

  _fill(entries) {
    this.keys = [];
    this.vals = [];
    this.ids = new Map();
    for (const [key, value] of entries) this.set(key, value);
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

// As Python indexes a list: negative from the end, a bool as 0 or 1; IndexError outside.
export function listIndex(list, index) {
  let at = Number(index);
  if (at < 0) at += list.length;
  if (!(at >= 0 && at < list.length)) throw pyError("IndexError", "list index out of range");
  return at;
}

export function hex(code, width) {
  return code.toString(16).padStart(width, "0");
}

// repr(float): the shortest digits that read back (as JS's), in Python's layout (1e+16, 0.0001, 1.0).
export function floatRepr(value) {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
  const [mantissa, exponent] = value.toExponential().split("e");
  if (exponent < -4 || exponent >= 16) return `${mantissa}e${exponent.replace(/^([-+])(\d)$/, "$10$2")}`;
  const text = Object.is(value, -0) ? "-0" : String(value);
  return text.includes(".") ? text : `${text}.0`;
}

export function pyStr(value) {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeName(value) === "float") return floatRepr(Number(value));
  return String(value);
}

// str.isprintable by the browser's Unicode, which is newer than Python's: the tests pass Python 3.11's.
const NOT_PRINTABLE = /[\p{C}\p{Z}]/u;
const printable = (ch) => ch === " " || !NOT_PRINTABLE.test(ch);

function strRepr(text, isPrintable) {
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

/* Python's repr() of a value of this module's types. */
export function pyRepr(value, { isPrintable = printable } = {}) {
  const repr = (item) => pyRepr(item, { isPrintable });
  if (typeof value === "string") return strRepr(value, isPrintable);
  if (value instanceof PyFloat) return floatRepr(value.value);
  if (Array.isArray(value)) return "[" + value.map(repr).join(", ") + "]";
  if (value instanceof PyDict) return "{" + value.entries().map(([k, v]) => `${repr(k)}: ${repr(v)}`).join(", ") + "}";
  return pyStr(value);
}

// As json.dumps writes a dict key: True as "true", 1.0 as "1.0", inf as "Infinity".
export function jsonKey(key) {
  if (typeof key === "string") return key;
  if (key === null) return "null";
  if (typeof key === "boolean") return key ? "true" : "false";
  const value = Number(key);
  if (typeName(key) === "float") return Number.isNaN(value) ? "NaN" : Number.isFinite(value) ? floatRepr(value) : value > 0 ? "Infinity" : "-Infinity";
  return key.toString();
}

// The JSON-like data callers see; of keys json.dumps writes alike, the last wins.
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

// An integral number becomes an int: pass a PyFloat for a float 1.0.
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
