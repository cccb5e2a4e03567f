/* Python's sort order of strings, for all the engine sorts as the CLI does: by code point, where JS's
 * sort compares UTF-16 code units ("\u{1F600}" sorts after "\uFF01" in Python, before it in JS).
 * May import: vendor/.
 */

export function byCodePoint(a, b) {
  const x = [...a].map((ch) => ch.codePointAt(0));
  const y = [...b].map((ch) => ch.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}
