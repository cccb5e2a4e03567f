/* Check a job the way the OpenPAI rest-server does: a port of prereq.openpai.protocol.
 *
 * schemaProblems(job, schema) gives the same problems as the CLI's schema_problems, in the same order
 * and word for word: {path, message, source}, source "schema" (restserver.js adds the rest-server's
 * own checks, and validateJob, the whole of the CLI's validate_job).
 * `schema` is the resolved protocol schema (plain draft 7, $merge applied, as the published index
 * serves it); this module does not resolve $merge or $ref.
 *
 * The schema part is a small draft-7 validator that does what Python's jsonschema
 * (Draft7Validator, 4.26) does for the keywords the protocol schema uses, and no more: type,
 * required, properties, patternProperties, additionalProperties (true/false), items, enum,
 * minItems, minProperties, pattern, maxLength, minimum, oneOf (and format, a no-op there too).
 * A schema using any other draft-7 keyword is refused (Python refuses it as well), since its
 * errors would differ.  Errors come in jsonschema's order: each schema's keywords in the schema's
 * key order, nested errors where the keyword found them; then sorted by path, each part as a
 * string ("10" before "2"), ties kept in that order.
 *
 * Where plain JavaScript data cannot match Python's:
 * - Numbers: JS has one number type.  Draft 7 counts 1.0 as an integer in both, and the CLI shows
 *   numbers as JS prints them, so a float that YAML read as 1.0 gives the same results here from
 *   the number 1.  Integers beyond 2**53 cannot be held exactly here (the CLI compares them
 *   exactly but shows them as the double they round to).
 * - Key order: a JS object lists integer-like keys ("0", "12") first, in numeric order; Python
 *   keeps a mapping's order.  A job with such keys (a task role named "0") may list its problems
 *   in another order here.  The shared cases use none.
 * - Object keys are always strings here; YAML mappings in Python may have others (the job engine
 *   refuses a task role name that is not a string before it validates).
 * - Patterns are Python regular expressions: their `$` also matches before a final "\n" (as
 *   jsonschema's re.search and the webportal rule's re.match do), which patternRegExp emulates.
 *   Other Python-only or JS-only regex syntax is not translated (the protocol schema has none).
 *
 * Folder openpai/: what OpenPAI does (prereq.openpai): an item's form and its digest, the
 * rest-server's checks of a job, the runtime's round trip of a parameter.
 * May import: core/, yaml/, vendor/.
 */

import { byCodePoint } from "../core/order.js";

export const PREREQUISITE_TYPES = Object.freeze(["script", "output", "data", "dockerimage"]);
/* Task role fields that name one prerequisite of a type, in the CLI's order: the CLI's
 * TASK_ROLE_FIELDS mapping as its keys (TASK_ROLE_FIELDS) and field -> type (TASK_ROLE_FIELD_TYPES). */
export const TASK_ROLE_FIELD_TYPES = Object.freeze({ dockerImage: "dockerimage", data: "data", script: "script", output: "output" });
export const TASK_ROLE_FIELDS = Object.freeze(Object.keys(TASK_ROLE_FIELD_TYPES));
/* The webportal's rule for task role names (a Python pattern: see patternRegExp). */
export const TASK_ROLE_NAME_PATTERN = "^[a-z0-9]{1,63}$";
/* The keys a dockerimage prerequisite may have (the dockerimage branch of the schema's oneOf). */
const DOCKERIMAGE_KEYS = ["protocolVersion", "name", "version", "contributor", "description", "type", "uri", "auth"];

// Every draft-7 validation keyword (jsonschema's Draft7Validator.VALIDATORS); others are ignored.
const DRAFT7_KEYWORDS = new Set(["$ref", "additionalItems", "additionalProperties", "allOf", "anyOf", "const",
  "contains", "dependencies", "enum", "exclusiveMaximum", "exclusiveMinimum", "format", "if", "items", "maxItems",
  "maxLength", "maxProperties", "maximum", "minItems", "minLength", "minProperties", "minimum", "multipleOf", "not",
  "oneOf", "pattern", "patternProperties", "properties", "propertyNames", "required", "type", "uniqueItems"]);
