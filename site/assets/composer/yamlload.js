/* Strict YAML loading with positions: a port of prereq.yamlio.load_yaml.
 *
 * The CLI composes nodes with libyaml (PyYAML's CSafeLoader, libyaml 0.2.6) and builds plain data
 * itself with the YAML 1.2 core schema.  To give the same data, the same node marks (yamltext.js
 * splices at them) and the same refusals with the same messages and positions, this module has
 * its own small port of libyaml's scanner, parser and composer (scanner.c, parser.c, the C
 * composer in PyYAML's _yaml.pyx) rather than the `yaml` npm library, which accepts and rejects
 * other texts and places nodes differently.
 *
 * Positions are 1-based (line, column) in characters (code points), as Python counts them; node
 * marks also carry the UTF-16 index into the text for slicing.  Data is returned both as plain
 * JSON-like values (`data`) and in Python's types (`typed`, see yamlscalar.js): a float 1.0 is
 * the number 1 in `data` and PyFloat(1) in `typed`. */

import { PyDict, PyFloat, isPyInt, keyId, pyRepr, pyStr, toPlain } from "./yamlscalar.js";

export const MAX_DEPTH = 100;
export const MAX_VALUES = 100000;
const MAX_NESTING = 1000; // libyaml 0.2.6 refuses deeper block and flow nesting while scanning
const PLAIN_TAG = "tag:prereq,2024:plain";
const MERGE_TAG = "tag:yaml.org,2002:merge";

/* A libyaml ScannerError, ParserError or ComposerError: message parts and their marks. */
class MarkedError extends Error {
  constructor(context, contextMark, problem, problemMark) {
    super(problem);
    Object.assign(this, { context, contextMark, problem, problemMark });
  }
}

export class YamlLoadError extends Error {
  constructor(issues) {
    super(issues[0].message);
    this.name = "YamlLoadError";
    this.issues = issues;
  }
}

function issue(kind, message, line = null, column = null) {
  return { kind, message, line, column };
}

const isBreak = (c) => c === "\n" || c === "\r" || c === "\x85" || c === "\u2028" || c === "\u2029";
const isBlank = (c) => c === " " || c === "\t";
const isBreakZ = (c) => isBreak(c) || c === "\0";
const isBlankZ = (c) => isBlank(c) || isBreakZ(c);
const isAlpha = (c) => /^[0-9A-Za-z_-]$/.test(c);
const isDigit = (c) => c >= "0" && c <= "9" && c.length === 1;
const isHex = (c) => /^[0-9A-Fa-f]$/.test(c);
const ESCAPES = { 0: "\0", a: "\x07", b: "\b", t: "\t", "\t": "\t", n: "\n", v: "\x0b", f: "\f", r: "\r", e: "\x1b",
  " ": " ", '"': '"', "/": "/", "\\": "\\", N: "\x85", _: "\xa0", L: "\u2028", P: "\u2029" };

// ------------------------------------------------------------------------------ reading characters

/* libyaml's reader: the characters YAML allows, checked before any token (as libyaml decodes a text
 * of up to 16 KiB in one go).  Returns the issue for the first other character. */
function readerIssue(text) {
  const start = text.startsWith("\ufeff") ? 1 : 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      i++;
      continue;
    }
    if (c === 9 || c === 10 || c === 13 || (c >= 0x20 && c <= 0x7e) || c === 0x85 || (c >= 0xa0 && c <= 0xd7ff) ||
        (c >= 0xe000 && c <= 0xfffd)) continue;
    const before = text.slice(start, i);
    const lineStart = before.lastIndexOf("\n") + 1;
    return issue("syntax", `control characters are not allowed: #x${c.toString(16).padStart(4, "0")}`,
      before.split("\n").length, Array.from(before.slice(lineStart)).length + 1);
  }
  return null;
}

class Reader {
  constructor(text) {
    this.s = text;
    this.i = text.startsWith("\ufeff") ? 1 : 0; // a leading BOM takes no index nor column
    this.cp = 0; // libyaml's index: code points, a CRLF counting two
    this.line = 0;
    this.col = 0;
  }

  width(at) {
    const c = this.s.charCodeAt(at);
    return c >= 0xd800 && c <= 0xdbff && at + 1 < this.s.length ? 2 : 1;
  }

  /* The character ``k`` characters ahead; "\0" past the end (the reader refused real NULs). */
  at(k = 0) {
    let j = this.i;
    for (let n = 0; n < k && j < this.s.length; n++) j += this.width(j);
    if (j >= this.s.length) return "\0";
    return this.width(j) === 2 ? this.s.slice(j, j + 2) : this.s[j];
  }

  mark() {
    return { index: this.i, cp: this.cp, line: this.line, column: this.col };
  }

  skip() {
    this.i += this.width(this.i);
    this.cp++;
    this.col++;
  }

  read() {
    const ch = this.at(0);
    this.skip();
    return ch;
  }

  /* SKIP_LINE / READ_LINE: a line break, CRLF as one; returns its text ("\n" for CR, LF, NEL). */
  readLine() {
    const c = this.at(0);
    if (!isBreak(c)) return "";
    const crlf = c === "\r" && this.s[this.i + 1] === "\n";
    this.i += crlf ? 2 : 1;
    this.cp += crlf ? 2 : 1;
    this.line++;
    this.col = 0;
    return c === "\u2028" || c === "\u2029" ? c : "\n";
  }

  atDocumentIndicator() {
    const three = this.at(0) + this.at(1) + this.at(2);
    return this.col === 0 && (three === "---" || three === "...") && isBlankZ(this.at(3));
  }
}

// ------------------------------------------------------------------------------ scanner.c

class Scanner extends Reader {
  constructor(text) {
    super(text);
    Object.assign(this, { tokens: [], head: 0, parsed: 0, available: false, started: false, flowLevel: 0,
      indent: -1, indents: [], simpleKeys: [], keyAllowed: false });
  }

  error(context, contextMark, problem) {
    return new MarkedError(context, context ? contextMark : null, problem, this.mark());
  }

  peek() {
    if (!this.available) this.fetchMoreTokens();
    return this.tokens[this.head];
  }

  skipToken() {
    this.available = false;
    this.parsed++;
    this.head++;
    if (this.head > 4096) {
      this.tokens = this.tokens.slice(this.head);
      this.head = 0;
    }
  }

  enqueue(type, start, end = start, data = {}) {
    this.tokens.push({ type, start, end, ...data });
  }

  fetchMoreTokens() {
    for (;;) {
      let need = this.head === this.tokens.length;
      if (!need) {
        this.staleSimpleKeys();
        need = this.simpleKeys.some((key) => key.possible && key.number === this.parsed);
      }
      if (!need) break;
      this.fetchNextToken();
    }
    this.available = true;
  }

