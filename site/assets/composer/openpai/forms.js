/* An item's OpenPAI form as a job holds it (tools/prereq/openpai/forms.py): key order, digest, plugin.
 *
 * May import: core/, yaml/, vendor/.
 */

import { byCodePoint } from "../core/order.js";
import { isObject } from "./protocol.js";

export { digest } from "./digest.js";

const CMD_PLUGIN = "com.microsoft.pai.runtimeplugin.cmd";

function ordered(mapping, first) {
  const out = {};
  for (const key of first) if (Object.prototype.hasOwnProperty.call(mapping, key)) out[key] = mapping[key];
  for (const key of Object.keys(mapping).sort(byCodePoint)) if (!first.includes(key)) out[key] = mapping[key];
  return out;
}

export function orderedForm(index, form) {
  const orders = index.root.key_orders;
  const out = ordered(form, orders.form);
  if (Array.isArray(out.callbacks)) out.callbacks = out.callbacks.map((cb) => (isObject(cb) ? ordered(cb, orders.callback) : cb));
  if (isObject(out.userssh)) out.userssh = ordered(out.userssh, orders.userssh);
  return out;
}

export function isCmd(form) {
  return isObject(form) && form.plugin === CMD_PLUGIN;
}

// What the runtime hands the plugin.
export function runtimeParameters(form, liftedKeys) {
  return Object.fromEntries(Object.entries(form).filter(([key]) => !liftedKeys.includes(key)));
}
