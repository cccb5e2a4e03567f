/* The composer's list, filtered as the catalog is (window.prereq): a box per row following the job, and
 * a version picker and binding box under an item the task role selects.
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { BINDING_FIELDS } from "../jobs/plan.js";
import { el } from "./panels.js";
import { versionChoices } from "./view.js";

const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
// A box disabled until its edit is done drops the focus to the page: the redrawn list gives it back.
let refocus = "";
// The list is one Tab stop (a roving tabindex): the data-focus-key of the control that has it.
let roving = "";
const bound = new WeakSet();
const POINTED_MS = 65; // a box the pointer or the focus rests on so long is about to be checked: prefetch
let pointed = { name: "", timer: 0 };

function pointAt(ctx, target) {
  const item = target.closest?.(".prereq-composer__check, .prereq-composer__label") && target.closest("li[data-name]");
  const box = item && item.querySelector("input.prereq-composer__check");
  const name = box && !box.checked && box.getAttribute("aria-disabled") !== "true" ? item.dataset.name : "";
  if (name === pointed.name) return;
  window.clearTimeout(pointed.timer);
  pointed = { name, timer: name ? window.setTimeout(() => ((pointed.timer = 0), ctx.prefetch(name)), POINTED_MS) : 0 };
}

/* A press on a box is a check to come (a tap's or a click's press is some 100 ms before it): read now.  A
 * touch that turns into a scroll reads too, once an item (the page reads an item's files once). */
function pressAt(ctx, event) {
  if (event.button !== 0 || !event.isPrimary) return;
  pointAt(ctx, event.target);
  if (!pointed.timer) return;
  window.clearTimeout(pointed.timer);
  pointed.timer = 0;
  ctx.prefetch(pointed.name);
}

function showMode(ctx) {
  const checked = ctx.root.querySelector('input[name="prereq-composer-show"]:checked');
  return checked ? checked.value : "";
}

function inJob(ctx, name) {
  return !!ctx.view && (ctx.view.inClosure.has(name) || ctx.view.state.lock.has(name));
}

/* search.js's answer for `query` among the `kept` records; without words every record ranks alike, in
 * name order (search.js's), which needs no search of them all (the list is drawn at every change). */
function ranked(records, kept, query) {
  const search = window.prereqSearch;
  if (!search.words(query).length) {
    return { hits: kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((record) => ({ record })), corrected: null };
  }
  const keep = new Set(kept);
  return search.search(records, query, (record) => keep.has(record));
}

function filtered(ctx) {
  const find = window.prereq;
  const mode = showMode(ctx);
  const marks = find.marks();
  const filters = {
    words: [], type: ctx.ui.type.value, tags: ctx.ui.tag.value ? [ctx.ui.tag.value] : [], show: mode, marks: marks,
    deprecated: (entry) => ctx.ui.deprecated.checked || inJob(ctx, entry.name)
  };
  const kept = find.filterRecords(ctx.records, filters).filter((record) =>
    mode !== "job" || (!!ctx.view && ctx.view.inClosure.has(record.entry.name)));
  const result = ranked(ctx.records, kept, ctx.ui.query.value);
  const found = result.hits.map((hit) => hit.record);
  const closureOrder = ctx.view ? ctx.view.closure.map((r) => r.name) : [];
  if (mode === "favorites" || mode === "recent") {
    found.sort((a, b) => marks[mode].get(a.entry.name) - marks[mode].get(b.entry.name));
  } else if (mode === "job") {
    found.sort((a, b) => closureOrder.indexOf(a.entry.name) - closureOrder.indexOf(b.entry.name));
  }
  return { entries: found.map((record) => record.entry), corrected: result.corrected };
}

function versionPicker(ctx, name) {
  const select = document.createElement("select");
  select.id = "prereq-composer-version-" + name;
  select.className = "prereq-composer__version";
  select.setAttribute("data-focus-key", select.id);
  select.setAttribute("aria-label", "Version of " + name);
  for (const group of versionChoices(ctx.view.versions.get(name), ctx.view.ranges.get(name))) {
    const holder = group.label ? el("optgroup") : select;
    if (group.label) holder.label = group.label;
    for (const choice of group.options) holder.appendChild(new Option(choice.label, choice.value));
    if (holder !== select) select.appendChild(holder);
  }
  select.value = ctx.view.ranges.get(name) || "";
  select.addEventListener("change", () => {
    refocus = select.id;
    select.disabled = true; // until the edit is done
    ctx.pick(name, select.value);
  });
  const label = el("label", "prereq-composer__pickline", "Version ");
  label.appendChild(select);
  return label;
}

