/* The plugin in <pai-plugin>'s shadow root: the site's styles and composer markup, ui/ mounted against
 * the admin's index, then Submit, the hand-off, the user's values, cluster.js and clone.js.
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { PrereqError } from "../core/errors.js";
import { mount, trustOf } from "../ui/page.js";
import { RestServer, jobPageUrl } from "./client.js";
import { cloneRequest, clonedJob, KeptJobs } from "./clone.js";
import { ClusterPanel } from "./cluster.js";
import { portalHint } from "./jobchecks.js";
import { button, drawControls, drawMine, el, link, showOutcome } from "./panel.js";
import { UserStore } from "./userstore.js";

const DEFAULT_ID = "prereq"; // extras.submitFrom when the admin's entry has no id

/* The plugin's styles, in its shadow root only (composer/README.md, mounting: rem, inherited properties, CSP). */
export const SHEETS = ["assets/prereq.css", "assets/composer.css", "assets/composer/webportal/plugin.css"];

/* `1.5rem` as `calc(1.5 * var(--prereq-rem))`; `:root`, which matches nothing in a shadow root, as `:host`. */
export function scopeRem(css) {
  return css.replace(/:root\b/g, ":host").replace(/(^|[^\w.-])(-?(?:\d+\.?\d*|\.\d+))rem\b/g, (all, before, number) => `${before}calc(${number} * var(--prereq-rem))`);
}

async function sheetText(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new PrereqError(`cannot load ${url} (${response.status} ${response.statusText})`,
    { hint: "the prereq site is incomplete, or does not allow this portal to read it (CORS)" });
  return scopeRem(await response.text());
}

/* `site`: an absolute URL ending in "/". */
export async function adoptStyles(shadow, site) {
  const texts = await Promise.all(SHEETS.map((path) => sheetText(new URL(path, site).href)));
  if ("adoptedStyleSheets" in shadow && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
    shadow.adoptedStyleSheets = texts.map((text) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(text);
      return sheet;
    });
    return;
  }
  for (const text of texts) { // older browsers: <style> elements, as a last resort
    const style = document.createElement("style");
    style.textContent = text;
    shadow.appendChild(style);
  }
}

export const HANDOVER_KEY = "marketItem";
export const SUBMISSION_PAGE = "/submit.html";

/* As the old marketplace's "Use": the submission page builds its form from localStorage.marketItem. */
export function handOver(storage, data) {
  const copy = JSON.parse(JSON.stringify(data));
  if (copy.extras && typeof copy.extras === "object") delete copy.extras.submitFrom;
  storage.setItem(HANDOVER_KEY, JSON.stringify(copy));
  return SUBMISSION_PAGE;
}

/* The admin's entry for this plugin: PAI_PLUGINS[?index=N], else the one whose uri is this script. */
export function pluginEntry(plugins, search, scriptUrl, base) {
  const list = Array.isArray(plugins) ? plugins : [];
  const n = new URLSearchParams(search).get("index");
  if (n !== null && /^\d+$/.test(n) && list[Number(n)] && typeof list[Number(n)] === "object") return list[Number(n)];
  const same = (uri) => { try { return new URL(uri, base).href === scriptUrl; } catch (error) { return false; } };
  return list.find((entry) => entry && typeof entry.uri === "string" && same(entry.uri)) || {};
}

/* From the entry itself, else its `config`; null when neither gives it ("" counts as not given). */
export function entryOption(entry, key) {
  const config = entry.config && typeof entry.config === "object" ? entry.config : {};
  const given = [entry[key], config[key]].find((value) => value !== undefined && value !== null && value !== "");
  return given === undefined ? null : given;
}

/* The entry's index (a prereq site or its api/v1, as `prereq --index URL` takes it), else `site`. */
export function indexAddress(entry, site, base) {
  const index = entryOption(entry, "index");
  const given = typeof index === "string" ? index : "";
  const root = new URL(given || site, base).href.replace(/\/+$/, "");
  const api = /\/api\/v1$/.test(root) ? root : root + "/api/v1";
  const home = api.slice(0, -"api/v1".length);
  return { api, indexSource: root, siteUrl: (path) => new URL(path, home).href };
}

async function composerMarkup(site) {
  const response = await fetch(new URL("composer/", site).href, { credentials: "same-origin" });
  if (!response.ok) throw new PrereqError(`cannot load the composer's page (${response.status} ${response.statusText})`,
    { hint: "the prereq site is incomplete, or does not allow this portal to read it (CORS)" });
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  const root = page.getElementById("prereq-composer");
  if (!root) throw new PrereqError("the site's composer page holds no composer", { hint: "rebuild the site with prereq build" });
  root.querySelectorAll("script, link, noscript, style").forEach((node) => node.remove());
  return document.importNode(root, true);
}

function attribute(element, name) {
  return (element.getAttribute(name) || "").trim();
}

function bindStore(controls, store) {
  const redraw = () => drawMine(controls, store, (key) => store.setExpression(key, null));
  store.onChange(redraw);
  redraw();
  document.addEventListener("prereq:storage", () => store.save());
  controls.form.addEventListener("submit", (event) => {
    event.preventDefault();
    store.setExpression(controls.key.value.trim(), controls.value.value);
    controls.key.value = "";
    controls.value.value = "";
  });
}

