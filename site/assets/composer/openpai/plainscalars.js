/* A job's plain scalars as OpenPAI's YAML 1.1 readers take them, where prereq's YAML 1.2 keeps the text
 * (prereq.openpai.plainscalars, the same rules): what the rest-server's js-yaml would refuse or change, and
 * the runtime's PyYAML fail.  Each check takes the job's data and `written(path, {key})` (writtenIn's): the
 * text of a value (or key) written plain, null in quotes.
 * May import: core/, yaml/, vendor/.
 */

import * as placeholders from "../core/placeholders.js";
import { isObject } from "./protocol.js";

// A YAML 1.1 timestamp: the rest-server's js-yaml reads such a plain scalar as a date, prereq as a string.
const TIMESTAMP = new RegExp("^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \\t]+)" +
  "[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]*)?(?:[ \\t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$");
const FREE_FORM = ["extras", "parameters", "secrets"]; // keys whose values the rest-server's schema does not type
const RUNTIME_NOT_A_NAME = /^(?:yes|no|on|off)$/; // YAML 1.1 booleans that YAML 1.2 reads as strings
// What js-yaml 3 reads as no string where YAML 1.2 reads one (plainscalars.py's JSYAML_NOT_STRING).
const JSYAML_NOT_STRING = new RegExp("^(?:[-+]?(?:0b[0-1_]+|0[0-7_]+|0x[0-9a-fA-F_]+|(?:0|[1-9][0-9_]*)(?:\\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?" +
  "|\\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\\.[0-9_]*)?|\\.(?:inf|Inf|INF))|\\.(?:nan|NaN|NAN))$");
const COMMANDS = ["commands", "preCommands", "postCommands"]; // the lists the rest-server joins into an entrypoint
const problem = (path, message, source) => ({ path, message, source });

/* jobs/document.py's JobDocument.written for a job's loaded text and its lines: the text of path's value
 * (or key) as written plain, up to a blank, a flow indicator or a comment; null in quotes (code points). */
export const writtenIn = (loaded, lines) => (path, { key = false } = {}) => {
  const [line, column] = loaded.position(path, { key });
  // A path the text does not hold as given (a key 1 or true, which JavaScript data names "1", "true") is
  // placed at its parent's: no text of its own, as Python's lookup of the key "1" finds none.
  if (!key && path.length && loaded.position(path.slice(0, -1)).join() === [line, column].join()) return null;
  const full = line > 0 && line <= lines.length ? lines[line - 1].replace(line === 1 ? /^\ufeff/ : /^$/, "") : "";
  let text = Array.from(full).slice(column - 1).join("").replace(/^(?:[&!]\S*[ \t]+)+/, ""); // an anchor, a tag
  const alias = /^\*([^\s,[\]{}]+)/.exec(text); // the value where its anchor is (a scalar's: on that line)
  if (alias) text = new RegExp(`&${alias[1].replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[ \t]+(.*)`).exec(lines.join("\n"))?.[1] ?? "";
  return ["'", '"'].includes(text[0]) ? null : /^[^\s,[\]{}]*/.exec(text)[0];
};
const has = (value, key) => Object.prototype.hasOwnProperty.call(value, key);

export const plainTimestamps = (data, written) => placeholders.strings(data)
  .filter(([path, value]) => !(path.length && FREE_FORM.includes(path[0])) && TIMESTAMP.test(value) && written(path) !== null)
  .map(([path, value]) => problem(path, `${value} is a date to the rest-server (a YAML 1.1 timestamp): quote it`, "rest-server"));

export const misreadRoleNames = (data, written) => Object.keys(data.taskRoles)
  .filter((role) => RUNTIME_NOT_A_NAME.test(role) && written(["taskRoles", role], { key: true }) !== null)
  .map((role) => problem(["taskRoles", role], `task role name ${role}, written plain, is a boolean to the runtime's YAML 1.1, ` +
    "which then does not find the task role: quote it or rename it", "runtime"));