  fetchNextToken() {
    if (!this.started) return this.fetchStreamStart();
    this.scanToNextToken();
    this.staleSimpleKeys();
    this.unrollIndent(this.col);
    const c = this.at(0);
    const next = this.at(1);
    if (c === "\0") return this.fetchStreamEnd();
    if (this.col === 0 && c === "%") return this.fetchDirective();
    if (this.atDocumentIndicator()) return this.fetchDocumentIndicator(c === "-" ? "DOCUMENT-START" : "DOCUMENT-END");
    if (c === "[" || c === "{") return this.fetchFlowCollectionStart(c === "[" ? "FLOW-SEQUENCE-START" : "FLOW-MAPPING-START");
    if (c === "]" || c === "}") return this.fetchFlowCollectionEnd(c === "]" ? "FLOW-SEQUENCE-END" : "FLOW-MAPPING-END");
    if (c === ",") return this.fetchFlowEntry();
    if (c === "-" && isBlankZ(next)) return this.fetchBlockEntry();
    if (c === "?" && (this.flowLevel || isBlankZ(next))) return this.fetchKey();
    if (c === ":" && (this.flowLevel || isBlankZ(next))) return this.fetchValue();
    if (c === "*" || c === "&") return this.fetchAnchor(c === "*" ? "ALIAS" : "ANCHOR");
    if (c === "!") return this.fetchTag();
    if ((c === "|" || c === ">") && !this.flowLevel) return this.fetchBlockScalar(c === "|");
    if (c === "'" || c === '"') return this.fetchFlowScalar(c === "'");
    if (!(isBlankZ(c) || "-?:,[]{}#&*!|>'\"%@`".includes(c)) || (c === "-" && !isBlank(next)) ||
        (!this.flowLevel && (c === "?" || c === ":") && !isBlankZ(next))) return this.fetchPlainScalar();
    throw this.error("while scanning for the next token", this.mark(), "found character that cannot start any token");
  }

  // -- simple keys, indentation and flow levels
  staleSimpleKeys() {
    for (const key of this.simpleKeys) {
      if (key.possible && (key.mark.line < this.line || key.mark.cp + 1024 < this.cp)) {
        if (key.required) throw this.error("while scanning a simple key", key.mark, "could not find expected ':'");
        key.possible = false;
      }
    }
  }

  saveSimpleKey() {
    const required = !this.flowLevel && this.indent === this.col;
    if (!this.keyAllowed) return;
    const key = { possible: true, required, number: this.parsed + this.tokens.length - this.head, mark: this.mark() };
    this.removeSimpleKey();
    this.simpleKeys[this.simpleKeys.length - 1] = key;
  }

  removeSimpleKey() {
    const key = this.simpleKeys[this.simpleKeys.length - 1];
    if (key.possible && key.required) throw this.error("while scanning a simple key", key.mark, "could not find expected ':'");
    key.possible = false;
  }

  increaseFlowLevel() {
    this.simpleKeys.push({ possible: false, required: false, number: 0, mark: this.mark() });
    if (this.indents.length >= MAX_NESTING - this.flowLevel) {
      throw this.error("while increasing flow level", this.mark(), "exceeded maximum nesting depth");
    }
    this.flowLevel++;
  }

  decreaseFlowLevel() {
    if (!this.flowLevel) return;
    this.flowLevel--;
    this.simpleKeys.pop();
  }

  rollIndent(column, number, type, mark) {
    if (this.flowLevel || this.indent >= column) return;
    this.indents.push(this.indent);
    if (this.indents.length >= MAX_NESTING - this.flowLevel) {
      throw this.error("while increasing block level", this.mark(), "exceeded maximum nesting depth");
    }
    this.indent = column;
    const token = { type, start: mark, end: mark };
    if (number < 0) this.tokens.push(token);
    else this.tokens.splice(this.head + number - this.parsed, 0, token);
  }

  unrollIndent(column) {
    if (this.flowLevel) return;
    while (this.indent > column) {
      this.enqueue("BLOCK-END", this.mark());
      this.indent = this.indents.pop();
    }
  }

  // -- fetchers
  fetchStreamStart() {
    this.indent = -1;
    this.simpleKeys.push({ possible: false, required: false, number: 0, mark: this.mark() });
    this.keyAllowed = true;
    this.started = true;
    this.enqueue("STREAM-START", this.mark());
  }

  fetchStreamEnd() {
    if (this.col !== 0) { // force a new line
      this.col = 0;
      this.line++;
    }
    this.unrollIndent(-1);
    this.removeSimpleKey();
    this.keyAllowed = false;
    this.enqueue("STREAM-END", this.mark());
  }

  fetchDirective() {
    this.unrollIndent(-1);
    this.removeSimpleKey();
    this.keyAllowed = false;
    this.tokens.push(this.scanDirective());
  }

  fetchDocumentIndicator(type) {
    this.unrollIndent(-1);
    this.removeSimpleKey();
    this.keyAllowed = false;
    this.fetchIndicator(type, 3);
  }

  fetchIndicator(type, length = 1) {
    const start = this.mark();
    for (let n = 0; n < length; n++) this.skip();
    this.enqueue(type, start, this.mark());
  }

  fetchFlowCollectionStart(type) {
    this.saveSimpleKey();
    this.increaseFlowLevel();
    this.keyAllowed = true;
    this.fetchIndicator(type);
  }

  fetchFlowCollectionEnd(type) {
    this.removeSimpleKey();
    this.decreaseFlowLevel();
    this.keyAllowed = false;
    this.fetchIndicator(type);
  }

  fetchFlowEntry() {
    this.removeSimpleKey();
    this.keyAllowed = true;
    this.fetchIndicator("FLOW-ENTRY");
  }

  fetchBlockEntry() {
    if (!this.flowLevel) {
      if (!this.keyAllowed) throw this.error(null, null, "block sequence entries are not allowed in this context");
      this.rollIndent(this.col, -1, "BLOCK-SEQUENCE-START", this.mark());
    } // in flow context the parser reports the '-'
    this.removeSimpleKey();
    this.keyAllowed = true;
    this.fetchIndicator("BLOCK-ENTRY");
  }

  fetchKey() {
    if (!this.flowLevel) {
      if (!this.keyAllowed) throw this.error(null, null, "mapping keys are not allowed in this context");
      this.rollIndent(this.col, -1, "BLOCK-MAPPING-START", this.mark());
    }
    this.removeSimpleKey();
    this.keyAllowed = !this.flowLevel;
    this.fetchIndicator("KEY");
  }

