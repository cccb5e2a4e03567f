// The composer's SSHSIG check (site/assets/composer/index/sshsig.js) against a vector ssh-keygen made:
// tests/js/fixtures/sshsig/make.sh made every file there (ssh-keygen -Y sign, as 'prereq build
// --sign-key' signs), and ssh-keygen -Y verify accepts index.json.sig for allowed_signers.
// Run from the repository: node --test tests/js/

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";

import { PrereqError } from "../../site/assets/composer/core/errors.js";
import { Index } from "../../site/assets/composer/index/reader.js";
import { parseAllowedSigners, verifySignature } from "../../site/assets/composer/index/sshsig.js";

const VECTOR = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "sshsig");
const TINY = join(dirname(fileURLToPath(import.meta.url)), "..", "cases", "indexes", "tiny", "api", "v1");
const read = (name) => readFileSync(join(VECTOR, name));
const signers = parseAllowedSigners(read("allowed_signers").toString("utf8"));
const options = { signers, namespace: "prereq-index", where: "api/v1/index.json.sig" };

async function refusal(message, signature) {
  try {
    await verifySignature(message, signature, options);
  } catch (error) {
    assert.ok(error instanceof PrereqError, String(error));
    assert.ok(error.hint);
    return error.message;
  }
  assert.fail("the signature was accepted");
}

test("sshsig/allowed signers are read as ssh-keygen reads them", () => {
  assert.equal(signers.length, 1);
  assert.equal(signers[0].principals, "index@example");
  assert.deepEqual(signers[0].namespaces, ["prereq-index"]);
  assert.equal(signers[0].type, "ssh-ed25519");
  assert.deepEqual(parseAllowedSigners("# only a comment\n\n"), []);
  const line = read("allowed_signers").toString("utf8").replace("namespaces=", "cert-authority,namespaces=");
  assert.deepEqual(parseAllowedSigners(line), [], "an option the composer cannot check leaves the line out");
});

test("sshsig/the signature ssh-keygen made verifies", async () => {
  assert.equal(await verifySignature(read("index.json"), read("index.json.sig").toString(), options), "index@example");
});

test("sshsig/a changed index is refused", async () => {
  const changed = Buffer.from(read("index.json").toString().replace("[]", '[{"name": "evil"}]'));
  assert.match(await refusal(changed, read("index.json.sig").toString()), /changed after signing/);
});

test("sshsig/a key the allowed signers do not list is refused", async () => {
  assert.match(await refusal(read("index.json"), read("stranger.sig").toString()), /is not by a key/);
});

test("sshsig/a signature for another namespace is refused", async () => {
  const message = await refusal(read("index.json"), read("other-namespace.sig").toString());
  assert.match(message, /signs for git, not for prereq-index/);
});

test("sshsig/what is no signature is refused", async () => {
  assert.match(await refusal(read("index.json"), "not a signature"), /is not an SSH signature/);
  const cut = read("index.json.sig").toString().replace(/\n[A-Za-z0-9+/=]+\n-----END/, "\n-----END");
  assert.match(await refusal(read("index.json"), cut), /is not an SSH signature/);
});

/* The tiny index with the vector's signature beside its root; `change` may replace any file's bytes. */
function tinyReader(change = {}) {
  return async (path) => {
    if (path in change) return change[path];
    return path === "index.json.sig" ? read("index.json.sig") : readFileSync(join(TINY, path));
  };
}

test("sshsig/the reader verifies a signed root, then every item file by its signed sha256", async () => {
  const trust = { signers };
  const index = await Index.load("BASE", tinyReader(), { trust });
  assert.equal(index.signedBy, "index@example");
  await index.ensure(["alpha"]);
  // Changed in its file and in its pack (a pack's line the root does not vouch for is passed over).
  const changed = (bytes) => Buffer.from(bytes.toString().replace('"name":"alpha"', '"name":"alpha "'));
  const packs = JSON.parse(readFileSync(join(TINY, "packs.json"), "utf8"));
  const pack = packs.packs[packs.items.alpha];
  const changedPack = gzipSync(changed(gunzipSync(readFileSync(join(TINY, pack)))));
  const tampered = await Index.load("BASE", tinyReader({ "prerequisites/alpha.json": changed(readFileSync(join(TINY, "prerequisites/alpha.json"))), [pack]: changedPack }), { trust });
  await assert.rejects(tampered.ensure(["alpha"]), /BASE\/prerequisites\/alpha.json .* changed after signing/);
  const packOnly = await Index.load("BASE", tinyReader({ [pack]: changedPack }), { trust });
  await packOnly.ensure(["alpha"]);
  assert.equal(packOnly.document("alpha").name, "alpha");
  const unsigned = async (path) => {
    if (path === "index.json.sig") throw new Error("404"); // as fetch's reader does for a missing file
    return readFileSync(join(TINY, path));
  };
  await assert.rejects(Index.load("BASE", unsigned, { trust }), /BASE\/index.json is not signed/);
  const untrusted = Index.load("BASE", tinyReader({ "index.json.sig": read("stranger.sig") }), { trust });
  await assert.rejects(untrusted, /is not by a key/);
  assert.equal((await Index.load("BASE", unsigned)).signedBy, null, "without trust, no signature is read");
});