const ONE_SCHEMA = ["additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else"];

const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
const own = (object, key) => (isObject(object) && hasOwn(object, key) ? object[key] : undefined);

// ------------------------------------------------------------------------------------------ showing values

/* `value` as JSON the way the CLI's protocol.show writes it: ", " and ": " between items, numbers
 * as String(n), NaN and infinities by name, strings as JSON.stringify (lone surrogates escaped). */
export function show(value) {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return String(value); // String(-0) is "0", as the CLI shows -0.0
  if (typeof value === "bigint") return String(Number(value));
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(show).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.keys(value).map((key) => `${JSON.stringify(key)}: ${show(value[key])}`).join(", ")}}`;
  }
  return JSON.stringify(String(value));
}

const sortedStrings = (keys) => [...keys].sort((a, b) => byCodePoint(String(a), String(b)));

/* Python's comparison of two lists of strings: each path part as str(part). */
function comparePaths(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = byCodePoint(String(a[i]), String(b[i]));
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

// ------------------------------------------------------------------------------------------ Python patterns

const patterns = new Map();

/* A RegExp that matches where Python's re.search does for the schema's patterns: Python's `$`
 * (without MULTILINE) matches at the end and before a final "\n", JS's only at the end. */
export function patternRegExp(pattern) {
  let compiled = patterns.get(pattern);
  if (compiled) return compiled;
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      out += c + (pattern[i + 1] ?? "");
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
      if (pattern[i + 1] === "^") out += pattern[++i];
      if (pattern[i + 1] === "]") out += "\\" + pattern[++i]; // Python's "[]...]": a literal "]" first
    } else {
      out += c === "$" ? "(?=\\n?$)" : c;
    }
  }
  compiled = new RegExp(out, "u"); // "u": classes and "." take code points, as Python's re does
  patterns.set(pattern, compiled);
  return compiled;
}

/* The webportal's rule for task role names, as the CLI's TASK_ROLE_NAME matches. */
export const TASK_ROLE_NAME = patternRegExp(TASK_ROLE_NAME_PATTERN);

// ------------------------------------------------------------------------------------------ the schema

/* jsonschema's draft-6/7 type checker.  "integer" is any number with no fractional part, as
 * jsonschema counts the float 1.0 (draft 6 on); booleans are never numbers. */
function isType(instance, type) {
  switch (type) {
    case "array": return Array.isArray(instance);
    case "boolean": return typeof instance === "boolean";
    case "integer": return (typeof instance === "number" && Number.isInteger(instance)) || typeof instance === "bigint";
    case "null": return instance === null;
    case "number": return typeof instance === "number" || typeof instance === "bigint";
    case "object": return isObject(instance);
    case "string": return typeof instance === "string";
    default: throw new Error(`the schema names an unknown type ${show(type)}`);
  }
}

/* jsonschema's `equal` (enum): strings by value, lists and mappings item by item, true is not 1. */
function equal(one, two) {
  if (one === two) return true;
  if (typeof one === "string" || typeof two === "string") return false;
  if (Array.isArray(one) && Array.isArray(two)) {
    return one.length === two.length && one.every((item, i) => equal(item, two[i]));
  }
  if (isObject(one) && isObject(two)) {
    const keys = Object.keys(one);
    return keys.length === Object.keys(two).length && keys.every((key) => hasOwn(two, key) && equal(one[key], two[key]));
  }
  return false;
}

/* One error as jsonschema's ValidationError: path and schemaPath relative to where it was
 * descended from; keyword null for a `false` schema's error. */
function error(message, extra = {}) {
  return { message, path: [], schemaPath: [], keyword: undefined, instance: undefined, context: [], ...extra };
}

const falseError = (instance) => error(`False schema does not allow ${show(instance)}`, { keyword: null, instance });

/* jsonschema's descend (and iter_errors): every keyword of `schema` in order.  Like jsonschema,
 * the error of a `false` schema does not get `path` (it is reported at the parent's path). */
function descend(instance, schema, path, schemaPath) {
  if (schema === true) return [];
  if (schema === false) return [falseError(instance)];
  const errors = [];
  for (const keyword of Object.keys(schema)) {
    if (!hasOwn(KEYWORDS, keyword)) continue; // not a draft-7 keyword (unsupported ones were refused before)
    const check = KEYWORDS[keyword];
    for (const found of check(schema[keyword], instance, schema)) {
      if (found.keyword === undefined) Object.assign(found, { keyword, instance });
      found.schemaPath.unshift(keyword);
      if (path !== undefined) found.path.unshift(path);
      if (schemaPath !== undefined) found.schemaPath.unshift(schemaPath);
      errors.push(found);
    }
  }
  return errors;
}

function additionalKeys(instance, schema) {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const regexes = Object.keys(schema.patternProperties ?? {}).map(patternRegExp);
  const extras = Object.keys(instance).filter((key) => !hasOwn(properties, key) && !regexes.some((re) => re.test(key)));
  return sortedStrings(extras);
}

const KEYWORDS = {
  type(types, instance) {
    types = typeof types === "string" ? [types] : types;
    if (types.some((type) => isType(instance, type))) return [];
    return [error(`${show(instance)} is not of type ${types.map(show).join(", ")}`)];
  },
  required(names, instance) {
    if (!isObject(instance)) return [];
    return names.filter((name) => !hasOwn(instance, name)).map((name) => error(`${show(name)} is a required property`));
  },
  properties(properties, instance) {
    if (!isObject(instance)) return [];
    return Object.keys(properties).flatMap((key) => (hasOwn(instance, key) ? descend(instance[key], properties[key], key, key) : []));
  },
  patternProperties(properties, instance) {
    if (!isObject(instance)) return [];
    return Object.keys(properties).flatMap((pattern) => Object.keys(instance)
      .filter((key) => patternRegExp(pattern).test(key))
      .flatMap((key) => descend(instance[key], properties[pattern], key, pattern)));
  },
  additionalProperties(allowed, instance, schema) {
    if (!isObject(instance) || allowed !== false) return []; // a schema here was refused before
    const extras = additionalKeys(instance, schema);
    if (!extras.length) return [];
    const names = extras.map(show).join(", ");
    if (hasOwn(schema, "patternProperties")) {
      const regexes = sortedStrings(Object.keys(schema.patternProperties)).join(", ");
      return [error(`${names} ${extras.length === 1 ? "does" : "do"} not match any of the regexes: ${regexes}`)];
    }
    return [error(`Additional properties are not allowed (${names} ${extras.length === 1 ? "was" : "were"} unexpected)`)];
  },
  items(items, instance) {
    if (!Array.isArray(instance)) return [];
    if (Array.isArray(items)) {
      return items.slice(0, instance.length).flatMap((schema, i) => descend(instance[i], schema, i, i));
    }
    return instance.flatMap((item, i) => descend(item, items, i));
  },
  enum(values, instance) {
    return values.some((value) => equal(value, instance)) ? [] : [error(`${show(instance)} is not one of ${show(values)}`)];
  },
  minItems(least, instance) {
    if (!Array.isArray(instance) || instance.length >= least) return [];
    return [error(`${show(instance)} ${least === 1 ? "should be non-empty" : "is too short"}`)];
  },
  minProperties(least, instance) {
    if (!isObject(instance) || Object.keys(instance).length >= least) return [];
    return [error(`${show(instance)} ${least === 1 ? "should be non-empty" : "does not have enough properties"}`)];
  },
  pattern(pattern, instance) {
    if (typeof instance !== "string" || patternRegExp(pattern).test(instance)) return [];
    return [error(`${show(instance)} does not match ${pattern}`)];
  },
  maxLength(most, instance) {
    if (typeof instance !== "string" || [...instance].length <= most) return []; // code points, as Python's len
    return [error(`${show(instance)} ${most === 0 ? "is expected to be empty" : "is too long"}`)];
  },
  minimum(least, instance) {
    if (!isType(instance, "number") || !(instance < least)) return [];
    return [error(`${show(instance)} is less than the minimum of ${show(least)}`)];
  },
  oneOf(branches, instance) {
    const context = [];
    let first = -1;
    for (let i = 0; i < branches.length; i++) {
      const errors = descend(instance, branches[i], undefined, i);
      if (!errors.length) {
        first = i;
        break;
      }
      context.push(...errors);
    }
    if (first < 0) return [error(oneOfMessage(instance, context), { context })];
    const more = branches.slice(first + 1).filter((branch) => descend(instance, branch).length === 0);
    if (!more.length) return [];
    return [error(`${show(instance)} is valid under each of ${[...more, branches[first]].map(show).join(", ")}`)];
  },
  format() {
    return []; // jsonschema checks formats only when given a format checker; the CLI gives none
  },
};

/* Why a prerequisite matches none of the schema's three branches (script/output, data, dockerimage). */
function oneOfMessage(instance, context) {
  if (!isObject(instance)) return `${show(instance)} is not valid under any of the given schemas`;
  const kind = own(instance, "type");
  if (kind === "dockerimage") {
    const extra = sortedStrings(Object.keys(instance).filter((key) => !DOCKERIMAGE_KEYS.includes(key)));
    if (extra.length) return `a dockerimage prerequisite allows no key ${extra.map(show).join(", ")}`;
    if (!hasOwn(instance, "uri")) return 'a dockerimage prerequisite needs "uri"';
  }
  if (!hasOwn(instance, "type")) return `a prerequisite needs "type", one of ${show(PREREQUISITE_TYPES)}`;
  if (!PREREQUISITE_TYPES.includes(kind)) return `prerequisite type ${show(kind)} is not one of ${show(PREREQUISITE_TYPES)}`;
  // The branch for this type is the one whose "type" matched: report its first error.
  const branches = new Map();
  for (const sub of context) {
    const branch = sub.schemaPath.length ? sub.schemaPath[0] : null;
    if (!branches.has(branch)) branches.set(branch, []);
    branches.get(branch).push(sub);
  }
  for (const subs of branches.values()) {
    if (!subs.some((sub) => sub.path.length === 1 && sub.path[0] === "type")) {
      const where = subs[0].path.map(String).join(".");
      return `not a valid ${kind} prerequisite: ${where ? `${where}: ` : ""}${subs[0].message}`;
    }
  }
  return "not a valid prerequisite";
}

/* The draft-7 keywords `schema` uses that this module does not implement (as protocol.unsupported_keywords). */
export function unsupportedKeywords(schema) {
  const found = new Set();
  const walk = (node) => {
    if (!isObject(node)) return;
    for (const [keyword, value] of Object.entries(node)) {
      if (DRAFT7_KEYWORDS.has(keyword) && !hasOwn(KEYWORDS, keyword)) found.add(keyword);
      else if (keyword === "additionalProperties" && typeof value !== "boolean") found.add("additionalProperties (a schema)");
      let children = [];
      if (["properties", "patternProperties", "definitions"].includes(keyword) && isObject(value)) children = Object.values(value);
      else if (["items", "allOf", "anyOf", "oneOf"].includes(keyword) && Array.isArray(value)) children = value;
      else if (keyword === "dependencies" && isObject(value)) children = Object.values(value).filter(isObject);
      else if (ONE_SCHEMA.includes(keyword) || keyword === "items") children = [value];
      children.forEach(walk);
    }
  };
  walk(schema);
  return sortedStrings(found);
}

const checkedSchemas = new WeakSet();

/* The schema's errors for `job`, sorted by path (each part as a string), ties in jsonschema's order. */
export function schemaProblems(job, schema) {
  if (typeof schema === "object" && schema !== null && !checkedSchemas.has(schema)) {
    const unsupported = unsupportedKeywords(schema);
    if (unsupported.length) throw new Error(`the OpenPAI schema uses keywords prereq cannot word: ${unsupported.join(", ")}`);
    checkedSchemas.add(schema);
  }
  const errors = descend(job, schema);
  errors.sort((a, b) => comparePaths(a.path, b.path)); // a stable sort, as Python's sorted
  return errors.map((found) => ({ path: found.path, message: found.message, source: "schema" }));
}
