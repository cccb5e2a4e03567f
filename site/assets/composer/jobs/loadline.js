/* prereq's lines that hand exported variables on (tools/prereq/jobs/loadline.py): the load line atop
 * a task role's commands; the callback lines, the long one on each task role's first callback.
 * May import: core/, yaml/, openpai/, index/.
 */

import { digest, isCmd } from "../openpai/forms.js";
import { topEntries } from "./document.js";

const START = "taskStarts";
const SUCCEED = "taskSucceeds";

/* Today's or an earlier prereq's load line, or one its user adapted (it starts as one and keeps the
 * mark); a user's own line that only carries the mark is not. */
export function isLoadLine(index, command) {
  const line = index.root.job_load_line;
  const mark = line.slice(line.indexOf("# prereq:"));
  if (typeof command !== "string") return false;
  const start = command.trimStart();
  const loads = line.split(" ").slice(0, 2).join(" ");
  if (command === line || (index.root.replaced_load_lines || []).includes(command)) return true;
  return command.includes(mark) && (start.startsWith(loads) || start.startsWith("if [ -f"));
}

/* The load line first when `needed` (the role runs a cmd item), else none. */
export function planLoadLine(work, job, role, needed, index, warnings) {
  // A deployment's preCommands run before the commands, in the same shell: load there too.
  const deployments = work.get(["deployments"]);
  for (let position = 0; position < (Array.isArray(deployments) ? deployments.length : 0); position++) {
    const pre = ["deployments", position, "taskRoles", role, "preCommands"];
    if (Array.isArray(work.get(pre))) warnStale(job, pre, placeLoadLine(work, pre, needed, index), index, warnings);
  }
  const path = ["taskRoles", role, "commands"];
  if (Array.isArray(work.get(path))) {
    warnStale(job, path, placeLoadLine(work, path, needed, index), index, warnings);
  } else if (needed) {
    warnings.push(`${job.where(["taskRoles", role])}: task role ${role} has no list of commands; ` +
      "variables exported by prerequisites will not reach it");
  }
}

function warnStale(job, path, stale, index, warnings) {
  for (const position of stale) {
    warnings.push(`${job.where([...path, position])}: this load line, changed by hand, reads the file an earlier prereq ` +
      `used, which nothing writes now; replace it with: ${index.root.job_load_line}`);
  }
}

/* An earlier prereq's line becomes today's where it stands; a list keeps one entry.  Returns the
 * positions of such lines their user changed: left as they are, they load nothing. */
function placeLoadLine(work, path, needed, index) {
  const commands = work.get(path);
  const present = commands.flatMap((command, i) => (isLoadLine(index, command) ? [i] : []));
  const replaced = index.root.replaced_load_lines || [];
  for (const position of present) {
    if (needed && replaced.includes(commands[position])) work.set([...path, position], index.root.job_load_line);
  }
  const stale = present.filter((i) => needed && work.get([...path, i]).trimStart().startsWith("if [ -f"));
  if (needed && !present.length) {
    if (commands.length) work.insert([...path, 0], index.root.job_load_line);
    else work.set(path, [index.root.job_load_line]);
  } else if (!needed) {
    for (const position of present.reverse()) if (work.get(path).length > 1) work.delete([...path, position]);
  }
  return stale;
}

/* {first, other}, or null for an older index (one line on every callback: nothing to place). */
export function callbackLines(root) {
  const lines = root && root.callback_lines;
  return lines && typeof lines === "object" ? { first: lines.first, other: lines.other } : null;
}

/* [position, event] of a cmd entry's callbacks that start with one of prereq's lines. */
function ownCallbacks(entry, lines) {
  if (!isCmd(entry) || !Array.isArray(entry.callbacks)) return [];
  return entry.callbacks.flatMap((callback, position) => (
    callback && typeof callback === "object" && Array.isArray(callback.commands) && callback.commands.length &&
    (callback.commands[0] === lines.first || callback.commands[0] === lines.other) ? [[position, callback.event]] : []));
}

/* "entry,callback" of each task role's first: the runtime runs start callbacks in the order the role
 * lists its prerequisites, then succeed callbacks in reverse. */
export function firstCallbacks(data, lines) {
  const entries = topEntries(data);
  const byName = new Map();
  entries.forEach((entry, position) => {
    if (entry && typeof entry === "object" && ownCallbacks(entry, lines).length && !byName.has(entry.name)) {
      byName.set(entry.name, position);
    }
  });
  const firsts = new Set();
  const roles = data.taskRoles && typeof data.taskRoles === "object" ? Object.values(data.taskRoles) : [];
  for (const spec of roles) {
    const names = spec && typeof spec === "object" && Array.isArray(spec.prerequisites) ? spec.prerequisites : [];
    const listed = names.filter((n) => typeof n === "string" && byName.has(n)).map((n) => byName.get(n));
    const runs = [[START, listed], [SUCCEED, [...listed].reverse()]].flatMap(([event, order]) =>
      order.flatMap((entry) => ownCallbacks(entries[entry], lines).filter(([, kind]) => kind === event)
        .map(([callback]) => `${entry},${callback}`)));
    if (runs.length) firsts.add(runs[0]);
  }
  return firsts;
}

export function planCallbackLines(work, lines) {
  if (!lines) return;
  const firsts = firstCallbacks(work.data, lines);
  topEntries(work.data).forEach((entry, position) => {
    for (const [callback] of ownCallbacks(entry, lines)) {
      const wanted = firsts.has(`${position},${callback}`) ? lines.first : lines.other;
      const path = ["prerequisites", position, "callbacks", callback, "commands", 0];
      if (work.get(path) !== wanted) work.set(path, wanted);
    }
  });
}

/* As the index digests the form: the long callback line counts as the short one. */
export function entryDigest(entry, lines) {
  const own = lines ? new Set(ownCallbacks(entry, lines).map(([position]) => position)) : new Set();
  if (!own.size) return digest(entry);
  const callbacks = entry.callbacks.map((callback, position) => (own.has(position) ?
    { ...callback, commands: [lines.other, ...callback.commands.slice(1)] } : callback));
  return digest({ ...entry, callbacks });
}
