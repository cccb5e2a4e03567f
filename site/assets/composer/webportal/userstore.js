/* What follows a user from browser to browser (no DOM): favorites, recent items and expression values,
 * kept in the user's OpenPAI record (extension.prereq) and copied into this browser's storage, where the
 * composer reads them.  The record wins when it holds our key; else the browser's lists are uploaded.
 * A token that cannot write leaves all in the browser.  OWNER_KEY: another user signing in here
 * starts empty, never with the previous user's values.
 *
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

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

  read(key, fallback) {
    try {
      const value = JSON.parse(this.storage.getItem(key) || "null");
      return value === null ? fallback : value;
    } catch (error) {
      return fallback;
    }
  }

  write(key, value) {
    try {
      this.storage.setItem(key, JSON.stringify(value));
    } catch (error) { /* storage full or disabled: the values live until the page closes */ }
  }

  value() {
    return {
      version: VERSION,
      favorites: names(this.read(this.keys.favorites, [])),
      recent: names(this.read(this.keys.recent, [])),
      expressions: this.expressions(),
    };
  }

  expressions() {
    return strings(this.read(EXPRESSIONS_KEY, {}));
  }

  adopt(stored) {
    this.write(this.keys.favorites, names(stored.favorites));
    this.write(this.keys.recent, names(stored.recent));
    this.write(EXPRESSIONS_KEY, strings(stored.expressions));
  }

  /* Writing back at once finds out whether the token may write (an application token may not). */
  async load() {
    this.loading = true;
    try {
      if (this.storage.getItem(OWNER_KEY) !== JSON.stringify(this.server.user)) {
        this.adopt({});
        this.write(OWNER_KEY, this.server.user);
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
    this.write(EXPRESSIONS_KEY, values);
    this.changed();
    return this.save();
  }

  idle() {
    return this.saving;
  }
}
