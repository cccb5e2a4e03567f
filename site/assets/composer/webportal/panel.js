/* What the plugin adds to the composer's markup: Submit and the hand-off, the submission's outcome,
 * the panel of the user's values.  Text goes in through textContent, attributes and form values only.
 *
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { el } from "../ui/panels.js";

function button(id, text, primary) {
  const node = el("button", "md-button" + (primary ? " md-button--primary" : ""), text);
  node.type = "button";
  node.id = id;
  return node;
}

export function drawControls(root) {
  const toolbar = root.querySelector(".prereq-composer__toolbar");
  const submit = button("prereq-plugin-submit", "Submit", true);
  const handOver = button("prereq-plugin-handover", "Open in the submission page", false);
  toolbar.append(submit, handOver);
  const outcome = el("div", "prereq-plugin__outcome");
  outcome.id = "prereq-plugin-outcome";
  outcome.setAttribute("role", "status");
  outcome.setAttribute("aria-live", "polite");
  outcome.hidden = true;
  root.querySelector("#prereq-composer-error").before(outcome);
  const mine = el("section", "prereq-plugin__mine");
  mine.id = "prereq-plugin-mine";
  mine.setAttribute("aria-label", "Your values");
  mine.append(el("h2", null, "Your values"));
  const where = el("p", "prereq-plugin__where");
  where.id = "prereq-plugin-where";
  const list = el("ul", "prereq-plugin__expressions");
  list.id = "prereq-plugin-expressions";
  const form = el("form", "prereq-plugin__add");
  const key = el("input");
  const value = el("input");
  Object.assign(key, { id: "prereq-plugin-key", placeholder: "KEY", spellcheck: false, required: true, pattern: "[A-Za-z0-9_\\-]+" });
  Object.assign(value, { id: "prereq-plugin-value", placeholder: "value", spellcheck: false });
  key.setAttribute("aria-label", "Expression key");
  value.setAttribute("aria-label", "Expression value");
  const save = el("button", "md-button", "Set");
  save.type = "submit";
  save.id = "prereq-plugin-set";
  form.append(el("span", null, "<% expression."), key, el("span", null, "%> ="), value, save);
  mine.append(where, el("p", "prereq-plugin__where", "Expression values filled in when you submit:"), list, form);
  root.querySelector(".prereq-composer__job").append(mine);
  return { submit, handOver, outcome, where, list, form, key, value };
}

export function drawMine(controls, store, remove) {
  const user = store.server.user;
  controls.where.textContent = store.where === "cluster"
    ? `Favorites, recently used items and expression values are kept in your OpenPAI record (${user}), in every browser.`
    : `Kept in this browser only: ${store.reason}`;
  controls.where.setAttribute("data-where", store.where);
  controls.list.textContent = "";
  const values = store.expressions();
  const keys = Object.keys(values).sort();
  if (!keys.length) controls.list.append(el("li", "prereq-composer__none", "none yet"));
  for (const key of keys) {
    const item = el("li");
    item.setAttribute("data-key", key);
    item.append(el("code", null, `<% expression.${key} %>`), el("span", null, "= " + values[key]));
    const drop = el("button", "md-button", "Remove");
    drop.type = "button";
    drop.setAttribute("aria-label", `Remove the value of ${key}`);
    drop.addEventListener("click", () => remove(key));
    item.append(drop);
    controls.list.append(item);
  }
}

/* `kind`: "working", "submitted", "refused" or "confirm"; `parts`: strings or nodes. */
export function showOutcome(controls, kind, parts) {
  const box = controls.outcome;
  box.textContent = "";
  box.hidden = !parts.length;
  box.setAttribute("data-outcome", kind);
  for (const part of parts) box.append(typeof part === "string" ? document.createTextNode(part) : part);
}

export function link(text, href) {
  const node = el("a", null, text);
  node.setAttribute("href", href);
  return node;
}

export { button, el };