/* A box whose change is an edit: it keeps the focus through the redraw, and waits for the edit. */
function editBox(id, checked, edit) {
  const box = document.createElement("input");
  box.type = "checkbox";
  box.id = id;
  box.setAttribute("data-focus-key", id);
  box.checked = checked;
  box.addEventListener("change", () => {
    refocus = id;
    box.disabled = true; // until the edit is done
    edit(box.checked);
  });
  return box;
}

/* `job add --bind`: the task role's field names the item, for `<% $data... %>`. */
function bindToggle(ctx, entry) {
  const bound = (ctx.view.state.bound.get(ctx.role) || []).includes(entry.name);
  const box = editBox("prereq-composer-bind-" + entry.name, bound, (on) => ctx.bind(entry.name, on));
  const label = el("label", "prereq-composer__pickline prereq-composer__bind");
  label.appendChild(box);
  label.appendChild(document.createTextNode(` as the task role's ${entry.type}`));
  return label;
}

function addNotes(ctx, item, entry, { reason, resolved, requiredBy }) {
  const notes = [];
  if (reason) notes.push(reason);
  if (resolved && requiredBy.length && ctx.view.selected.has(entry.name)) notes.push("also selected");
  if (ctx.view && !resolved && ctx.view.named.has(entry.name)) notes.push(`named by task role ${ctx.role}; check it to add it`);
  if (ctx.view && ctx.view.elsewhere.has(entry.name)) notes.push("selected in task role " + ctx.view.elsewhere.get(entry.name).join(", "));
  if (notes.length) item.appendChild(el("div", "prereq-composer__note", notes.join(" · ")));
  if (ctx.delta && ctx.delta.name === entry.name) item.appendChild(el("div", "prereq-composer__delta", ctx.delta.text));
}

function row(ctx, entry) {
  const item = el("li", "prereq-composer__item" + (entry.deprecated ? " prereq-composer__item--deprecated" : ""));
  item.setAttribute("data-name", entry.name);
  const resolved = ctx.view ? ctx.view.inClosure.get(entry.name) : null;
  const requiredBy = resolved && ctx.view ? resolved.requiredBy.filter((n) => ctx.view.inClosure.has(n)) : [];
  const box = editBox("prereq-composer-item-" + entry.name, !!resolved, (on) => ctx.check(entry.name, on));
  box.className = "prereq-composer__check";
  let reason = "";
  if (!ctx.view) reason = "fix the job first";
  else if (requiredBy.length) reason = "required by " + requiredBy.join(", ");
  else if (ctx.view.handTop.has(entry.name)) reason = "the job defines its own " + entry.name;
  // A box that cannot change stays focusable (aria-disabled, its click undone), so arrows reach its row.
  if (!ctx.view || requiredBy.length > 0 || (!resolved && ctx.view.handTop.has(entry.name))) {
    box.setAttribute("aria-disabled", "true");
    box.addEventListener("click", (event) => event.preventDefault());
  }
  const label = el("label", "prereq-composer__label");
  label.setAttribute("for", box.id);
  label.appendChild(el("span", "prereq-composer__name", entry.name));
  label.appendChild(window.prereq.typeBadge(entry.type));
  label.appendChild(el("span", "prereq-card__version", resolved ? resolved.version : entry.version));
  if (entry.deprecated) label.appendChild(el("span", "prereq-badge prereq-badge--deprecated", "deprecated"));
  label.appendChild(el("span", "prereq-composer__title", entry.title));
  const head = el("div", "prereq-composer__head");
  head.appendChild(box);
  head.appendChild(label);
  const star = window.prereq.makeStar(entry.name);
  star.setAttribute("data-focus-key", "star:" + entry.name);
  head.appendChild(star);
  if (SAFE_NAME.test(entry.name)) {
    const link = el("a", "prereq-composer__more", "details");
    link.setAttribute("href", ctx.siteUrl("items/" + encodeURIComponent(entry.name) + "/"));
    link.setAttribute("target", "_blank");
    link.setAttribute("rel", "noopener");
    head.appendChild(link);
  }
  item.appendChild(head);
  if (resolved && ctx.view.selected.has(entry.name)) {
    item.appendChild(versionPicker(ctx, entry.name));
    if (BINDING_FIELDS.includes(entry.type)) item.appendChild(bindToggle(ctx, entry));
  }
  addNotes(ctx, item, entry, { reason, resolved, requiredBy });
  if (requiredBy.length) item.classList.add("prereq-composer__item--required");
  if (resolved) item.classList.add("prereq-composer__item--in");
  return item;
}