  fetchValue() {
    const key = this.simpleKeys[this.simpleKeys.length - 1];
    if (key.possible) {
      // The key's tokens are queued already: put KEY (and BLOCK-MAPPING-START) before them.
      this.tokens.splice(this.head + key.number - this.parsed, 0, { type: "KEY", start: key.mark, end: key.mark });
      this.rollIndent(key.mark.column, key.number, "BLOCK-MAPPING-START", key.mark);
      key.possible = false;
      this.keyAllowed = false;
    } else {
      if (!this.flowLevel) {
        if (!this.keyAllowed) throw this.error(null, null, "mapping values are not allowed in this context");
        this.rollIndent(this.col, -1, "BLOCK-MAPPING-START", this.mark());
      }
      this.keyAllowed = !this.flowLevel;
    }
    this.fetchIndicator("VALUE");
  }

  fetchAnchor(type) {
    this.saveSimpleKey();
    this.keyAllowed = false;
    this.tokens.push(this.scanAnchor(type));
  }

  fetchTag() {
    this.saveSimpleKey();
    this.keyAllowed = false;
    this.tokens.push(this.scanTag());
  }

  fetchBlockScalar(literal) {
    this.removeSimpleKey();
    this.keyAllowed = true;
    this.tokens.push(this.scanBlockScalar(literal));
  }

  fetchFlowScalar(single) {
    this.saveSimpleKey();
    this.keyAllowed = false;
    this.tokens.push(this.scanFlowScalar(single));
  }

  fetchPlainScalar() {
    this.saveSimpleKey();
    this.keyAllowed = false;
    this.tokens.push(this.scanPlainScalar());
  }

  // -- token scanners
  scanToNextToken() {
    for (;;) {
      if (this.col === 0 && this.at(0) === "\ufeff") this.skip();
      // Tabs separate tokens in flow context and after a simple key, not where indentation counts.
      while (this.at(0) === " " || ((this.flowLevel || !this.keyAllowed) && this.at(0) === "\t")) this.skip();
      if (this.at(0) === "#") while (!isBreakZ(this.at(0))) this.skip();
      if (!isBreak(this.at(0))) break;
      this.readLine();
      if (!this.flowLevel) this.keyAllowed = true;
    }
  }

  skipLineEnd(context, start) {
    while (isBlank(this.at(0))) this.skip();
    if (this.at(0) === "#") while (!isBreakZ(this.at(0))) this.skip();
    if (!isBreakZ(this.at(0))) throw this.error(context, start, "did not find expected comment or line break");
    this.readLine();
  }

  scanDirective() {
    const start = this.mark();
    this.skip();
    let name = "";
    while (isAlpha(this.at(0))) name += this.read();
    if (!name) throw this.error("while scanning a directive", start, "could not find expected directive name");
    if (!isBlankZ(this.at(0))) throw this.error("while scanning a directive", start, "found unexpected non-alphabetical character");
    let token;
    if (name === "YAML") {
      while (isBlank(this.at(0))) this.skip();
      const major = this.scanVersionNumber(start);
      if (this.at(0) !== ".") throw this.error("while scanning a %YAML directive", start, "did not find expected digit or '.' character");
      this.skip();
      const minor = this.scanVersionNumber(start);
      token = { type: "VERSION-DIRECTIVE", start, end: this.mark(), major, minor };
    } else if (name === "TAG") {
      while (isBlank(this.at(0))) this.skip();
      const handle = this.scanTagHandle(true, start);
      if (!isBlank(this.at(0))) throw this.error("while scanning a %TAG directive", start, "did not find expected whitespace");
      while (isBlank(this.at(0))) this.skip();
      const prefix = this.scanTagUri(true, true, null, start);
      if (!isBlankZ(this.at(0))) throw this.error("while scanning a %TAG directive", start, "did not find expected whitespace or line break");
      token = { type: "TAG-DIRECTIVE", start, end: this.mark(), handle, prefix };
    } else {
      throw this.error("while scanning a directive", start, "found unknown directive name");
    }
    this.skipLineEnd("while scanning a directive", start);
    return token;
  }

  scanVersionNumber(start) {
    let value = 0;
    let length = 0;
    while (isDigit(this.at(0))) {
      if (++length > 9) throw this.error("while scanning a %YAML directive", start, "found extremely long version number");
      value = value * 10 + Number(this.read());
    }
    if (!length) throw this.error("while scanning a %YAML directive", start, "did not find expected version number");
    return value;
  }

  scanAnchor(type) {
    const start = this.mark();
    this.skip();
    let value = "";
    while (isAlpha(this.at(0))) value += this.read();
    const end = this.mark();
    if (!value || !(isBlankZ(this.at(0)) || "?:,]}%@`".includes(this.at(0)))) {
      throw this.error(type === "ANCHOR" ? "while scanning an anchor" : "while scanning an alias", start,
        "did not find expected alphabetic or numeric character");
    }
    return { type, start, end, value };
  }

  scanTag() {
    const start = this.mark();
    let handle;
    let suffix;
    if (this.at(1) === "<") {
      handle = "";
      this.skip();
      this.skip();
      suffix = this.scanTagUri(true, false, null, start);
      if (this.at(0) !== ">") throw this.error("while scanning a tag", start, "did not find the expected '>'");
      this.skip();
    } else {
      handle = this.scanTagHandle(false, start);
      if (handle.length > 1 && handle.endsWith("!")) {
        suffix = this.scanTagUri(false, false, null, start);
      } else {
        suffix = this.scanTagUri(false, false, handle, start); // not a handle after all
        handle = "!";
        if (suffix === "") [handle, suffix] = ["", "!"]; // the non-specific tag "!"
      }
    }
    if (!isBlankZ(this.at(0)) && (!this.flowLevel || this.at(0) !== ",")) {
      throw this.error("while scanning a tag", start, "did not find expected whitespace or line break");
    }
    return { type: "TAG", start, end: this.mark(), handle, suffix };
  }

  scanTagHandle(directive, start) {
    if (this.at(0) !== "!") throw this.error(directive ? "while scanning a tag directive" : "while scanning a tag", start, "did not find expected '!'");
    let handle = this.read();
    while (isAlpha(this.at(0))) handle += this.read();
    if (this.at(0) === "!") handle += this.read();
    else if (directive && handle !== "!") throw this.error("while parsing a tag directive", start, "did not find expected '!'");
    return handle;
  }

  scanTagUri(uriChar, directive, head, start) {
    let length = head ? head.length : 0;
    let uri = head && head.length > 1 ? head.slice(1) : "";
    const allowed = uriChar ? ";/?:@&=+$.%!~*'(),[]" : ";/?:@&=+$.%!~*'()";
    while (isAlpha(this.at(0)) || allowed.includes(this.at(0)) && this.at(0) !== "\0") {
      uri += this.at(0) === "%" ? this.scanUriEscapes(directive, start) : this.read();
      length++;
    }
    if (!length) throw this.error(directive ? "while parsing a %TAG directive" : "while parsing a tag", start, "did not find expected tag URI");
    return uri;
  }

