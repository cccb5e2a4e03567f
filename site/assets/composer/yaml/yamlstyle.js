/* How yaml.safe_dump writes one string or number, and json.dumps one string: the part of PyYAML's
 * emitter that picks a scalar's style (no line folding) and the YAML 1.1 resolvers that make it quote,
 * so that the Renderer (yamlrender.js) writes new values as prereq.core.yamlrender does.
 *
 * Folder yaml/: prereq.core's YAML loading with positions and in-place editing, and the Python values
 * they work in.
 * May import: core/, vendor/.
 */

import { floatRepr, hex, typeName } from "./pyvalues.js";

const EMITTER_BREAKS = "\n\x85\u2028\u2029";
const WHITESPACE = "\0 \t\r\n\x85\u2028\u2029";

// PyYAML's YAML 1.1 implicit resolvers: a string matching one is quoted.
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

// Emitter.analyze_scalar with allow_unicode.
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

// yaml.safe_dump(text, allow_unicode=True, width=huge) without "...": at the root, or (``flow``) in [text].
export function dumpString(text, { flow = false } = {}) {
  const analysis = analyzeScalar(text);
  const implicit = !RESOLVERS_11.some((regex) => pyMatch(regex, text));
  if (implicit && (flow ? analysis.flowPlain : analysis.blockPlain)) return text;
  if (analysis.single) return writeSingleQuoted(text, flow ? 4 : 2); // the emitter's indent there
  return writeDoubleQuoted(text);
}

export function dumpNumber(value) {
  if (typeName(value) === "int") return typeof value === "number" ? BigInt(value).toString() : value.toString();
  const number = Number(value);
  if (Number.isNaN(number)) return ".nan";
  if (!Number.isFinite(number)) return number > 0 ? ".inf" : "-.inf";
  const text = floatRepr(number).toLowerCase();
  return !text.includes(".") && text.includes("e") ? text.replace("e", ".0e") : text;
}

// json.dumps(text, ensure_ascii=False), which is also a YAML double-quoted scalar.
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
