/* New YAML values as text, as prereq.core.yamlrender writes them: block style in the file's own
 * indentation, flow collections on one line, scalars by yamlstyle.js's rule,
 * literal blocks for multi-line strings of visible characters.  yamlsplice.js splices the lines.
 *
 * May import: core/, vendor/.
 */

import { PyDict, pyError, pyStr, typeName } from "./pyvalues.js";
import { isVisible } from "./visiblechars.js";
import { dumpNumber, plainOk, quoted } from "./yamlstyle.js";

/* A mapping: a PyDict or a plain object. */
export function isDict(value) {
  if (value instanceof PyDict) return true;
  const proto = value !== null && typeof value === "object" && !Array.isArray(value) ? Object.getPrototypeOf(value) : undefined;
  return proto === Object.prototype || proto === null;
}

function dictEntries(value) {
  return value instanceof PyDict ? value.entries() : Object.entries(value);
}

function isEmptyCollection(value) {
  return Array.isArray(value) ? value.length === 0 : isDict(value) && dictEntries(value).length === 0;
}

/* Block-style YAML for new values, in the file's own indentation (plain or Python-typed values). */
export class Renderer {
  constructor({ indent = 2, indentSequences = true } = {}) {
    this.indent = indent;
    this.indentSequences = indentSequences;
  }

  /* A one-line scalar, or "" when ``value`` needs a block (multi-line string). */
  scalar(value) {
    if (value === null) return "null";
    if (typeof value === "boolean") return value ? "true" : "false";
    const type = isDict(value) ? "dict" : typeName(value);
    if (type === "int" || type === "float") return dumpNumber(value);
    if (isEmptyCollection(value)) return type === "dict" ? "{}" : "[]";
    if (typeof value !== "string") throw pyError("TypeError", `cannot write a ${type} as YAML`);
    if (value.includes("\n") && Renderer.literalOk(value)) return "";
    return plainOk(value) ? value : quoted(value);
  }

  static literalOk(value) {
    if (" \t\n".includes(value[0]) || value.includes("\r")) return false;
    return Array.from(value).every((ch) => isVisible(ch) || ch === "\n" || ch === "\t");
  }

  literal(value, column) {
    const trailing = value.length - value.replace(/\n+$/, "").length;
    const chomp = trailing === 0 ? "-" : trailing === 1 ? "" : "+";
    const body = chomp === "+" ? value.slice(0, value.length - trailing) : value.replace(/\n$/, "");
    const lines = body.split("\n").map((line) => (line ? " ".repeat(column) + line : ""));
    if (chomp === "+") lines.push(...Array(trailing - 1).fill(""));
    return ["|" + chomp, ...lines];
  }

  isBlock(value) {
    return (isDict(value) || Array.isArray(value)) && !isEmptyCollection(value);
  }

  /* The text after ``key:`` (a key at ``column``) or ``-`` (a dash at ``column``): the first element
   * continues the indicator's line (it starts with a space or is empty), the others are whole lines. */
  afterIndicator(value, column, { inSequence }) {
    if (!this.isBlock(value)) {
      const scalar = this.scalar(value);
      if (scalar) return [" " + scalar];
      const literal = this.literal(value, column + (inSequence ? 2 : this.indent));
      return [" " + literal[0], ...literal.slice(1)];
    }
    if (inSequence) {
      // "- key: value" / "- - item": the collection starts on the dash's line.
      const lines = this.lines(value, column + 2);
      return [" " + lines[0].slice(column + 2), ...lines.slice(1)];
    }
    const child = column + (isDict(value) || this.indentSequences ? this.indent : 0);
    return ["", ...this.lines(value, child)];
  }

  /* A non-empty mapping or sequence as block lines starting at ``column``. */
  lines(value, column) {
    const out = [];
    if (isDict(value)) {
      for (const [key, child] of dictEntries(value)) out.push(...this.pair(key, child, column));
      return out;
    }
    for (const child of value) {
      const rest = this.afterIndicator(child, column, { inSequence: true });
      out.push(" ".repeat(column) + "-" + rest[0], ...rest.slice(1));
    }
    return out;
  }

  pair(key, value, column) {
    let keyText = this.scalar(key);
    if (!keyText || keyText.startsWith("[") || keyText.startsWith("{")) keyText = quoted(pyStr(key));
    const rest = this.afterIndicator(value, column, { inSequence: false });
    return [" ".repeat(column) + keyText + ":" + rest[0], ...rest.slice(1)];
  }

  /* A flow collection on one line (for collections the file writes in flow style). */
  flow(value) {
    if (isDict(value)) return "{" + dictEntries(value).map(([k, v]) => `${this.flowScalar(k)}: ${this.flow(v)}`).join(", ") + "}";
    if (Array.isArray(value)) return "[" + value.map((item) => this.flow(item)).join(", ") + "]";
    return this.flowScalar(value);
  }

  flowScalar(value) {
    if (typeof value === "string") return plainOk(value, { flow: true }) ? value : quoted(value);
    return this.scalar(value) || quoted(String(value));
  }
}
