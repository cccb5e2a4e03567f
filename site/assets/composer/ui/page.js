/* The job composer: the UI over the job engine, mounted into one root element: the site's page
 * (composer.md; start.js loads this module and calls start) or the webportal plugin's shadow root
 * (webportal/mount.js calls mount with its own host).
 *
 * The user starts from an empty job, a template (api/v1/templates/), an uploaded file or text pasted
 * into the editor, picks a task role and checks prerequisites in a list filtered like the catalog.
 * Every check or uncheck is `prereq job add` / `prereq job remove --task-role ROLE` on the editor's
 * text, run by the same engine as the CLI's (jobs/ and yaml/: ports of tools/prereq/jobs/ and
 * core/yamledit.py held equal by tests/cases/), so the text changes exactly as the CLI would change
 * it: comments, quoting and every untouched byte stay.  A selected item's version picker is
 * `prereq job add NAME@RANGE`.  A job pasted or uploaded as JSON becomes block YAML (jsonjob.js),
 * an error's line is marked in the editor (editor.js), and outputs.js gives the job out.
 *
 * extras.prereq.index records the index the composer ran on (its absolute URL), for `prereq job lock`;
 * a template's task roles' names are selected (as `prereq job add --task-role ROLE NAME...` would).
 *
 * The host says where the composer runs, so that one code serves both mounts:
 *   siteUrl(path)  an address on the prereq site that published the index (item pages)
 *   api            the index's api/v1 address, without a trailing slash
 *   indexSource    what a job records as its index (extras.prereq.index)
 *   links          whether ?template=NAME and ?add=NAME of the address are followed (the site's page)
 *   newItemUrl     the forge's prefilled new-file page for Share (share.js), or null
 *   trust          {signers} (sshsig.js's parseAllowedSigners) when the index must be signed by one
 *                  of them (prereq.yaml's trust.allowed_signers), or null
 *   image          the image a new job starts with (before the index's start_image: jobfile.js)
 * Elements are found inside the root only (a shadow root has its own ids).
 *
 * Storage (see prereq.js): localStorage["prereq.favorites"] and ["prereq.recent"] (an item checked
 * here is pushed to "recent"); the draft (jobfile.js) keeps the editor's text and task role between
 * visits.  ?add=NAME checks NAME in the draft (item pages link here that way);
 * ?template=NAME starts from that template (Undo brings the draft back).
 * Untrusted text (names, titles, summaries, the job itself) only goes in through textContent and form
 * values, never as HTML.  Nothing is fetched but the index.
 *
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";
import { Index } from "../index/reader.js";
import { parseAllowedSigners } from "../index/sshsig.js";
import { addToText, removeFromText } from "../jobs/operations.js";
import { bindMark, errorLine, revealLine } from "./editor.js";
import { openingJob, saveDraft } from "./jobfile.js";
import { blockYamlOfJson } from "./jsonjob.js";
import { renderList as drawList } from "./listing.js";
import { bindOutputs, showOutputState } from "./outputs.js";
import {
  bindSkipLinks, closureChange, composerElements, showDelta, renderClosure, renderFilterOptions, renderRoles, renderTemplates, showError, showMessages,
} from "./panels.js";
import { SharePanel } from "./share.js";
import { analyse, namedItems } from "./view.js";

const PAGE = 60; // rows the list shows at first, and how many more "Show more" adds
const UNDO_STEPS = 50;

/* Files of an index: API/<path>, fetched from there only. */
function reader(api) {
  return async (path) => {
    const url = new URL(path, api + "/").href;
    const response = await fetch(url, { cache: "no-cache", credentials: "same-origin" });
    if (!response.ok) throw new PrereqError(`cannot load ${path} (${response.status} ${response.statusText})`,
      { hint: "reload the page; the site may be incomplete" });
    return new Uint8Array(await response.arrayBuffer());
  };
}

/* One mounted composer: its elements, the index, the editor's analysis and the undo history. */
class Composer {
  constructor(root, host) {
    this.root = root;
    this.host = host;
    this.ui = composerElements(root);
    this.index = null;
    this.records = []; // window.prereq.searchRecord of every index entry, for the list
    this.view = null; // the last analyse() of the editor's text
    this.problem = null; // why analyse() refused it (null: it did not)
    this.role = "";
    this.limit = PAGE;
    this.busy = Promise.resolve();
    this.history = [];
    this.share = new SharePanel(root, host);
  }

