/* The job composer: each check is `prereq job add/remove` on the editor's text by jobs/ and yaml/ (held
 * equal to the CLI by tests/cases/).  Mounted into the site's page (start.js) or the plugin's shadow
 * root (webportal/mount.js); the host's fields: composer/README.md.  Elements are found in the root
 * only.  Untrusted text goes in as textContent or form values, never as HTML.
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";
import { Index } from "../index/reader.js";
import { parseAllowedSigners } from "../index/sshsig.js";
import { bindMark, errorLine, putText, revealLine } from "./editor.js";
import { fetchReader, pageEngine, workerEngine } from "./engine.js";
import { openedText, openingJob, saveDraft, takeLinkRequest } from "./jobfile.js";
import { blockYamlOfJson } from "./jsonjob.js";
import { renderList as drawList } from "./listing.js";
import { bindOutputs, showOutputState } from "./outputs.js";
import {
  bindSkipLinks, closureChange, composerElements, showDelta, renderClosure, renderFilterOptions, renderRoles, renderTemplates, showError, showMessages,
} from "./panels.js";
import { SharePanel } from "./share.js";
import { namedItems } from "./view.js";

const PAGE = 60; // rows the list shows at first, and how many more "Show more" adds
const UNDO_STEPS = 50;

class Composer {
  constructor(root, host) {
    this.root = root;
    this.host = host;
    this.ui = composerElements(root);
    this.index = null;
    this.engine = null; // engine.js's
    this.records = [];
    this.view = null;
    this.problem = null; // why analyse() refused it (null: it did not)
    this.role = "";
    this.limit = PAGE;
    this.busy = Promise.resolve();
    this.history = [];
    this.share = new SharePanel(root, host);
    this.prefetched = new Set();
    this.committed = null; // the job while an edit runs: its text may be shown before its check
    this.untyped = null; // the editor's text as the composer last set it, until the user types
    this.edits = 0; // edits asked for and not done
  }

  /* `view`: the edit is drawn, so a worker sends the view of its text with it (engine.js). */
  editOptions(taskRole, view = false) {
    const shown = view ? (text) => this.showUnchecked(text) : null;
    return { indexSource: this.host.indexSource, taskRole, source: "job", view, shown };
  }

  /* An edit's text before the load that checks it (composer/README.md, where the engine runs), shown while
   * the composer is busy; the check goes on after its frame (at once in a hidden tab, which paints none). */
  showUnchecked(text) {
    if (this.committed === null) return null;
    putText(this.ui, text);
    if (document.hidden) return null;
    return new Promise((resolve) => {
      window.requestAnimationFrame(() => window.setTimeout(resolve));
      window.setTimeout(resolve, 100); // a tab hidden meanwhile
    });
  }

  /* The job as committed: what Copy, Download, the draft and the host read (not a text before its check). */
  text() { return this.committed ?? this.ui.editor.value; }

  keepDraft() { saveDraft(this.text(), this.role); }

  /* A step for Undo: the text before it, and its task role. */
  remember(text) {
    this.history.push({ text, role: this.role });
    if (this.history.length > UNDO_STEPS) this.history.shift();
    this.ui.undo.disabled = false;
  }

  /* Undoable unless `remember` is false (Undo gives the task role back too); the text is painted before
   * the rest is redrawn.  `role`: the task role to show for the new text ("": its first). */
  async setText(text, remember, from = this.ui.editor.value, role = this.role) {
    const ui = this.ui;
    if (remember !== false && text !== from) this.remember(from);
    this.role = role;
    putText(ui, text);
    this.untyped = text;
    ui.undo.disabled = !this.history.length;
    this.keepDraft();
    await new Promise((resolve) => window.requestAnimationFrame(() => window.setTimeout(resolve)));
    return this.refresh({ reveal: true });
  }

  /* `reveal`: scroll to the error's line (for a whole new text, not one being typed). */
  async refresh({ reveal = false } = {}) {
    // The messages and summary were about the text before: an edit says its own after.
    showMessages(this.ui, [], []);
    this.delta = null;
    try {
      this.view = await this.engine.analyse(this.ui.editor.value, this.role);
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
    // The list first: its focus given back lays out what was drawn before it, and only that, at once.
    this.renderList();
    renderClosure(this.ui, this.view, this.role);
    this.share.update(this.view, this.index, this.ui.editor.value);
  }

  renderList() {
    if (!this.index) return;
    const { ui, root, index, records, view, role, limit } = this;
    drawList({
      ui, root, index, records, view, role, limit, siteUrl: this.host.siteUrl, delta: this.delta,
      check: (n, on) => this.check(n, on), pick: (n, range) => this.pick(n, range), bind: (n, on) => this.bind(n, on),
      prefetch: (n) => this.prefetch(n),
    });
  }

  showMore(more) {
    this.limit = more ? this.limit + PAGE : PAGE;
    // During an edit the list is of the job before it: the edit's own redraw reads the filter then.
    if (!this.edits) this.renderList();
  }

  queue(task) {
    this.busy = this.busy.then(task).catch((error) => showError(this.ui, error));
    return this.busy;
  }

  edit(run) {
    this.edits += 1; // asked for: the list waits for it (showMore) from now, not from when it runs
    return this.queue(async () => {
      this.root.setAttribute("data-state", "busy");
      this.ui.editor.readOnly = true; // the edit replaces the text: what was typed meanwhile would be lost
      const before = (this.committed = this.ui.editor.value); // the editor may show the edit's text before its check
      let [result, failure] = [null, null];
      try {
        result = await run(before);
      } catch (error) {
        failure = error;
      }
      this.committed = null;
      try {
        if (failure === null) {
          await this.setText(result.after, true, before);
          showMessages(this.ui, result.changes, result.warnings);
        } else {
          putText(this.ui, before); // refused: nothing took the text shown
          await this.refresh();
          showError(this.ui, failure);
        }
      } finally {
        this.edits -= 1;
        this.ui.editor.readOnly = false;
        this.root.setAttribute("data-state", "ready");
      }
    });
  }

  check(name, on) {
    let before = null; // the closure when this edit runs, not when it was asked for (an edit may be queued)
    return this.edit(async (text) => {
      before = this.closureNames();
      if (!on) return this.engine.remove(text, [name], this.editOptions(this.role, true));
      const result = await this.engine.add(text, [name], this.editOptions(this.role, true));
      window.prereq.pushRecent(name);
      return result;
    }).then(() => this.summarise(name, before));
  }

  /* The box pointed at: its files read now, after the edit under way (composer/README.md). */
  prefetch(name) {
    if (!this.engine || this.prefetched.has(name)) return;
    if (this.root.dataset.state === "busy") return void this.busy.then(() => this.prefetch(name));
    this.prefetched.add(name);
    this.engine.prefetch([name]).catch(() => this.prefetched.delete(name));
  }

  closureNames() { return new Set(this.view ? this.view.closure.map((r) => r.name) : []); }

  summarise(name, before) {
    const text = this.view && closureChange(before, this.closureNames());
    if (!text) return;
    this.delta = { name, text };
    if (this.ui.live) this.ui.live.textContent = `${name}: ${text}`;
    showDelta(this.ui.list, this.delta); // the list was just drawn: only its row changes
  }

  /* As `prereq job add NAME@RANGE`: the locked version stays while the range allows it. */
  pick(name, range) {
    return this.edit((text) => this.engine.add(text, [range ? `${name}@${range}` : name], this.editOptions(this.role, true)));
  }

  bind(name, on) {
    const range = this.view ? this.view.ranges.get(name) : null; // the selection's own range stays
    return this.edit((text) => (on
      ? this.engine.add(text, [range ? `${name}@${range}` : name], { ...this.editOptions(this.role, true), bind: true })
      : this.engine.remove(text, [name], { ...this.editOptions(this.role, true), unbind: true })));
  }

  /* Selects the items its task roles name, as `prereq job add --task-role ROLE NAME...` would. */
  async loadTemplate(name) {
    const template = this.index.templates().find((t) => t.name === name);
    if (!template) return;
    let text = await this.index.templateText(template);
    await this.setText(text);
    const lines = [];
    const warnings = [];
    for (const [roleName, names] of namedItems(this.index, text)) {
      const result = await this.engine.add(text, names, this.editOptions(roleName));
      text = result.after;
      lines.push(`task role ${roleName}: selected ${names.join(", ")} (named by the template)`);
      lines.push(...result.changes);
      warnings.push(...result.warnings);
    }
    if (lines.length) await this.setText(text, false);
    showMessages(this.ui, [`started from the template ${name}`].concat(lines), warnings);
  }

  startFrom(text, message) {
    return this.queue(async () => {
      const given = await text(); // refused (a file not UTF-8), the job and its task role stay
      const yaml = blockYamlOfJson(given);
      await this.setText(yaml === null ? given : yaml, true, this.ui.editor.value, "");
      showMessages(this.ui, [yaml === null ? message : `${message} (JSON, written as YAML)`], []);
    });
  }

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
      if (this.untyped !== null) { // typing is an undoable step: Undo first gives back the text before it
        this.remember(this.untyped);
        this.untyped = null;
      }
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
    document.addEventListener("prereq:storage", () => !this.edits && this.renderList()); // an edit redraws
  }

  /* A draft is the user's work: replaced only when they say so (Undo would bring it back too). */
  mayReplace(what) {
    const draft = this.text().trim() && this.text() !== this.starting.text;
    return !draft || window.confirm(`Replace the job in the editor by ${what}?`);
  }

  bindStartingPoints() {
    const ui = this.ui;
    ui.empty.addEventListener("click", () => {
      if (!this.mayReplace("a new empty job")) return;
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
      if (file) this.startFrom(() => openedText(file), `opened ${file.name}`);
    });
    ui.undo.addEventListener("click", () => this.queue(async () => {
      const last = this.history.pop();
      if (!last) return;
      await this.setText(last.text, false, this.ui.editor.value, last.role);
      ui.undo.disabled = !this.history.length;
      showMessages(ui, ["undone"], []);
    }));
  }

  async followLinkRequest({ template, add }) {
    const { ui, index } = this;
    if (template !== null) {
      // A link is anyone's to send: it replaces a draft only when the user says so.
      if (!index.templates().some((t) => t.name === template)) {
        showError(ui, new PrereqError(`no job template named '${template}' in the index`, { hint: "pick one in the Template list" }));
      } else if (this.mayReplace(`the template ${template}`)) {
        await this.queue(() => this.loadTemplate(template));
      }
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

  /* A failure here is the caller's to show. */
  async start() {
    const ui = this.ui;
    const [api, trust] = [this.host.api, this.host.trust || null];
    this.index = await Index.load(api, fetchReader(api), { trust });
    const inPage = () => pageEngine(this.index);
    this.engine = workerEngine({ api, trust, files: this.index.loadedFiles }, inPage);
    window.prereq.useIndex(this.index.root);
    this.records = this.index.root.items.map(window.prereq.searchRecord);
    const opening = await openingJob(this.index, this.host);
    [this.starting, this.role, ui.editor.value, this.untyped] = [opening.starting, opening.role, opening.text, opening.text];
    renderFilterOptions(ui, this.index);
    renderTemplates(ui, this.index);
    this.bindEditor();
    this.bindFilters();
    this.bindStartingPoints();
    bindOutputs({ ui, text: () => this.text(), problem: () => this.problem, jobName: () => this.view && this.view.name, fail: (error) => showError(ui, error) });
    ui.undo.disabled = true;
    await this.refresh();
    this.engine.start();
    this.index.loadedFiles.clear(); // the worker has its copy
    if (this.host.links) await this.followLinkRequest(takeLinkRequest());
    this.root.setAttribute("data-state", "ready");
  }

  /* What a host's own controls may use (the plugin's submission, tests, debugging). */
  api() {
    return {
      add: (text, names, roleName) => this.engine.add(text, names, this.editOptions(roleName)),
      idle: () => this.busy,
      engine: () => this.engine.where(), // "worker" or "page"
      prepare: (text, options) => this.engine.prepare(text, { indexSource: this.host.indexSource, ...options }),
      submissionFacts: (text) => this.engine.submissionFacts(text), // jobs/prepare.js's
      queue: (task) => this.queue(task),
      text: () => this.text(),
      setText: (text) => this.setText(text),
      index: () => this.index,
      starting: () => this.starting, // jobfile.js's startingJob
      view: () => this.view,
      ui: this.ui,
      showError: (error) => showError(this.ui, error),
      showMessages: (lines, warnings) => showMessages(this.ui, lines, warnings || []),
    };
  }
}

/* `ready` settles when the composer has started (or failed to). */
export function mount(root, host) {
  const composer = new Composer(root, host);
  return { api: composer.api(), ready: composer.start() };
}

/* Null without allowed signers: nothing is verified. */
export function trustOf(allowedSigners) {
  return typeof allowedSigners === "string" && allowedSigners.trim() ? { signers: parseAllowedSigners(allowedSigners) } : null;
}

/* The site's page: its index, recorded as the site's address (or prereq.yaml's site.index_url). */
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
  window.prereqComposer = mounted.api; // for debugging and tests
  await mounted.ready;
}
