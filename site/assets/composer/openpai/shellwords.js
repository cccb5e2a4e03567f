/* Where a value stands in a bash command (quoting_contexts in tools/prereq/openpai/shellwords.py,
 * whose docstrings say what each context means): the quoting a value filled in there needs.
 *
 * May import: core/, yaml/, vendor/.
 */

export const MARK = "\x00"; // stands for a value to be filled in; no command holds it
export const WORD = "word", DOUBLE = "double", SINGLE = "single", OTHER = "other";
export const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/; // a word bash reads as it is, in any context
const METACHARS = " \t\n;&|()<>";

// From a ' (of $' when `ansi`) past its closing quote, noting each mark inside.
function skipQuoted(text, i, found, context, ansi) {
  let j = i + 1;
  while (j < text.length && text[j] !== "'") {
    if (text[j] === MARK) found.push(context);
    j += ansi && text[j] === "\\" && text[j + 1] !== MARK ? 2 : 1;
  }
  return j + 1;
}

const UNSURE_FRAMES = ["`", "))", "}", "]"]; // backticks, arithmetic, ${...}, $[...]: no quoting is sure there
const OPENERS = { "$((": "))", "((": "))", "$[": "]", "${": "}" };

/* Longer than usual: one pass over bash's quoting, each branch a construct (shellwords.py's twin). */
export function quotingContexts(text) {
  const found = [];
  const frames = [["", 0]]; // each open frame: its closer ("", ")", "))", "}", "]", "`", '"') and its ( depth
  const n = text.length;
  let unsureFrom = n + 1; // past a here-document's first line, or a case: every mark is OTHER
  let [escaped, closed] = [-1, -1]; // the last character a backslash escaped; the last ) or } that closed an expansion
  const wordStarts = (at) => at === 0 || (METACHARS.includes(text[at - 1]) && at - 1 !== escaped && at - 1 !== closed);
  const unsure = () => frames.some((f) => UNSURE_FRAMES.includes(f[0]));
  let i = 0;
  while (i < n) {
    if (i > unsureFrom) {
      for (const ch of text.slice(i)) if (ch === MARK) found.push(OTHER);
      break;
    }
    const c = text[i], frame = frames[frames.length - 1], closer = frame[0];
    if (c === MARK) {
      found.push(unsure() ? OTHER : closer === '"' ? DOUBLE : WORD);
    } else if (c === "\\") {
      if (text[i + 1] === MARK) found.push(OTHER);
      escaped = i + 1;
      i += 1;
    } else if (closer === "))" && text.startsWith("))", i) && !frame[1]) {
      frames.pop();
      closed = i = i + 1;
    } else if (c === closer && !(c === ")" && frame[1])) {
      frames.pop();
      if (c === ")" || c === "}") closed = i;
    } else if (["$((", "$[", "${"].some((o) => text.startsWith(o, i)) || (text.startsWith("((", i) && closer !== '"')) {
      const opener = text.startsWith("$((", i) ? "$((" : text.slice(i, i + 2);
      frames.push([OPENERS[opener], 0]);
      i += opener.length - 1;
    } else if (text.startsWith("$(", i)) {
      frames.push([")", 0]);
      i += 1;
    } else if (c === "`" || c === '"') {
      frames.push([c, 0]);
    } else if (closer === '"') {
      // the rest is literal inside double quotes
    } else if (c === "'" || text.startsWith("$'", i)) {
      const ansi = c === "$";
      i = skipQuoted(text, i + (ansi ? 1 : 0), found, ansi || unsure() ? OTHER : SINGLE, ansi);
      continue;
    } else if (c === "(" || c === ")") {
      frame[1] += c === "(" ? 1 : -1;
    } else if (c === "#" && (closer === "" || closer === ")") && wordStarts(i)) {
      let end = text.indexOf("\n", i);
      end = end < 0 ? n : end;
      for (const ch of text.slice(i, end)) if (ch === MARK) found.push(OTHER);
      i = end;
      continue;
    } else if (text.startsWith("<<<", i)) { // a here-string: a word follows, no here-document
      i += 3;
      continue;
    } else if (text.startsWith("<<", i) && unsureFrom > n) {
      const end = text.indexOf("\n", i);
      unsureFrom = end < 0 ? n : end;
    } else if ((text.startsWith("case ", i) || text.startsWith("case\t", i)) && wordStarts(i)) {
      unsureFrom = i; // its patterns end in ")": the scanner cannot tell them from $( )'s end
    }
    i += 1;
  }
  return found;
}
