/* How the composer's refusal of a YAML text is held to the CLI's: prereq's own words (its rules on
 * top of YAML: tags, merge keys, duplicate keys, limits, encodings) exactly; a syntax error the
 * parser itself finds (libyaml in the CLI, the vendored `yaml` library in the composer) by its kind
 * and line only, as each parser words it and places its column otherwise. */

import assert from "node:assert/strict";

const OWN_WORDS = new RegExp(
  "^(?:YAML tags are not supported|merge keys \\('<<'\\) are not supported|mapping keys must be plain scalars|" +
    "values are nested more than|integers have at most|the document expands to more than|duplicate key|" +
    "not valid UTF-8|\\d+ YAML documents in one file|control characters are not allowed)",
);

export const ownWords = (message) => OWN_WORDS.test(message);

/* A load issue {kind, message, line, column} as the corpus compares it. */
export function comparedIssue(issue) {
  return ownWords(issue.message) ? issue : { kind: issue.kind, line: issue.line };
}

/* "source:line:column: [what: ]why", as load_error writes a refused text, compared the same way. */
export function comparedMessage(message) {
  const found = /^(.*?):(\d+):(\d+): (.*)$/s.exec(message);
  if (!found || ownWords(found[4].replace(/^[^:]*: /, "")) || ownWords(found[4])) return message;
  return `${found[1]}:${found[2]}: (a syntax error)`;
}

export function assertSameMessage(actual, expected, what) {
  assert.equal(comparedMessage(actual), comparedMessage(expected), what);
}
