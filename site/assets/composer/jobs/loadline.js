/* prereq's lines in a job, that hand exported variables on (tools/prereq/jobs/loadline.py, whose
 * docstring says what they are): the load line at the top of a task role's commands, and the callback
 * lines, the long one on the first callback each task role runs.
 *
 * May import: core/, yaml/, openpai/, index/.
 */

import { digest, isCmd } from "../openpai/forms.js";
import { topEntries } from "./document.js";

const START = "taskStarts";
const SUCCEED = "taskSucceeds";

/* The index's load line, one an earlier prereq wrote (the index's replaced_load_lines), or a line that
 * starts as it (or as an earlier prereq's did: "if [ -f") and keeps its mark: a load line its user
 * adapted.  A line of the user's own that only carries the mark is not. */
export function isLoadLine(index, command) {
  const line = index.root.job_load_line;
  const mark = line.slice(line.indexOf("# prereq:"));
  if (typeof command !== "string") return false;
  const start = command.trimStart();
  const loads = line.split(" ").slice(0, 2).join(" ");
  if (command === line || (index.root.replaced_load_lines || []).includes(command)) return true;
  return command.includes(mark) && (start.startsWith(loads) || start.startsWith("if [ -f"));
}

/* The task role's load line (and its deployments'): first when `needed` (it runs a cmd item), else none. */
export function planLoadLine(work, job, role, needed, index, warnings) {
  // A deployment's preCommands run before the task role's commands, in the same shell: load there too.
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

/* The load line first in the list at `path` when `needed`, else none (the list keeps one entry);
 * a line an earlier prereq wrote becomes today's, where it stands.  The positions of those an earlier
 * prereq wrote and their user changed: they stay as they are, and load nothing. */
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


/* The index's callback lines {first, other}, or null for an index whose forms carry one line for every
 * callback (an earlier prereq's): nothing to place. */
export function callbackLines(root) {
  const lines = root && root.callback_lines;
  return lines && typeof lines === "object" ? { first: lines.first, other: lines.other } : null;
}

/* [position, event] of each callback of a cmd entry that starts with one of prereq's lines. */
function ownCallbacks(entry, lines) {
  if (!isCmd(entry) || !Array.isArray(entry.callbacks)) return [];
  return entry.callbacks.flatMap((callback, position) => (
    callback && typeof callback === "object" && Array.isArray(callback.commands) && callback.commands.length &&
    (callback.commands[0] === lines.first || callback.commands[0] === lines.other) ? [[position, callback.event]] : []));
}

/* "entry,callback" keys of the first of prereq's callbacks each task role runs: the runtime runs start
 * callbacks in the order the role lists its prerequisites, then succeed callbacks in reverse. */
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

/* The long line on the first callback each task role runs, the short one on every other. */
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

/* The entry's digest as the index gives its form's: the long callback line read as the short one. */
export function entryDigest(entry, lines) {
  const own = lines ? new Set(ownCallbacks(entry, lines).map(([position]) => position)) : new Set();
  if (!own.size) return digest(entry);
  const callbacks = entry.callbacks.map((callback, position) => (own.has(position) ?
    { ...callback, commands: [lines.other, ...callback.commands.slice(1)] } : callback));
  return digest({ ...entry, callbacks });
}
