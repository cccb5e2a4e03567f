/* What a job must still supply for the items it runs (tools/prereq/jobs/needs.py): what `add` tells
 * the user, what `resolve` refuses.
 * May import: core/, yaml/, openpai/, index/.
 */

import { PrereqError } from "../core/errors.js";
import { formNeeds, missingNeeds, renderedForms } from "../openpai/needs.js";

const HINTS = {
  secrets: "add the secrets under the job's 'secrets:' with your values (prereq never writes them)",
  parameters: "add the parameters under the job's 'parameters:'",
  bindings: "name a prerequisite of that type in the task role's data:, script: or output: field",
};

/* What to add: for secrets the keys, never values. */
export function describeNeed(name, kind, keys, role) {
  const shown = keys.join(", ");
  if (kind === "secrets") return `${name} reads secrets the job does not define: add under 'secrets:' the keys ${shown}`;
  if (kind === "parameters") {
    return `${name} reads job parameters the job does not define: add under 'parameters:' the keys ${shown}`;
  }
  if (kind === "bindings") {
    const fields = keys.map((field) => `'${field}:'`).join(" and ");
    return `${name} reads ${keys.map((field) => "$" + field).join(", ")} in task role ${role}, which names no ` +
      `such prerequisite: set its ${fields} to a prerequisite of that type`;
  }
  const templates = keys.map((key) => `<% expression.${key} %>`).join(", ");
  const commands = keys.map((key) => `prereq expression set ${key} VALUE`).join("; ");
  return `${name} uses ${templates}: 'prereq job resolve' fills in your stored values (${commands})`;
}

function lines(data, role, name, needs) {
  return missingNeeds(needs, data, role).map(([kind, keys]) => [kind, describeNeed(name, kind, keys, role)]);
}

/* For the index items an edit put into a task role; `needsOf` gives null for the user's own entries. */
export function addNotes(before, after, roles, needsOf) {
  const notes = [];
  for (const role of roles) {
    const had = new Set(renderedForms(before, role).map(([, form]) => form.name));
    for (const [, form] of renderedForms(after, role)) {
      const name = form.name;
      const needs = typeof name === "string" && !had.has(name) ? needsOf(name) : null;
      if (!needs) continue;
      notes.push(...lines(after, role, name, needs).map(([, line]) => line));
      if ((needs.expressions || []).length) notes.push(describeNeed(name, "expressions", needs.expressions, role));
    }
  }
  return [...new Set(notes)];
}

export function refuseMissing(job) {
  const found = [];
  const kinds = [];
  for (const role of job.roleOrder()) {
    for (const [, form] of renderedForms(job.data, role)) {
      const name = String(form.name);
      for (const [kind, line] of lines(job.data, role, name, formNeeds(form))) {
        found.push(`${job.whereItem(name)}: ${line}`);
        kinds.push(kind);
      }
    }
  }
  if (found.length) {
    throw new PrereqError("OpenPAI's runtime could not start the job:\n    " + [...new Set(found)].join("\n    "),
      { exitCode: 1, hint: [...new Set(kinds)].map((kind) => HINTS[kind]).join("; ") });
  }
}
