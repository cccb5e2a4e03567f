/* A job written as JSON, into and out of the composer (no DOM).
 *
 * In: OpenPAI reads a job's JSON as YAML (JSON is YAML 1.2's subset) and so do both of prereq's
 * engines, whose first edit of a JSON job writes the whole document anew in block style
 * (tests/cases/jobs/156).  Only the composer converts before any edit: JSON pasted over the whole
 * editor or uploaded becomes block YAML at once, so that the user reads and edits YAML from the
 * start.  It is the engines' own rewrite of the root (yaml/'s Splicer and Renderer), so the text is
 * the one their first edit would have written, and it is kept only when it reads back as the same
 * data.  JSON holds no comments, so nothing is lost.
 *
 * Out: the job's data as JSON (two-space indentation, as `json.dumps(data, indent=2,
 * ensure_ascii=False)` writes it: 1.0 stays 1.0, big integers keep their digits), for tools that take
 * JSON; a value JSON cannot hold (.inf, .nan) is refused with its path.
 *
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";
import { PyDict, PyFloat, floatRepr, jsonKey, strictEqual } from "../yaml/pyvalues.js";
import { compose, formatPath, loadYamlOrNull } from "../yaml/yamlload.js";
import { Renderer } from "../yaml/yamlrender.js";
import { Splicer } from "../yaml/yamlsplice.js";
import { YamlText } from "../yaml/yamltext.js";

/* The block YAML for a job text that is a JSON object, or null when the text is anything else
 * (YAML, JSON that is not an object, JSON the YAML loader refuses: the editor then says why). */
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
  // A flow root gives the engine's default style (yamltext.js's detectStyle finds no block to follow).
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

/* The job `text` (YAML) as JSON text; a PrereqError naming the line when the YAML does not load. */
export function jobAsJson(text, source) {
  return jsonValue(new YamlText(text, { source, mergeKeys: true }).loaded.typed, [], "") + "\n";
}
