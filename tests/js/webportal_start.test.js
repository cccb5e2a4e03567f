/* A job that can be submitted from the start (site/assets/composer/ui/jobfile.js, webportal/): the
 * job users start from on the starting image (the plugin entry's, else the index's start_image), the
 * checks of the job's own content before Submit, each on a line the editor has (or said to be on
 * none), the name of the job just submitted not asked about, and the queues' words by reader.
 * Indexes are the shared case indexes (tests/cases/indexes/story: cuda-base and pytorch-official
 * are its Docker images). */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { Index } from "../../site/assets/composer/index/reader.js";
import { addToText } from "../../site/assets/composer/jobs/operations.js";
import { PrereqError } from "../../site/assets/composer/core/errors.js";
import { EMPTY_JOB, START_ROLE, openedText, startingJob } from "../../site/assets/composer/ui/jobfile.js";
import { messageLine } from "../../site/assets/composer/ui/editor.js";
import { prepareJob, rolesWithoutImage, submissionFacts } from "../../site/assets/composer/jobs/prepare.js";
import { jobChecks } from "../../site/assets/composer/webportal/jobchecks.js";
import { checkSubmitted } from "../../site/assets/composer/webportal/checks.js";
import { RestServer } from "../../site/assets/composer/webportal/client.js";
import { entryOption } from "../../site/assets/composer/webportal/mount.js";
import { NO_QUEUE, catalogWords, noQueueWords, queueOffers } from "../../site/assets/composer/webportal/checks.js";

const CASES = fileURLToPath(new URL("../cases/", import.meta.url));
const SOURCE = "https://prereq.example/site";

/* The story index, its root's start_image set to `startImage` (as prereq.yaml's composer.image makes it). */
async function story(startImage = undefined) {
  const base = "indexes/story/api/v1";
  const read = async (path) => {
    const bytes = await readFile(join(CASES, base, path));
    if (path !== "index.json" || startImage === undefined) return bytes;
    return new TextEncoder().encode(JSON.stringify({ ...JSON.parse(bytes.toString("utf8")), start_image: startImage }));
  };
  return Index.load(base, read);
}

const lineOf = (text, wanted) => text.split("\n").indexOf(wanted) + 1;
const prepareOn = (index, expressions = {}) => (text) => prepareJob(text, { index, indexSource: SOURCE, expressions });

test("start/without a starting image the job is the empty one, as before", async () => {
  const started = await startingJob(await story(), { indexSource: SOURCE });
  assert.deepEqual(started, { text: EMPTY_JOB, image: null, from: null, problems: [] });
});

test("start/the index's start_image is selected in the task role as `prereq job add` writes it, and the job passes", async () => {
  const index = await story("cuda-base");
  const started = await startingJob(index, { indexSource: SOURCE });
  const added = await addToText(EMPTY_JOB, ["cuda-base"], { index, indexSource: SOURCE, taskRole: START_ROLE, source: "job" });
  assert.deepEqual([started.image, started.from, started.problems], ["cuda-base", "index", []]);
  assert.equal(started.text, added.after); // the engine's text, byte for byte
  assert.match(started.text, /^ {4}dockerImage: cuda-base$/m);
  const prepared = await prepareOn(index)(started.text);
  assert.equal(prepared.name, "my-job");
  assert.deepEqual(await jobChecks(started.text, { prepare: prepareOn(index), index, starting: started }),
    [{ check: "job", state: "ready", line: 0, fresh: "", hint: "", message: "OpenPAI's checks pass: the rest-server's schema and its own checks, run here before you submit." }]);
});

test("start/the plugin entry's image comes first; one the index cannot give is a problem, and the next is used", async () => {
  const index = await story("cuda-base");
  const entry = await startingJob(index, { image: "pytorch-official", indexSource: SOURCE });
  assert.deepEqual([entry.image, entry.from], ["pytorch-official", "entry"]);
  assert.match(entry.text, /dockerImage: pytorch-official/);
  for (const [image, reason] of [
    ["mnist-data", "mnist-data is a data item, not a Docker image"],
    ["cuda-bse", "the index has no item named cuda-bse"],
  ]) {
    const started = await startingJob(index, { image, indexSource: SOURCE });
    assert.deepEqual([started.image, started.from, started.problems], ["cuda-base", "index", [{ from: "entry", image, reason }]]);
  }
  const ranged = await startingJob(await story(), { image: "cuda-base@^99", indexSource: SOURCE });
  assert.equal(ranged.text, EMPTY_JOB);
  assert.equal(ranged.problems.length, 1);
  assert.match(ranged.problems[0].reason, /cuda-base/);
});