  scanUriEscapes(directive, start) {
    const context = directive ? "while parsing a %TAG directive" : "while parsing a tag";
    const octets = [];
    let width = 0;
    do {
      if (!(this.at(0) === "%" && isHex(this.at(1)) && isHex(this.at(2)))) throw this.error(context, start, "did not find URI escaped octet");
      const octet = parseInt(this.at(1) + this.at(2), 16);
      if (!width) {
        width = (octet & 0x80) === 0 ? 1 : (octet & 0xe0) === 0xc0 ? 2 : (octet & 0xf0) === 0xe0 ? 3 : (octet & 0xf8) === 0xf0 ? 4 : 0;
        if (!width) throw this.error(context, start, "found an incorrect leading UTF-8 octet");
      } else if ((octet & 0xc0) !== 0x80) {
        throw this.error(context, start, "found an incorrect trailing UTF-8 octet");
      }
      octets.push(octet);
      this.skip();
      this.skip();
      this.skip();
    } while (--width);
    return new TextDecoder().decode(new Uint8Array(octets));
  }

  scanBlockScalar(literal) {
    const start = this.mark();
    this.skip();
    let chomping = 0;
    let increment = 0;
    const indicator = (c) => {
      if (c === "0") throw this.error("while scanning a block scalar", start, "found an indentation indicator equal to 0");
      increment = Number(this.read());
    };
    if (this.at(0) === "+" || this.at(0) === "-") {
      chomping = this.read() === "+" ? 1 : -1;
      if (isDigit(this.at(0))) indicator(this.at(0));
    } else if (isDigit(this.at(0))) {
      indicator(this.at(0));
      if (this.at(0) === "+" || this.at(0) === "-") chomping = this.read() === "+" ? 1 : -1;
    }
    this.skipLineEnd("while scanning a block scalar", start);
    const state = { end: this.mark(), indent: increment ? (this.indent >= 0 ? this.indent + increment : increment) : 0, breaks: "" };
    this.blockScalarBreaks(state, start);
    let value = "";
    let leadingBreak = "";
    let leadingBlank = false;
    while (this.col === state.indent && this.at(0) !== "\0") {
      const trailingBlank = isBlank(this.at(0));
      if (!literal && leadingBreak === "\n" && !leadingBlank && !trailingBlank) {
        if (!state.breaks) value += " "; // fold the line break
      } else {
        value += leadingBreak;
      }
      value += state.breaks;
      state.breaks = "";
      leadingBlank = isBlank(this.at(0));
      while (!isBreakZ(this.at(0))) value += this.read();
      leadingBreak = this.readLine();
      this.blockScalarBreaks(state, start);
    }
    if (chomping !== -1) value += leadingBreak;
    if (chomping === 1) value += state.breaks;
    return { type: "SCALAR", start, end: state.end, value, style: literal ? "|" : ">" };
  }

  /* The indentation and empty lines before a block scalar line; fixes the indentation when unknown. */
  blockScalarBreaks(state, start) {
    let maxIndent = 0;
    state.end = this.mark();
    for (;;) {
      while ((!state.indent || this.col < state.indent) && this.at(0) === " ") this.skip();
      maxIndent = Math.max(maxIndent, this.col);
      if ((!state.indent || this.col < state.indent) && this.at(0) === "\t") {
        throw this.error("while scanning a block scalar", start, "found a tab character where an indentation space is expected");
      }
      if (!isBreak(this.at(0))) break;
      state.breaks += this.readLine();
      state.end = this.mark();
    }
    if (!state.indent) state.indent = Math.max(maxIndent, this.indent + 1, 1);
  }

  scanEscape(start) {
    const code = this.at(1);
    const digits = { x: 2, u: 4, U: 8 }[code] || 0;
    if (!digits && ESCAPES[code] === undefined) throw this.error("while parsing a quoted scalar", start, "found unknown escape character");
    this.skip();
    this.skip();
    if (!digits) return ESCAPES[code];
    let value = 0;
    for (let k = 0; k < digits; k++) {
      if (!isHex(this.at(k))) throw this.error("while parsing a quoted scalar", start, "did not find expected hexdecimal number");
      value = value * 16 + parseInt(this.at(k), 16);
    }
    if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) {
      throw this.error("while parsing a quoted scalar", start, "found invalid Unicode character escape code");
    }
    for (let k = 0; k < digits; k++) this.skip();
    return String.fromCodePoint(value);
  }

  scanFlowScalar(single) {
    const start = this.mark();
    const quote = single ? "'" : '"';
    this.skip();
    let value = "";
    const fold = { leadingBreak: "", trailing: "", spaces: "" };
    for (;;) {
      if (this.atDocumentIndicator()) throw this.error("while scanning a quoted scalar", start, "found unexpected document indicator");
      if (this.at(0) === "\0") throw this.error("while scanning a quoted scalar", start, "found unexpected end of stream");
      let leadingBlanks = false;
      while (!isBlankZ(this.at(0))) {
        const c = this.at(0);
        if (single && c === "'" && this.at(1) === "'") {
          value += "'";
          this.skip();
          this.skip();
        } else if (c === quote) {
          break;
        } else if (!single && c === "\\" && isBreak(this.at(1))) {
          this.skip();
          this.readLine();
          leadingBlanks = true;
          break;
        } else if (!single && c === "\\") {
          value += this.scanEscape(start);
        } else {
          value += this.read();
        }
      }
      if (this.at(0) === quote) break;
      leadingBlanks = this.scanBlanks(fold, leadingBlanks);
      value += joinBlanks(fold, leadingBlanks);
    }
    this.skip();
    return { type: "SCALAR", start, end: this.mark(), value, style: single ? "'" : '"' };
  }

  /* Blanks and line breaks inside a flow or plain scalar, kept in ``fold`` until the next text. */
  scanBlanks(fold, leadingBlanks, tabIndent = -1, start = null) {
    while (isBlank(this.at(0)) || isBreak(this.at(0))) {
      if (isBlank(this.at(0))) {
        if (leadingBlanks && this.col < tabIndent && this.at(0) === "\t") {
          throw this.error("while scanning a plain scalar", start, "found a tab character that violates indentation");
        }
        if (leadingBlanks) this.skip();
        else fold.spaces += this.read();
      } else if (!leadingBlanks) {
        fold.spaces = "";
        fold.leadingBreak = this.readLine();
        leadingBlanks = true;
      } else {
        fold.trailing += this.readLine();
      }
    }
    return leadingBlanks;
  }

  scanPlainScalar() {
    const start = this.mark();
    const indent = this.indent + 1;
    let end = start;
    let value = "";
    let leadingBlanks = false;
    const fold = { leadingBreak: "", trailing: "", spaces: "" };
    for (;;) {
      if (this.atDocumentIndicator() || this.at(0) === "#") break;
      while (!isBlankZ(this.at(0))) {
        const c = this.at(0);
        if (this.flowLevel && c === ":" && ",?[]{}".includes(this.at(1)) && this.at(1) !== "\0") {
          throw this.error("while scanning a plain scalar", start, "found unexpected ':'");
        }
        if ((c === ":" && isBlankZ(this.at(1))) || (this.flowLevel && ",[]{}".includes(c))) break;
        if (leadingBlanks || fold.spaces) {
          value += joinBlanks(fold, leadingBlanks);
          leadingBlanks = false;
        }
        value += this.read();
        end = this.mark();
      }
      if (!(isBlank(this.at(0)) || isBreak(this.at(0)))) break;
      leadingBlanks = this.scanBlanks(fold, leadingBlanks, indent, start);
      if (!this.flowLevel && this.col < indent) break;
    }
    if (leadingBlanks) this.keyAllowed = true;
    return { type: "SCALAR", start, end, value, style: "" };
  }
}

