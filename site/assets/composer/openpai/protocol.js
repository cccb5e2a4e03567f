/* The CLI's schema_problems (prereq.openpai.protocol): a job's problems against the resolved OpenPAI
 * schema, word for word and in jsonschema 4.26's order.  A small draft-7 validator of just the keywords
 * that schema uses; a schema with others is refused (as by the CLI): their errors would differ.
 *
 * May import: core/, yaml/, vendor/.
 */

import { byCodePoint } from "../core/order.js";

export const PREREQUISITE_TYPES = Object.freeze(["script", "output", "data", "dockerimage"]);
// The CLI's TASK_ROLE_FIELDS: field -> the type of prerequisite it names, in the CLI's order.
export const TASK_ROLE_FIELD_TYPES = Object.freeze({ dockerImage: "dockerimage", data: "data", script: "script", output: "output" });
export const TASK_ROLE_FIELDS = Object.freeze(Object.keys(TASK_ROLE_FIELD_TYPES));
// The webportal's rule for task role names, a Python pattern.
export const TASK_ROLE_NAME_PATTERN = "^[a-z0-9]{1,63}$";
// The keys of the schema's dockerimage branch of oneOf.
const DOCKERIMAGE_KEYS = ["protocolVersion", "name", "version", "contributor", "description", "type", "uri", "auth"];

// jsonschema's Draft7Validator.VALIDATORS; other keys are ignored.
const DRAFT7_KEYWORDS = new Set(["$ref", "additionalItems", "additionalProperties", "allOf", "anyOf", "const",
  "contains", "dependencies", "enum", "exclusiveMaximum", "exclusiveMinimum", "format", "if", "items", "maxItems",
  "maxLength", "maxProperties", "maximum", "minItems", "minLength", "minProperties", "minimum", "multipleOf", "not",
  "oneOf", "pattern", "patternProperties", "properties", "propertyNames", "required", "type", "uniqueItems"]);
const ONE_SCHEMA = ["additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else"];

const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
export const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
export const own = (object, key) => (isObject(object) && hasOwn(object, key) ? object[key] : undefined);

// As the CLI's protocol.show writes values.
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

// Python's order of paths, each part as str(part).
function comparePaths(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = byCodePoint(String(a[i]), String(b[i]));
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

const patterns = new Map();

// Python's `$` also matches before a final "\n" (as re.search and re.match do), JS's only at the end.
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

export const TASK_ROLE_NAME = patternRegExp(TASK_ROLE_NAME_PATTERN);

// jsonschema's draft-7 types: the float 1.0 is an integer, a boolean no number.
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

// jsonschema's `equal` for enum: true is not 1.
export function equal(one, two) {
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

// jsonschema's ValidationError; keyword null for a `false` schema's.
function error(message, extra = {}) {
  return { message, path: [], schemaPath: [], keyword: undefined, instance: undefined, context: [], ...extra };
}

const falseError = (instance) => error(`False schema does not allow ${show(instance)}`, { keyword: null, instance });

// jsonschema's descend and iter_errors; as there, a `false` schema's error stays at the parent's path.
function descend(instance, schema, path, schemaPath) {
  if (schema === true) return [];
  if (schema === false) return [falseError(instance)];
  const errors = [];
  for (const keyword of Object.keys(schema)) {
    if (!hasOwn(KEYWORDS, keyword)) continue; // unsupported keywords were refused before
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
    return []; // jsonschema checks formats only with a format checker; the CLI gives none
  },
};

// Why a prerequisite matches none of the schema's branches, in the CLI's words.
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
  // Report the first error of the branch whose "type" matched.
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

// As the CLI's unsupported_keywords.
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
