/* The webportal plugin's logic without a browser: the rest-server client's requests and its errors in
 * plain words, the user's values kept in the record or in the browser, the hand-off, the styles'
 * rem rewrite, how the plugin finds its entry and its index, the checks before submitting, the
 * queues a user's groups get and the Clone (site/assets/composer/webportal/). */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { RestServer, explain, jobPageUrl, serverMessage } from "../../site/assets/composer/webportal/client.js";
import { EXPRESSIONS_KEY, OWNER_KEY, UserStore } from "../../site/assets/composer/webportal/userstore.js";
import { handOver, indexAddress, pluginEntry, scopeRem } from "../../site/assets/composer/webportal/mount.js";
import { jobTarget } from "../../site/assets/composer/jobs/prepare.js";
import { checkCluster, checkName, nextName, withName } from "../../site/assets/composer/webportal/checks.js";
import { loadCatalog, queueOffers, withVirtualCluster } from "../../site/assets/composer/webportal/checks.js";
import { KEPT_KEY, KeptJobs, cloneRequest, clonedJob, maskSecrets } from "../../site/assets/composer/webportal/clone.js";

/* A fetch that answers from `routes` ("METHOD PATH" -> [status, body]) and records the requests. */
function fakeFetch(routes) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url, ...init });
    const key = `${init.method} ${new URL(url).pathname}`;
    if (!(key in routes)) throw new TypeError("Failed to fetch");
    const [status, body] = typeof routes[key] === "function" ? routes[key](init) : routes[key];
    const text = typeof body === "string" ? body : JSON.stringify(body);
    return { ok: status >= 200 && status < 300, status, text: async () => text };
  };
  return { fetch, calls };
}

function memoryStorage() {
  const data = new Map();
  return { getItem: (k) => (data.has(k) ? data.get(k) : null), setItem: (k, v) => data.set(k, String(v)), data };
}

const KEYS = { favorites: "prereq.favorites", recent: "prereq.recent" };
const URI = "http://pai.example/rest-server";

test("webportal/submit posts the text as it is, with the bearer token", async () => {
  const { fetch, calls } = fakeFetch({ "POST /rest-server/api/v2/jobs": [202, { message: "Update job a for user alice successfully." }] });
  const server = new RestServer({ uri: URI + "/", user: "alice", token: "tok", fetch });
  const text = "# mine\nname: a\n";
  assert.deepEqual(await server.submit(text, "a"), { message: "Update job a for user alice successfully." });
  assert.equal(calls[0].url, URI + "/api/v2/jobs");
  assert.equal(calls[0].body, text);
  assert.deepEqual(calls[0].headers, { Authorization: "Bearer tok", "Content-Type": "text/yaml" });
  assert.equal(jobPageUrl("alice", "a b"), "/job-detail.html?username=alice&jobName=a+b");
});

test("webportal/the rest-server's refusals in plain words", () => {
  const schema = JSON.stringify([{ dataPath: ".taskRoles.train", message: "should have required property 'dockerImage'" }]);
  assert.equal(serverMessage({ message: schema }), ".taskRoles.train: should have required property 'dockerImage'");
  assert.match(explain(400, { message: "Prerequisite x does not exist." }, { what: "submit the job" }).message,
    /^OpenPAI refused the job: Prerequisite x does not exist\.$/);
  const expired = explain(401, { message: "Your token is invalid." }, { what: "submit the job" });
  assert.match(expired.message, /your sign-in has expired or is missing \(the rest-server said: Your token is invalid\.\)/);
  assert.match(expired.hint, /sign in to the portal again/);
  assert.match(explain(403, { message: "User a is not allowed to do operation in vc" }, { what: "submit the job" }).message, /does not have the right/);
  const taken = explain(409, { message: "Job alice~a already exists." }, { what: "submit the job", jobName: "a" });
  assert.match(taken.message, /^A job named a already exists for you/);
  assert.match(taken.hint, /change name:/);
  assert.equal(taken.status, 409);
  assert.equal(taken.said, "Job alice~a already exists.");
});

test("webportal/no address, no sign-in and no network are said too", async () => {
  await assert.rejects(new RestServer({ uri: "", user: "a", token: "t" }).submit("x"), /gave no rest-server address/);
  await assert.rejects(new RestServer({ uri: URI }).submit("x"), /sign-in has expired or is missing/);
  const { fetch } = fakeFetch({});
  await assert.rejects(new RestServer({ uri: URI, user: "a", token: "t", fetch }).submit("x"), /cannot be reached/);
});

