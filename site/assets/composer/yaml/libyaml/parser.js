/* parser.c: a port of libyaml 0.2.6's parser, the events of a YAML text from scanner.js's tokens.
 *
 * Owns: Parser (next() gives one event, null after STREAM-END), its state machine (STATES: the
 * parse_* functions of parser.c by name), %YAML and %TAG directives and tag handles, empty
 * scalars where a node is left out, and libyaml's parser error messages (MarkedError).  Events
 * are {type, anchor, tag, implicit, value, style, flow, start, end}; yamlload.js composes them.
 *
 * Folder yaml/libyaml/: a port of libyaml 0.2.6's reader, scanner and parser, whose events
 * yaml/yamlload.js composes.
 * May import: nothing.
 */

import { MarkedError } from "./reader.js";
import { Scanner } from "./scanner.js";

const DEFAULT_TAGS = [["!", "!"], ["!!", "tag:yaml.org,2002:"]];

export class Parser {
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
    return this.flowValue("FLOW-SEQUENCE-END", "flowSequenceEntryMappingEnd");
  }

  /* After a flow mapping's key: the node after ':', else an empty scalar; then the ``next`` state. */
  flowValue(end, next) {
    let token = this.peek();
    if (token.type === "VALUE") {
      this.skip();
      token = this.peek();
      if (token.type !== "FLOW-ENTRY" && token.type !== end) {
        this.states.push(next);
        return this.parseNode(false, false);
      }
    }
    this.state = next;
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
    if (!empty) return this.flowValue("FLOW-MAPPING-END", "flowMappingKey");
    this.state = "flowMappingKey";
    return emptyScalar(this.peek().start);
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