  /* What `prereq job add/remove` is given here: this index, recorded as the host says. */
  editOptions(taskRole) {
    return { index: this.index, indexSource: this.host.indexSource, taskRole, source: "job" };
  }

  keepDraft() { saveDraft(this.ui.editor.value, this.role); }

  /* Replace the editor's text (an undoable step unless `remember` is false), painted before the rest is redrawn. */
  async setText(text, remember) {
    const ui = this.ui;
    if (remember !== false && text !== ui.editor.value) {
      this.history.push({ text: ui.editor.value, role: this.role });
      if (this.history.length > UNDO_STEPS) this.history.shift();
    }
    ui.editor.value = text;
    ui.undo.disabled = !this.history.length;
    this.keepDraft();
    await new Promise((resolve) => window.requestAnimationFrame(() => window.setTimeout(resolve)));
    return this.refresh({ reveal: true });
  }

  /* Analyse the editor's text and draw everything from it; `reveal` scrolls to the line of its
   * error (a whole new text, not one being typed). */
  async refresh({ reveal = false } = {}) {
    // What the messages and the last summary said is of the text before: an edit says its own after.
    showMessages(this.ui, [], []);
    this.delta = null;
    try {
      this.view = await analyse(this.index, this.ui.editor.value, this.role);
      this.role = this.view.role;
      this.problem = null;
      this.root.setAttribute("data-job", "valid");
    } catch (error) {
      this.view = null;
      this.problem = error;
      this.root.setAttribute("data-job", "invalid");
    }
    showError(this.ui, this.problem, { lead: "This job cannot be edited yet: " });
    showOutputState(this.ui, this.problem);
    const { line } = errorLine(this.problem);
    if (reveal && line) revealLine(this.ui, line);
    renderRoles(this.ui, this.view, this.role);
    renderClosure(this.ui, this.view, this.role);
    this.share.update(this.view, this.index, this.ui.editor.value);
    this.renderList();
  }

  renderList() {
    if (!this.index) return;
    const { ui, root, index, records, view, role, limit } = this;
    drawList({
      ui, root, index, records, view, role, limit, siteUrl: this.host.siteUrl, delta: this.delta,
      check: (n, on) => this.check(n, on), pick: (n, range) => this.pick(n, range), bind: (n, on) => this.bind(n, on),
    });
  }

  showMore(more) {
    this.limit = more ? this.limit + PAGE : PAGE;
    this.renderList();
  }

  /* Run one edit at a time, in order. */
  queue(task) {
    this.busy = this.busy.then(task).catch((error) => showError(this.ui, error));
    return this.busy;
  }

  /* One edit of the job's text by the engine, its changes shown (its error, when it refuses). */
  edit(run) {
    return this.queue(async () => {
      this.root.setAttribute("data-state", "busy");
      try {
        const result = await run(this.ui.editor.value);
        await this.setText(result.after);
        showMessages(this.ui, result.changes, result.warnings);
      } catch (error) {
        await this.refresh();
        showError(this.ui, error);
      } finally {
        this.root.setAttribute("data-state", "ready");
      }
    });
  }

  /* Check (`prereq job add`) or uncheck (`prereq job remove`) one prerequisite in the task role; what
   * came in or went out is said next to its row and in the live region. */
  check(name, on) {
    const before = this.closureNames();
    return this.edit(async (text) => {
      if (!on) return removeFromText(text, [name], this.editOptions(this.role));
      const result = await addToText(text, [name], this.editOptions(this.role));
      window.prereq.pushRecent(name);
      return result;
    }).then(() => this.summarise(name, before));
  }

  closureNames() { return new Set(this.view ? this.view.closure.map((r) => r.name) : []); }

  summarise(name, before) {
    const text = this.view && closureChange(before, this.closureNames());
    if (!text) return;
    this.delta = { name, text };
    if (this.ui.live) this.ui.live.textContent = `${name}: ${text}`;
    showDelta(this.ui.list, this.delta); // the list was just drawn: only its row changes
  }

  /* The version picker: select NAME@RANGE (NAME alone: any version that fits) in the task role, as
   * `prereq job add NAME@RANGE` does (the locked version stays while the range allows it). */
  pick(name, range) {
    return this.edit((text) => addToText(text, [range ? `${name}@${range}` : name], this.editOptions(this.role)));
  }

