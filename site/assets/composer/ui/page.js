/* The job composer page (composer.md): the UI over the job engine of this folder.
 *
 * The user starts from an empty job, a template (api/v1/templates/), an uploaded file or text pasted
 * into the editor, picks a task role and checks prerequisites in a list filtered like the catalog.
 * Every check or uncheck is `prereq job add` / `prereq job remove --task-role ROLE` on the editor's
 * text, run by the same engine as the CLI's (operations.js, plan.js, apply.js, yamltext.js: ports of
 * tools/prereq/jobs/ and core/yamledit.py held equal by tests/cases/), so the text changes exactly as
 * the CLI would change it: comments, quoting and every untouched byte stay.
 *
 * By design, extras.prereq.index records the site the composer ran on (its absolute URL), which
 * `prereq job lock` can read again later; starting from a template also selects the registry items
 * its task roles name (as `prereq job add --task-role ROLE NAME...` would).
 *
 * Storage (see prereq.js): localStorage["prereq.favorites"] and ["prereq.recent"] (an item checked
 * here is pushed to "recent"); localStorage["prereq.composer.draft"] keeps the editor's text and task
 * role between visits.  ?add=NAME checks NAME in the draft (item pages link here that way);
 * ?template=NAME starts from that template (Undo brings the draft back).
 * Untrusted text (names, titles, summaries, the job itself) only goes in through textContent and form
 * values, never as HTML.  Nothing is fetched from outside the site. */

import { PrereqError } from "../core/errors.js";
import { addToText, removeFromText } from "../jobs/operations.js";
import { Index } from "../index/reader.js";
import { el, renderList as drawList } from "./listing.js";
import { analyse, namedItems } from "./view.js";

const root = document.getElementById("prereq-composer");
const DRAFT_KEY = "prereq.composer.draft";
const PAGE = 60;
const EMPTY_JOB = [
  "# An OpenPAI job (protocol version 2).  Check prerequisites in the list: they are added below,",
  "# with everything they require, and listed in the task role they run in.  Check a Docker image",
  "# item too (it becomes the task role's dockerImage), or write your own image in 'prerequisites'.",
  "protocolVersion: 2",
  "name: my-job",
  "type: job",
  "jobRetryCount: 0",
  "taskRoles:",
  "  taskrole:",
  "    instances: 1",
  "    resourcePerInstance:",
  "      cpu: 4",
  "      memoryMB: 8192",
  "      gpu: 1",
  "    commands:",
  "      - echo 'your commands here'",
  "defaults:",
  "  virtualCluster: default",
  ""
].join("\n");

const $ = (id) => document.getElementById(id);
const ui = {
  editor: $("prereq-composer-yaml"), role: $("prereq-composer-role"), list: $("prereq-composer-items"),
  count: $("prereq-composer-count"), more: $("prereq-composer-more"), query: $("prereq-composer-q"),
  type: $("prereq-composer-type"), tag: $("prereq-composer-tag"), deprecated: $("prereq-composer-deprecated"),
  empty: $("prereq-composer-empty"), template: $("prereq-composer-template"), upload: $("prereq-composer-upload"),
  undo: $("prereq-composer-undo"), copy: $("prereq-composer-copy"), download: $("prereq-composer-download"),
  messages: $("prereq-composer-messages"), error: $("prereq-composer-error"), closure: $("prereq-composer-closure"),
  closureTitle: $("prereq-composer-closure-title")
};

let index = null;
let records = []; // window.prereq.searchRecord of every index entry, for the list
let view = null; // the last analyse() of the editor's text
let role = "";
let limit = PAGE;
let busy = Promise.resolve();
const history = [];


function siteRoot() {
  return window.prereq.siteUrl("").replace(/\/+$/, "");
}

function saveDraft() {
  try {
    window.localStorage.setItem(DRAFT_KEY, JSON.stringify({ text: ui.editor.value, role: role }));
  } catch (error) { /* storage full or disabled: the draft is not kept */ }
}

function loadDraft() {
  try {
    const draft = JSON.parse(window.localStorage.getItem(DRAFT_KEY) || "null");
    if (draft !== null && typeof draft === "object" && typeof draft.text === "string" && draft.text.trim()) {
      return { text: draft.text, role: typeof draft.role === "string" ? draft.role : "" };
    }
  } catch (error) { /* ignore a broken draft */ }
  return null;
}

function showMessages(lines, warnings) {
  ui.messages.textContent = "";
  for (const line of lines) ui.messages.appendChild(el("li", "prereq-composer__change", line));
  for (const line of warnings || []) ui.messages.appendChild(el("li", "prereq-composer__warning", "warning: " + line));
}