test("webportal/the record is the truth, and changes are written back under one key", async () => {
  const record = { username: "alice", extension: { sshKeys: [], prereq: { favorites: ["b", 3, "b"], recent: ["c"], expressions: { team: "vision", "bad key": "x" } } } };
  const puts = [];
  const { fetch } = fakeFetch({
    "GET /rest-server/api/v2/users/alice": [200, record],
    "PUT /rest-server/api/v2/users/alice/extension": (init) => { puts.push(JSON.parse(init.body)); return [201, {}]; },
  });
  const storage = memoryStorage();
  storage.setItem(KEYS.favorites, JSON.stringify(["someone-elses"]));
  let notified = 0;
  const store = new UserStore({ server: new RestServer({ uri: URI, user: "alice", token: "t", fetch }), storage, keys: KEYS, notify: () => notified++ });
  assert.equal(await store.load(), "cluster");
  assert.equal(notified, 1);
  assert.deepEqual(JSON.parse(storage.getItem(KEYS.favorites)), ["b"]);
  assert.deepEqual(store.expressions(), { team: "vision" });
  assert.equal(storage.getItem(OWNER_KEY), '"alice"');
  await store.setExpression("nfsUser", "alice01");
  assert.deepEqual(puts.at(-1), { extension: { prereq: { version: 1, favorites: ["b"], recent: ["c"], expressions: { team: "vision", nfsUser: "alice01" } } } });
  await store.setExpression("team", null);
  assert.deepEqual(puts.at(-1).extension.prereq.expressions, { nfsUser: "alice01" });
});

test("webportal/a token that cannot write keeps the values in the browser and says why", async () => {
  const { fetch, calls } = fakeFetch({
    "GET /rest-server/api/v2/users/alice": [200, { username: "alice", extension: {} }],
    "PUT /rest-server/api/v2/users/alice/extension": [403, { message: "Applications are not allowed to do this operation." }],
  });
  const storage = memoryStorage();
  storage.setItem(OWNER_KEY, '"bob"');
  storage.setItem(EXPRESSIONS_KEY, JSON.stringify({ secret: "bobs" }));
  const store = new UserStore({ server: new RestServer({ uri: URI, user: "alice", token: "t", fetch }), storage, keys: KEYS });
  assert.equal(await store.load(), "browser");
  assert.match(store.reason, /Applications are not allowed/);
  assert.deepEqual(store.expressions(), {}); // bob's values are not alice's
  const before = calls.length;
  await store.setExpression("k", "v");
  assert.equal(calls.length, before); // no more writes tried
  assert.deepEqual(store.expressions(), { k: "v" });
});

test("webportal/the hand-off leaves submitFrom out", () => {
  const storage = memoryStorage();
  assert.equal(handOver(storage, { name: "a", extras: { submitFrom: "prereq", prereq: { index: "x" } } }), "/submit.html");
  assert.deepEqual(JSON.parse(storage.getItem("marketItem")), { name: "a", extras: { prereq: { index: "x" } } });
});

test("webportal/styles: rem becomes the site's rem, :root the shadow host", () => {
  assert.equal(scopeRem(":root { --a: 1px; } .a { margin: .5rem -1rem 2rem; x2rem: 1; }"),
    ":host { --a: 1px; } .a { margin: calc(.5 * var(--prereq-rem)) calc(-1 * var(--prereq-rem)) calc(2 * var(--prereq-rem)); x2rem: 1; }");
});

test("webportal/the admin's entry and its index", () => {
  const site = "https://prereq.example/site/";
  const script = site + "webportal/prereq-plugin.js";
  const plugins = [{ title: "other", uri: "/other.js" }, { title: "P", uri: script, config: { index: "https://idx.example/team/" } }];
  assert.equal(pluginEntry(plugins, "?index=1", script, "http://pai/").title, "P");
  assert.equal(pluginEntry(plugins, "?op=resubmit", script, "http://pai/").title, "P"); // by its uri
  assert.deepEqual(pluginEntry(undefined, "", script, "http://pai/"), {});
  const configured = indexAddress(plugins[1], site, "http://pai/");
  assert.equal(configured.api, "https://idx.example/team/api/v1");
  assert.equal(configured.indexSource, "https://idx.example/team");
  assert.equal(configured.siteUrl("items/a/"), "https://idx.example/team/items/a/");
  const direct = indexAddress({ index: "/prereq/api/v1/" }, site, "http://pai/plugin.html");
  assert.equal(direct.api, "http://pai/prereq/api/v1");
  assert.equal(direct.siteUrl("items/a/"), "http://pai/prereq/items/a/");
  assert.equal(indexAddress({}, site, "http://pai/").api, "https://prereq.example/site/api/v1");
});

