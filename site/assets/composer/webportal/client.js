/* The OpenPAI rest-server as the plugin uses it (no DOM; `fetch` given, for tests): jobs (submit, a
 * name in use, a config to clone) and the user's record, as the portal's own pages call them
 * (microsoft/pai src/rest-server/src/routes/v2/job.js).  Refusals become PrereqErrors in a user's words.
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { PrereqError } from "../core/errors.js";

export class RestServerError extends PrereqError {
  constructor(message, { hint = "", status = 0, said = "" } = {}) {
    super(message, { hint, exitCode: 1 });
    this.status = status;
    this.said = said; // the rest-server's own words
  }
}

/* A body's message; schema errors come as Ajv's list in JSON text: made "PATH: MESSAGE; …". */
export function serverMessage(body) {
  let message = body && typeof body === "object" ? body.message : body;
  if (typeof message !== "string") return message === undefined || message === null ? "" : JSON.stringify(message);
  try {
    const list = JSON.parse(message);
    if (Array.isArray(list)) {
      message = list.map((e) => [e.dataPath || e.instancePath || "(job)", e.message || JSON.stringify(e)].join(": ")).join("; ");
    }
  } catch (error) { /* plain words already */ }
  return message;
}

/* `what` says what was asked ("submit the job"). */
export function explain(status, body, { what, jobName = "" } = {}) {
  const said = serverMessage(body);
  const tail = said ? ` (the rest-server said: ${said})` : "";
  const make = (message, hint) => new RestServerError(message, { hint, status, said });
  if (status === 400) return make(`OpenPAI refused the job: ${said || "it is not valid"}`, "fix the job in the editor and submit again");
  if (status === 401) return make(`Cannot ${what}: your sign-in has expired or is missing${tail}`,
    "sign in to the portal again (your job stays in this editor), then try again");
  if (status === 403) return make(`Cannot ${what}: your account does not have the right${tail}`,
    "ask your cluster administrator, or pick a virtual cluster your groups may use (defaults.virtualCluster)");
  if (status === 409) return make(`A job named ${jobName || "like this"} already exists for you${tail}`,
    "job names are unique per user: change name: in the YAML, then submit again");
  if (status === 404) return make(`Cannot ${what}: the rest-server does not know it${tail}`,
    "check the rest-server address the portal gave the plugin");
  return make(`Cannot ${what}: the rest-server answered ${status}${tail}`, "try again later; if it persists, tell your administrator");
}

function parsed(text) {
  try {
    return JSON.parse(text);
  } catch (error) {
    return { message: text };
  }
}

/* The rest-server names a job's framework USER~NAME. */
function jobPath(user, jobName) {
  return `/api/v2/jobs/${encodeURIComponent(user)}~${encodeURIComponent(jobName)}`;
}

export function jobPageUrl(user, jobName) {
  return "/job-detail.html?" + new URLSearchParams({ username: user, jobName }).toString();
}

export class RestServer {
  constructor({ uri, user = "", token = "", fetch = globalThis.fetch }) {
    this.uri = String(uri || "").replace(/\/+$/, "");
    this.user = user || "";
    this.token = token || "";
    this.send = (url, init) => fetch(url, init); // a plain call: the browser's fetch refuses another `this`
  }

  get signedIn() {
    return Boolean(this.user && this.token);
  }

  /* The answer's JSON (its text with `raw`); with `missing`, null for a 404. */
  async request(method, path, { body, type, what, jobName, raw = false, missing = false } = {}) {
    if (!this.uri) throw new RestServerError(`Cannot ${what}: the portal gave no rest-server address`, { hint: "open the plugin from the portal's menu" });
    if (!this.signedIn) throw explain(401, { message: "" }, { what });
    const headers = { Authorization: `Bearer ${this.token}` };
    if (type) headers["Content-Type"] = type;
    let response;
    try {
      response = await this.send(this.uri + path, { method, headers, body, credentials: "omit", cache: "no-store" });
    } catch (error) {
      throw new RestServerError(`Cannot ${what}: the rest-server at ${this.uri} cannot be reached`,
        { hint: "check your connection; if the portal itself works, the rest-server may refuse this page (CORS)" });
    }
    const text = await response.text();
    if (missing && response.status === 404) return null;
    if (!response.ok) throw explain(response.status, parsed(text), { what, jobName });
    return raw ? text : parsed(text);
  }

  /* The YAML text as it is, comments and all. */
  submit(text, jobName) {
    return this.request("POST", "/api/v2/jobs", { body: text, type: "text/yaml", what: "submit the job", jobName });
  }

  async hasJob(jobName) {
    const job = await this.request("GET", jobPath(this.user, jobName), { what: `check whether the name ${jobName} is free`, missing: true });
    return job !== null;
  }

  jobConfig(user, jobName) {
    return this.request("GET", jobPath(user, jobName) + "/config", { what: `open the job ${user}~${jobName}`, raw: true, missing: true });
  }

  /* The signed-in user's record: username, grouplist, virtualCluster, admin, extension. */
  record() {
    return this.request("GET", `/api/v2/users/${encodeURIComponent(this.user)}`, { what: "read your user record" });
  }

  /* The rest-server merges {key: value} into the extension, keeping its other keys. */
  putExtension(key, value) {
    return this.request("PUT", `/api/v2/users/${encodeURIComponent(this.user)}/extension`, {
      body: JSON.stringify({ extension: { [key]: value } }), type: "application/json", what: "save your values in the cluster",
    });
  }
}
