/* What the plugin adds to the composer's markup: Submit and the hand-off, the submission's outcome,
 * the panel of the user's values.  Text goes in through textContent, attributes and form values only.
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { el } from "../ui/panels.js";

function button(id, text, primary) {
  const node = el("button", "md-button" + (primary ? " md-button--primary" : ""), text);
  node.type = "button";
  if (id) node.id = id; // none: several checks may have one
  return node;
}

/* Static markup (no text of the user's or the index's), parsed as mount.js parses the composer's page. */
const nodes = (html) => new DOMParser().parseFromString(html, "text/html").body.children;

/* Submit and the hand-off; the checks and the outcome above the error; the queues and the user's values under the job. */
export function drawControls(root) {
  root.querySelector(".prereq-composer__toolbar").append(...nodes(
    '<button type="button" id="prereq-plugin-submit" class="md-button md-button--primary">Submit</button>' +
    '<button type="button" id="prereq-plugin-handover" class="md-button">Open in the submission page</button>'));
  root.querySelector("#prereq-composer-error").before(...nodes(
    '<ul id="prereq-plugin-checks" class="prereq-plugin__checks" aria-label="What the cluster would say" aria-live="polite"></ul>' +
    '<div id="prereq-plugin-outcome" class="prereq-plugin__outcome" role="status" aria-live="polite" hidden></div>'));
  root.querySelector(".prereq-composer__job").append(...nodes(
    '<section id="prereq-plugin-queues" class="prereq-plugin__queues" aria-label="Queues your groups get" hidden></section>' +
    '<section id="prereq-plugin-mine" class="prereq-plugin__mine" aria-label="Your values"><h2>Your values</h2>' +
    '<p id="prereq-plugin-where" class="prereq-plugin__where"></p><p class="prereq-plugin__where">Expression values filled in when you submit:</p>' +
    '<ul id="prereq-plugin-expressions" class="prereq-plugin__expressions"></ul><form class="prereq-plugin__add"><span>&lt;% expression.</span>' +
    '<input id="prereq-plugin-key" placeholder="KEY" spellcheck="false" required pattern="[A-Za-z0-9_\\-]+" aria-label="Expression key">' +
    '<span>%&gt; =</span><input id="prereq-plugin-value" placeholder="value" spellcheck="false" aria-label="Expression value">' +
    '<button type="submit" id="prereq-plugin-set" class="md-button">Set</button></form></section>'));
  const [submit, handOver, outcome, where, list, key, value] = ["submit", "handover", "outcome", "where", "expressions", "key", "value"]
    .map((id) => root.querySelector("#prereq-plugin-" + id));
  return { submit, handOver, outcome, where, list, form: key.form, key, value };
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
