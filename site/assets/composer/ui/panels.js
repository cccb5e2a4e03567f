/* The page besides the list (listing.js): messages, the error, the task role, its closure, and the
 * filters' and templates' options.  Text goes in through textContent and option values only.
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";
import { markError } from "./editor.js";

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function showMessages(ui, lines, warnings) {
  ui.messages.textContent = "";
  for (const line of lines) ui.messages.appendChild(el("li", "prereq-composer__change", line));
  for (const line of warnings || []) ui.messages.appendChild(el("li", "prereq-composer__warning", "warning: " + line));
}

/* A PrereqError is the user's to fix, anything else a bug, which the console gets too. */
export function showError(ui, error, { lead = "Cannot do that: " } = {}) {
  ui.error.textContent = "";
  ui.error.hidden = !error;
  markError(ui, error);
  if (!error) return;
  const expected = error instanceof PrereqError;
  ui.error.appendChild(el("strong", null, expected ? lead : "Unexpected problem: "));
  ui.error.appendChild(document.createTextNode(error.message));
  if (error.hint) ui.error.appendChild(el("div", "prereq-composer__hint", "hint: " + error.hint));
  if (!expected) console.error(error); // eslint-disable-line no-console
}

export function renderRoles(ui, view, role) {
  const roles = view ? view.roles : [];
  ui.role.textContent = "";
  for (const name of roles) ui.role.appendChild(new Option(name, name));
  if (roles.length) ui.role.value = role;
  ui.role.disabled = roles.length < 2;
}

export function renderClosure(ui, view, role) {
  ui.closure.textContent = "";
  ui.closureTitle.textContent = view ? `Task role ${role} runs, in this order` : "The job has a problem";
  if (!view) return;
  if (!view.closure.length) {
    ui.closure.appendChild(el("li", "prereq-composer__none", "no prerequisites from the registry yet"));
    return;
  }
  const names = new Set(view.closure.map((r) => r.name));
  for (const r of view.closure) {
    const item = el("li");
    item.setAttribute("data-name", r.name);
    item.appendChild(el("code", null, r.name));
    item.appendChild(document.createTextNode(" " + r.version));
    const by = r.requiredBy.filter((n) => names.has(n));
    item.appendChild(el("span", "prereq-composer__why", by.length ? " — required by " + by.join(", ") : " — selected"));
    ui.closure.appendChild(item);
  }
}

/* The type groups are the index's (the site names none); tags most used first. */
export function renderFilterOptions(ui, index) {
  const find = window.prereq;
  for (const group of Object.keys(find.typeGroups())) ui.type.appendChild(new Option(find.typeGroupLabel(group), group));
  const counts = new Map();
  for (const entry of index.root.items) for (const tag of entry.tags || []) counts.set(tag, (counts.get(tag) || 0) + 1);
  const tags = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [tag, count] of tags) ui.tag.appendChild(new Option(`${tag} (${count})`, tag));
}

export function renderTemplates(ui, index) {
  const templates = index.templates();
  for (const template of templates) {
    ui.template.appendChild(new Option(template.name + (template.title ? " — " + template.title : ""), template.name));
  }
  ui.template.disabled = !templates.length;
}

/* "+3: a, b, c", "−1: a" or "". */
export function closureChange(before, after) {
  const added = [...after].filter((n) => !before.has(n));
  const removed = [...before].filter((n) => !after.has(n));
  if (added.length) return `+${added.length}: ${added.join(", ")}`;
  return removed.length ? `−${removed.length}: ${removed.join(", ")}` : "";
}

/* A skip link focuses its target itself: in the webportal plugin's shadow root no address's #fragment
 * reaches it. */
export function bindSkipLinks(root) {
  root.querySelectorAll("a.prereq-skip").forEach((link) => link.addEventListener("click", (event) => {
    const target = root.querySelector(link.getAttribute("href"));
    if (!target) return;
    event.preventDefault();
    target.focus();
  }));
}

const IDS = {
  editor: "yaml", role: "role", list: "items", count: "count", more: "more", query: "q", type: "type", tag: "tag",
  deprecated: "deprecated", empty: "empty", template: "template", upload: "upload", undo: "undo", copy: "copy",
  download: "download", messages: "messages", error: "error", closure: "closure", closureTitle: "closure-title",
  mark: "mark", goto: "goto", copyJson: "copy-json", downloadJson: "download-json", live: "live",
};

export function composerElements(root) {
  const ui = {};
  for (const [role, id] of Object.entries(IDS)) ui[role] = root.querySelector("#prereq-composer-" + id);
  return ui;
}

/* Under its row of the list drawn already (listing.js draws it so too). */
export function showDelta(list, delta) {
  const item = [...list.children].find((li) => li.dataset.name === delta.name);
  if (!item) return;
  const shown = item.querySelector(".prereq-composer__delta") || item.appendChild(el("div", "prereq-composer__delta"));
  shown.textContent = delta.text;
}
