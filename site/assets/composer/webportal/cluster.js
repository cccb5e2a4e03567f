/* Draws checks.js's and jobchecks.js's checks and the queues, with one-click fixes as the composer's
 * own edits (composer/README.md, the checks beside the YAML).
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { PrereqError } from "../core/errors.js";
import { goToLine } from "../ui/editor.js";
import { catalogWords, checkCluster, checkName, checkSubmitted, loadCatalog, noQueueWords, queueOffers, withName, withVirtualCluster } from "./checks.js";
import { jobChecks } from "./jobchecks.js";
import { button, el } from "./panel.js";

const PAUSE = 300; // ms: past the editor's own pause (250) before it reads the text

function hint(text) {
  return el("div", "prereq-composer__hint", "hint: " + text);
}

function queueRow(offer, use) {
  const row = el("tr");
  row.setAttribute("data-queue", offer.queue);
  const name = el("td", null, offer.title + " ");
  name.append(el("code", null, offer.queue));
  const cluster = el("td");
  cluster.append(el("code", null, offer.virtualCluster));
  if (offer.usable === false) cluster.append(el("span", "prereq-plugin__denied", " (your OpenPAI groups may not use it)"));
  const pick = button(`prereq-plugin-queue-${offer.queue}`, "Use", false);
  pick.setAttribute("aria-label", `Put the job on ${offer.title} (virtual cluster ${offer.virtualCluster})`);
  pick.setAttribute("aria-pressed", "false");
  pick.setAttribute("data-cluster", offer.virtualCluster);
  pick.addEventListener("click", () => use(offer));
  const action = el("td");
  action.append(pick);
  row.append(name, el("td", null, String(offer.slots)), el("td", null, String(offer.priority)), cluster, action);
  return row;
}

function queueTable(offers, use) {
  const table = el("table", "prereq-plugin__queue-table");
  const head = table.createTHead().insertRow();
  for (const title of ["Queue", "Your slots", "Priority", "Virtual cluster", ""]) head.append(el("th", null, title));
  table.createTBody().append(...offers.map((offer) => queueRow(offer, use)));
  return table;
}

function noQueue(words) {
  const none = el("p", "prereq-composer__none", words.message);
  none.id = "prereq-plugin-no-queue";
  return words.hint ? [none, hint(words.hint)] : [none];
}

export class ClusterPanel {
  /* `prepare(text)` is Submit's preparation (jobs/prepare.js's prepareJob, by the composer's engine). */
  constructor({ root, composer, server, store, api, prepare }) {
    Object.assign(this, { composer, server, store, api, prepare });
    this.ui = { checks: root.querySelector("#prereq-plugin-checks"), queues: root.querySelector("#prereq-plugin-queues") };
    this.shown = null; // JSON of the {name, cluster} checked by the rest-server
    this.named = [];
    this.drawn = null; // what the list shows, as JSON
    this.submittedName = null;
    this.timer = null;
    this.running = Promise.resolve();
    this.waiting = null; // settles when the scheduled run has run
    root.addEventListener("input", () => this.schedule());
    root.addEventListener("change", () => this.schedule());
    root.addEventListener("click", () => this.schedule());
    store.onChange(() => this.schedule()); // an expression's value changes what Submit would find
  }

  /* While the user types: one run, at the end. */
  schedule() {
    window.clearTimeout(this.timer);
    if (!this.waiting) this.waiting = new Promise((resolve) => { this.release = resolve; });
    this.timer = window.setTimeout(() => {
      const release = this.release;
      this.waiting = null;
      this.running = this.running.then(() => this.run()).catch((error) => console.error(error)).then(release); // eslint-disable-line no-console
    }, PAUSE);
  }

  /* Ask the rest-server again: the job changed in a way the text does not show (a refused submission). */
  invalidate() {
    this.shown = null;
    this.schedule();
  }

  /* The name is taken now, by this very job. */
  submitted(name) {
    this.submittedName = name;
    this.invalidate();
  }

  idle() {
    return Promise.all([this.waiting, this.running]);
  }

  async run() {
    await this.composer.idle();
    const text = this.composer.text();
    const { target, missing } = await this.composer.submissionFacts(text); // read by the engine, off the page
    const key = JSON.stringify(target);
    if (key !== this.shown) {
      this.named = await this.ask(target);
      this.shown = key;
    }
    const own = target && this.composer.view() ? await this.contentChecks(text, missing) : [];
    if (this.composer.text() !== text) return this.run(); // changed while checking
    this.drawChecks([...own, ...this.named]);
    this.markQueue(target ? target.cluster : null);
  }

  async ask(target) {
    const results = [];
    if (target && target.name) {
      results.push(await (target.name === this.submittedName ? checkSubmitted : checkName)(this.server, target.name));
    }
    if (target) results.push(checkCluster(this.store.record, this.store.recordError, target.cluster));
    return results;
  }

  contentChecks(text, missing) {
    return jobChecks(text, { prepare: this.prepare, index: this.composer.index(), starting: this.composer.starting(), admin: this.admin(), missing });
  }

  drawChecks(results) {
    const drawn = JSON.stringify(results);
    if (drawn === this.drawn) return; // the same words: nothing for a screen reader to hear again
    this.drawn = drawn;
    this.ui.checks.textContent = "";
    for (const result of results) this.ui.checks.append(this.checkItem(result));
  }

  checkItem(result) {
    const item = el("li", null, result.message);
    item.setAttribute("data-check", result.check);
    item.setAttribute("data-state", result.state);
    if (result.lineless) item.append(el("span", "prereq-plugin__noline", " (on no line of the YAML)"));
    if (result.hint) item.append(hint(result.hint));
    if (result.line) {
      const go = button("", `Go to line ${result.line}`);
      go.setAttribute("data-line", String(result.line));
      go.addEventListener("click", () => goToLine(this.composer.ui, result.line));
      item.append(go);
    }
    if (result.fresh) {
      const take = button("prereq-plugin-fresh-name", `Use ${result.fresh}`, false);
      take.addEventListener("click", () => this.edit((text) => ({ after: withName(text, result.fresh), changes: [`renamed the job to ${result.fresh}`] })));
      item.append(take);
    }
    if (result.add) {
      const add = button("", `Add ${result.add}`);
      add.setAttribute("data-add", result.add);
      add.setAttribute("aria-label", `Add the image ${result.add} to task role ${result.role}`);
      add.addEventListener("click", () => this.addImage(result.add, result.role));
      item.append(add);
    }
    return item;
  }

  markQueue(cluster) {
    for (const pick of this.ui.queues.querySelectorAll("button[data-cluster]")) {
      const chosen = pick.getAttribute("data-cluster") === cluster;
      pick.setAttribute("aria-pressed", String(chosen));
      pick.textContent = chosen ? "In use" : "Use";
    }
  }

  /* Queued as the composer's own edits: undoable, said in its messages.  `change(text)` gives {after, changes, warnings}. */
  edit(change) {
    return this.composer.queue(async () => {
      try {
        const result = await change(this.composer.text());
        await this.composer.setText(result.after);
        this.composer.showMessages(result.changes, result.warnings);
      } catch (error) {
        if (!(error instanceof PrereqError)) throw error;
        this.composer.showError(error);
      }
    }).then(() => this.schedule());
  }

  /* As `prereq job add --task-role ROLE IMAGE`. */
  addImage(image, role) {
    return this.edit((text) => this.composer.add(text, [image], role));
  }

  /* Once the user's record is known; hidden when the index has no catalog. */
  async drawQueues() {
    const section = this.ui.queues;
    let document;
    try {
      document = await loadCatalog(this.api);
    } catch (error) {
      const words = catalogWords(error, { admin: this.admin() });
      section.hidden = false;
      section.replaceChildren(el("h2", null, "Queues"), el("p", "prereq-plugin__where", words.message), hint(words.hint));
      return;
    }
    if (document === null) return;
    section.hidden = false;
    section.replaceChildren(el("h2", null, "Queues your groups get"), ...this.queueParts(document));
    this.markQueue(this.shown ? (JSON.parse(this.shown) || {}).cluster : null);
  }

  admin() {
    return Boolean(this.store.record && this.store.record.admin === true);
  }

  queueParts(document) {
    const record = this.store.record;
    if (!record) return [el("p", "prereq-plugin__where", `Cannot read your groups: ${this.store.reason}`)];
    const admin = this.admin();
    const groups = Array.isArray(record.grouplist) ? record.grouplist.map(String) : [];
    const said = el("p", "prereq-plugin__where", `Your OpenPAI groups: ${groups.join(", ") || "none"}. ` +
      `On each queue you get the most slots and the highest priority any of them gives${admin ? " (prereq rights --groups)" : ""}.`);
    said.id = "prereq-plugin-groups";
    let offers;
    try {
      offers = queueOffers(document, record);
    } catch (error) {
      if (!(error instanceof PrereqError)) throw error;
      return [said, ...noQueue(noQueueWords(error, { admin, groups }))];
    }
    if (!offers.length) return [said, ...noQueue(noQueueWords(null, { admin, groups }))];
    const use = (offer) => this.edit((text) => ({ after: withVirtualCluster(text, offer.virtualCluster),
      changes: [`put the job on the queue ${offer.title} (${offer.queue}): defaults.virtualCluster is ${offer.virtualCluster}`] }));
    return [said, queueTable(offers, use)];
  }
}
