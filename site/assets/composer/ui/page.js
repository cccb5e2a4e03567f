/* The job composer page (composer.md): the UI over the job engine (start.js loads it and calls start).
 *
 * The user starts from an empty job, a template (api/v1/templates/), an uploaded file or text pasted
 * into the editor, picks a task role and checks prerequisites in a list filtered like the catalog.
 * Every check or uncheck is `prereq job add` / `prereq job remove --task-role ROLE` on the editor's
 * text, run by the same engine as the CLI's (jobs/ and yaml/: ports of tools/prereq/jobs/ and
 * core/yamledit.py held equal by tests/cases/), so the text changes exactly as the CLI would change
 * it: comments, quoting and every untouched byte stay.
 *
 * By design, extras.prereq.index records the site the composer ran on (its absolute URL), which
 * `prereq job lock` can read again later; starting from a template also selects the registry items
 * its task roles name (as `prereq job add --task-role ROLE NAME...` would).
 *
 * Storage (see prereq.js): localStorage["prereq.favorites"] and ["prereq.recent"] (an item checked
 * here is pushed to "recent"); the draft (jobfile.js) keeps the editor's text and task role between
 * visits.  ?add=NAME checks NAME in the draft (item pages link here that way);
 * ?template=NAME starts from that template (Undo brings the draft back).
 * Untrusted text (names, titles, summaries, the job itself) only goes in through textContent and form
 * values, never as HTML.  Nothing is fetched from outside the site.
 *
 * Folder ui/: the composer page (composer.md) over the engine: the only modules that touch the
 * page, and window.prereq (prereq.js).
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";
import { Index } from "../index/reader.js";
import { addToText, removeFromText } from "../jobs/operations.js";
import { EMPTY_JOB, download, loadDraft, saveDraft } from "./jobfile.js";
import { renderList as drawList } from "./listing.js";
import { renderClosure, renderFilterOptions, renderRoles, renderTemplates, showError, showMessages } from "./panels.js";
import { analyse, namedItems } from "./view.js";

const PAGE = 60; // rows the list shows at first, and how many more "Show more" adds
const UNDO_STEPS = 50;

let root = null; // #prereq-composer
let ui = null; // its elements by role
let index = null;
let records = []; // window.prereq.searchRecord of every index entry, for the list
let view = null; // the last analyse() of the editor's text
let role = "";
let limit = PAGE;
let busy = Promise.resolve();
const history = [];

function elements() {
  const $ = (id) => document.getElementById(id);
  return {
    editor: $("prereq-composer-yaml"), role: $("prereq-composer-role"), list: $("prereq-composer-items"),
    count: $("prereq-composer-count"), more: $("prereq-composer-more"), query: $("prereq-composer-q"),
    type: $("prereq-composer-type"), tag: $("prereq-composer-tag"), deprecated: $("prereq-composer-deprecated"),
    empty: $("prereq-composer-empty"), template: $("prereq-composer-template"), upload: $("prereq-composer-upload"),
    undo: $("prereq-composer-undo"), copy: $("prereq-composer-copy"), download: $("prereq-composer-download"),
    messages: $("prereq-composer-messages"), error: $("prereq-composer-error"), closure: $("prereq-composer-closure"),
    closureTitle: $("prereq-composer-closure-title"),
  };
}

function siteRoot() {
  const configured = document.querySelector('meta[name="prereq:index"]'); // prereq.yaml's site.index_url
  const root = configured ? configured.getAttribute("content") : window.prereq.siteUrl("");
  return root.replace(/\/+$/, "");
}

/* What `prereq job add/remove` is given here: this site's index, recorded as the site's address. */
function editOptions(taskRole) {
  return { index, indexSource: siteRoot(), taskRole, source: "job" };
}

function keepDraft() {
  saveDraft(ui.editor.value, role);
}

/* Replace the editor's text (an undoable step unless `remember` is false) and refresh everything. */
function setText(text, remember) {
  if (remember !== false && text !== ui.editor.value) {
    history.push({ text: ui.editor.value, role: role });
    if (history.length > UNDO_STEPS) history.shift();
  }
  ui.editor.value = text;
  ui.undo.disabled = !history.length;
  keepDraft();
  return refresh();
}

async function refresh() {
  try {
    view = await analyse(index, ui.editor.value, role);
    role = view.role;
    showError(ui, null);
    root.setAttribute("data-job", "valid");
  } catch (error) {
    view = null;
    showError(ui, error);
    root.setAttribute("data-job", "invalid");
  }
  renderRoles(ui, view, role);
  renderClosure(ui, view, role);
  renderList();
}

function renderList() {
  if (index) drawList({ ui, root, index, records, view, role, limit, check });
}

function showMore(more) {
  limit = more ? limit + PAGE : PAGE;
  renderList();
}

/* Run one edit at a time, in order. */
function queue(task) {
  busy = busy.then(task).catch((error) => showError(ui, error));
  return busy;
}

/* Check (`prereq job add`) or uncheck (`prereq job remove`) one prerequisite in the task role. */
function check(name, on) {
  return queue(async () => {
    root.setAttribute("data-state", "busy");
    try {
      const result = on ? await addToText(ui.editor.value, [name], editOptions(role))
        : await removeFromText(ui.editor.value, [name], { index, taskRole: role, source: "job" });
      if (on) window.prereq.pushRecent(name);
      await setText(result.after);
      showMessages(ui, result.changes, result.warnings);
    } catch (error) {
      await refresh();
      showError(ui, error);
    } finally {
      root.setAttribute("data-state", "ready");
    }
  });
}

/* Start from a template, selecting the registry items its task roles name, as
 * `prereq job add --task-role ROLE NAME...` would. */
