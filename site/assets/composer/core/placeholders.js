/* Placeholders in strings, `<% namespace.path %>` (tools/prereq/core/placeholders.py).
 * May import: vendor/.
 */

// Python's \s (str.isspace), not JavaScript's: \x1c-\x1f and NEL yes, the BOM no.  A class's body.
export const PY_SPACE = "\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
export const TEMPLATE = new RegExp(`<%[${PY_SPACE}]*([\\s\\S]*?)[${PY_SPACE}]*%>`, "g");
const REFERENCE = /^(\$?[A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_-]+|\[\d+\])+)$/;
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
