/* What a prerequisite needs from the job it runs in (prereq.openpai.needs, whose docstring says how
 * the runtime renders $secrets, $parameters and $data/$script/$output and where it fails).
 *
 * May import: core/, yaml/, vendor/.
 */

import * as placeholders from "../core/placeholders.js";
import { byCodePoint } from "../core/order.js";
import { isObject } from "./protocol.js";

export const NEEDS_KEYS = ["secrets", "parameters", "bindings", "expressions"];
const BINDINGS = ["data", "script", "output"];
const PLUGIN_PREFIX = "com.microsoft.pai.runtimeplugin.";

// `a.b` of `$secrets.a.b[0].c`: the runtime looks names up as mapping keys up to an index.
function dotted(expression, namespace) {
  const names = [];
  for (const part of expression.slice(namespace.length + 1).split(".")) {
    const name = part.split("[")[0];
    if (name) names.push(name);
    if (part.includes("[")) break;
  }
  return names.join(".");
}

export function formNeeds(form) {
  const found = Object.fromEntries(NEEDS_KEYS.map((key) => [key, new Set()]));
  for (const [, value] of placeholders.strings(form)) {
    for (const template of placeholders.find(value)) {
      const namespace = template.namespace;
      if ((namespace === "$secrets" || namespace === "$parameters") && template.key) {
        found[namespace.slice(1)].add(dotted(template.expression, namespace));
      } else if (namespace !== null && namespace.startsWith("$") && BINDINGS.includes(namespace.slice(1))) {
        found.bindings.add(namespace.slice(1));
      } else if (namespace === "expression" && template.key) {
        found.expressions.add(template.key);
      }
    }
  }
  return Object.fromEntries(NEEDS_KEYS.map((key) => [key, [...found[key]].sort(byCodePoint)]));
}

function has(value, path) {
  for (const name of path.split(".")) {
    if (!isObject(value) || !Object.prototype.hasOwnProperty.call(value, name)) return false;
    value = value[name];
  }
  return true;
}

function bound(job, role, field) {
  const spec = job.taskRoles[role];
  const name = isObject(spec) ? spec[field] : undefined;
  const items = Array.isArray(job.prerequisites) ? job.prerequisites : [];
  return typeof name === "string" && items.some((item) => isObject(item) && item.type === field && item.name === name);
}

export function missingNeeds(needs, job, role) {
  const missing = [
    ["secrets", (needs.secrets || []).filter((key) => !has(job.secrets, key))],
    ["parameters", (needs.parameters || []).filter((key) => !has(job.parameters, key))],
    ["bindings", (needs.bindings || []).filter((field) => !bound(job, role, field))],
  ];
  return missing.filter(([, keys]) => keys.length);
}

// What the runtime renders for a task role, in its order: the plugins it lists, then its dockerImage.
export function renderedForms(job, role) {
  const items = Array.isArray(job.prerequisites) ? job.prerequisites : [];
  const spec = isObject(job.taskRoles[role]) ? job.taskRoles[role] : {};
  const find = (name, image) => {
    if (typeof name !== "string") return [];
    const position = items.findIndex((item) => isObject(item) && item.name === name && (item.type === "dockerimage") === image);
    if (position < 0) return [];
    const plugin = items[position].plugin;
    return image || (typeof plugin === "string" && plugin.startsWith(PLUGIN_PREFIX)) ? [[position, items[position]]] : [];
  };
  const names = Array.isArray(spec.prerequisites) ? spec.prerequisites : [];
  return [...names.flatMap((name) => find(name, false)), ...find(spec.dockerImage, true)];
}