function showError(error) {
  if (!error) {
    ui.error.hidden = true;
    ui.error.textContent = "";
    return;
  }
  ui.error.textContent = "";
  ui.error.appendChild(el("strong", null, error instanceof PrereqError ? "Cannot do that: " : "Unexpected problem: "));
  ui.error.appendChild(document.createTextNode(error.message));
  if (error.hint) ui.error.appendChild(el("div", "prereq-composer__hint", "hint: " + error.hint));
  ui.error.hidden = false;
  if (!(error instanceof PrereqError)) console.error(error); // eslint-disable-line no-console
}

/* Replace the editor's text (an undoable step) and refresh everything. */
function setText(text, remember) {
  if (remember !== false && text !== ui.editor.value) {
    history.push({ text: ui.editor.value, role: role });
    if (history.length > 50) history.shift();
  }
  ui.editor.value = text;
  ui.undo.disabled = !history.length;
  saveDraft();
  return refresh();
}

async function refresh() {
  try {
    view = await analyse(index, ui.editor.value, role);
    role = view.role;
    showError(null);
    root.setAttribute("data-job", "valid");
  } catch (error) {
    view = null;
    showError(error);
    root.setAttribute("data-job", "invalid");
  }
  renderRoles();
  renderClosure();
  renderList();
}

function renderList() {
  if (index) drawList({ ui, root, index, records, view, role, limit, check });
}

/* Run one edit at a time, in order. */
function queue(task) {
  busy = busy.then(task).catch((error) => showError(error));
  return busy;
}

function check(name, on) {
  return queue(async () => {
    root.setAttribute("data-state", "busy");
    try {
      const result = on ? await addToText(ui.editor.value, [name], { index, indexSource: siteRoot(), taskRole: role, source: "job" })
        : await removeFromText(ui.editor.value, [name], { index, taskRole: role, source: "job" });
      if (on) window.prereq.pushRecent(name);
      await setText(result.after);
      showMessages(result.changes, result.warnings);
    } catch (error) {
      await refresh();
      showError(error);
    } finally {
      root.setAttribute("data-state", "ready");
    }
  });
}

// --- the task role and the closure

function renderRoles() {
  const roles = view ? view.roles : [];
  ui.role.textContent = "";
  for (const name of roles) {
    const option = el("option", null, name);
    option.value = name;
    ui.role.appendChild(option);
  }
  if (roles.length) ui.role.value = role;
  ui.role.disabled = roles.length < 2;
}

function renderClosure() {
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
    if (by.length) item.appendChild(el("span", "prereq-composer__why", " — required by " + by.join(", ")));
    else item.appendChild(el("span", "prereq-composer__why", " — selected"));
    ui.closure.appendChild(item);
  }
}

// --- the list of prerequisites



function renderTags() {
  const counts = new Map();
  for (const entry of index.root.items) for (const tag of entry.tags || []) counts.set(tag, (counts.get(tag) || 0) + 1);
  const tags = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [tag, count] of tags) {
    const option = el("option", null, `${tag} (${count})`);
    option.value = tag;
    ui.tag.appendChild(option);
  }
}

function renderTemplates() {
  for (const template of index.root.templates || []) {
    if (!template || typeof template.path !== "string") continue;
    const option = el("option", null, template.name + (template.title ? " — " + template.title : ""));
    option.value = template.name;
    ui.template.appendChild(option);
  }
  ui.template.disabled = !(index.root.templates || []).length;
}




// --- starting points

async function loadTemplate(name) {
  const template = (index.root.templates || []).find((t) => t.name === name);
  if (!template) return;
  let text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await index.read(template.path));
  await setText(text);
  // Select the registry items the template's task roles name, as `prereq job add --task-role` would.
  const lines = [];
  const warnings = [];
  for (const [roleName, names] of namedItems(index, text)) {
    const result = await addToText(text, names, { index, indexSource: siteRoot(), taskRole: roleName, source: "job" });
    text = result.after;
    lines.push(`task role ${roleName}: selected ${names.join(", ")} (named by the template)`);
    lines.push(...result.changes);
    warnings.push(...result.warnings);
  }
  if (lines.length) await setText(text, false);
  showMessages([`started from the template ${name}`].concat(lines), warnings);
}

