/* What the cluster says of the job, beside the YAML, while it is written: the rest-server's checks
 * (checks.js: the name in use, the virtual cluster the user's groups may not use), a fresh name to
 * take in one click, and the queues the user's groups get (queues.js), one click putting the job on
 * a queue's virtual cluster.  Both edits go through the composer as its own do (undoable, comments
 * kept).
 *
 * The checks run a moment after the job may have changed (typing, a checkbox, a template, Undo) and
 * after the composer's own edit is done; only a change of the job's name or virtual cluster asks the
 * rest-server again.  Text goes in through textContent and attributes only.
 *
 * Folder webportal/: the composer as an OpenPAI webportal plugin (webportal/prereq-plugin.js): the
 * rest-server's job and user APIs, the user's record and the queues its groups get, the shadow root
 * the composer is mounted into.
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { checkCluster, checkName, jobTarget, withName } from "./checks.js";
import { button, el } from "./panel.js";
import { loadCatalog, queueOffers, withVirtualCluster } from "./queues.js";

const PAUSE = 300; // ms after the last change, past the editor's own pause (250) before it reads the text

function hint(text) {
  return el("div", "prereq-composer__hint", "hint: " + text);
}

/* The list of checks, right above the submission's outcome, and the queues' section, above the
 * user's values. */
function drawShell(root) {
  const checks = el("ul", "prereq-plugin__checks");
  checks.id = "prereq-plugin-checks";
  checks.setAttribute("aria-label", "What the cluster would say");
  checks.setAttribute("aria-live", "polite");
  root.querySelector("#prereq-plugin-outcome").before(checks);
  const queues = el("section", "prereq-plugin__queues");
  queues.id = "prereq-plugin-queues";
  queues.setAttribute("aria-label", "Queues your groups get");
  queues.hidden = true;
  root.querySelector("#prereq-plugin-mine").before(queues);
  return { checks, queues };
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
  const head = el("tr");
  for (const title of ["Queue", "Your slots", "Priority", "Virtual cluster", ""]) head.append(el("th", null, title));
  const body = el("tbody");
  body.append(...offers.map((offer) => queueRow(offer, use)));
  const thead = el("thead");
  thead.append(head);
  table.append(thead, body);
  return table;
}

export class ClusterPanel {
  /* `composer` is the mounted composer's api, `store` the user's values (its record: groups, clusters). */
  constructor({ root, composer, server, store, api }) {
    Object.assign(this, { composer, server, store, api });
    this.ui = drawShell(root);
    this.shown = null; // the {name, cluster} the checks shown are for
    this.timer = null;
    this.running = Promise.resolve();
    this.waiting = null; // settles when the scheduled run has run (idle() waits for it)
    root.addEventListener("input", () => this.schedule());
    root.addEventListener("change", () => this.schedule());
    root.addEventListener("click", () => this.schedule());
  }

  /* Check again a moment from now (again and again while the user types: once, at the end). */
  schedule() {
    window.clearTimeout(this.timer);
    if (!this.waiting) this.waiting = new Promise((resolve) => { this.release = resolve; });
    this.timer = window.setTimeout(() => {
      const release = this.release;
      this.waiting = null;
      this.running = this.running.then(() => this.run()).catch((error) => console.error(error)).then(release); // eslint-disable-line no-console
    }, PAUSE);
  }

  /* The job changed in a way the checks cannot see (a submission): ask the rest-server again. */
  invalidate() {
    this.shown = null;
    this.schedule();
  }

  idle() {
    return Promise.all([this.waiting, this.running]);
  }

  async run() {
    await this.composer.idle();
    const key = JSON.stringify(jobTarget(this.composer.text()));
    if (key === this.shown) return;
    const target = JSON.parse(key);
    const results = [];
    if (target && target.name) results.push(await checkName(this.server, target.name));
    if (target) results.push(checkCluster(this.store.record, this.store.recordError, target.cluster));
    if (JSON.stringify(jobTarget(this.composer.text())) !== key) return this.run(); // changed while asking
    this.shown = key;
    this.drawChecks(results);
    this.markQueue(target ? target.cluster : null);
  }

  drawChecks(results) {
    this.ui.checks.textContent = "";
    for (const result of results) {
      const item = el("li", null, result.message);
      item.setAttribute("data-check", result.check);
      item.setAttribute("data-state", result.state);
      if (result.hint) item.append(hint(result.hint));
      if (result.fresh) {
        const take = button("prereq-plugin-fresh-name", `Use ${result.fresh}`, false);
        take.addEventListener("click", () => this.edit((text) => withName(text, result.fresh), `renamed the job to ${result.fresh}`));
        item.append(take);
      }
      this.ui.checks.append(item);
    }
  }

  markQueue(cluster) {
    for (const pick of this.ui.queues.querySelectorAll("button[data-cluster]")) {
      const chosen = pick.getAttribute("data-cluster") === cluster;
      pick.setAttribute("aria-pressed", String(chosen));
      pick.textContent = chosen ? "In use" : "Use";
    }
  }

  /* One edit of the job's text, as the composer's own: queued, undoable, said in its messages. */
  edit(change, message) {
    return this.composer.queue(async () => {
      await this.composer.setText(change(this.composer.text()));
      this.composer.showMessages([message]);
    }).then(() => this.schedule());
  }

  /* The queues' section, once the user's record is known: hidden when the index has no catalog. */
  async drawQueues() {
    const section = this.ui.queues;
    let document;
    try {
      document = await loadCatalog(this.api);
    } catch (error) {
      section.hidden = false;
      section.replaceChildren(el("h2", null, "Queues"), el("p", "prereq-plugin__where", error.message), hint(error.hint));
      return;
    }
    if (document === null) return;
    section.hidden = false;
    section.replaceChildren(el("h2", null, "Queues your groups get"), ...this.queueParts(document));
    this.markQueue(this.shown ? (JSON.parse(this.shown) || {}).cluster : null);
  }

  queueParts(document) {
    const record = this.store.record;
    if (!record) return [el("p", "prereq-plugin__where", `Cannot read your groups: ${this.store.reason}`)];
    const groups = Array.isArray(record.grouplist) ? record.grouplist.map(String) : [];
    const said = el("p", "prereq-plugin__where", `Your OpenPAI groups: ${groups.join(", ") || "none"}. ` +
      "On each queue you get the most slots and the highest priority any of them gives (prereq rights --groups).");
    said.id = "prereq-plugin-groups";
    let offers;
    try {
      offers = queueOffers(document, record);
    } catch (error) {
      return [said, el("p", "prereq-plugin__where", error.message), hint(error.hint)];
    }
    if (!offers.length) return [said, el("p", "prereq-composer__none", "None of your groups has a slot on a queue.")];
    const use = (offer) => this.edit((text) => withVirtualCluster(text, offer.virtualCluster),
      `put the job on the queue ${offer.title} (${offer.queue}): defaults.virtualCluster is ${offer.virtualCluster}`);
    return [said, queueTable(offers, use)];
  }
}