test("start/an opened file is read as the CLI reads a job file: UTF-8, else refused at its first bad byte", async () => {
  const file = (bytes, name = "mine.yaml") => new File([Uint8Array.from(bytes)], name);
  const utf8 = [...new TextEncoder().encode("\ufeffname: caf\u00e9\r\n")];
  assert.equal(await openedText(file(utf8)), "name: caf\u00e9\r\n"); // the BOM dropped, line ends kept
  const latin1 = [..."name: ok\nname: caf"].map((c) => c.charCodeAt(0)).concat([0xe9, 0x0a]);
  await assert.rejects(openedText(file(latin1, "latin.yaml")), (error) => error instanceof PrereqError &&
    error.message === "latin.yaml:2:10: not valid UTF-8 (byte 0xe9)" && error.hint === "save the file as UTF-8");
  // A file named as the editor's text is in messages ("job:12:…") is named as a file; one gone since it
  // was chosen is refused in words, not as an unexpected problem.
  await assert.rejects(openedText(file(latin1, "job")), (error) => error.message.startsWith("./job:2:10: not valid UTF-8"));
  const gone = { name: "gone.yaml", arrayBuffer: () => Promise.reject(new Error("A requested file or directory could not be found")) };
  await assert.rejects(openedText(gone), (error) => error instanceof PrereqError &&
    error.message === "cannot read gone.yaml (A requested file or directory could not be found)" && error.hint === "choose the file again");
});

test("checks/a stored expression the job lacks is set under Your values, not with the CLI's command", async () => {
  const index = await story();
  const started = await startingJob(index, { image: "cuda-base", indexSource: SOURCE });
  const { after } = await addToText(started.text, ["smb-storage"], { index, taskRole: START_ROLE, indexSource: SOURCE });
  const checks = await jobChecks(after, { prepare: prepareOn(index), index, starting: started });
  const refused = checks.filter((check) => check.state === "refused");
  assert.match(refused[0].message, /<% expression\.smbUser %> has no stored value/);
  assert.equal(refused[refused.length - 1].hint, "set smbUser under Your values, below, then check again");
});

test("checks/an image a task role takes by a merge key is its image, as the rest-server's js-yaml reads it", () => {
  const merged = "protocolVersion: 2\nname: a\nbase: &b\n  dockerImage: img\ntaskRoles:\n  worker:\n    <<: *b\n    instances: 1\n";
  assert.deepEqual(submissionFacts(merged), { target: { name: "a", cluster: "default" }, missing: [] });
  const bare = merged.replace("base: &b\n  dockerImage: img", "base: &b\n  instances: 2");
  assert.deepEqual(submissionFacts(bare).missing, [{ role: "worker", line: lineOf(bare, "  worker:") }]);
});