  /* Bind (`prereq job add --bind`) or unbind (`prereq job remove --unbind`) the task role's field of the
   * item's type to a selected item. */
  bind(name, on) {
    const range = this.view ? this.view.ranges.get(name) : null; // the selection's own range stays
    return this.edit((text) => (on
      ? addToText(text, [range ? `${name}@${range}` : name], { ...this.editOptions(this.role), bind: true })
      : removeFromText(text, [name], { ...this.editOptions(this.role), unbind: true })));
  }

  /* Start from a template, selecting the registry items its task roles name, as
   * `prereq job add --task-role ROLE NAME...` would. */
  async loadTemplate(name) {
    const template = (this.index.root.templates || []).find((t) => t.name === name);
    if (!template) return;
    let text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await this.index.read(template.path));
    await this.setText(text);
    const lines = [];
    const warnings = [];
    for (const [roleName, names] of namedItems(this.index, text)) {
      const result = await addToText(text, names, this.editOptions(roleName));
      text = result.after;
      lines.push(`task role ${roleName}: selected ${names.join(", ")} (named by the template)`);
      lines.push(...result.changes);
      warnings.push(...result.warnings);
    }
    if (lines.length) await this.setText(text, false);
    showMessages(this.ui, [`started from the template ${name}`].concat(lines), warnings);
  }

  /* Replace the job by another one (a new empty job, an uploaded file) and say so; JSON is
   * written as YAML (jsonjob.js). */
  startFrom(text, message) {
    return this.queue(async () => {
      this.role = "";
      const given = await text();
      const yaml = blockYamlOfJson(given);
      await this.setText(yaml === null ? given : yaml);
      showMessages(this.ui, [yaml === null ? message : `${message} (JSON, written as YAML)`], []);
    });
  }

  /* Text pasted into the editor: JSON pasted as the whole job becomes YAML (Undo brings the JSON
   * back); anything else is read at once, its error's line shown. */
  async pasted() {
    const yaml = blockYamlOfJson(this.ui.editor.value);
    if (yaml === null) return this.refresh({ reveal: true });
    await this.setText(yaml);
    showMessages(this.ui, ["the pasted JSON is written as YAML (Undo brings the JSON back)"], []);
  }

  bindEditor() {
    const ui = this.ui;
    let typing = null;
    bindMark(ui);
    ui.editor.addEventListener("input", (event) => {
      window.clearTimeout(typing);
      this.keepDraft();
      if (event.inputType === "insertFromPaste" || event.inputType === "insertFromDrop") this.queue(() => this.pasted());
      else typing = window.setTimeout(() => this.queue(() => this.refresh()), 250);
    });
    ui.role.addEventListener("change", () => {
      this.role = ui.role.value;
      this.keepDraft();
      this.queue(() => this.refresh());
    });
  }

  bindFilters() {
    const ui = this.ui;
    ui.query.addEventListener("input", () => this.showMore(false));
    const shows = this.root.querySelectorAll('input[name="prereq-composer-show"]');
    for (const input of [ui.type, ui.tag, ui.deprecated, ...shows]) input.addEventListener("change", () => this.showMore(false));
    ui.more.addEventListener("click", () => this.showMore(true));
    bindSkipLinks(this.root);
    document.addEventListener("prereq:storage", () => this.root.dataset.state !== "busy" && this.renderList()); // an edit redraws
  }

  bindStartingPoints() {
    const ui = this.ui;
    ui.empty.addEventListener("click", () => {
      // A draft is the user's work: replaced only when they say so (Undo would bring it back too).
      const draft = ui.editor.value.trim() && ui.editor.value !== this.starting.text;
      if (draft && !window.confirm("Replace the job in the editor by a new empty job?")) return;
      this.startFrom(async () => this.starting.text, "started a new empty job (Undo brings the previous one back)");
    });
    ui.template.addEventListener("change", () => {
      const name = ui.template.value;
      ui.template.value = "";
      if (name) this.queue(() => this.loadTemplate(name));
    });
    ui.upload.addEventListener("change", () => {
      const file = ui.upload.files && ui.upload.files[0];
      ui.upload.value = "";
      if (file) this.startFrom(() => file.text(), `opened ${file.name}`);
    });
    ui.undo.addEventListener("click", () => this.queue(async () => {
      const last = this.history.pop();
      if (!last) return;
      this.role = last.role;
      await this.setText(last.text, false);
      ui.undo.disabled = !this.history.length;
      showMessages(ui, ["undone"], []);
    }));
  }

  async followLinkRequest({ template, add }) {
    const { ui, index } = this;
    if (template !== null) {
      if ((index.root.templates || []).some((t) => t.name === template)) await this.queue(() => this.loadTemplate(template));
      else showError(ui, new PrereqError(`no job template named '${template}' in the index`, { hint: "pick one in the Template list" }));
    }
    if (add === null) return;
    if (!index.entries.has(add)) {
      showError(ui, new PrereqError(`no prerequisite named '${add}' in the index`, { hint: "search the list for it" }));
    } else if (this.view && this.view.inClosure.has(add)) {
      showMessages(ui, [`${add} is already in task role ${this.role}`], []);
    } else if (this.view) {
      await this.check(add, true);
    }
  }

  /* Load the index, draw the composer, continue the draft (or start the empty job) and follow the
   * link the page was opened with.  A failure here is the caller's to show. */
  async start() {
    const ui = this.ui;
    this.index = await Index.load(this.host.api, reader(this.host.api), { trust: this.host.trust || null });
    window.prereq.useIndex(this.index.root);
    this.records = this.index.root.items.map(window.prereq.searchRecord);
    const opening = await openingJob(this.index, this.host); // the draft, else the job users start from
    [this.starting, this.role, ui.editor.value] = [opening.starting, opening.role, opening.text];
    renderFilterOptions(ui, this.index);
    renderTemplates(ui, this.index);
    this.bindEditor();
    this.bindFilters();
    this.bindStartingPoints();
    bindOutputs({ ui, problem: () => this.problem, jobName: () => this.view && this.view.name, fail: (error) => showError(ui, error) });
    ui.undo.disabled = true;
    await this.refresh();
    if (this.host.links) await this.followLinkRequest(takeLinkRequest());
    this.root.setAttribute("data-state", "ready");
  }

  /* What a host's own controls may use (the plugin's submission, tests, debugging). */
  api() {
    return {
      add: (text, names, roleName) => addToText(text, names, this.editOptions(roleName)),
      remove: (text, names, roleName) => removeFromText(text, names, this.editOptions(roleName)),
      idle: () => this.busy,
      queue: (task) => this.queue(task),
      text: () => this.ui.editor.value,
      setText: (text) => this.setText(text),
      index: () => this.index,
      starting: () => this.starting, // jobfile.js's startingJob: the image new jobs start with, or why none
      view: () => this.view,
      ui: this.ui,
      showError: (error) => showError(this.ui, error),
      showMessages: (lines, warnings) => showMessages(this.ui, lines, warnings || []),
    };
  }
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

