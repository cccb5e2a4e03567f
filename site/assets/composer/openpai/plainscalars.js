/* A job's plain scalars as OpenPAI's YAML 1.1 readers take them, where prereq's YAML 1.2 keeps the text
 * (prereq.openpai.plainscalars, the same rules): what the rest-server's js-yaml would refuse or change, and
 * the runtime's PyYAML fail.  Each check takes the job's data and `written(path, {key})` (writtenIn's): the
 * text of a value (or key) written plain, null in quotes.
 * May import: core/, yaml/, vendor/.
 */

import * as placeholders from "../core/placeholders.js";
import { yaml11String } from "../yaml/yamlstyle.js";

// A YAML 1.1 timestamp: the rest-server's js-yaml reads such a plain scalar as a date, prereq as a string.
const TIMESTAMP = new RegExp("^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \\t]+)" +
  "[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]*)?(?:[ \\t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$");
const FREE_FORM = ["extras", "parameters", "secrets"]; // keys whose values the rest-server's schema does not type
const RUNTIME_NOT_A_NAME = /^(?:yes|no|on|off)$/; // YAML 1.1 booleans that YAML 1.2 reads as strings
// Plain numbers JavaScript's String() writes back as written (plainscalars.py's SAME_NUMBER).
const SAME_NUMBER = /^(?:-?(?:0|[1-9][0-9]{0,14})|-?(?:0\.0{0,5}[1-9][0-9]*|[1-9][0-9]*\.[0-9]*)(?<=[1-9]))$/;
const COMMANDS = ["commands", "preCommands", "postCommands"]; // the lists the rest-server joins into an entrypoint
const problem = (path, message, source) => ({ path, message, source });

/* jobs/document.py's JobDocument.written for a job's loaded text and its lines: the text of path's value
 * (or key) as written plain, up to a blank, a flow indicator or a comment; null in quotes (code points). */
export const writtenIn = (loaded, lines) => (path, { key = false } = {}) => {
  const [line, column] = loaded.position(path, { key });
  const text = line > 0 && line <= lines.length ? Array.from(lines[line - 1]).slice(column - 1).join("") : "";
  return ["'", '"'].includes(text[0]) ? null : /^[^\s,[\]{}]*/.exec(text)[0];
};
const has = (value, key) => Object.prototype.hasOwnProperty.call(value, key);
const isMapping = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

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
    if (isMapping(value) && has(value, part)) [path, value] = [[...path, part], value[part]];
    else if (Array.isArray(value) && /^[0-9]+$/.test(part) && Number(part) < value.length) [path, value] = [[...path, Number(part)], value[Number(part)]];
    else return null; // left as written by the rest-server: not this check's
  }
  return [path, value];
}

/* How the rest-server's String() of the value its js-yaml read differs from what the user wrote, or "". */
function changed(written, path, value) {
  if (typeof value === "object" && value !== null) return "a list or mapping, which it writes as JavaScript does";
  const text = written(path);
  if (text === null || "|>".includes(text[0] || " ")) return ""; // quoted, or a block: a string as written
  if (value === null) return "null, for which it leaves the <% %> in the command";
  if (typeof value === "string") return yaml11String(value) ? "" : `${text}, which it reads as ${TIMESTAMP.test(value) ? "a date" : "no string"}`;
  if (typeof value === "boolean") return ["true", "false"].includes(text) ? "" : `${text}, which it writes as ${value}`;
  return SAME_NUMBER.test(text) ? "" : `${text}, which it may write otherwise as a number`;
}

/* The rest-server fills <% $parameters.X %> into a task role's commands (and its deployments' pre- and
 * postCommands) with String() of what its js-yaml read: a value whose String() is not its text as written
 * (a date, 0755, True, 1.50, null, a list) changes the command unsaid. */
export function changedParameters(data, written) {
  const found = [];
  for (const [path, text] of placeholders.strings(data)) {
    if (path.length < 2 || !["taskRoles", "deployments"].includes(path[0]) || !COMMANDS.includes(path[path.length - 2])) continue;
    for (const template of placeholders.find(text)) {
      const named = template.namespace === "$parameters" ? parameter(data, template.expression) : null;
      const why = named ? changed(written, ...named) : "";
      if (why) found.push(problem(path, `the rest-server fills ${template.text} in as ${why}: quote the parameter's value`, "entrypoint"));
    }
  }
  return found;
}
