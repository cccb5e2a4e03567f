/* `prereq share` (share_entry in tools/prereq/scaffold/share.py): a job's hand-written prerequisite as
 * a registry item.  Its keys, name rules and blanks come from the index's item_format: one table for both.
 * May import: core/, yaml/, openpai/, index/.
 */

import { PrereqError } from "../core/errors.js";
import { PyDict, pyStr, toPlain } from "../yaml/pyvalues.js";
import { Renderer } from "../yaml/yamlrender.js";
import { YamlLoadError, loadYaml } from "../yaml/yamlload.js";
import { loadError } from "../yaml/yamltext.js";
import { kinds, scanDocument } from "./credentials.js";

const NOT_COPIED = ["name", "type", "version", "owners"]; // the item says these itself (the owner is the user's)

const foldName = (name) => name.toLowerCase().replaceAll("_", "-");
const valueOf = (dict, key, fallback) => (dict.has(key) ? dict.get(key) : fallback);

function entries(jobText, source) {
  let loaded;
  try {
    loaded = loadYaml(jobText, { mergeKeys: true });
  } catch (error) {
    throw error instanceof YamlLoadError ? loadError(source, error, { hint: "fix the job's YAML" }) : error;
  }
  const data = loaded.typed;
  const listed = data instanceof PyDict ? valueOf(data, "prerequisites", null) : null;
  return Array.isArray(listed) ? listed : [];
}

function findEntry(jobText, name, source) {
  const listed = entries(jobText, source);
  const found = listed.filter((e) => e instanceof PyDict && valueOf(e, "name", null) === name);
  if (found.length > 1) {
    throw new PrereqError(`${source} has ${found.length} prerequisites named ${name}`, { hint: "rename one of them in the job first" });
  }
  if (!found.length) {
    const names = listed.filter((e) => e instanceof PyDict).map((e) => pyStr(valueOf(e, "name", null)));
    throw new PrereqError(`${source} has no prerequisite named ${name}`, {
      hint: "its prerequisites: " + (names.length ? names.join(", ") : "none"),
    });
  }
  return found[0];
}

/* itemformat.check_new_name */
function checkNewName(name, format, taken) {
  const pattern = new RegExp(`^(?:${format.name_pattern.replace(/^[\^$]+|[\^$]+$/g, "")})$`);
  if (!pattern.test(name) || Array.from(name).length > format.name_max_length) {
    throw new PrereqError(`name ${name} is not a valid name`, { hint: "use at most 63 letters, digits, '-' and '_'" });
  }
  if (new RegExp(`^(?:${format.windows_reserved})$`, "i").test(name)) {
    throw new PrereqError(`${name} cannot be a file name on Windows`, { hint: "choose another name (PRQ122)" });
  }
  const close = taken.filter((other) => foldName(other) === foldName(name) && other !== name);
  if (close.length) throw new PrereqError(`${name} is too close to the item ${close[0]}`, { hint: "choose another name (PRQ121)" });
}

/* share.item_from_entry: the entry's keys the item format does not know become its parameters. */
function itemFromEntry(entry, { name, owner, format }) {
  const kind = valueOf(entry, "type", "script");
  const item = new PyDict([["name", name], ["version", format.first_version], ["type", kind]]);
  for (const [key, value] of format.todo) item.set(key, structuredClone(value));
  item.set("owners", [owner]);
  if (kind === "data") item.set("license", format.data_license);
  const copied = entry.entries().filter(([key]) => !NOT_COPIED.includes(key));
  const written = copied.find(([key]) => key === "plugin");
  const plugin = written ? written[1] : format.default_plugin; // `plugin: ~` is a plugin, an unknown one
  let allowed = null;
  if (kind === "dockerimage") allowed = format.keys.dockerimage;
  else if (typeof plugin === "string" && Object.hasOwn(format.keys.plugins, plugin)) allowed = format.keys.plugins[plugin];
  const parameters = copied.filter(([key]) => allowed !== null && !allowed.includes(key));
  for (const [key, value] of copied) if (!parameters.some(([other]) => other === key)) item.set(key, value);
  if (parameters.length) {
    const held = item.has("parameters") ? item.get("parameters") : null;
    item.set("parameters", new PyDict([...(held instanceof PyDict ? held.entries() : []), ...parameters]));
  }
  return item;
}

/* `taken`: the index's item names; `format`: its root's item_format. */
export function shareEntry(jobText, name, { owner, format, taken = [], asName = null, source = "the job" }) {
  const entry = findEntry(jobText, name, source);
  const itemName = asName || name;
  checkNewName(itemName, format, taken);
  const leaks = scanDocument(entry).map(([, leak]) => leak);
  if (leaks.length) {
    throw new PrereqError(`${source}: prerequisite ${name} holds ${kinds(leaks)}; it cannot be shared`, {
      hint: "replace each credential in the job with <% $secrets.KEY %> (and the key under secrets:), then share",
    });
  }
  const item = itemFromEntry(entry, { name: itemName, owner, format });
  return { name: itemName, item: toPlain(item), text: new Renderer().lines(item, 0).join("\n") + "\n" };
}