/* Mount a composer into `root` (which holds the composer's markup) for `host`; its api() is
 * returned at once, and `ready` settles when it has started (or failed to). */
export function mount(root, host) {
  const composer = new Composer(root, host);
  return { api: composer.api(), ready: composer.start() };
}

/* The index's trust setting from an allowed_signers text (null without one: nothing is verified). */
export function trustOf(allowedSigners) {
  return typeof allowedSigners === "string" && allowedSigners.trim() ? { signers: parseAllowedSigners(allowedSigners) } : null;
}

/* The site's composer page: this site's index, recorded as the site's address (prereq.yaml's
 * site.index_url when it names another). */
export async function start(root) {
  const configured = document.querySelector('meta[name="prereq:index"]');
  const site = window.prereq.siteUrl("");
  const mounted = mount(root, {
    siteUrl: window.prereq.siteUrl,
    api: window.prereq.siteUrl("api/v1").replace(/\/+$/, ""),
    indexSource: (configured ? configured.getAttribute("content") : site).replace(/\/+$/, ""),
    links: true,
    newItemUrl: document.querySelector('meta[name="prereq:new-item"]')?.getAttribute("content") || null,
    trust: trustOf(document.querySelector('meta[name="prereq:allowed-signers"]')?.getAttribute("content")),
  });
  window.prereqComposer = mounted.api; // for debugging and tests; the page itself does not need it
  await mounted.ready;
}
