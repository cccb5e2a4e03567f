/* scanner.c's token queue: a port of libyaml 0.2.6's scanner, the tokens of a YAML text in order.
 *
 * Owns: Scanner (peek, skipToken), the fetch loop that decides which token comes next, simple keys
 * (KEY and BLOCK-MAPPING-START put in front of a key once its ':' is seen), indentation levels
 * (BLOCK-END tokens) and flow levels, with libyaml's nesting limit and its error messages.  The
 * scanning of each token's text is TokenScanner's (tokens.js); parser.js reads the tokens.
 * Tokens are {type, start, end, ...} with marks from reader.js.
 *
 * Folder yaml/libyaml/: a port of libyaml 0.2.6's reader, scanner and parser, whose events
 * yaml/yamlload.js composes.
 * May import: nothing.
 */

import { TokenScanner } from "./tokens.js";
import { isBlank, isBlankZ } from "./reader.js";

const MAX_NESTING = 1000; // libyaml 0.2.6 refuses deeper block and flow nesting while scanning

export class Scanner extends TokenScanner {
  constructor(text) {
    super(text);
    Object.assign(this, { tokens: [], head: 0, parsed: 0, available: false, started: false, indents: [], simpleKeys: [] });
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
    if (c === "*" || c === "&") return this.fetchKeyable(() => this.scanAnchor(c === "*" ? "ALIAS" : "ANCHOR"));
    if (c === "!") return this.fetchKeyable(() => this.scanTag());
    if ((c === "|" || c === ">") && !this.flowLevel) return this.fetchBlockScalar(c === "|");
    if (c === "'" || c === '"') return this.fetchKeyable(() => this.scanFlowScalar(c === "'"));
    if (!(isBlankZ(c) || "-?:,[]{}#&*!|>'\"%@`".includes(c)) || (c === "-" && !isBlank(next)) ||
        (!this.flowLevel && (c === "?" || c === ":") && !isBlankZ(next))) return this.fetchKeyable(() => this.scanPlainScalar());
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

  /* In block context: ``problem`` where no key may start, else the block collection opened here. */
  blockIndicator(problem, type) {
    if (this.flowLevel) return;
    if (!this.keyAllowed) throw this.error(null, null, problem);
    this.rollIndent(this.col, -1, type, this.mark());
  }

  fetchBlockEntry() {
    // In flow context the parser reports the '-'.
    this.blockIndicator("block sequence entries are not allowed in this context", "BLOCK-SEQUENCE-START");
    this.removeSimpleKey();
    this.keyAllowed = true;
    this.fetchIndicator("BLOCK-ENTRY");
  }

  fetchKey() {
    this.blockIndicator("mapping keys are not allowed in this context", "BLOCK-MAPPING-START");
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
      this.blockIndicator("mapping values are not allowed in this context", "BLOCK-MAPPING-START");
      this.keyAllowed = !this.flowLevel;
    }
    this.fetchIndicator("VALUE");
  }

  /* A token that may be (the start of) a simple key: an anchor, an alias, a tag, a quoted or plain
   * scalar (fetch_anchor, fetch_tag, fetch_flow_scalar, fetch_plain_scalar); ``scan`` reads it. */
  fetchKeyable(scan) {
    this.saveSimpleKey();
    this.keyAllowed = false;
    this.tokens.push(scan());
  }

  fetchBlockScalar(literal) {
    this.removeSimpleKey();
    this.keyAllowed = true;
    this.tokens.push(this.scanBlockScalar(literal));
  }
}
