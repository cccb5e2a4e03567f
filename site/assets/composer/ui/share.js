/* "Share as a registry item": `prereq share JOB.yaml NAME` (jobs/share.js) for a prerequisite the job
 * defines itself, to copy, download or propose on the forge's prefilled new-file page (the site's
 * `prereq:new-item` meta).  Untrusted text only goes in as text.
 * May import: core/, yaml/, openpai/, index/, jobs/.
 */

import { PrereqError } from "../core/errors.js";
import { shareEntry } from "../jobs/share.js";
import { download } from "./jobfile.js";

const OWNER_KEY = "prereq.owner";
const URL_LIMIT = 8000; // GitHub answers "414 URI Too Long" past about 8 KB of address
const SCHEMA_URI = "reference/prerequisite.schema.json"; // where every prereq site publishes the item schema

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text) node.textContent = text;
  return node;
}

function field(label, control) {
  const wrap = element("label", { class: "prereq-composer__field prereq-share__field" }, label);
  wrap.appendChild(control);
  return wrap;
}

function storedOwner() {
  try { return window.localStorage.getItem(OWNER_KEY) || ""; } catch (error) { return ""; } // private mode
}

export class SharePanel {
  constructor(root, host) {
    this.host = host;
    this.entries = [];
    this.text = "";
    this.build(root.querySelector(".prereq-composer__job") || root);
  }

  build(parent) {
    const ui = {};
    ui.section = element("section", { class: "prereq-share", "aria-labelledby": "prereq-share-title", hidden: "" });
    ui.section.appendChild(element("h2", { id: "prereq-share-title", class: "prereq-share__title" }, "Share your own prerequisites"));
    ui.intro = element("p", { class: "prereq-share__intro" });
    ui.entry = element("select", { id: "prereq-share-entry" });
    ui.name = element("input", { id: "prereq-share-name", type: "text", spellcheck: "false", autocomplete: "off", maxlength: "63" });
    ui.owner = element("input", { id: "prereq-share-owner", type: "text", spellcheck: "false", autocomplete: "username",
      placeholder: "your user or team in owners.yaml" });
    ui.owner.value = storedOwner();
    ui.problem = element("p", { id: "prereq-share-problem", class: "prereq-share__problem", role: "alert", hidden: "" });
    ui.item = element("pre", { class: "prereq-share__item", tabindex: "0", "aria-label": "The registry item" });
    ui.code = ui.item.appendChild(element("code", { id: "prereq-share-item" }));
    ui.actions = element("div", { class: "prereq-share__actions" });
    ui.open = element("a", { id: "prereq-share-open", class: "md-button md-button--primary", target: "_blank", rel: "noopener" },
      "Propose it in a pull request");
    ui.copy = element("button", { type: "button", id: "prereq-share-copy", class: "md-button" }, "Copy the item");
    ui.download = element("button", { type: "button", id: "prereq-share-download", class: "md-button" }, "Download the item");
    ui.status = element("p", { id: "prereq-share-status", class: "prereq-share__status", role: "status", "aria-live": "polite" });
    if (this.host.newItemUrl) ui.actions.appendChild(ui.open);
    ui.actions.append(ui.copy, ui.download);
    const fields = element("div", { class: "prereq-share__fields" });
    fields.append(field("Prerequisite ", ui.entry), field("Name in the registry ", ui.name), field("Owner ", ui.owner));
    ui.section.append(ui.intro, fields, ui.problem, ui.item, ui.actions, ui.status);
    parent.appendChild(ui.section);
    this.ui = ui;
    ui.entry.addEventListener("change", () => {
      ui.name.value = ui.entry.value;
      this.show();
    });
    ui.name.addEventListener("input", () => this.show());
    ui.owner.addEventListener("input", () => {
      try { window.localStorage.setItem(OWNER_KEY, ui.owner.value.trim()); } catch (error) { /* private mode */ }
      this.show();
    });
    ui.copy.addEventListener("click", () => this.copy());
    ui.download.addEventListener("click", () => download(this.text, this.shared.name));
    ui.open.addEventListener("click", (event) => this.open(event));
  }

