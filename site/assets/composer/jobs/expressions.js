/* The user's values filled into a job (tools/prereq/jobs/expressions.py): in a command quoted for bash
 * where each stands; where it cannot be, filled in as written, with a warning.
 * May import: core/, yaml/, openpai/, index/.
 */

import * as placeholders from "../core/placeholders.js";
import { DOUBLE, MARK, OTHER, SAFE_WORD, SINGLE, WORD, quotingContexts } from "../openpai/shellwords.js";

const COMMAND_KEYS = ["commands", "preCommands", "postCommands"];
const ENCODED_MARK = "# prereq: quoted so the runtime passes it intact"; // prereq.openpai.runtime.ENCODED_MARK

/* `value` as bash reads it back in `context` (shellwords.js). */
export function quote(value, context) {
  if (context === WORD) return SAFE_WORD.test(value) ? value : "'" + value.replaceAll("'", "'\\''") + "'";
  if (context === DOUBLE) return value.replace(/([\\"$`])/g, "\\$1");
  return value;
}

function unsafe(value, context) {
  if (context === SINGLE) return value.includes("'");
  return context === OTHER && !SAFE_WORD.test(value);
}

export function describeUnquoted({ key, context }, where) {
  const place = context === SINGLE ? "inside '...'" : "where prereq cannot quote it";
  const holds = context === SINGLE ? "a '" : "shell syntax";
  return `${where}: <% expression.${key} %> stands ${place} and its value holds ${holds}: ` +
    "it is filled in as written, so the shell may read part of it as a command";
}

/* [text, unquoted] */
export function fillCommand(command, lookup) {
  const matches = [...command.matchAll(placeholders.TEMPLATE)];
  const pieces = command.split(placeholders.TEMPLATE).filter((_, index) => index % 2 === 0);
  let contexts = quotingContexts(pieces.join(MARK));
  if (command.endsWith(ENCODED_MARK) || command.includes(MARK)) contexts = matches.map(() => OTHER); // a NUL: no scan holds
  const out = [pieces[0]], unquoted = [];
  matches.forEach((match, index) => {
    const template = placeholders.parse(match[1], match[0]);
    const value = template.namespace === "expression" ? lookup(template.key) : null;
    if (value === null || value === undefined) {
      out.push(match[0]);
    } else {
      out.push(quote(String(value), contexts[index]));
      if (unsafe(String(value), contexts[index])) unquoted.push({ key: template.key, context: contexts[index] });
    }
    out.push(pieces[index + 1]);
  });
  return [out.join(""), unquoted];
}

/* [text, unquoted]: quoted in a command, as written elsewhere. */
export function fill(value, path, lookup) {
  const isCommand = path.length >= 2 && typeof path[path.length - 1] === "number" && COMMAND_KEYS.includes(path[path.length - 2]);
  return isCommand ? fillCommand(value, lookup) : [placeholders.renderString(value, "expression", lookup), []];
}