function download() {
  const name = (view && view.name ? view.name : "job").replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^[.-]+/, "") || "job";
  const blob = new Blob([ui.editor.value], { type: "application/yaml;charset=utf-8" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name + ".yaml";
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function bind() {
  let typing = null;
  ui.editor.addEventListener("input", () => {
    window.clearTimeout(typing);
    saveDraft();
    typing = window.setTimeout(() => queue(refresh), 250);
  });
  ui.role.addEventListener("change", () => {
    role = ui.role.value;
    saveDraft();
    queue(refresh);
  });
  for (const input of [ui.query]) input.addEventListener("input", () => { limit = PAGE; renderList(); });
  for (const input of [ui.type, ui.tag, ui.deprecated]) input.addEventListener("change", () => { limit = PAGE; renderList(); });
  root.querySelectorAll('input[name="prereq-composer-show"]').forEach((radio) =>
    radio.addEventListener("change", () => { limit = PAGE; renderList(); }));
  ui.more.addEventListener("click", () => { limit += PAGE; renderList(); });
  ui.empty.addEventListener("click", () => queue(async () => {
    role = "";
    await setText(EMPTY_JOB);
    showMessages(["started a new empty job"], []);
  }));
  ui.template.addEventListener("change", () => {
    const name = ui.template.value;
    ui.template.value = "";
    if (name) queue(() => loadTemplate(name));
  });
  ui.upload.addEventListener("change", () => {
    const file = ui.upload.files && ui.upload.files[0];
    ui.upload.value = "";
    if (!file) return;
    queue(async () => {
      const text = await file.text();
      role = "";
      await setText(text);
      showMessages([`opened ${file.name}`], []);
    });
  });
  ui.undo.addEventListener("click", () => queue(async () => {
    const last = history.pop();
    if (!last) return;
    role = last.role;
    await setText(last.text, false);
    ui.undo.disabled = !history.length;
    showMessages(["undone"], []);
  }));
  ui.copy.addEventListener("click", () => {
    const label = "Copy";
    window.prereq.copyText(ui.editor.value).then(() => {
      ui.copy.textContent = "Copied ✓";
    }, () => {
      ui.copy.textContent = "Select the text and copy it";
    }).then(() => window.setTimeout(() => { ui.copy.textContent = label; }, 2000));
  });
  ui.download.addEventListener("click", download);
  document.addEventListener("prereq:storage", () => renderList());
}

/* Files of the site's index: api/v1/<path>, fetched from this site only. */
async function readSite(path) {
  const url = new URL(path, window.prereq.siteUrl("api/v1/")).href;
  const response = await fetch(url, { cache: "no-cache", credentials: "same-origin" });
  if (!response.ok) throw new PrereqError(`cannot load ${path} (${response.status} ${response.statusText})`,
    { hint: "reload the page; the site may be incomplete" });
  return new Uint8Array(await response.arrayBuffer());
}

async function start() {
  index = await Index.load(window.prereq.siteUrl("api/v1").replace(/\/+$/, ""), readSite);
  window.prereq.useIndex(index.root);
  records = index.root.items.map(window.prereq.searchRecord);
  renderTags();
  renderTemplates();
  bind();
  const draft = loadDraft();
  role = draft ? draft.role : "";
  ui.editor.value = draft ? draft.text : EMPTY_JOB;
  ui.undo.disabled = true;
  await refresh();
  const params = new URLSearchParams(window.location.search);
  const template = params.get("template");
  const wanted = params.get("add");
  if (template !== null || wanted !== null) {
    // Done once: a reload must not start again or add again.
    params.delete("template");
    params.delete("add");
    const rest = params.toString();
    window.history.replaceState(null, "", window.location.pathname + (rest ? "?" + rest : "") + window.location.hash);
  }
  if (template !== null) {
    if ((index.root.templates || []).some((t) => t.name === template)) await queue(() => loadTemplate(template));
    else showError(new PrereqError(`no job template named '${template}' in the index`, "pick one in the Template list"));
  }
  if (wanted !== null) {
    if (!index.entries.has(wanted)) {
      showError(new PrereqError(`no prerequisite named '${wanted}' in the index`, { hint: "search the list for it" }));
    } else if (view && view.inClosure.has(wanted)) {
      showMessages([`${wanted} is already in task role ${role}`], []);
    } else if (view) {
      await check(wanted, true);
    }
  }
  root.setAttribute("data-state", "ready");
}

// Exposed for debugging and tests; the page itself does not need it.
window.prereqComposer = {
  add: (text, names, roleName) => addToText(text, names, { index, indexSource: siteRoot(), taskRole: roleName, source: "job" }),
  remove: (text, names, roleName) => removeFromText(text, names, { index, taskRole: roleName, source: "job" }),
  idle: () => busy
};

if (root && window.prereq) {
  start().catch((error) => {
    root.setAttribute("data-state", "failed");
    showError(error instanceof PrereqError ? error : new PrereqError("the composer could not start: " + error.message,
      { hint: "reload the page; the site may be incomplete" }));
  });
}
