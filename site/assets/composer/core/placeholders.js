/* Placeholders in strings, `<% namespace.path %>` (tools/prereq/core/placeholders.py).
 * May import: vendor/.
 */

// Python's \s (str.isspace), not JavaScript's: \x1c-\x1f and NEL yes, the BOM no.  A class's body.
export const PY_SPACE = "\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
export const TEMPLATE = new RegExp(`<%[${PY_SPACE}]*([\\s\\S]*?)[${PY_SPACE}]*%>`, "g");
// Python 3.11's \d (Unicode 14's decimal digits, not the browser's newer \p{Nd}), each run of ten by its
// zero; tests/cases/credentials/test_credentials_cases.py holds it to the CLI's Python.  A class's body.
const PY_DIGIT_ZEROS = [0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6, 0xc66, 0xce6, 0xd66,
  0xde6, 0xe50, 0xed0, 0xf20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90, 0x1b50, 0x1bb0, 0x1c40,
  0x1c50, 0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10, 0x104a0, 0x10d30, 0x11066, 0x110f0, 0x11136,
  0x111d0, 0x112f0, 0x11450, 0x114d0, 0x11650, 0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50, 0x11da0,
  0x16a60, 0x16ac0, 0x16b50, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0];
export const PY_DIGIT = PY_DIGIT_ZEROS.map((zero) => `\\u{${zero.toString(16)}}-\\u{${(zero + 9).toString(16)}}`).join("");
const REFERENCE = new RegExp(`^(\\$?[A-Za-z_][A-Za-z0-9_]*)((?:\\.[A-Za-z0-9_-]+|\\[[${PY_DIGIT}]+\\])+)$`, "u");
const OPENPAI_NAMESPACES = ["$parameters", "$secrets", "$data", "$script", "$output"];

export function parse(expression, text = "") {
  const match = REFERENCE.exec(expression);
  if (!match) return { text, expression, namespace: null, key: "" };
  const rest = match[2];
  const key = rest.startsWith(".") ? rest.slice(1).split(".")[0].split("[")[0] : "";
  return { text, expression, namespace: match[1], key };
}

export function find(value) {
  return [...value.matchAll(TEMPLATE)].map((match) => parse(match[1], match[0]));
}

export function isKnown(template) {
  if (OPENPAI_NAMESPACES.includes(template.namespace)) return true;
  return (template.namespace === "this" || template.namespace === "expression") && Boolean(template.key) &&
    template.expression.split(".").length === 2;
}

/* Every string inside a JSON-like value, as [path, string]. */
export function strings(value, path = []) {
  if (typeof value === "string") return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((child, index) => strings(child, [...path, index]));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, child]) => strings(child, [...path, key]));
  }
  return [];
}

/* `value` with `<% namespace.KEY %>` replaced where `lookup(KEY)` knows it (strings only). */
export function renderString(value, namespace, lookup) {
  return value.replace(TEMPLATE, (whole, expression) => {
    const template = parse(expression, whole);
    if (template.namespace !== namespace) return whole;
    const found = lookup(template.key);
    return found === null || found === undefined ? whole : String(found);
  });
}
