/* A small JavaScript scanner for the house checks (house.test.js): the tokens of a module with strings,
 * template literals, comments and regular expression literals each one token, so that braces inside
 * them are never taken for code; then the functions of the module with the lines they span.
 *
 * It is written for our own code, not for every JavaScript program: a `/` is a regular expression
 * where an operand may start (after an operator, `(`, `,`, `=`, `:`, `[`, `!`, `{`, `}`, `;`, `=>`
 * or a keyword such as `return`) and a division after a name, a number, `)` or `]`.  What it cannot
 * read, an unclosed string or bracket, it reports as a problem instead of guessing.
 *
 * Functions: declarations and expressions (`function f() {`), methods (`name() {`, `get x() {`,
 * `[Symbol.iterator]() {`) and arrow functions with a block body (`(a) => {`).  A function starts at
 * the line of its name (or of its first parameter for an arrow) and ends at its closing brace. */

const CONTROL = new Set(["if", "for", "while", "switch", "catch", "with", "return", "typeof", "await", "yield"]);
const BEFORE_OPERAND = new Set(["return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw",
  "case", "do", "else", "yield", "await"]);
const OPENERS = { "(": ")", "[": "]", "{": "}" };
const CLOSERS = { ")": "(", "]": "[", "}": "{" };

/* A reader over the text that counts lines (1-based) as it goes. */
class Cursor {
  constructor(text) {
    Object.assign(this, { text, i: 0, line: 1 });
  }

  get ch() {
    return this.text[this.i];
  }

  peek(n = 1) {
    return this.text[this.i + n];
  }

  advance() {
    if (this.text[this.i] === "\n") this.line++;
    this.i++;
  }

  /* Up to and including the first `end` not escaped by a backslash; false if the text ends first. */
  skipQuoted(end) {
    this.advance();
    while (this.i < this.text.length) {
      if (this.ch === "\\") this.advance();
      else if (this.ch === end) return (this.advance(), true);
      else if (this.ch === "\n" && end !== "`") return false;
      this.advance();
    }
    return false;
  }
}

function isNameChar(ch) {
  return ch !== undefined && /[\w$]/.test(ch);
}

/* Whether a `/` here starts a regular expression, from the token before it. */
function regexAllowed(previous) {
  if (!previous) return true;
  if (previous.type === "name") return BEFORE_OPERAND.has(previous.value);
  if (previous.type === "punct") return !(previous.value === ")" || previous.value === "]");
  if (previous.type === "template") return previous.value.endsWith("${"); // an expression starts
  return false; // after a number, a string, a whole template or a regex: a division
}

/* A regular expression literal from its opening `/`: classes `[...]` may hold a `/`; then its flags. */
function skipRegex(cursor) {
  let inClass = false;
  cursor.advance();
  while (cursor.i < cursor.text.length && cursor.ch !== "\n") {
    if (cursor.ch === "\\") cursor.advance();
    else if (cursor.ch === "[") inClass = true;
    else if (cursor.ch === "]") inClass = false;
    else if (cursor.ch === "/" && !inClass) {
      cursor.advance();
      while (isNameChar(cursor.ch)) cursor.advance();
      return true;
    }
    cursor.advance();
  }
  return false;
}

/* A template literal's text from `cursor` (just after "`" or a "}" closing `${...}`), to its end or
 * to the next `${`: "end" or "expression", or null when the text ends first. */
function skipTemplateText(cursor) {
  while (cursor.i < cursor.text.length) {
    if (cursor.ch === "\\") cursor.advance();
    else if (cursor.ch === "`") return (cursor.advance(), "end");
    else if (cursor.ch === "$" && cursor.peek() === "{") return (cursor.advance(), cursor.advance(), "expression");
    cursor.advance();
  }
  return null;
}

/* The next token's type and whether it was closed, having moved the cursor past it. */
function readToken(cursor, previous, templates) {
  const { ch } = cursor;
  if (ch === "/" && cursor.peek() === "/") {
    while (cursor.i < cursor.text.length && cursor.ch !== "\n") cursor.advance();
    return { type: "comment", closed: true };
  }
  if (ch === "/" && cursor.peek() === "*") {
    const end = cursor.text.indexOf("*/", cursor.i + 2);
    const stop = end === -1 ? cursor.text.length : end + 2;
    while (cursor.i < stop) cursor.advance();
    return { type: "comment", closed: end !== -1 };
  }
  if (ch === "'" || ch === '"') return { type: "string", closed: cursor.skipQuoted(ch) };
  if (ch === "`" || (ch === "}" && templates.at(-1) === 0)) {
    if (ch === "}") templates.pop();
    cursor.advance();
    const how = skipTemplateText(cursor);
    if (how === "expression") templates.push(0);
    return { type: "template", closed: how !== null };
  }
  if (ch === "/" && regexAllowed(previous)) return { type: "regex", closed: skipRegex(cursor) };
  if (isNameChar(ch)) {
    while (isNameChar(cursor.ch)) cursor.advance();
    return { type: /^[0-9]/.test(ch) ? "number" : "name", closed: true };
  }
  if (ch === "=" && cursor.peek() === ">") cursor.advance();
  cursor.advance();
  return { type: "punct", closed: true };
}