/* The text that stands for the blanks in ``fold``: a folded break is a space, more breaks stay. */
function joinBlanks(fold, leadingBlanks) {
  let out = "";
  if (!leadingBlanks) {
    out = fold.spaces;
  } else if (fold.leadingBreak === "\n") {
    out = fold.trailing || " ";
  } else {
    out = fold.leadingBreak + fold.trailing;
  }
  fold.spaces = fold.leadingBreak = fold.trailing = "";
  return out;
}


// ------------------------------------------------------------------------------ parser.c

const DEFAULT_TAGS = [["!", "!"], ["!!", "tag:yaml.org,2002:"]];

class Parser {
  constructor(text) {
    this.scanner = new Scanner(text);
    this.state = "streamStart";
    this.states = [];
    this.marks = [];
    this.tagDirectives = [];
  }

  peek() {
    return this.scanner.peek();
  }

  skip() {
    this.scanner.skipToken();
  }

  error(context, contextMark, problem, problemMark) {
    return new MarkedError(context, contextMark, problem, problemMark);
  }

  /* The next event; null after STREAM-END. */
  next() {
    const [name, ...args] = STATES[this.state];
    return name ? this[name](...args) : null;
  }

  pop() {
    this.state = this.states.pop();
  }

  streamStart() {
    const token = this.peek();
    this.state = "implicitDocumentStart";
    this.skip();
    return { type: "STREAM-START", start: token.start, end: token.start };
  }

  documentStart(implicit) {
    let token = this.peek();
    if (!implicit) {
      while (token.type === "DOCUMENT-END") {
        this.skip();
        token = this.peek();
      }
    }
    const directive = ["VERSION-DIRECTIVE", "TAG-DIRECTIVE", "DOCUMENT-START", "STREAM-END"].includes(token.type);
    if (implicit && !directive) {
      this.processDirectives();
      this.states.push("documentEnd");
      this.state = "blockNode";
      return { type: "DOCUMENT-START", start: token.start, end: token.start, implicit: true };
    }
    if (token.type === "STREAM-END") {
      this.state = "end";
      this.skip();
      return { type: "STREAM-END", start: token.start, end: token.end };
    }
    const start = token.start;
    this.processDirectives();
    token = this.peek();
    if (token.type !== "DOCUMENT-START") throw this.error(null, null, "did not find expected <document start>", token.start);
    this.states.push("documentEnd");
    this.state = "documentContent";
    this.skip();
    return { type: "DOCUMENT-START", start, end: token.end, implicit: false };
  }

  processDirectives() {
    let version = false;
    let token = this.peek();
    while (token.type === "VERSION-DIRECTIVE" || token.type === "TAG-DIRECTIVE") {
      if (token.type === "VERSION-DIRECTIVE") {
        if (version) throw this.error(null, null, "found duplicate %YAML directive", token.start);
        if (token.major !== 1 || (token.minor !== 1 && token.minor !== 2)) {
          throw this.error(null, null, "found incompatible YAML document", token.start);
        }
        version = true;
      } else {
        this.appendTagDirective(token.handle, token.prefix, false, token.start);
      }
      this.skip();
      token = this.peek();
    }
    for (const [handle, prefix] of DEFAULT_TAGS) this.appendTagDirective(handle, prefix, true, token.start);
  }

  appendTagDirective(handle, prefix, allowDuplicates, mark) {
    if (this.tagDirectives.some((directive) => directive.handle === handle)) {
      if (allowDuplicates) return;
      throw this.error(null, null, "found duplicate %TAG directive", mark);
    }
    this.tagDirectives.push({ handle, prefix });
  }

  documentContent() {
    const token = this.peek();
    if (["VERSION-DIRECTIVE", "TAG-DIRECTIVE", "DOCUMENT-START", "DOCUMENT-END", "STREAM-END"].includes(token.type)) {
      this.pop();
      return emptyScalar(token.start);
    }
    return this.parseNode(true, false);
  }

  documentEnd() {
    const token = this.peek();
    let end = token.start;
    let implicit = true;
    if (token.type === "DOCUMENT-END") {
      end = token.end;
      this.skip();
      implicit = false;
    }
    this.tagDirectives = [];
    this.state = "documentStart";
    return { type: "DOCUMENT-END", start: token.start, end, implicit };
  }

  /* Anchor and tag before a node, in either order. */
  properties(node) {
    let token = this.peek();
    for (const first of [true, false]) {
      if (token.type === "ANCHOR" && node.anchor === null) {
        node.anchor = token.value;
        if (first) node.start = token.start;
      } else if (token.type === "TAG" && node.handle === null) {
        [node.handle, node.suffix, node.tagMark] = [token.handle, token.suffix, token.start];
        if (first) node.start = token.start;
      } else {
        break;
      }
      node.end = token.end;
      this.skip();
      token = this.peek();
    }
    return token;
  }

  resolveTag(node) {
    if (node.handle === null) return null;
    if (!node.handle) return node.suffix;
    const directive = this.tagDirectives.find((d) => d.handle === node.handle);
    if (!directive) throw this.error("while parsing a node", node.start, "found undefined tag handle", node.tagMark);
    return directive.prefix + node.suffix;
  }

