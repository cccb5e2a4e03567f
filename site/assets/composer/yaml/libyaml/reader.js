/* libyaml's reader as its scanner sees the text (reader.c and the character tests of yaml_private.h).
 *
 * Owns: Reader, a cursor over the text that counts its marks as libyaml does (a code point index,
 * a CRLF as two; 0-based line and column in code points, a leading BOM taking none) and also
 * keeps the UTF-16 index for slicing; the character tests; MarkedError, the ScannerError,
 * ParserError or ComposerError that tokens.js, scanner.js, parser.js and ../yamlload.js raise.
 * The check of which characters a text may hold at all is yamlload.js's (readerIssue).
 *
 * Folder yaml/libyaml/: a port of libyaml 0.2.6's reader, scanner and parser, whose events
 * yaml/yamlload.js composes.
 * May import: nothing.
 */

/* A libyaml ScannerError, ParserError or ComposerError: message parts and their marks. */
export class MarkedError extends Error {
  constructor(context, contextMark, problem, problemMark) {
    super(problem);
    Object.assign(this, { context, contextMark, problem, problemMark });
  }
}

export const isBreak = (c) => c === "\n" || c === "\r" || c === "\x85" || c === "\u2028" || c === "\u2029";
export const isBlank = (c) => c === " " || c === "\t";
export const isBreakZ = (c) => isBreak(c) || c === "\0";
export const isBlankZ = (c) => isBlank(c) || isBreakZ(c);
export const isAlpha = (c) => /^[0-9A-Za-z_-]$/.test(c);
export const isDigit = (c) => c >= "0" && c <= "9" && c.length === 1;
export const isHex = (c) => /^[0-9A-Fa-f]$/.test(c);

export class Reader {
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

  /* The error of a scanner at this character: ``problem``, after ``context`` at ``contextMark``. */
  error(context, contextMark, problem) {
    return new MarkedError(context, context ? contextMark : null, problem, this.mark());
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