/* The path and value <% $parameters.a.b[0] %> names in the job, as mustache looks names up; null for none. */
function parameter(data, expression) {
  let [path, value] = [["parameters"], data.parameters];
  for (const part of expression.replace(/\[/g, ".").replace(/\]/g, "").split(".").slice(1)) {
    if (isObject(value) && has(value, part)) [path, value] = [[...path, part], value[part]];
    else if (Array.isArray(value) && /^(?:0|[1-9][0-9]*)$/.test(part) && Number(part) < value.length) [path, value] = [[...path, Number(part)], value[Number(part)]];
    else return null; // left as written by the rest-server: not this check's
  }
  return [path, value];
}

/* The number js-yaml 3 reads from plain text YAML 1.2 reads as a number, or null for a string (089, 0o17). */
function jsyamlNumber(text) {
  const [sign, body] = text[0] === "-" ? [-1, text.slice(1)] : [1, text.replace(/^\+/, "")];
  if (/^0[0-7]+$/.test(body)) return sign * parseInt(body, 8);
  if (/^0x[0-9a-fA-F]+$/.test(body)) return sign * parseInt(body.slice(2), 16);
  if (/^(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?)$/.test(body)) return sign * Number(body);
  return [".inf", ".nan"].includes(body.toLowerCase()) ? sign * (body.toLowerCase() === ".inf" ? Infinity : NaN) : null;
}

/* How the value the rest-server's js-yaml reads differs from the one the user wrote (YAML 1.2's), so that
 * String() of it changes the command; "" when only its spelling may (1e-4, 1.50, True). */
function changed(written, path, value) {
  if (typeof value === "object" && value !== null) return "a list or mapping, which it writes as JavaScript does";
  const text = written(path);
  if (text === null || "|>".includes(text[0] || " ")) return ""; // quoted, or a block: a string as written
  if (value === null) return "null, for which it leaves the <% %> in the command";
  if (typeof value === "string") {
    if (TIMESTAMP.test(value)) return `${text}, which it reads as a date`;
    return JSYAML_NOT_STRING.test(value) ? `${text}, which it reads as a number` : "";
  }
  if (typeof value === "boolean") return ""; // js-yaml 3's booleans are YAML 1.2's
  const number = jsyamlNumber(text);
  const same = number === null || number === Number(value) || (Number.isNaN(number) && Number.isNaN(Number(value)));
  return same ? "" : `${text}, which it reads as ${number}`;
}

/* The string at path is rendered: a task role's command, or a pre- or postCommand of the default deployment
 * for a task role the job has (plainscalars.py's _rendered). */
function rendered(data, path) {
  if (path.length === 4 && path[0] === "taskRoles" && path[2] === "commands") return true;
  if (!(path.length === 6 && path[0] === "deployments" && path[2] === "taskRoles" && COMMANDS.slice(1).includes(path[4]))) return false;
  const defaultName = isObject(data.defaults) ? data.defaults.deployment : undefined;
  return defaultName !== undefined && defaultName !== null && data.deployments[path[1]].name === defaultName &&
    isObject(data.taskRoles) && has(data.taskRoles, path[3]);
}

/* The rest-server fills <% $parameters.X %> into a task role's commands (and its deployments' pre- and
 * postCommands) with String() of what its js-yaml read: a value it reads otherwise than YAML 1.2 (a date,
 * 0755, 1_000, 1:30), null or a list changes the command unsaid. */
export function changedParameters(data, written) {
  const found = [];
  for (const [path, text] of placeholders.strings(data)) {
    if (!rendered(data, path)) continue;
    for (const template of placeholders.find(text)) {
      const named = template.namespace === "$parameters" ? parameter(data, template.expression) : null;
      const why = named ? changed(written, ...named) : "";
      if (why) found.push(problem(path, `the rest-server fills ${template.text} in as ${why}: quote the parameter's value`, "entrypoint"));
    }
  }
  return found;
}
