/* The user's favorites, recent items and expression values in the OpenPAI record and this browser
 * (no DOM; composer/README.md, the user's values).
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { readStored, writeStored } from "../ui/jobfile.js";

export const EXTENSION_KEY = "prereq";
export const EXPRESSIONS_KEY = "prereq.expressions";
export const OWNER_KEY = "prereq.webportal.user";
const VERSION = 1;
export const KEY = /^[A-Za-z0-9_-]+$/; // what <% expression.KEY %> can name (prereq.jobs.expressions)

const names = (value) => (Array.isArray(value) ? [...new Set(value.filter((n) => typeof n === "string"))] : []);

function strings(value) {
  const out = {};
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [key, item] of Object.entries(value)) if (typeof item === "string" && KEY.test(key)) out[key] = item;
  }
  return out;
}

export class UserStore {
  /* `keys` are prereq.js's {favorites, recent}; `notify()` tells the page the lists changed. */
  constructor({ server, storage, keys, notify = () => {} }) {
    this.server = server;
    this.storage = storage;
    this.keys = keys;
    this.notify = notify;
    this.where = "browser";
    this.reason = "not loaded yet";
    this.record = null;
    this.recordError = null;
    this.loading = false;
    this.saving = Promise.resolve();
    this.listeners = [];
  }

  value() {
    return {
      version: VERSION,
      favorites: names(readStored(this.keys.favorites, [], this.storage)),
      recent: names(readStored(this.keys.recent, [], this.storage)),
      expressions: this.expressions(),
    };
  }

  expressions() {
    return strings(readStored(EXPRESSIONS_KEY, {}, this.storage));
  }

  adopt(stored) {
    writeStored(this.keys.favorites, names(stored.favorites), this.storage);
    writeStored(this.keys.recent, names(stored.recent), this.storage);
    writeStored(EXPRESSIONS_KEY, strings(stored.expressions), this.storage);
  }

  /* Writing back at once finds out whether the token may write (an application token may not). */
  async load() {
    this.loading = true;
    try {
      if (this.storage.getItem(OWNER_KEY) !== JSON.stringify(this.server.user)) {
        this.adopt({});
        writeStored(OWNER_KEY, this.server.user, this.storage);
      }
      try {
        this.record = await this.server.record();
      } catch (error) {
        this.recordError = error; // the checks say why
        return this.fallBack(error);
      }
      const extension = this.record && typeof this.record.extension === "object" ? this.record.extension || {} : {};
      const stored = extension[EXTENSION_KEY];
      if (stored && typeof stored === "object" && !Array.isArray(stored)) this.adopt(stored);
      this.notify();
      try {
        await this.server.putExtension(EXTENSION_KEY, this.value());
      } catch (error) {
        return this.fallBack(error);
      }
      this.where = "cluster";
      this.reason = "";
      this.changed();
      return this.where;
    } finally {
      this.loading = false;
    }
  }

  fallBack(error) {
    this.where = "browser";
    this.reason = error && error.message ? error.message : String(error);
    this.changed();
    return this.where;
  }

  onChange(listener) {
    this.listeners.push(listener);
  }

  changed() {
    for (const listener of this.listeners) listener(this);
  }

  /* One write at a time, in order; the browser keeps the values whatever happens. */
  save() {
    if (this.loading || this.where !== "cluster") return this.saving;
    this.saving = this.saving.then(() => this.server.putExtension(EXTENSION_KEY, this.value()))
      .catch((error) => { this.fallBack(error); });
    return this.saving;
  }

  setExpression(key, text) {
    if (!KEY.test(key)) return this.saving;
    const values = this.expressions();
    if (text === null) delete values[key];
    else values[key] = String(text);
    writeStored(EXPRESSIONS_KEY, values, this.storage);
    this.changed();
    return this.save();
  }

  idle() {
    return this.saving;
  }
}
