/* A form's digest, as prereq.openpai.forms.digest: "sha256:" + SHA-256 of json.dumps(form,
 * sort_keys=True, separators=(",", ":"), ensure_ascii=False) in UTF-8.  Our own SHA-256, since
 * crypto.subtle is asynchronous and the job engine plans synchronously.
 *
 * May import: core/, yaml/, vendor/.
 */

import { byCodePoint } from "../core/order.js";
import { floatRepr, hex } from "../yaml/pyvalues.js";
import { jsonString } from "../yaml/yamlstyle.js";

export function digest(form) {
  return "sha256:" + Array.from(sha256(utf8(canonicalJson(form))), (byte) => hex(byte, 2)).join("");
}

export function canonicalJson(value) {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return jsonNumber(value);
  if (typeof value === "string") return jsonString(value);
  if (Array.isArray(value)) return "[" + value.map(canonicalJson).join(",") + "]";
  const keys = Object.keys(value).sort(byCodePoint);
  return "{" + keys.map((key) => jsonString(key) + ":" + canonicalJson(value[key])).join(",") + "}";
}

// JSON.parse cannot tell 1.0 from 1: a safe integer is a Python int (so a float 1.0 digests unlike the CLI's).
function jsonNumber(x) {
  if (Number.isNaN(x)) return "NaN"; // json.dumps allows them by default
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  return Number.isSafeInteger(x) ? String(x) : floatRepr(x);
}

// Python refuses to encode a lone surrogate.
export function utf8(text) {
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.exec(text);
  if (lone) {
    const error = new Error(`'utf-8' codec can't encode character '\\u${hex(lone[0].charCodeAt(0), 4)}': surrogates not allowed`);
    error.name = "UnicodeEncodeError";
    throw error;
  }
  return new TextEncoder().encode(text);
}

// SHA-256, FIPS 180-4.
const K = Uint32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

export function sha256(bytes) {
  const hash = Uint32Array.from(H0);
  const words = new Uint32Array(64);
  const message = pad(bytes);
  const view = new DataView(message.buffer);
  for (let offset = 0; offset < message.length; offset += 64) {
    for (let t = 0; t < 16; t++) words[t] = view.getUint32(offset + 4 * t);
    compress(hash, words);
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  hash.forEach((word, i) => outView.setUint32(4 * i, word));
  return out;
}

function pad(bytes) {
  const length = Math.ceil((bytes.length + 9) / 64) * 64;
  const message = new Uint8Array(length);
  message.set(bytes);
  message[bytes.length] = 0x80;
  const view = new DataView(message.buffer);
  const bits = bytes.length * 8;
  view.setUint32(length - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(length - 4, bits >>> 0);
  return message;
}

const rotr = (x, n) => (x >>> n) | (x << (32 - n));

function compress(hash, w) {
  for (let t = 16; t < 64; t++) {
    const s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >>> 3);
    const s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >>> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  let [a, b, c, d, e, f, g, h] = hash;
  for (let t = 0; t < 64; t++) {
    const t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
    const t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    [h, g, f, e, d, c, b, a] = [g, f, e, (d + t1) | 0, c, b, a, (t1 + t2) | 0];
  }
  [a, b, c, d, e, f, g, h].forEach((x, i) => {
    hash[i] = hash[i] + x;
  });
}
