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

export function quotingContexts(text) {
  const found = [];
  const frames = [["", 0]]; // each open frame: its closer ("", ")", "`" or '"') and its ( depth
  const n = text.length;
  let heredocFrom = n + 1;
  let i = 0;
  while (i < n) {
    const c = text[i], frame = frames[frames.length - 1], closer = frame[0];
    const inBackticks = frames.some((f) => f[0] === "`");
    if (c === MARK) {
      found.push(i > heredocFrom || inBackticks ? OTHER : closer === '"' ? DOUBLE : WORD);
    } else if (c === "\\") {
      if (text[i + 1] === MARK) found.push(OTHER);
      i += 1;
    } else if (c === closer && !(c === ")" && frame[1])) {
      frames.pop();
    } else if (text.startsWith("$(", i)) {
      frames.push([")", 0]);
      i += 1;
    } else if (c === "`" || c === '"') {
      frames.push([c, 0]);
    } else if (closer === '"') {
      // the rest is literal inside double quotes
    } else if (c === "'" || text.startsWith("$'", i)) {
      const ansi = c === "$";
      i = skipQuoted(text, i + (ansi ? 1 : 0), found, ansi || inBackticks ? OTHER : SINGLE, ansi);
      continue;
    } else if (c === "(" || c === ")") {
      frame[1] += c === "(" ? 1 : -1;
    } else if (c === "#" && (i === 0 || METACHARS.includes(text[i - 1]))) {
      let end = text.indexOf("\n", i);
      end = end < 0 ? n : end;
      for (const ch of text.slice(i, end)) if (ch === MARK) found.push(OTHER);
      i = end;
      continue;
    } else if (text.startsWith("<<<", i)) { // a here-string: a word follows, no here-document
      i += 3;
      continue;
    } else if (text.startsWith("<<", i) && heredocFrom > n) {
      const end = text.indexOf("\n", i);
      heredocFrom = end < 0 ? n : end;
    }
    i += 1;
  }
  return found;
}