/* A rest-server knowing the jobs `jobs` ("user~name" -> config text), for alice with token "t". */
function jobServer(jobs, status = 200) {
  const calls = [];
  const answer = async (url, init) => {
    calls.push({ url, ...init });
    const path = decodeURIComponent(new URL(url).pathname.replace("/rest-server/api/v2/jobs/", ""));
    const [framework, what] = path.split("/");
    const text = status !== 200 ? JSON.stringify({ message: "Your token is invalid." }) : jobs[framework] === undefined
      ? JSON.stringify({ code: "NoJobError", message: `Job ${framework} is not found.` }) : what === "config" ? jobs[framework] : "{}";
    const code = status !== 200 ? status : jobs[framework] === undefined ? 404 : 200;
    return { ok: code === 200, status: code, text: async () => text };
  };
  return { server: new RestServer({ uri: URI, user: "alice", token: "t", fetch: answer }), calls };
}

test("webportal/a name in use is said, with the first free name after it", async () => {
  const { server, calls } = jobServer({ "alice~a": "{}", "alice~a_2": "{}" });
  assert.deepEqual([nextName("a"), nextName("a_2"), nextName("a_9"), nextName("a_0"), nextName("x".repeat(254))], ["a_2", "a_3", "a_10", "a_0_2", ""]);
  // Counts past 2**53 stay whole numbers of their own digits (Number() gave run_1e+21, not a valid name).
  assert.deepEqual([nextName("run_1000000000000000000000"), nextName("run_9007199254740993")],
    ["run_1000000000000000000001", "run_9007199254740994"]);
  const taken = await checkName(server, "a");
  assert.equal(taken.state, "taken");
  assert.equal(taken.fresh, "a_3");
  assert.match(taken.message, /^You already have a job named a: the rest-server would refuse this one/);
  assert.equal(calls[0].url, URI + "/api/v2/jobs/alice~a");
  assert.deepEqual(calls[0].headers, { Authorization: "Bearer t" });
  const free = await checkName(server, "b");
  assert.deepEqual([free.state, free.fresh], ["free", ""]);
  const expired = await checkName(jobServer({}, 401).server, "a");
  assert.equal(expired.state, "unknown");
  assert.match(expired.message, /^Cannot check whether the name a is free: your sign-in has expired.*You can still submit/);
  const forbidden = await checkName(jobServer({}, 403).server, "a");
  assert.equal(forbidden.state, "unknown");
  assert.match(forbidden.message, /^Cannot check whether the name a is free: your account does not have the right.*You can still submit/);
});

test("webportal/the job's name and virtual cluster as the rest-server reads them", () => {
  assert.deepEqual(jobTarget("name: a\n"), { name: "a", cluster: "default" });
  assert.deepEqual(jobTarget("name: a\ndefaults: {virtualCluster: vc}\n"), { name: "a", cluster: "vc" });
  assert.deepEqual(jobTarget("name: bad name\ndefaults: {virtualCluster: null}\n"), { name: "", cluster: "default" });
  const numbered = jobTarget("name: a\ndefaults: {virtualCluster: 123}\n"); // the rest-server's includes finds no name 123
  assert.deepEqual(numbered, { name: "a", cluster: 123 });
  assert.equal(checkCluster({ virtualCluster: ["123"] }, null, numbered.cluster).state, "denied");
  assert.equal(jobTarget("name: [a"), null);
  assert.equal(jobTarget("- a\n"), null);
  assert.equal(withName("# mine\nname: a   # kept\n", "a_2"), "# mine\nname: a_2   # kept\n");
});