/* Tokens {type, value, line, endLine, match}; `match` links each bracket to its partner (an index).
 * `problems` lists what could not be read (unclosed tokens and brackets). */
export function tokenize(text) {
  const cursor = new Cursor(text);
  const tokens = [];
  const problems = [];
  const brackets = []; // indexes of open brackets
  const templates = []; // the open `${`: a 0 per template expression, else brace depth within one
  let previous = null;
  while (cursor.i < text.length) {
    if (/\s/.test(cursor.ch)) {
      cursor.advance();
      continue;
    }
    const [start, line] = [cursor.i, cursor.line];
    const { type, closed } = readToken(cursor, previous, templates);
    const token = { type, value: text.slice(start, cursor.i), line, endLine: cursor.line, match: -1 };
    if (!closed) problems.push(`line ${line}: an unclosed ${type}`);
    tokens.push(token);
    if (type === "punct") matchBracket(tokens, brackets, templates, problems);
    if (type !== "comment") previous = token;
  }
  for (const open of brackets) problems.push(`line ${tokens[open].line}: '${tokens[open].value}' is never closed`);
  return { tokens, problems };
}

function matchBracket(tokens, brackets, templates, problems) {
  const index = tokens.length - 1;
  const token = tokens[index];
  if (OPENERS[token.value]) {
    brackets.push(index);
    if (token.value === "{" && templates.length) templates[templates.length - 1]++;
  } else if (CLOSERS[token.value]) {
    const open = brackets.pop();
    if (open === undefined || tokens[open].value !== CLOSERS[token.value]) {
      problems.push(`line ${token.line}: '${token.value}' closes nothing it can`);
      if (open !== undefined) brackets.push(open);
      return;
    }
    [token.match, tokens[open].match] = [open, index];
    if (token.value === "}" && templates.length) templates[templates.length - 1]--;
  }
}

/* The index of the significant token before `index` (comments skipped), or -1. */
function before(tokens, index) {
  let i = index - 1;
  while (i >= 0 && tokens[i].type === "comment") i--;
  return i;
}

/* Where a function whose body opens at `brace` starts and what it is called, or null if the brace
 * opens no function body (a block, an object literal, a class body). */
function functionHead(tokens, brace) {
  const prev = before(tokens, brace);
  if (prev < 0) return null;
  if (tokens[prev].value === "=>") {
    const params = before(tokens, prev);
    const start = tokens[params].value === ")" ? tokens[params].match : params;
    return { start, name: nameBefore(tokens, start) ?? "arrow function" };
  }
  if (tokens[prev].value !== ")") return null;
  const head = before(tokens, tokens[prev].match);
  if (head < 0) return null;
  const token = tokens[head];
  if (token.value === "]") return { start: token.match, name: "computed method" };
  if (token.type !== "name" || CONTROL.has(token.value)) return null;
  if (token.value === "function") return { start: head, name: nameBefore(tokens, head) ?? "function" };
  return { start: head, name: token.value };
}

/* `name` in `name = ...`, `name: ...` or `const name = ...` before `index`. */
function nameBefore(tokens, index) {
  const sign = before(tokens, index);
  if (sign < 0 || !["=", ":"].includes(tokens[sign].value)) return null;
  const name = before(tokens, sign);
  return name >= 0 && tokens[name].type === "name" ? tokens[name].value : null;
}

/* The text of the comments right above `line`: those ending on the line before, and the ones right
 * above those. */
function commentAbove(tokens, line) {
  const byEndLine = new Map();
  for (const token of tokens) if (token.type === "comment") byEndLine.set(token.endLine, token);
  const texts = [];
  for (let above = byEndLine.get(line - 1); above; above = byEndLine.get(above.line - 1)) texts.push(above.value);
  return texts.reverse().join("\n");
}

/* Every function of a module: {name, line, lines, comment}. */
export function functions(text) {
  const { tokens } = tokenize(text);
  const found = [];
  tokens.forEach((token, index) => {
    if (token.value !== "{" || token.type !== "punct" || token.match < 0) return;
    const head = functionHead(tokens, index);
    if (head === null) return;
    const line = tokens[head.start].line;
    const end = tokens[token.match].endLine;
    found.push({ name: head.name, line, lines: end - line + 1, comment: commentAbove(tokens, line) });
  });
  return found;
}

/* The module specifiers a module imports: static imports, re-exports and (unless `dynamic` is false)
 * dynamic import("..."). */
export function imports(text, { dynamic: withDynamic = true } = {}) {
  const { tokens } = tokenize(text);
  const out = [];
  tokens.forEach((token, index) => {
    if (token.type !== "string") return;
    const prev = before(tokens, index);
    const word = prev >= 0 && tokens[prev].type === "name" ? tokens[prev].value : null;
    const dynamic = prev >= 0 && tokens[prev].value === "(" && tokens[before(tokens, prev)]?.value === "import";
    if (word === "from" || word === "import" || (dynamic && withDynamic)) out.push(token.value.slice(1, -1));
  });
  return out;
}
