/* Items that must not share a task role with others, as their `conflicts` say (tools/prereq/jobs/conflicts.py).
 * May import: core/, yaml/, openpai/, index/.
 */

import { PrereqError } from "../core/errors.js";
import { isObject } from "../openpai/protocol.js";

const PLUGIN_PREFIX = "com.microsoft.pai.runtimeplugin.";
const EXTRAS_PLUGINS = "com.microsoft.pai.runtimeplugin"; // the key of extras that lists admin-style plugins

/* Something a task role runs: an index item, the user's own entry or an extras plugin. */
export function runner(label, name, plugin, { conflicts = [], path = null } = {}) {
  return { label, name, plugin: typeof plugin === "string" ? plugin : null, conflicts, path };
}

function clashes(one, other) {
  return one.conflicts.find((c) => c === other.name || c === other.plugin) ?? null;
}

function extrasPlugins(data, role) {
  const entries = isObject(data.extras) ? data.extras[EXTRAS_PLUGINS] : null;
  return (Array.isArray(entries) ? entries : []).flatMap((entry, position) => {
    const short = isObject(entry) ? entry.plugin : undefined;
    const roles = isObject(entry) ? entry.taskroles : undefined;
    if (typeof short !== "string" || (Array.isArray(roles) && !roles.includes(role))) return [];
    return [runner(`the ${short} plugin of extras.${EXTRAS_PLUGINS}`, null, PLUGIN_PREFIX + short,
      { path: ["extras", EXTRAS_PLUGINS, position] })];
  });
}

/* The user's own entries task role `role` lists (`managed`: the index's items). */
export function ownRunners(job, role, managed) {
  const plugins = new Map();
  for (const item of job.data.prerequisites || []) {
    if (isObject(item) && item.type !== "dockerimage" && !plugins.has(item.name)) plugins.set(item.name, item.plugin);
  }
  return (job.roles[role].prerequisites || []).flatMap((name, position) => (managed.has(name) ? [] :
    [runner(`the job's own ${name}`, name, plugins.get(name), { path: ["taskRoles", role, "prerequisites", position] })]));
}

/* Only a conflict involving a `fresh` item (one the role did not list yet) is refused. */
export function refuseItemConflicts(job, role, items, fresh, own) {
  const others = [...items, ...own, ...extrasPlugins(job.data, role)];
  const declaring = others.filter((other) => other.conflicts.length > 0); // all one declaring none can clash with
  for (const item of items) {
    if (!fresh.has(item.name)) continue;
    for (const other of item.conflicts.length > 0 ? others : declaring) {
      if (other === item) continue;
      const mine = clashes(item, other);
      const [declarer, what] = mine !== null ? [item, mine] : [other, clashes(other, item)];
      if (what === null) continue;
      const message = `task role ${role} cannot run both ${item.label} and ${other.label}: ${declarer.label} conflicts with ${what}`;
      const hint = other.name === null ? `remove ${other.label} from the job, or do not select ${item.label}` : "select only one of them";
      if (other.path !== null) throw job.error(other.path, message, { hint });
      throw new PrereqError(message, { hint });
    }
  }
}