export function renderList(ctx) {
  if (!ctx.index) return;
  const { entries: found, corrected } = filtered(ctx);
  // Inside a shadow root (the webportal plugin) the focus is that root's, not the document's.
  const scope = ctx.root.getRootNode();
  const lost = !scope.activeElement || scope.activeElement === document.body;
  const list = ctx.ui.list;
  const key = lost ? refocus : list.contains(scope.activeElement) ? scope.activeElement.getAttribute("data-focus-key") : "";
  const place = key ? [...list.children].findIndex((item) => item.querySelector(`[data-focus-key="${window.CSS.escape(key)}"]`)) : -1;
  window.prereq.keepFocus(list, () => {
    list.textContent = "";
    found.slice(0, ctx.limit).forEach((entry) => list.appendChild(row(ctx, entry)));
  }, null, lost ? refocus : "");
  // Its row gone (unchecked under "in this task role"), the focus goes to the row now in its place.
  if (place >= 0 && (!scope.activeElement || scope.activeElement === document.body)) {
    const next = list.children[Math.min(place, list.children.length - 1)];
    (next ? controlsOf(next)[0] : ctx.ui.query).focus({ preventScroll: true });
  }
  if (lost && scope.activeElement && scope.activeElement !== document.body) refocus = "";
  rove(list, scope.activeElement);
  if (!bound.has(list)) {
    bound.add(list);
    list.addEventListener("keydown", (event) => onListKey(list, event));
    list.addEventListener("focusin", (event) => (rove(list, event.target), pointAt(ctx, event.target)));
    list.addEventListener("pointerover", (event) => pointAt(ctx, event.target));
    list.addEventListener("pointerdown", (event) => pressAt(ctx, event));
    list.addEventListener("pointerleave", () => pointAt(ctx, list));
  }
  ctx.ui.more.hidden = found.length <= ctx.limit;
  const total = ctx.index.root.items.length;
  ctx.ui.count.textContent = (found.length === total ? `${total} prerequisites` : `${found.length} of ${total} prerequisites`) +
    (corrected ? ` for “${corrected.join(" ")}” (nothing matched “${ctx.ui.query.value.trim()}”)` : "");
}

function controlsOf(item) {
  return [...item.querySelectorAll("input, select, a, button")];
}

function rove(list, focused) {
  const controls = [...list.querySelectorAll("input, select, a, button")];
  const keyOf = (control) => control.getAttribute("data-focus-key") || control.id || "";
  let current = focused && list.contains(focused) && controls.includes(focused) ? focused : null;
  if (!current) current = controls.find((control) => roving && keyOf(control) === roving) || controls[0];
  if (!current) return;
  roving = keyOf(current);
  for (const control of controls) control.tabIndex = control === current ? 0 : -1;
}

function onListKey(list, event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const item = event.target.closest("li");
  if (!item || !list.contains(item)) return;
  const rows = [...list.children];
  const controls = controlsOf(item);
  const at = rows.indexOf(item);
  const inSelect = event.target.tagName === "SELECT";
  const first = (row) => (row ? controlsOf(row)[0] : null);
  let next = null;
  if (event.key === "ArrowDown" && !inSelect) next = first(rows[at + 1]);
  else if (event.key === "ArrowUp" && !inSelect) next = first(rows[at - 1]);
  else if (event.key === "Home" && !inSelect) next = first(rows[0]);
  else if (event.key === "End" && !inSelect) next = first(rows[rows.length - 1]);
  else if (event.key === "ArrowRight") next = controls[controls.indexOf(event.target) + 1];
  else if (event.key === "ArrowLeft") next = controls[controls.indexOf(event.target) - 1];
  else if ((event.key === "s" || event.key === "S") && !inSelect) {
    const star = item.querySelector("[data-prereq-star]");
    if (star) star.click();
  } else if (event.key === "Enter" && event.target.type === "checkbox") {
    const details = item.querySelector("a.prereq-composer__more");
    if (details) details.click();
  } else {
    return;
  }
  event.preventDefault();
  if (next) {
    rove(list, next);
    next.focus();
  }
}