  update(view, index, jobText) {
    this.index = index;
    this.jobText = jobText;
    this.jobName = view ? view.name : "job";
    const entries = view && index && index.root.item_format ? [...view.handTop] : [];
    const ui = this.ui;
    ui.section.hidden = !entries.length;
    if (!entries.length) return;
    if (entries.join("\n") !== this.entries.join("\n")) {
      const keep = entries.includes(ui.entry.value) ? ui.entry.value : entries[0];
      ui.entry.replaceChildren(...entries.map((name) => element("option", { value: name }, name)));
      ui.entry.value = keep;
      if (!ui.name.value || this.entries.includes(ui.name.value)) ui.name.value = keep; // not one the user typed
      this.entries = entries;
    }
    ui.intro.textContent = `This job defines ${entries.length === 1 ? "a prerequisite" : entries.length + " prerequisites"} ` +
      "of its own. Save one as a registry item so that other jobs can use it: the item below is what " +
      "`prereq share` makes of it. Fill in its TODO lines; the pull request's checks validate it.";
    this.show();
  }

  show() {
    const ui = this.ui;
    const owner = ui.owner.value.trim();
    this.shared = null;
    let problem = null;
    try {
      if (!owner) throw new PrereqError("say who owns the item", { hint: "your user name (or your team) in the registry's owners.yaml" });
      this.shared = shareEntry(this.jobText, ui.entry.value, {
        owner, format: this.index.root.item_format, taken: [...this.index.entries.keys()],
        asName: ui.name.value.trim() || null,
      });
    } catch (error) {
      // A bug of ours must not stop the composer drawing the rest.
      if (!(error instanceof PrereqError)) window.console.error(error);
      problem = error instanceof PrereqError ? error : new PrereqError(`the item could not be made: ${error}`,
        { hint: "run 'prereq share JOB.yaml NAME' instead, and report this" });
    }
    this.text = this.shared ? this.header() + this.shared.text : "";
    ui.code.textContent = this.text;
    ui.item.hidden = !this.shared;
    ui.problem.hidden = !problem;
    ui.problem.textContent = problem ? `${problem.message} (${problem.hint})` : "";
    for (const control of [ui.copy, ui.download]) control.disabled = !this.shared;
    if (this.shared && this.host.newItemUrl) ui.open.href = this.forgeUrl(true);
    else ui.open.removeAttribute("href");
    ui.open.setAttribute("aria-disabled", String(!this.shared));
    ui.download.textContent = this.shared ? `Download ${this.shared.name}.yaml` : "Download the item";
    ui.status.textContent = "";
  }

  header() {
    const schema = new URL(this.host.siteUrl(SCHEMA_URI), window.location.href).href;
    const job = String(this.jobName).replace(/[^A-Za-z0-9_.~-]+/g, "-"); // one line, whatever the job's name holds
    return `# yaml-language-server: $schema=${schema}\n# Shared from ${job} by the job composer.\n`;
  }

  forgeUrl(withText) {
    return this.host.newItemUrl.replace("{name}", encodeURIComponent(this.shared.name))
      .replace("{value}", withText ? encodeURIComponent(this.text) : "");
  }

  copy() {
    return window.prereq.copyText(this.text).then(
      () => { this.ui.status.textContent = `Copied ${this.shared.name}.yaml.`; },
      () => { this.ui.status.textContent = "The browser refused to copy: select the item and copy it yourself."; });
  }

  /* Too long for the address: the empty page, the item on the clipboard. */
  open(event) {
    if (!this.shared) return event.preventDefault();
    if (this.forgeUrl(true).length <= URL_LIMIT) return;
    this.ui.open.href = this.forgeUrl(false);
    window.prereq.copyText(this.text).then(() => {
      this.ui.status.textContent = "The item is too long for the address: it was copied, paste it into the new file.";
    }, () => {
      this.ui.status.textContent = "The item is too long for the address: copy it from here into the new file.";
    });
  }
}
