/* scanner.c's token scanners: the text of one token, read from the cursor on.
 *
 * Owns: TokenScanner, the Reader (reader.js) that skips to the next token and scans a
 * directive, an anchor or alias, a tag, and block, quoted and plain scalars, with libyaml's
 * folding, escapes and error messages.  It holds the state these read (indent, flowLevel,
 * keyAllowed), which scanner.js's Scanner, its subclass, keeps up to date; the token queue,
 * simple keys and indentation levels are the Scanner's.
 *
 * Folder yaml/libyaml/: a port of libyaml 0.2.6's reader, scanner and parser, whose events
 * yaml/yamlload.js composes.
 * May import: nothing.
 */

import { Reader, isAlpha, isBlank, isBlankZ, isBreak, isBreakZ, isDigit, isHex } from "./reader.js";

const ESCAPES = { 0: "\0", a: "\x07", b: "\b", t: "\t", "\t": "\t", n: "\n", v: "\x0b", f: "\f", r: "\r", e: "\x1b",
  " ": " ", '"': '"', "/": "/", "\\": "\\", N: "\x85", _: "\xa0", L: "\u2028", P: "\u2029" };

export class TokenScanner extends Reader {
  constructor(text) {
    super(text);
    Object.assign(this, { flowLevel: 0, indent: -1, keyAllowed: false });
  }

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
