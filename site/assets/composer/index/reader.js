/* Reading a published index (tools/prereq/index/reader.py): the root, per-item files checked against
 * their sha256 (or packs of those files), and selections resolved to one closure.  With `trust`, the
 * root must be signed by an allowed signer (index.json.sig).  `read(path)` gives the bytes of
 * api/v1/<path> (fetch, or files in tests).  The job engine is synchronous: `ensure(names)` loads ahead
 * what those names can reach.
 * May import: core/.
 */

import { PrereqError } from "../core/errors.js";
import { chooseVersions } from "./resolver.js";
import { verifySignature } from "./sshsig.js";
import { foldName, isRange, parseRequirement, sortVersions } from "../core/versions.js";

const ROOT_FILE = "index.json";
const SIGNATURE_FILE = "index.json.sig";
const NAMESPACE = "prereq-index";
const FORMAT = "prereq-index/2";
const PACK_MAP = "packs.json";
const PACK_MAP_FORMAT = "prereq-packs/2";
const PACK_PATH = /^packs\/[0-9a-f]{16}\.ndjson\.gz$/; // the map is not vouched for: it names no other file
const PACK_LINES = 4096; // more than a 64 KiB pack holds
const CLOSURE_PACKS = 64; // of a map's hint per item: more than a 150-item closure's 11, and bounds a hostile map's
const PACK_TEXT = 64 << 20; // bytes, gunzipped, of all an index's packs: past it packs are not read (bombs)
export const PACK_IDLE_SECONDS = 10; // a pack (or packs.json) silent so long is passed over for the items' own files

async function sha256Of(bytes) {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/* A pack's text (one a host sent decoded is as it came), each piece counted by `take` (false: too much).
 * Fed 16 KiB at a time as it is read, since a chunk is inflated whole: a bomb stops near its limit. */
async function gunzipped(bytes, take) {
  const tooMuch = () => new Error("more pack text than an index may have");
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    if (!take(bytes.length)) throw tooMuch();
    return bytes;
  }
  const stream = new DecompressionStream("gzip");
  const writer = stream.writable.getWriter();
  for (let at = 0; at < bytes.length; at += 1 << 14) writer.write(bytes.subarray(at, at + (1 << 14))).catch(() => {});
  writer.close().catch(() => {}); // a failure is the reader's
  const reader = stream.readable.getReader();
  const chunks = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks.push(read.value);
    size += read.value.length;
    if (!take(read.value.length)) {
      reader.cancel().catch(() => {});
      throw tooMuch();
    }
  }
  const text = new Uint8Array(size);
  chunks.reduce((at, chunk) => (text.set(chunk, at), at + chunk.length), 0);
  return text;
}

/* The pack at `position` of the map's packs, or null.  The map is any JSON: a position must be an index,
 * not a value JavaScript would turn into one (an array 10,000 deep overflows the stack doing so). */
function packAt(map, position) {
  const pack = Number.isInteger(position) && position >= 0 ? map.packs[position] : null;
  return typeof pack === "string" && PACK_PATH.test(pack) ? pack : null;
}

/* A list of names as an index gives it; anything else is none, as the CLI reads it. */
const listOf = (value) => (Array.isArray(value) ? value : []);
const names = (value) => listOf(value).filter((name) => typeof name === "string");

function parsed(body, base, path) {
  try {
    return JSON.parse(new TextDecoder("utf-8").decode(body));
  } catch {
    throw new PrereqError(`${base}/${path} is not JSON`, { hint: "rebuild the index with 'prereq build'" });
  }
}

/* The principal that signed the root; a PrereqError when unsigned or by no allowed signer. */
async function checkRoot(base, body, read, trust) {
  let signature;
  try {
    signature = new TextDecoder("utf-8").decode(await read(SIGNATURE_FILE));
  } catch {
    throw new PrereqError(`${base}/${ROOT_FILE} is not signed (${base}/${SIGNATURE_FILE} cannot be read)`,
      { hint: "use an index its publisher signed ('prereq build --sign-key KEY')" });
  }
  return verifySignature(body, signature, { signers: trust.signers, namespace: NAMESPACE, where: `${base}/${SIGNATURE_FILE}` });
}