  parseNode(block, indentlessSequence) {
    let token = this.peek();
    if (token.type === "ALIAS") {
      this.pop();
      this.skip();
      return { type: "ALIAS", anchor: token.value, start: token.start, end: token.end };
    }
    const node = { anchor: null, handle: null, suffix: null, tagMark: null, start: token.start, end: token.start };
    token = this.properties(node);
    const tag = this.resolveTag(node);
    const implicit = !tag;
    const event = (type, extra) => ({ type, anchor: node.anchor, tag, implicit, start: node.start, end: node.end, ...extra });
    if (indentlessSequence && token.type === "BLOCK-ENTRY") {
      node.end = token.end;
      this.state = "indentlessSequenceEntry";
      return event("SEQUENCE-START", { flow: false });
    }
    if (token.type === "SCALAR") {
      node.end = token.end;
      const plainImplicit = (token.style === "" && !tag) || tag === "!";
      this.pop();
      this.skip();
      return event("SCALAR", { value: token.value, style: token.style, plainImplicit, quotedImplicit: !plainImplicit && !tag });
    }
    const starts = { "FLOW-SEQUENCE-START": ["flowSequenceFirstEntry", "SEQUENCE-START", true],
      "FLOW-MAPPING-START": ["flowMappingFirstKey", "MAPPING-START", true] };
    if (block) {
      starts["BLOCK-SEQUENCE-START"] = ["blockSequenceFirstEntry", "SEQUENCE-START", false];
      starts["BLOCK-MAPPING-START"] = ["blockMappingFirstKey", "MAPPING-START", false];
    }
    if (starts[token.type]) {
      const [state, type, flow] = starts[token.type];
      node.end = token.end;
      this.state = state;
      return event(type, { flow });
    }
    if (node.anchor !== null || tag) {
      this.pop();
      return event("SCALAR", { value: "", style: "", plainImplicit: implicit, quotedImplicit: false });
    }
    throw this.error(block ? "while parsing a block node" : "while parsing a flow node", node.start,
      "did not find expected node content", token.start);
  }

  /* The first token of a collection: its mark is the context of a later error. */
  startCollection(first) {
    if (!first) return;
    this.marks.push(this.peek().start);
    this.skip();
  }

  endCollection(type, token, end = token.end) {
    this.pop();
    this.marks.pop();
    this.skip();
    return { type, start: token.start, end };
  }

  /* After KEY, VALUE or '-': the node, or an empty scalar when ``stop`` types follow. */
  entryNode(indicator, stop, next, block, indentless) {
    this.skip();
    const token = this.peek();
    if (stop.includes(token.type)) {
      this.state = next;
      return emptyScalar(indicator.end);
    }
    this.states.push(next);
    return this.parseNode(block, indentless);
  }

  blockSequenceEntry(first) {
    this.startCollection(first);
    const token = this.peek();
    if (token.type === "BLOCK-ENTRY") {
      return this.entryNode(token, ["BLOCK-ENTRY", "BLOCK-END"], "blockSequenceEntry", true, false);
    }
    if (token.type === "BLOCK-END") return this.endCollection("SEQUENCE-END", token);
    throw this.error("while parsing a block collection", this.marks.pop(), "did not find expected '-' indicator", token.start);
  }

  indentlessSequenceEntry() {
    const token = this.peek();
    if (token.type === "BLOCK-ENTRY") {
      return this.entryNode(token, ["BLOCK-ENTRY", "KEY", "VALUE", "BLOCK-END"], "indentlessSequenceEntry", true, false);
    }
    this.pop();
    return { type: "SEQUENCE-END", start: token.start, end: token.start };
  }

  blockMappingKey(first) {
    this.startCollection(first);
    const token = this.peek();
    if (token.type === "KEY") return this.entryNode(token, ["KEY", "VALUE", "BLOCK-END"], "blockMappingValue", true, true);
    if (token.type === "BLOCK-END") return this.endCollection("MAPPING-END", token);
    throw this.error("while parsing a block mapping", this.marks.pop(), "did not find expected key", token.start);
  }

  blockMappingValue() {
    const token = this.peek();
    if (token.type === "VALUE") return this.entryNode(token, ["KEY", "VALUE", "BLOCK-END"], "blockMappingKey", true, true);
    this.state = "blockMappingKey";
    return emptyScalar(token.start);
  }

  /* A ',' between flow entries (none before the first). */
  flowEntrySeparator(first, what, end) {
    let token = this.peek();
    if (first || token.type === end) return token;
    if (token.type !== "FLOW-ENTRY") throw this.error(`while parsing a flow ${what}`, this.marks.pop(), `did not find expected ',' or '${end === "FLOW-SEQUENCE-END" ? "]" : "}"}'`, token.start);
    this.skip();
    token = this.peek();
    return token;
  }

  flowSequenceEntry(first) {
    this.startCollection(first);
    const token = this.flowEntrySeparator(first, "sequence", "FLOW-SEQUENCE-END");
    if (token.type === "KEY") {
      this.state = "flowSequenceEntryMappingKey";
      this.skip();
      return { type: "MAPPING-START", anchor: null, tag: null, implicit: true, flow: true, start: token.start, end: token.end };
    }
    if (token.type !== "FLOW-SEQUENCE-END") {
      this.states.push("flowSequenceEntry");
      return this.parseNode(false, false);
    }
    return this.endCollection("SEQUENCE-END", token);
  }

  flowSequenceEntryMappingKey() {
    const token = this.peek();
    if (!["VALUE", "FLOW-ENTRY", "FLOW-SEQUENCE-END"].includes(token.type)) {
      this.states.push("flowSequenceEntryMappingValue");
      return this.parseNode(false, false);
    }
    this.state = "flowSequenceEntryMappingValue";
    if (token.type === "FLOW-SEQUENCE-END") return emptyScalar(token.start);
    this.skip();
    return emptyScalar(token.end);
  }

  flowSequenceEntryMappingValue() {
    let token = this.peek();
    if (token.type === "VALUE") {
      this.skip();
      token = this.peek();
      if (token.type !== "FLOW-ENTRY" && token.type !== "FLOW-SEQUENCE-END") {
        this.states.push("flowSequenceEntryMappingEnd");
        return this.parseNode(false, false);
      }
    }
    this.state = "flowSequenceEntryMappingEnd";
    return emptyScalar(token.start);
  }

  flowSequenceEntryMappingEnd() {
    const token = this.peek();
    this.state = "flowSequenceEntry";
    return { type: "MAPPING-END", start: token.start, end: token.start };
  }

  flowMappingKey(first) {
    this.startCollection(first);
    let token = this.flowEntrySeparator(first, "mapping", "FLOW-MAPPING-END");
    if (token.type === "KEY") {
      this.skip();
      token = this.peek();
      if (!["VALUE", "FLOW-ENTRY", "FLOW-MAPPING-END"].includes(token.type)) {
        this.states.push("flowMappingValue");
        return this.parseNode(false, false);
      }
      this.state = "flowMappingValue";
      return emptyScalar(token.start);
    }
    if (token.type !== "FLOW-MAPPING-END") {
      this.states.push("flowMappingEmptyValue");
      return this.parseNode(false, false);
    }
    return this.endCollection("MAPPING-END", token);
  }