async function loadTemplate(name) {
  const template = (index.root.templates || []).find((t) => t.name === name);
  if (!template) return;
  let text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await index.read(template.path));
  await setText(text);
  const lines = [];
  const warnings = [];
  for (const [roleName, names] of namedItems(index, text)) {
    const result = await addToText(text, names, editOptions(roleName));
    text = result.after;
    lines.push(`task role ${roleName}: selected ${names.join(", ")} (named by the template)`);
    lines.push(...result.changes);
    warnings.push(...result.warnings);
  }
  if (lines.length) await setText(text, false);
  showMessages(ui, [`started from the template ${name}`].concat(lines), warnings);
}

/* Replace the job by another one (a new empty job, an uploaded file) and say so. */
function startFrom(text, message) {
  return queue(async () => {
    role = "";
    await setText(await text());
    showMessages(ui, [message], []);
  });
}

function bindEditor() {
  let typing = null;
  ui.editor.addEventListener("input", () => {
    window.clearTimeout(typing);
    keepDraft();
    typing = window.setTimeout(() => queue(refresh), 250);
  });
  ui.role.addEventListener("change", () => {
    role = ui.role.value;
    keepDraft();
    queue(refresh);
  });
}

function bindFilters() {
  ui.query.addEventListener("input", () => showMore(false));
  for (const input of [ui.type, ui.tag, ui.deprecated]) input.addEventListener("change", () => showMore(false));
  root.querySelectorAll('input[name="prereq-composer-show"]').forEach((radio) =>
    radio.addEventListener("change", () => showMore(false)));
  ui.more.addEventListener("click", () => showMore(true));
  document.addEventListener("prereq:storage", () => renderList());
}

function bindStartingPoints() {
  ui.empty.addEventListener("click", () => startFrom(async () => EMPTY_JOB, "started a new empty job"));
  ui.template.addEventListener("change", () => {
    const name = ui.template.value;
    ui.template.value = "";
    if (name) queue(() => loadTemplate(name));
  });
  ui.upload.addEventListener("change", () => {
    const file = ui.upload.files && ui.upload.files[0];
    ui.upload.value = "";
    if (file) startFrom(() => file.text(), `opened ${file.name}`);
  });
  ui.undo.addEventListener("click", () => queue(async () => {
    const last = history.pop();
    if (!last) return;
    role = last.role;
    await setText(last.text, false);
    ui.undo.disabled = !history.length;
    showMessages(ui, ["undone"], []);
  }));
}

function bindOutputs() {
  ui.copy.addEventListener("click", () => {
    const label = "Copy";
    window.prereq.copyText(ui.editor.value).then(() => {
      ui.copy.textContent = "Copied ✓";
    }, () => {
      ui.copy.textContent = "Select the text and copy it";
    }).then(() => window.setTimeout(() => { ui.copy.textContent = label; }, 2000));
  });
  ui.download.addEventListener("click", () => download(ui.editor.value, view && view.name));
}

/* Files of the site's index: api/v1/<path>, fetched from this site only. */
async function readSite(path) {
  const url = new URL(path, window.prereq.siteUrl("api/v1/")).href;
  const response = await fetch(url, { cache: "no-cache", credentials: "same-origin" });
  if (!response.ok) throw new PrereqError(`cannot load ${path} (${response.status} ${response.statusText})`,
    { hint: "reload the page; the site may be incomplete" });
  return new Uint8Array(await response.arrayBuffer());
}

/* ?template=NAME and ?add=NAME, done once: taken out of the address so that a reload does not
 * start again or add again. */
function takeLinkRequest() {
  const params = new URLSearchParams(window.location.search);
  const request = { template: params.get("template"), add: params.get("add") };
  if (request.template !== null || request.add !== null) {
    params.delete("template");
    params.delete("add");
    const rest = params.toString();
    window.history.replaceState(null, "", window.location.pathname + (rest ? "?" + rest : "") + window.location.hash);
  }
  return request;
}

async function followLinkRequest({ template, add }) {
  if (template !== null) {
    if ((index.root.templates || []).some((t) => t.name === template)) await queue(() => loadTemplate(template));
    else showError(ui, new PrereqError(`no job template named '${template}' in the index`, { hint: "pick one in the Template list" }));
  }
  if (add === null) return;
  if (!index.entries.has(add)) {
    showError(ui, new PrereqError(`no prerequisite named '${add}' in the index`, { hint: "search the list for it" }));
  } else if (view && view.inClosure.has(add)) {
    showMessages(ui, [`${add} is already in task role ${role}`], []);
  } else if (view) {
    await check(add, true);
  }
}

/* Load the index, draw the page, continue the draft (or start the empty job) and follow the link
 * the page was opened with.  A failure here is start.js's to show. */
export async function start(composer) {
  root = composer;
  ui = elements();
  // Exposed for debugging and tests; the page itself does not need it.
  window.prereqComposer = {
    add: (text, names, roleName) => addToText(text, names, editOptions(roleName)),
    remove: (text, names, roleName) => removeFromText(text, names, { index, taskRole: roleName, source: "job" }),
    idle: () => busy,
  };
  index = await Index.load(window.prereq.siteUrl("api/v1").replace(/\/+$/, ""), readSite);
  window.prereq.useIndex(index.root);
  records = index.root.items.map(window.prereq.searchRecord);
  renderFilterOptions(ui, index);
  renderTemplates(ui, index);
  for (const bind of [bindEditor, bindFilters, bindStartingPoints, bindOutputs]) bind();
  const draft = loadDraft();
  role = draft ? draft.role : "";
  ui.editor.value = draft ? draft.text : EMPTY_JOB;
  ui.undo.disabled = true;
  await refresh();
  await followLinkRequest(takeLinkRequest());
  root.setAttribute("data-state", "ready");
}