export class Index {
  /* `base`: what a job records as its index. */
  constructor(root, { base, read }) {
    const found = root && typeof root === "object" && !Array.isArray(root) ? root.format : undefined;
    if (found !== FORMAT) {
      const shown = typeof found === "string" && found ? found : "unknown";
      throw new PrereqError(`${base}/${ROOT_FILE} is in format ${shown}; this prereq reads ${FORMAT}`,
        { hint: "rebuild the index with this prereq's 'prereq build', or use the prereq that built it" });
    }
    const missing = ["items", "job_load_line", "key_orders", "lifted_keys", "range_hint", "job_schema"].find((key) => !root[key]);
    if (missing || !Array.isArray(root.items)) {
      throw new PrereqError(`${base}/${ROOT_FILE} is not a valid prereq index file` + (missing ? `: it has no ${missing}` : ""),
        { hint: `rebuild it with 'prereq build' (format ${FORMAT})` });
    }
    this.root = root;
    this.base = base;
    this.read = read;
    this.entries = new Map(root.items.map((entry) => [entry.name, entry]));
    this.documents = new Map();
    this.loading = new Map(); // name -> its file's read under way: a prefetch and the edit after it share it
    this.packs = null; // packMap's
    this.lines = new Map(); // pack path -> packLines'
    this.unpacked = 0; // bytes of pack text, of at most PACK_TEXT
    this.named = new Set(root.items.map((entry) => entry.sha256)); // the lines of packs that are kept
    this.jobSchema = null;
    this.signedBy = null;
  }

  /* `trust`: {signers} (sshsig.js's parseAllowedSigners), or null. */
  static async load(base, read, { trust = null } = {}) {
    const files = new Map(); // what the load read: a worker's copy of this index reads the same (ui/engine.js)
    const keep = async (path) => files.set(path, await read(path)).get(path);
    const body = await keep(ROOT_FILE);
    const data = parsed(body, base, ROOT_FILE);
    const signedBy = trust ? await checkRoot(base, body, keep, trust) : null;
    const index = new Index(data, { base, read: keep });
    index.signedBy = signedBy;
    index.jobSchema = await index.verified(data.job_schema.path, data.job_schema.sha256);
    [index.read, index.loadedFiles] = [read, files];
    return index;
  }

  async verified(path, sha256) {
    const body = await this.read(path);
    const data = parsed(body, this.base, path);
    await this.vouched(body, path, sha256);
    return data;
  }

  /* The job templates the root lists as objects naming a file (a hostile root's others are passed over). */
  templates() {
    return listOf(this.root.templates).filter((t) => t && typeof t.name === "string" && typeof t.path === "string");
  }

  /* A template's text, once its bytes match the root's sha256: its commands are code, as an item's are. */
  async templateText(template) {
    if (typeof template.sha256 !== "string") {
      throw new PrereqError(`${ROOT_FILE} lists the template ${template.name} without its sha256`,
        { hint: "rebuild the index with this prereq (older builds did not vouch for templates)" });
    }
    const body = await this.read(template.path);
    await this.vouched(body, template.path, template.sha256);
    return new TextDecoder("utf-8", { ignoreBOM: true }).decode(body); // the bytes prereq wrote: UTF-8
  }

  async vouched(body, path, sha256) {
    if (await sha256Of(body) !== sha256) {
      if (this.signedBy) {
        throw new PrereqError(`${this.base}/${path} does not match the sha256 in the signed ${ROOT_FILE}: it was changed after signing`,
          { hint: "do not use this copy of the index; fetch it again from its publisher, or ask them to rebuild it" });
      }
      throw new PrereqError(`${path} does not match the sha256 in ${ROOT_FILE}`,
        { hint: "the index changed while reading it; run the command again" });
    }
  }

  /* Unknown names are left for `document` to refuse, with its message. */
  async ensure(names) {
    const seen = new Set();
    let queue = [...names];
    while (queue.length) {
      const batch = [...new Set(queue)].filter((name) => !seen.has(name) && this.entries.has(name));
      queue = [];
      batch.forEach((name) => seen.add(name));
      const unread = batch.filter((name) => !this.documents.has(name));
      if (unread.length) {
        const map = await this.packMap();
        unread.forEach((name) => this.closurePacks(map, name));
      }
      await Promise.all(unread.map((name) => {
        if (!this.loading.has(name)) {
          this.loading.set(name, this.itemFile(name).then((document) => void this.documents.set(name, document))
            .finally(() => this.loading.delete(name)));
        }
        return this.loading.get(name);
      }));
      for (const name of batch) { // names to read ahead: what is not one is left for closure() to refuse
        for (const version of listOf(this.documents.get(name).versions)) {
          for (const text of listOf(version?.item?.require)) if (typeof text === "string") queue.push(parseRequirement(text).name);
          for (const member of listOf(version?.closure)) queue.push(member?.name); // the rest in one round, not a level a round
        }
      }
    }
  }

  /* The line of its pack with the sha256 the root gives, else its own file. */
  async itemFile(name) {
    const entry = this.entries.get(name);
    const map = await this.packMap();
    const pack = map && Object.hasOwn(map.items, name) ? packAt(map, map.items[name]) : null;
    const body = pack && (await this.packLines(pack)).get(entry.sha256);
    return body ? parsed(body, this.base, entry.path) : this.verified(entry.path, entry.sha256);
  }