test("webportal/a virtual cluster the user's groups lack is warned, an unread record said", () => {
  const record = { virtualCluster: ["default", "vision"] };
  assert.equal(checkCluster(record, null, "vision").state, "allowed");
  const denied = checkCluster(record, null, "secret");
  assert.equal(denied.state, "denied");
  assert.match(denied.message, /may not use the virtual cluster secret.*Yours: default, vision\.$/);
  const unknown = checkCluster(null, new Error("Cannot read your user record: your sign-in has expired"), "default");
  assert.equal(unknown.state, "unknown");
  assert.match(unknown.message, /^Virtual cluster default not checked: Cannot read your user record/);
});

test("webportal/queues: the user's groups choose them, a pick sets the virtual cluster", async () => {
  const document = JSON.parse(readFileSync(new URL("../cases/indexes/rights/api/v1/execution/catalog.json", import.meta.url), "utf8"));
  const offers = queueOffers(document, { grouplist: ["default", "super"], virtualCluster: ["default"] });
  assert.deepEqual(offers.map((o) => [o.queue, o.slots, o.priority, o.virtualCluster, o.usable]), [["q1", 3, 1, "default", true], ["q2", 1, 2, "long", false]]);
  assert.deepEqual(queueOffers(document, { grouplist: ["guests"] }), []);
  assert.throws(() => queueOffers(document, { grouplist: ["students"] }), /no rights for the groups students/);
  assert.equal(withVirtualCluster("name: a  # mine\nextras: {x: 1}\n", "long"), "name: a  # mine\ndefaults:\n  virtualCluster: long\nextras: {x: 1}\n");
  assert.equal(withVirtualCluster("defaults:\n  virtualCluster: x  # mine\n", "long"), "defaults:\n  virtualCluster: long  # mine\n");
  const answer = (status, body) => async () => ({ ok: status === 200, status, statusText: "", json: async () => body });
  assert.equal(await loadCatalog("http://i/api/v1", answer(404)), null);
  assert.equal(await loadCatalog("http://i/api/v1", answer(200, document)), document);
  await assert.rejects(loadCatalog("http://i/api/v1", answer(200, { format: "prereq-execution/9" })), /in the format "prereq-execution\/9"/);
  for (const broken of [{ queues: undefined }, { rights: [null] }, { queues: {} }]) { // a served catalog is not trusted to be whole
    await assert.rejects(loadCatalog("http://i/api/v1", answer(200, { ...document, ...broken })), /its queues and rights are not lists of records/);
  }
});

test("webportal/clone: the portal's address, the rest-server's mask, the text this browser kept", async () => {
  assert.deepEqual(cloneRequest("?op=resubmit&type=job&user=alice&jobname=a&index=0"), { user: "alice", name: "a" });
  assert.deepEqual(cloneRequest("?op=resubmit&user=alice&jobName=a"), { user: "alice", name: "a" });
  assert.equal(cloneRequest("?index=0"), null);
  assert.equal(maskSecrets("name: a\nsecrets:\n  k: v\ntaskRoles: {}\n"), 'name: a\nsecrets: "******"\ntaskRoles: {}\n');
  const sent = "name: a\nsecrets:\n  k: v\n";
  const config = JSON.stringify({ name: "a", secrets: "******" });
  const { server } = jobServer({ "alice~a": config, "bob~b": config });
  const storage = memoryStorage();
  const kept = new KeptJobs(storage, "alice");
  kept.keep("a", "# mine\nname: a\n", sent);
  assert.deepEqual(await clonedJob(server, { user: "alice", name: "a" }, kept), { text: "# mine\nname: a\n", message: "opened alice~a as you wrote it in this browser, comments and all" });
  const others = await clonedJob(server, { user: "bob", name: "b" }, kept);
  assert.equal(others.text, "name: a\nsecrets: '******'\n");
  assert.match(others.message, /as the rest-server keeps it \(it keeps no comments\)/);
  assert.equal(new KeptJobs(storage, "bob").find("a", config), null); // alice's texts are not bob's
  assert.equal(kept.find("a", JSON.stringify({ name: "a", secrets: "******", type: "job" })), null); // changed since
  await assert.rejects(clonedJob(server, { user: "alice", name: "gone" }, kept), /Cannot clone alice~gone: the rest-server has no such job/);
  for (let n = 0; n < 25; n++) kept.keep(`j${n}`, "t", "name: x\n");
  assert.deepEqual(Object.keys(JSON.parse(storage.getItem(KEPT_KEY)).jobs).slice(0, 2), ["j5", "j6"]); // the last 20
});