/* The prepared job, or null with the refusal shown. */
async function prepared({ composer, controls, store }, text, submitFrom) {
  try {
    return await composer.prepare(text, { expressions: store.expressions(), submitFrom });
  } catch (error) {
    showOutcome(controls, "refused", ["Not submitted: " + error.message, el("div", "prereq-composer__hint", "hint: " + (portalHint(error.hint || "") || "fix the job"))]);
    if (!(error instanceof PrereqError)) console.error(error); // eslint-disable-line no-console
    return null;
  }
}

function bindSubmit(plugin) {
  const { composer, controls, server, kept, checks } = plugin;
  controls.submit.addEventListener("click", () => composer.queue(async () => {
    showOutcome(controls, "working", ["Checking the job…"]);
    const text = composer.text();
    const job = await prepared(plugin, text, plugin.submitFrom);
    if (!job) return;
    showOutcome(controls, "working", [`Submitting ${job.name}…`]);
    try {
      await server.submit(job.text, job.name);
    } catch (error) {
      checks.invalidate();
      showOutcome(controls, "refused", ["Not submitted: " + error.message, el("div", "prereq-composer__hint", "hint: " + error.hint)]);
      return;
    }
    checks.submitted(job.name);
    kept.keep(job.name, text, job.text);
    showOutcome(controls, "submitted", [`Submitted ${job.name}. `, link("Open the job's page", jobPageUrl(server.user, job.name))]);
    composer.showMessages([`submitted ${job.name} as ${server.user}`].concat(job.changes), job.warnings);
  }));
}

function bindHandOver({ composer, controls, ...plugin }) {
  controls.handOver.addEventListener("click", () => composer.queue(async () => {
    const job = await prepared({ composer, controls, ...plugin }, composer.text(), "");
    if (!job) return;
    const go = button("prereq-plugin-handover-go", "Continue to the submission page", true);
    go.addEventListener("click", () => {
      window.location.assign(handOver(window.localStorage, job.data));
    });
    showOutcome(controls, "confirm", ["The submission page rebuilds the job from its form: the comments in your YAML will be lost there, " +
      "and it does not know prereq's extras. Submit here to keep them. ", go]);
  }));
}

/* Open the job whose Clone brought the user here, as an undoable step. */
async function openClone({ composer, controls, server, kept }) {
  const request = cloneRequest(window.location.search);
  if (!request) return;
  await composer.queue(async () => {
    try {
      const job = await clonedJob(server, request, kept);
      await composer.setText(job.text);
      composer.showMessages([job.message]);
    } catch (error) {
      showOutcome(controls, "refused", [error.message, el("div", "prereq-composer__hint", "hint: " + (error.hint || "open the job's Clone again"))]);
    }
  });
}

/* `site` is the prereq site's address (ends in "/").  Returns what tests and debugging use. */
export async function mountPlugin(element, shadow, { site, scriptUrl }) {
  const entry = pluginEntry(window.PAI_PLUGINS, window.location.search, scriptUrl, document.baseURI);
  const address = indexAddress(entry, site, document.baseURI);
  const server = new RestServer({
    uri: attribute(element, "pai-rest-server-uri"), user: attribute(element, "pai-user"), token: attribute(element, "pai-rest-server-token"),
  });
  const [markup] = await Promise.all([composerMarkup(site), adoptStyles(shadow, site)]);
  const wrapper = el("div", "prereq-plugin md-typeset");
  wrapper.append(el("h1", null, typeof entry.title === "string" && entry.title ? entry.title : "Prerequisites"), markup);
  shadow.replaceChildren(wrapper);
  const controls = drawControls(markup);
  const store = new UserStore({ server, storage: window.localStorage, keys: window.prereq.keys,
    notify: () => document.dispatchEvent(new CustomEvent("prereq:storage", { detail: { key: "record" } })) });
  const loaded = store.load();
  // signers from the portal's own configuration: the index is trusted for its signature, not its host
  const signers = entryOption(entry, "allowedSigners");
  const { api: composer, ready } = mount(markup, { ...address, links: false, trust: trustOf(signers), image: entryOption(entry, "image") });
  const submitFrom = typeof entry.id === "string" && entry.id ? entry.id : DEFAULT_ID;
  // for the checks: Submit's own preparation, with the user's values of the moment
  const prepare = (text) => composer.prepare(text, { expressions: store.expressions(), submitFrom });
  const checks = new ClusterPanel({ root: markup, composer, server, store, api: address.api, prepare });
  const plugin = { composer, controls, server, store, address, checks, kept: new KeptJobs(window.localStorage, server.user), submitFrom };
  bindStore(controls, store);
  bindSubmit(plugin);
  bindHandOver(plugin);
  await Promise.all([ready, loaded]);
  await Promise.all([openClone(plugin), checks.drawQueues()]);
  checks.invalidate();
  await checks.idle();
  return { composer, store, idle: () => Promise.all([composer.idle(), store.idle(), checks.idle()]) };
}
