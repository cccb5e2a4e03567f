/* What the job itself would be refused for, said before Submit (no DOM, no network): a task role
 * with no image, what Submit's preparation finds, and an unusable starting image; each on its editor
 * line.  Administrators are told which setting to change, other users whom to ask.
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { PrereqError } from "../core/errors.js";
import { formatPath } from "../yaml/yamlload.js";
import { rolesWithoutImage } from "../jobs/prepare.js";
import { messageLine } from "../ui/editor.js";

// how the protocol schema (openpai/protocol.js, in jsonschema's words) says a role has no image
const NO_IMAGE = '"dockerImage" is a required property';
const ASK = "ask your administrators";

function onLine(check, line, lines) {
  const found = Number.isInteger(line) && line >= 1 && line <= lines;
  return { fresh: "", hint: "", ...check, line: found ? line : 0, lineless: !found };
}

function imageChecks(missing, { index, starting, admin, lines }) {
  const images = [...index.entries.values()].filter((entry) => entry.type === "dockerimage");
  const image = starting && starting.image;
  let hint = images.length
    ? "check a Docker image in the list (type: Docker images), or give the task role a dockerImage naming one of the job's dockerimage prerequisites"
    : "add a prerequisite of type dockerimage (its uri is the image) and give the task role a dockerImage naming it";
  if (admin && !image) hint += "; to start new jobs with one, name a Docker image item in the registry's prereq.yaml (composer.image) or in this plugin's entry (image)";
  return missing.map(({ role, line }) => onLine({
    check: "image", state: "missing", role, add: image || "", hint,
    message: `No image yet: task role ${role} names no dockerImage, and OpenPAI runs no task role without one.`,
  }, line, lines));
}

/* Why new jobs do not start with the image chosen for them (jobfile.js's startingJob). */
function startChecks(starting, { admin }) {
  return ((starting && starting.problems) || []).map(({ from, image, reason }) => (admin ? {
    check: "start", state: "unusable", line: 0, fresh: "",
    message: `${from === "entry" ? "This plugin's entry" : "The registry's prereq.yaml (composer.image)"} names ${image} as the image new jobs start with, but ${reason}.`,
    hint: from === "entry" ? "name a Docker image item of the index in the entry's image (or config.image)"
      : "name a Docker image item in composer.image, then rebuild the index",
  } : {
    check: "start", state: "unusable", line: 0, fresh: "",
    message: `The image your administrators chose for new jobs (${image}) is not in the index.`,
    hint: `${ASK}; meanwhile check a Docker image in the list`,
  }));
}

/* A heading line ("OpenPAI's runtime could not start the job:") goes after each line under it. */
function messageLines(message) {
  const found = [];
  let heading = "";
  for (const text of message.split("\n").map((line) => line.trim()).filter(Boolean)) {
    const place = messageLine(text);
    if (!place.aboutJob && text.endsWith(":")) heading = text.slice(0, -1);
    else found.push({ line: place.line, said: heading ? `${place.said} (${heading})` : place.said });
  }
  return found;
}

// The engine's hints are the CLI's; in the portal a stored expression is set under Your values instead.
const STORE_HINT = /^store your value with: (.*)$/;
export const portalHint = (hint) => hint.replace(STORE_HINT, (_, commands) => "set " +
  commands.split("; ").map((command) => command.split(" ")[3]).join(", ") + " under Your values, below, then check again");

/* A check per problem listed (else per line of the message), the hint on the last; a missing image
 * is left to imageChecks, which offers to add one. */
function errorChecks(error, { missing, lines }) {
  const roles = new Set(missing.map(({ role }) => role));
  const imageSaid = (p) => p.message === NO_IMAGE && p.path.length === 2 && p.path[0] === "taskRoles" && roles.has(p.path[1]);
  const found = Array.isArray(error.problems)
    ? error.problems.filter((p) => !imageSaid(p)).map((p) => ({
      line: p.line, said: `${formatPath(p.path, { empty: "(job)" })}: ${p.message} (${p.stoppedBy})` }))
    : messageLines(error.message);
  const checks = found.map(({ line, said }) => onLine({ check: "job", state: "refused", message: said }, line, lines));
  if (checks.length) checks[checks.length - 1].hint = portalHint(error.hint || "");
  return checks;
}

/* `prepare(text)` is Submit's preparation; `starting` jobfile.js's startingJob; `missing`, when the
 * engine has read it, rolesWithoutImage's. */
export async function jobChecks(text, { prepare, index, starting = null, admin = false, missing = rolesWithoutImage(text) }) {
  const lines = text.split(/\r\n|\n|\r/).length;
  const checks = [...imageChecks(missing, { index, starting, admin, lines })];
  try {
    const prepared = await prepare(text);
    const warnings = prepared.warnings.map((warning) => messageLine(warning))
      .map(({ line, said }) => onLine({ check: "job", state: "warning", message: "warning: " + said }, line, lines));
    checks.push(...(warnings.length ? warnings : [{ check: "job", state: "ready", line: 0, fresh: "", hint: "",
      message: "OpenPAI's checks pass: the rest-server's schema and its own checks, run here before you submit." }]));
  } catch (error) {
    if (!(error instanceof PrereqError)) throw error;
    checks.push(...errorChecks(error, { missing, lines }));
  }
  return [...checks, ...startChecks(starting, { admin })];
}