test("checks/a task role without an image is said before Submit, on its line, with what to do", async () => {
  const index = await story();
  const roleLine = lineOf(EMPTY_JOB, "  taskrole:");
  assert.deepEqual(rolesWithoutImage(EMPTY_JOB), [{ role: "taskrole", line: roleLine }]);
  const user = await jobChecks(EMPTY_JOB, { prepare: prepareOn(index), index, starting: await startingJob(index) });
  assert.deepEqual(user.map((c) => [c.check, c.state, c.line]), [["image", "missing", roleLine]]); // the schema's own words are not repeated
  assert.match(user[0].message, /^No image yet: task role taskrole names no dockerImage/);
  assert.match(user[0].hint, /check a Docker image in the list/);
  assert.doesNotMatch(user[0].hint, /prereq\.yaml/);
  assert.equal(user[0].add, "");
  const admin = await jobChecks(EMPTY_JOB, { prepare: prepareOn(index), index, starting: null, admin: true });
  assert.match(admin[0].hint, /prereq\.yaml \(composer\.image\) or in this plugin's entry \(image\)/);
  // With a starting image, one click adds it (a pasted job that lacks one).
  const offered = await jobChecks(EMPTY_JOB, { prepare: prepareOn(index), index, starting: await startingJob(index, { image: "cuda-base" }) });
  assert.equal(offered[0].add, "cuda-base");
});

test("checks/every refusal is on a line the editor has; one on none says so", async () => {
  const index = await story();
  const text = EMPTY_JOB.replace("jobRetryCount: 0", "jobRetryCount: many").replace("    instances: 1\n", "    instances: 1\n    dockerImage: cuda-base\n");
  const checks = await jobChecks(text, { prepare: prepareOn(index), index });
  assert.deepEqual(checks.map((c) => [c.check, c.state, c.line, c.lineless]), [["job", "refused", lineOf(text, "jobRetryCount: many"), false]]);
  assert.match(checks[0].message, /^jobRetryCount: "many" is not of type "integer" \(the rest-server refuses it when it is submitted\)$/);
  assert.equal(checks[0].hint, "fix the job before submitting it");

  // A name only the task role gives, filled in from the index: its expression has no line of its own.
  const named = EMPTY_JOB.replace("    instances: 1\n", "    instances: 1\n    dockerImage: cuda-base\n    prerequisites: [cuda-base, smb-storage]\n");
  const [missing] = await jobChecks(named, { prepare: prepareOn(index), index });
  assert.deepEqual([missing.state, missing.line, missing.lineless], ["refused", 0, true]);
  assert.match(missing.message, /^prerequisite smb-storage \(from the index\): <% expression\.smbUser %> has no stored value$/);
  const [secret] = await jobChecks(named, { prepare: prepareOn(index, { smbUser: "alice" }), index });
  assert.deepEqual([secret.line, secret.lineless, secret.hint], [0, true, "add the secrets under the job's 'secrets:' with your values (prereq never writes them)"]);
  assert.equal(secret.message, "smb-storage reads secrets the job does not define: add under 'secrets:' the keys SMB_PASSWORD (OpenPAI's runtime could not start the job)");
  const secrets = named.replace("taskRoles:\n", "secrets:\n  SMB_PASSWORD: s3cret\ntaskRoles:\n");
  assert.deepEqual((await jobChecks(secrets, { prepare: prepareOn(index, { smbUser: "alice" }), index })).map((c) => c.state), ["ready"]);

  // A line past the editor's text is never offered.
  const beyond = async () => { throw new PrereqError("job:999: something\njob:2: other", { hint: "h" }); };
  const said = await jobChecks("name: a\ntype: job\n", { prepare: beyond, index });
  assert.deepEqual(said.map((c) => [c.line, c.lineless, c.message, c.hint]), [[0, true, "something", ""], [2, false, "other", "h"]]);
  assert.deepEqual(messageLine("job:3:5: bad"), { aboutJob: true, line: 3, said: "bad" });
});

test("checks/an unusable starting image is told to administrators as their setting, to others as whom to ask", async () => {
  const index = await story("cuda-base");
  const starting = await startingJob(index, { image: "mnist-data" });
  const last = (checks) => checks[checks.length - 1];
  const admin = last(await jobChecks(starting.text, { prepare: prepareOn(index), index, starting, admin: true }));
  assert.equal(admin.check, "start");
  assert.match(admin.message, /^This plugin's entry names mnist-data as the image new jobs start with, but mnist-data is a data item/);
  assert.match(admin.hint, /entry's image \(or config\.image\)/);
  const user = last(await jobChecks(starting.text, { prepare: prepareOn(index), index, starting }));
  assert.equal(user.message, "The image your administrators chose for new jobs (mnist-data) is not in the index.");
  assert.match(user.hint, /^ask your administrators/);
});

test("checks/the job just submitted is not asked about; a fresh name is offered", async () => {
  const calls = [];
  const fetch = async (url) => {
    calls.push(decodeURIComponent(new URL(url).pathname));
    const known = url.endsWith("alice~a") || url.endsWith("alice~a_2");
    return { ok: known, status: known ? 200 : 404, text: async () => (known ? "{}" : '{"code":"NoJobError"}') };
  };
  const server = new RestServer({ uri: "http://pai/rest-server", user: "alice", token: "t", fetch });
  const said = await checkSubmitted(server, "a");
  assert.deepEqual([said.check, said.state, said.fresh, said.message], ["name", "submitted", "a_3", "You submitted a just now."]);
  assert.match(said.hint, /give it another name \(a_3 is free\)/);
  assert.deepEqual(calls, ["/rest-server/api/v2/jobs/alice~a_2", "/rest-server/api/v2/jobs/alice~a_3"]); // never alice~a itself
});

test("queues/no queue for a user's groups: the user's words, the administrator's file names", () => {
  const document = JSON.parse(readFileSync(new URL("../cases/indexes/rights/api/v1/execution/catalog.json", import.meta.url), "utf8"));
  let error = null;
  try {
    queueOffers(document, { grouplist: ["students"] });
  } catch (thrown) {
    error = thrown;
  }
  assert.ok(error instanceof PrereqError);
  assert.deepEqual(noQueueWords(error, { admin: false, groups: ["students"] }), { message: NO_QUEUE, hint: "" });
  assert.equal(NO_QUEUE, "No queue is offered to your groups: ask your administrators.");
  const admin = noQueueWords(error, { admin: true, groups: ["students"] });
  assert.match(admin.message, /rights\.yaml names none of them/);
  assert.match(admin.hint, /owners\.yaml/);
  assert.deepEqual(noQueueWords(null, { admin: false, groups: ["guests"] }), { message: NO_QUEUE, hint: "" });
  assert.match(noQueueWords(null, { admin: true, groups: ["guests"] }).hint, /rights\.yaml.*prereq rights --groups/);
  const broken = new PrereqError("the index's execution catalog is in the format \"x\", not prereq-execution/1", { hint: "the index is newer or older than this plugin: rebuild the site with the same prereq" });
  assert.equal(catalogWords(broken, { admin: true }).hint, broken.hint);
  assert.match(catalogWords(broken, { admin: false }).hint, /^reload the page; if it stays so, ask your administrators$/);
});

test("entry/an option is taken from the entry, else from its config", () => {
  assert.equal(entryOption({ image: "a", config: { image: "b" } }, "image"), "a");
  assert.equal(entryOption({ image: "", config: { image: "b" } }, "image"), "b");
  assert.equal(entryOption({ config: "not a mapping" }, "image"), null);
  assert.equal(entryOption({}, "image"), null);
});