  flowMappingValue(empty) {
    let token = this.peek();
    if (empty) {
      this.state = "flowMappingKey";
      return emptyScalar(token.start);
    }
    if (token.type === "VALUE") {
      this.skip();
      token = this.peek();
      if (token.type !== "FLOW-ENTRY" && token.type !== "FLOW-MAPPING-END") {
        this.states.push("flowMappingKey");
        return this.parseNode(false, false);
      }
    }
    this.state = "flowMappingKey";
    return emptyScalar(token.start);
  }
}

const STATES = {
  streamStart: ["streamStart"], implicitDocumentStart: ["documentStart", true], documentStart: ["documentStart", false],
  documentContent: ["documentContent"], documentEnd: ["documentEnd"], blockNode: ["parseNode", true, false],
  blockNodeOrIndentlessSequence: ["parseNode", true, true], flowNode: ["parseNode", false, false],
  blockSequenceFirstEntry: ["blockSequenceEntry", true], blockSequenceEntry: ["blockSequenceEntry", false],
  indentlessSequenceEntry: ["indentlessSequenceEntry"], blockMappingFirstKey: ["blockMappingKey", true],
  blockMappingKey: ["blockMappingKey", false], blockMappingValue: ["blockMappingValue"],
  flowSequenceFirstEntry: ["flowSequenceEntry", true], flowSequenceEntry: ["flowSequenceEntry", false],
  flowSequenceEntryMappingKey: ["flowSequenceEntryMappingKey"], flowSequenceEntryMappingValue: ["flowSequenceEntryMappingValue"],
  flowSequenceEntryMappingEnd: ["flowSequenceEntryMappingEnd"], flowMappingFirstKey: ["flowMappingKey", true],
  flowMappingKey: ["flowMappingKey", false], flowMappingValue: ["flowMappingValue", false],
  flowMappingEmptyValue: ["flowMappingValue", true], end: [null],
};

function emptyScalar(mark) {
  return { type: "SCALAR", anchor: null, tag: null, value: "", style: "", plainImplicit: true, quotedImplicit: false, start: mark, end: mark };
}

// ------------------------------------------------------------------------------ the C composer (_yaml.pyx)

/* Nodes as PyYAML's: {kind: "scalar"|"seq"|"map", tag, value, style (scalars), flow, start, end}.
 * Plain untagged scalars get yamlio's PLAIN_TAG, other untagged nodes the default tags. */
class Composer {
  constructor(text) {
    this.parser = new Parser(text);
    this.event = null;
    this.anchors = new Map();
    this.documentStarts = [];
  }

  peekEvent() {
    if (!this.event) this.event = this.parser.next();
    return this.event;
  }

  takeEvent() {
    const event = this.peekEvent();
    this.event = null;
    return event;
  }

  composeAll() {
    const nodes = [];
    for (;;) {
      if (this.peekEvent().type === "STREAM-START") this.takeEvent();
      if (this.peekEvent().type === "STREAM-END") return nodes;
      this.documentStarts.push(this.takeEvent().start);
      nodes.push(this.composeNode());
      this.takeEvent(); // DOCUMENT-END
      this.anchors = new Map();
    }
  }

  composeNode() {
    const event = this.peekEvent();
    if (event.type === "ALIAS") {
      if (!this.anchors.has(event.anchor)) throw new MarkedError(null, null, "found undefined alias", event.start);
      this.takeEvent();
      return this.anchors.get(event.anchor);
    }
    if (event.anchor !== null && this.anchors.has(event.anchor)) {
      throw new MarkedError("found duplicate anchor; first occurrence", this.anchors.get(event.anchor).start,
        "second occurrence", event.start);
    }
    if (event.type === "SCALAR") return this.composeScalar(event);
    return this.composeCollection(event);
  }

  composeScalar(event) {
    let tag = event.tag;
    if (tag === null || tag === "!") tag = event.plainImplicit ? PLAIN_TAG : "tag:yaml.org,2002:str";
    const node = { kind: "scalar", tag, value: event.value, style: event.style, start: event.start, end: event.end };
    if (event.anchor !== null) this.anchors.set(event.anchor, node);
    this.takeEvent();
    return node;
  }

  composeCollection(event) {
    const mapping = event.type === "MAPPING-START";
    const tag = event.tag === null || event.tag === "!" ? (mapping ? "tag:yaml.org,2002:map" : "tag:yaml.org,2002:seq") : event.tag;
    const node = { kind: mapping ? "map" : "seq", tag, value: [], flow: event.flow, start: event.start, end: null };
    if (event.anchor !== null) this.anchors.set(event.anchor, node);
    this.takeEvent();
    const endType = mapping ? "MAPPING-END" : "SEQUENCE-END";
    while (this.peekEvent().type !== endType) {
      node.value.push(mapping ? [this.composeNode(), this.composeNode()] : this.composeNode());
    }
    node.end = this.takeEvent().end;
    return node;
  }
}

function markedIssue(error) {
  const mark = error.problemMark || error.contextMark;
  const message = [error.context, error.problem].filter(Boolean).join(" ");
  return mark ? issue("syntax", message, mark.line + 1, mark.column + 1) : issue("syntax", message);
}

/* Every document's root node (as yaml.compose_all) and where each document starts. */
function composeText(text) {
  const bad = readerIssue(text);
  if (bad) throw new YamlLoadError([bad]);
  const composer = new Composer(text);
  try {
    return { nodes: composer.composeAll(), starts: composer.documentStarts };
  } catch (error) {
    if (error instanceof MarkedError) throw new YamlLoadError([markedIssue(error)]);
    throw error;
  }
}

/* The root node of a one-document text, or null (yaml.compose); raises YamlLoadError. */
export function compose(text) {
  return composeText(text).nodes[0] || null;
}

// ------------------------------------------------------------------------------ yamlio: data and positions

const NULL_RE = /^(?:~|null|Null|NULL|)$/;
const BOOLS = { true: true, True: true, TRUE: true, false: false, False: false, FALSE: false };
const INT_RE = /^[-+]?[0-9]+$/;
const OCT_RE = /^0o[0-7]+$/;
const HEX_RE = /^0x[0-9a-fA-F]+$/;
const FLOAT_RE = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INF_RE = /^[-+]?\.(?:inf|Inf|INF)$/;
const NAN_RE = /^\.(?:nan|NaN|NAN)$/;

