/* A JSON job into and out of the composer (no DOM): in, block YAML at once, as the engines' first edit
 * would write it (composer/README.md); out, the data as `json.dumps(data, indent=2, ensure_ascii=False)`
 * writes it (1.0 stays 1.0, big integers keep their digits).
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";
import { PyDict, PyFloat, floatRepr, jsonKey, strictEqual } from "../yaml/pyvalues.js";
import { compose, formatPath, loadYamlOrNull } from "../yaml/yamlload.js";
import { Renderer } from "../yaml/yamlrender.js";
import { Splicer } from "../yaml/yamlsplice.js";
import { YamlText } from "../yaml/yamltext.js";

/* Null for anything but a JSON object the YAML loader takes: the editor then says why. */
export function blockYamlOfJson(text) {
  const bom = text.startsWith("\ufeff") ? "\ufeff" : "";
  const body = text.slice(bom.length);
  if (!/^\s*\{/.test(body)) return null;
  try {
    JSON.parse(body);
  } catch (error) {
    return null; // flow YAML, or broken JSON: left as it is
  }
  const loaded = loadYamlOrNull(body);
  if (loaded === null || !(loaded.typed instanceof PyDict)) return null;
  // A flow root has no block style to follow: the engine's default style.
  const splicer = new Splicer(body, compose(body), new Renderer(), body.includes("\r\n") ? "\r\n" : "\n");
  const yaml = splicer.rewrite([], loaded.typed);
  const again = loadYamlOrNull(yaml);
  return again !== null && strictEqual(again.typed, loaded.typed) ? bom + yaml : null;
}

function jsonValue(value, path, pad) {
  const inner = pad + "  ";
  if (value instanceof PyDict) {
    if (!value.size) return "{}";
    const pairs = value.entries().map(([key, item]) => `${inner}${JSON.stringify(jsonKey(key))}: ${jsonValue(item, [...path, key], inner)}`);
    return "{\n" + pairs.join(",\n") + "\n" + pad + "}";
  }
  if (Array.isArray(value)) {
    if (!value.length) return "[]";
    return "[\n" + value.map((item, at) => inner + jsonValue(item, [...path, at], inner)).join(",\n") + "\n" + pad + "]";
  }
  if (value instanceof PyFloat) {
    if (Number.isFinite(value.value)) return floatRepr(value.value);
    throw new PrereqError(`${formatPath(path, { empty: "the job" })} is ${floatRepr(value.value)}, which JSON cannot hold`,
      { hint: "quote it in the YAML if it is meant as text", exitCode: 1 });
  }
  if (typeof value === "bigint" || typeof value === "number") return value.toString();
  return JSON.stringify(value); // strings, booleans, null
}

/* A PrereqError naming the line when the YAML does not load. */
export function jobAsJson(text, source) {
  return jsonValue(new YamlText(text, { source, mergeKeys: true }).loaded.typed, [], "") + "\n";
}