  /* Asks for the packs the map says hold the rest of `name`'s closures, beside its own: the closure
   * comes in one round of requests, not two.  A hint as the map is: only packs it names are read. */
  closurePacks(map, name) {
    const hinted = map?.closures && typeof map.closures === "object" && Object.hasOwn(map.closures, name) ? map.closures[name] : null;
    if (!Array.isArray(hinted)) return;
    for (const position of hinted.slice(0, CLOSURE_PACKS)) {
      const pack = packAt(map, position);
      if (pack) this.packLines(pack);
    }
  }

  /* packs.json, read once; null (no packs) when it cannot be read (older builds have none) or the browser
   * cannot gunzip. */
  packMap() {
    this.packs ??= typeof DecompressionStream !== "function" ? Promise.resolve(null)
      : this.read(PACK_MAP, { seconds: PACK_IDLE_SECONDS }).then((body) => { // optional as a pack is
      const map = parsed(body, this.base, PACK_MAP);
      return map && map.format === PACK_MAP_FORMAT && Array.isArray(map.packs) && map.items && typeof map.items === "object" ? map : null;
    }).catch(() => null);
    return this.packs;
  }

  /* sha256 -> line (newline kept), of the lines the root names, copied out of the pack; none when the
   * pack cannot be read. */
  packLines(path) {
    if (!this.lines.has(path)) {
      const take = (size) => (this.unpacked += size) <= PACK_TEXT;
      // A pack that could not be had (failed, or stalled PACK_IDLE_SECONDS) is asked for again next time.
      const read = this.read(path, { seconds: PACK_IDLE_SECONDS }).catch((error) => {
        this.lines.delete(path);
        throw error;
      });
      this.lines.set(path, read.then((bytes) => gunzipped(bytes, take)).then(async (bytes) => {
        const lines = [];
        for (let start = 0; start < bytes.length;) {
          if (lines.length === PACK_LINES) return new Map();
          const end = bytes.indexOf(0x0a, start) + 1 || bytes.length;
          lines.push(bytes.subarray(start, end));
          start = end;
        }
        const digests = await Promise.all(lines.map(sha256Of));
        return new Map(lines.flatMap((line, i) => (this.named.has(digests[i]) ? [[digests[i], line.slice()]] : [])));
      }).catch(() => new Map()));
    }
    return this.lines.get(path);
  }

  document(name) {
    if (!this.entries.has(name)) {
      const close = [...this.entries.keys()].filter((other) => foldName(other) === foldName(name));
      throw new PrereqError(`no prerequisite named '${name}' in the index`,
        { hint: close.length ? `did you mean '${close[0]}'?` : "search with 'prereq search WORD'" });
    }
    const document = this.documents.get(name);
    if (!document) throw new Error(`${name}: its file was not loaded (call ensure first)`);
    return document;
  }

  versions(name) {
    return sortVersions(this.document(name).versions.map((v) => v.version));
  }

  version(name, version = null) {
    const documents = new Map(this.document(name).versions.map((v) => [v.version, v]));
    const versions = this.versions(name);
    const chosen = version || versions[versions.length - 1];
    if (!documents.has(chosen)) {
      throw new PrereqError(`${name} has no published version ${chosen}`, { hint: "published: " + versions.join(", ") });
    }
    return documents.get(chosen);
  }

  /* A version's require, as the CLI reads it: none, or a list of names. */
  requires(name, version) {
    const texts = this.version(name, version).item?.require;
    if (texts === undefined || texts === null) return [];
    if (!Array.isArray(texts) || !texts.every((text) => typeof text === "string")) {
      throw new PrereqError(`${this.base}/${this.entries.get(name).path}: ${name} ${version}'s require is not a list of names`,
        { hint: "rebuild the index with 'prereq build'" });
    }
    return texts.map(parseRequirement);
  }

  /* `name[@range]` selections as one closure, requirements first. */
  closure(selections, { locked = new Map() } = {}) {
    const requests = selections.map(parseRequirement);
    for (const request of requests) {
      if (request.range && !isRange(request.range)) {
        throw new PrereqError(`${request.name}@${request.range} has an invalid version range`, { hint: this.root.range_hint });
      }
    }
    const memo = new Map(); // asked again each level
    const once = (key, make) => memo.get(key) || memo.set(key, make()).get(key);
    const choice = chooseVersions(requests, {
      versionsOf: (name) => once(name, () => this.versions(name)),
      requiresOf: (name, version) => once(`${name} ${version}`, () => this.requires(name, version)),
      locked,
    });
    const selected = new Set(requests.map((r) => r.name));
    return choice.order.map((name) => {
      const document = this.version(name, choice.versions.get(name));
      return {
        name, version: choice.versions.get(name), openpai: document.openpai, digest: document.digest,
        requiredBy: choice.pulledBy.get(name), selected: selected.has(name), needs: document.needs || null,
        conflicts: names(document.item.conflicts),
      };
    });
  }
}