function pyInt(digits, radix = 10) {
  const big = radix === 10 ? BigInt(digits) : BigInt((radix === 8 ? "0o" : "0x") + digits);
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

/* yamlio._scalar: the YAML 1.2 core schema for plain untagged scalars; anything else is a string. */
function scalarValue(node) {
  const value = node.value;
  if (node.style !== "" || node.tag !== PLAIN_TAG) return value;
  if (NULL_RE.test(value)) return null;
  if (Object.prototype.hasOwnProperty.call(BOOLS, value)) return BOOLS[value];
  if (INT_RE.test(value)) return pyInt(value.replace(/^\+/, ""));
  if (OCT_RE.test(value)) return pyInt(value.slice(2), 8);
  if (HEX_RE.test(value)) return pyInt(value.slice(2), 16);
  if (FLOAT_RE.test(value)) return new PyFloat(Number(value));
  if (INF_RE.test(value)) return new PyFloat(value.startsWith("-") ? -Infinity : Infinity);
  if (NAN_RE.test(value)) return new PyFloat(NaN);
  return value;
}

function pathId(path) {
  return JSON.stringify(path.map(keyId));
}

function nodeMark(node) {
  return [node.start.line + 1, node.start.column + 1];
}

/* yamlio.format_path: ["callbacks", 0, "commands"] as "callbacks[0].commands"; ``empty`` for the root. */
export function formatPath(path, { empty = "" } = {}) {
  let out = "";
  for (const part of path) out += isPyInt(part) ? `[${pyRepr(part)}]` : (out ? "." : "") + pyStr(part);
  return out || empty;
}

/* Data plus the 1-based [line, column] of every value and mapping key (yamlio.LoadedYaml). */
export class LoadedYaml {
  constructor() {
    this.typed = null;
    this.valuePositions = new Map(); // pathId -> [line, column]
    this.keyPositions = new Map();
    this._plain = undefined;
  }

  get data() {
    if (this._plain === undefined) this._plain = toPlain(this.typed);
    return this._plain;
  }

  /* Position of ``path``'s value (or key), else of its nearest ancestor, else [1, 1]. */
  position(path, { key = false } = {}) {
    const table = key ? this.keyPositions : this.valuePositions;
    for (let cut = path.length; cut >= 0; cut--) {
      const id = pathId(path.slice(0, cut));
      const found = table.get(id) || this.valuePositions.get(id);
      if (found) return [...found];
    }
    return [1, 1];
  }
}

const TOO_LARGE = Symbol("too large");

/* yamlio._build: Python-typed data from a node, recording positions and collecting issues. */
function build(node, path, out, issues) {
  out.valuePositions.set(pathId(path), nodeMark(node));
  if (out.valuePositions.size > MAX_VALUES) throw TOO_LARGE;
  if (node.kind === "scalar") return scalarValue(node);
  if (path.length >= MAX_DEPTH) {
    issues.push(issue("syntax", `values are nested more than ${MAX_DEPTH} levels deep`, ...nodeMark(node)));
    return null;
  }
  if (node.kind === "seq") return node.value.map((child, i) => build(child, [...path, i], out, issues));
  const result = new PyDict();
  for (const [keyNode, valueNode] of node.value) {
    if (keyNode.tag === MERGE_TAG || (keyNode.tag === PLAIN_TAG && keyNode.value === "<<")) {
      issues.push(issue("syntax", "merge keys ('<<') are not supported", ...nodeMark(keyNode)));
      continue;
    }
    const key = build(keyNode, [...path, "<key>"], out, issues);
    if (Array.isArray(key) || key instanceof PyDict) {
      issues.push(issue("syntax", "mapping keys must be plain scalars", ...nodeMark(keyNode)));
      continue;
    }
    if (result.has(key)) {
      const first = out.keyPositions.get(pathId([...path, key]));
      issues.push(issue("duplicate-key", `duplicate key ${pyRepr(key)} (first defined on line ${first[0]})`, ...nodeMark(keyNode)));
      continue;
    }
    out.keyPositions.set(pathId([...path, key]), nodeMark(keyNode));
    result.set(key, build(valueNode, [...path, key], out, issues));
  }
  out.valuePositions.delete(pathId([...path, "<key>"]));
  return result;
}

/* The first byte where Python's strict UTF-8 decoder fails, or -1. */
function badUtf8(bytes) {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    const [width, low, high] = b < 0x80 ? [1] : b >= 0xc2 && b <= 0xdf ? [2, 0x80, 0xbf] : b === 0xe0 ? [3, 0xa0, 0xbf]
      : b === 0xed ? [3, 0x80, 0x9f] : b >= 0xe1 && b <= 0xef ? [3, 0x80, 0xbf] : b === 0xf0 ? [4, 0x90, 0xbf]
        : b >= 0xf1 && b <= 0xf3 ? [4, 0x80, 0xbf] : b === 0xf4 ? [4, 0x80, 0x8f] : [0];
    if (!width || i + width > bytes.length) return i;
    for (let k = 1; k < width; k++) {
      const c = bytes[i + k];
      if (k === 1 ? c < low || c > high : c < 0x80 || c > 0xbf) return i;
    }
    i += width;
  }
  return -1;
}

/* yamlio._decode: UTF-8 bytes as text (BOM dropped), or the issue of the first bad byte. */
function decode(bytes) {
  const bad = badUtf8(bytes);
  if (bad >= 0) {
    const before = bytes.subarray(0, bad);
    const lineStart = before.lastIndexOf(0x0a) + 1;
    const line = before.reduce((count, b) => count + (b === 0x0a ? 1 : 0), 1);
    const text = new TextDecoder().decode(before.subarray(lineStart)).replace(/^\ufeff/, "");
    throw new YamlLoadError([issue("encoding", `not valid UTF-8 (byte 0x${bytes[bad].toString(16).padStart(2, "0")})`,
      line, Array.from(text).length + 1)]);
  }
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes).replace(/^\ufeff/, "");
}

/* Load exactly one YAML document strictly (a string, or UTF-8 bytes); throws YamlLoadError listing every issue. */
export function loadYaml(raw) {
  const text = typeof raw === "string" ? raw : decode(raw);
  const { nodes, starts } = composeText(text);
  if (nodes.length > 1) {
    const [line, column] = [starts[1].line + 1, starts[1].column + 1];
    throw new YamlLoadError([issue("documents", `${nodes.length} YAML documents in one file`, line, column)]);
  }
  const loaded = new LoadedYaml();
  if (!nodes.length) return loaded;
  const issues = [];
  try {
    loaded.typed = build(nodes[0], [], loaded, issues);
  } catch (error) {
    if (error !== TOO_LARGE) throw error;
    throw new YamlLoadError([issue("syntax", `the document expands to more than ${MAX_VALUES} values (through aliases?)`, 1, 1)]);
  }
  if (issues.length) throw new YamlLoadError(issues);
  return loaded;
}

/* Every document's root node (yaml.compose_all), for tests that compare nodes with PyYAML's. */
export function composeAll(text) {
  return composeText(text).nodes;
}
