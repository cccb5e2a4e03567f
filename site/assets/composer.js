/* prereq marketplace: the job composer page (composer.md).
 *
 * The user starts from an empty job, a template (api/v1/templates/), an uploaded file or text pasted
 * into the editor, picks a task role and checks prerequisites in a list filtered like the catalog.
 * Every check or uncheck is exactly `prereq job add` / `prereq job remove` on the editor's text, run
 * here: the same resolution (the highest version meeting every range, requirements first in
 * depth-first post-order along each `require` list), the same placement in the top-level and the
 * task role's `prerequisites`, the same `extras.prereq` record ({index, selected, lock}), the same
 * load line at the top of the task role's commands, dockerimage items as the task role's
 * dockerImage.  The engine below is a port of tools/prereq/job.py (_reconcile and friends) and
 * client.py (Index.resolve); keep them in step.  tests/browser/test_composer.py compares the jobs.
 *
 * Differences from the CLI, by design:
 *   - extras.prereq.index records the site the composer ran on (its absolute URL), which
 *     `prereq job lock` can read again later; the CLI records the --index it was given.
 *   - The YAML is edited with the `yaml` library's Document API (assets/vendor/prereq-vendor.js,
 *     reproduced by scripts/vendor-js.sh): comments, key order, blank lines and quoting survive, but
 *     an edit re-emits the whole text, so spacing is normalised (two spaces before a comment become
 *     one, a comment after "key:" moves to the next line).  The CLI splices text and keeps every
 *     untouched byte.  Both give the same job when parsed.
 *   - The document is YAML 1.1 here (a plain `yes` is a boolean, `2024-01-01` a date), where the CLI
 *     reads YAML 1.2's core schema (both are strings).  Task role and prerequisite names and
 *     extras.prereq are checked reading scalars as the CLI does (coreScalar), so the composer refuses
 *     what the CLI refuses, with its message.
 *   - Starting from a template also selects the registry items its task roles name (as
 *     `prereq job add --task-role ROLE NAME...` would), so the job carries them.
 *
 * The list of prerequisites is searched and filtered as the catalog is, with window.prereq's type
 * groups, search and facet filters (prereq.js); "in this job" is the composer's own.
 *
 * Storage (see prereq.js): localStorage["prereq.favorites"] and ["prereq.recent"] (an item checked
 * here is pushed to "recent"); localStorage["prereq.composer.draft"] keeps the editor's text and
 * task role between visits.  ?add=NAME checks NAME in the draft (item pages link here that way);
 * ?template=NAME starts from that template (the job templates page links here that way; Undo
 * brings the draft back).
 * Untrusted text (names, titles, summaries, the job itself) only goes in through textContent and
 * form values, never as HTML.  Nothing is fetched from outside the site.
 */
(function () {
  "use strict";

  const root = document.getElementById("prereq-composer");
  if (!root || !window.prereq) return;
  const SELF = (document.currentScript && document.currentScript.src) || window.prereq.siteUrl("assets/composer.js");

  // ------------------------------------------------------------------------------ constants

  const STATE_KEY = "prereq";
  const STATE_PATH = ["extras", STATE_KEY];
  const AFTER_PREREQUISITES = ["parameters", "secrets", "jobRetryCount", "taskRoles", "deployments", "defaults", "extras"];
  const FORM_ORDER = ["name", "type", "version", "contributor", "description", "plugin", "failurePolicy", "uri", "auth"];
  const CMD_PLUGIN = "com.microsoft.pai.runtimeplugin.cmd";
  const TASK_ROLE_FIELDS = ["dockerImage", "data", "script", "output"];
  const DRAFT_KEY = "prereq.composer.draft";
  const SOURCE = "job";
  const PAGE = 60;
  const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
  const RANGE_HINT = "use an npm semver range: ^1.2, ~1.2.3, >=1.0 <2.0 or 1.2.3"; // rules.RULES["PRQ141"].hint

  const EMPTY_JOB = [
    "# An OpenPAI job (protocol version 2).  Check prerequisites in the list: they are added below,",
    "# with everything they require, and listed in the task role they run in.  Check a Docker image",
    "# item too (it becomes the task role's dockerImage), or write your own image in 'prerequisites'.",
    "protocolVersion: 2",
    "name: my-job",
    "type: job",
    "jobRetryCount: 0",
    "taskRoles:",
    "  taskrole:",
    "    instances: 1",
    "    resourcePerInstance:",
    "      cpu: 4",
    "      memoryMB: 8192",
    "      gpu: 1",
    "    commands:",
    "      - echo 'your commands here'",
    "defaults:",
    "  virtualCluster: default",
    ""
  ].join("\n");

  class PrereqError extends Error {
    constructor(message, hint) {
      super(message);
      this.hint = hint || "";
    }
  }

  let Y = null; // the vendored module: yaml's parseDocument & co, and semver

  // ------------------------------------------------------------------------------ helpers

  function parseRequirement(text) {
    const at = text.indexOf("@");
    const name = (at < 0 ? text : text.slice(0, at)).trim();
    const spec = at < 0 ? "" : text.slice(at + 1).trim();
    return { name: name, range: spec || null };
  }

  function isPlainObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date);
  }

  function deepEqual(a, b) {
    if (a === b) return true;
    if (a instanceof Date || b instanceof Date) {
      return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
    }
    if (Array.isArray(a) || Array.isArray(b)) {
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
      return a.every((item, i) => deepEqual(item, b[i]));
    }
    if (isPlainObject(a) && isPlainObject(b)) {
      const keys = Object.keys(a);
      if (keys.length !== Object.keys(b).length) return false;
      return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && deepEqual(a[key], b[key]));
    }
    return false;
  }

  function has(object, key) {
    return isPlainObject(object) && Object.prototype.hasOwnProperty.call(object, key);
  }

  function postOrder(roots, requiresOf) {
    const order = [];
    const seen = new Set();
    const active = new Set();
    function visit(node) {
      if (seen.has(node) || active.has(node)) return;
      active.add(node);
      for (const child of requiresOf(node)) visit(child);
      active.delete(node);
      seen.add(node);
      order.push(node);
    }
    for (const node of roots) visit(node);
    return order;
  }

  function satisfies(version, spec) {
    if (spec === null || spec === undefined) return true;
    try {
      return Y.semver.satisfies(version, spec);
    } catch (error) {
      return false;
    }
  }

  // --- scalars as the CLI reads them, values as its messages show them

  /* The CLI loads a job with YAML 1.2's core schema (tools/prereq/yamlio.py); the composer's document is
   * YAML 1.1, where `yes` is true and `2024-01-01` a date.  The checks of names and of extras.prereq take
   * each scalar as the CLI does: a quoted, block or tagged scalar is a string, a plain one is resolved
   * like yamlio._scalar.  Integers are BigInts (Python's ints), floats numbers. */
  const CORE_NULL = /^(?:~|null|Null|NULL|)$/;
  const CORE_BOOL = new Map([["true", true], ["True", true], ["TRUE", true], ["false", false], ["False", false], ["FALSE", false]]);
  const CORE_INT = /^[-+]?[0-9]+$/;
  const CORE_OCT = /^0o[0-7]+$/;
  const CORE_HEX = /^0x[0-9a-fA-F]+$/;
  const CORE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
  const CORE_INF = /^[-+]?\.(?:inf|Inf|INF)$/;
  const CORE_NAN = /^\.(?:nan|NaN|NAN)$/;

  function coreScalar(node) {
    if (node === null || node === undefined) return null; // "key:" with nothing after it
    if (typeof node.source !== "string") return node.value; // made by an edit, not read
    const text = node.source;
    if (node.type !== "PLAIN" || node.tag) return text;
    if (CORE_NULL.test(text)) return null;
    if (CORE_BOOL.has(text)) return CORE_BOOL.get(text);
    if (CORE_INT.test(text) || CORE_OCT.test(text) || CORE_HEX.test(text)) return BigInt(text);
    if (CORE_FLOAT.test(text)) return Number(text);
    if (CORE_INF.test(text)) return text.startsWith("-") ? -Infinity : Infinity;
    if (CORE_NAN.test(text)) return NaN;
    return text;
  }

  /* A mapping of what the CLI reads (key/value pairs in order), for showing a collection in a message. */
  class CoreMap {
    constructor(pairs) { this.pairs = pairs; }
  }

  /* What the CLI reads for a node: scalars as coreScalar, lists as arrays, mappings as CoreMaps.  Only for
   * messages: `budget` bounds what aliases can expand to. */
  function coreValue(doc, node, budget) {
    budget = budget || { left: 1000 };
    node = doc.deref(node);
    if (--budget.left < 0) return "...";
    if (Y.isSeq(node)) return node.items.map((item) => coreValue(doc, item, budget));
    if (Y.isMap(node)) {
      return new CoreMap(node.items.map((pair) => [coreValue(doc, pair.key, budget), coreValue(doc, pair.value, budget)]));
    }
    return Y.isScalar(node) || node === null || node === undefined ? coreScalar(node) : String(node);
  }

  /* Python's repr() of a float. */
  function pyFloat(x) {
    if (Number.isNaN(x)) return "nan";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
    const sign = x < 0 ? "-" : "";
    const [mantissa, exponent] = Math.abs(x).toExponential().split("e"); // the shortest digits that read back
    const digits = mantissa.replace(".", "");
    const point = Number(exponent) + 1;
    if (point > -4 && point <= 16) {
      if (point <= 0) return sign + "0." + "0".repeat(-point) + digits;
      if (point >= digits.length) return sign + digits + "0".repeat(point - digits.length) + ".0";
      return sign + digits.slice(0, point) + "." + digits.slice(point);
    }
    const e = point - 1;
    return sign + digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "") + "e" + (e < 0 ? "-" : "+") +
      String(Math.abs(e)).padStart(2, "0");
  }

  /* Python's repr() of what the CLI reads. */
  function pyRepr(value) {
    if (typeof value === "string") {
      const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
      let out = quote;
      for (const ch of value) {
        const code = ch.codePointAt(0);
        if (ch === quote || ch === "\\") out += "\\" + ch;
        else if (ch === "\n") out += "\\n";
        else if (ch === "\r") out += "\\r";
        else if (ch === "\t") out += "\\t";
        else if (code < 0x20 || code === 0x7f || (ch !== " " && /[\p{C}\p{Z}]/u.test(ch))) {
          out += code < 0x100 ? "\\x" + code.toString(16).padStart(2, "0")
            : code < 0x10000 ? "\\u" + code.toString(16).padStart(4, "0") : "\\U" + code.toString(16).padStart(8, "0");
        } else {
          out += ch;
        }
      }
      return out + quote;
    }
    if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
    if (value instanceof CoreMap) return "{" + value.pairs.map(([k, v]) => pyRepr(k) + ": " + pyRepr(v)).join(", ") + "}";
    return pyStr(value);
  }

  /* Python's str() (an f-string's {value}) of what the CLI reads. */
  function pyStr(value) {
    if (typeof value === "string") return value;
    if (typeof value === "bigint") return value.toString();
    if (typeof value === "number") return pyFloat(value);
    if (typeof value === "boolean") return value ? "True" : "False";
    if (value === null || value === undefined) return "None";
    return pyRepr(value);
  }

  /* job._show: a name that is not a string, as the user wrote it (1, null, true). */
  function pyShow(value) {
    if (typeof value === "bigint") return value.toString();
    if (typeof value === "number") {
      if (Number.isNaN(value)) return "NaN";
      if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
      return pyFloat(value);
    }
    if (typeof value === "boolean") return value ? "true" : "false";
    if (value === null || value === undefined) return "null";
    return pyRepr(value);
  }

  /* Python's truth value of what the CLI reads for a node (`raw.get("selected") or {}`). */
  function pyTruthy(doc, node) {
    node = doc.deref(node);
    if (Y.isCollection(node)) return node.items.length > 0;
    const value = coreScalar(node);
    if (typeof value === "bigint") return value !== BigInt(0);
    if (typeof value === "number") return value !== 0;
    return !!value;
  }

  function hexOf(buffer) {
    return Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");
  }

  // ------------------------------------------------------------------------------ the index

  class Index {
    constructor(base, rootData) {
      this.base = base; // api/v1/, absolute, ending with "/"
      this.root = rootData;
      this.entries = new Map(rootData.items.map((entry) => [entry.name, entry]));
      this.documents = new Map();
      if (typeof rootData.job_load_line !== "string" || !rootData.job_load_line) {
        throw new PrereqError("api/v1/index.json has no job_load_line (the line that loads the variables " +
          "prerequisites export)", "rebuild the site with a current 'prereq build'");
      }
      this.loadLine = rootData.job_load_line;
      // The comment that ends the load line marks older or hand-indented copies of it too (runtime.ENV_MARK).
      const mark = this.loadLine.indexOf("# prereq:");
      this.envMark = mark >= 0 ? this.loadLine.slice(mark) : null;
    }

    static async load(base) {
      const response = await fetch(base + "index.json", { cache: "no-cache" });
      if (!response.ok) throw new PrereqError(`cannot load the index (${response.status} ${response.statusText})`);
      const data = await response.json();
      if (!isPlainObject(data) || data.format !== "prereq-index/1" || !Array.isArray(data.items)) {
        throw new PrereqError("api/v1/index.json is not a prereq index (format prereq-index/1)");
      }
      return new Index(base, data);
    }

    async fetchDocument(name) {
      const entry = this.entries.get(name);
      const response = await fetch(new URL(entry.path, this.base).href);
      if (!response.ok) throw new PrereqError(`cannot load ${entry.path} (${response.status})`);
      const body = await response.arrayBuffer();
      if (window.crypto && window.crypto.subtle && entry.sha256) {
        const digest = hexOf(await window.crypto.subtle.digest("SHA-256", body));
        if (digest !== entry.sha256) {
          throw new PrereqError(`${entry.path} does not match the sha256 in index.json`,
            "the index changed while reading it; reload the page");
        }
      }
      this.documents.set(name, JSON.parse(new TextDecoder("utf-8").decode(body)));
    }

    /* Load the documents of `names` and of everything any of their versions may require. */
    async ensure(names) {
      const seen = new Set();
      let queue = Array.from(names);
      while (queue.length) {
        const batch = [...new Set(queue)].filter((name) => !seen.has(name) && this.entries.has(name));
        queue = [];
        batch.forEach((name) => seen.add(name));
        await Promise.all(batch.filter((name) => !this.documents.has(name)).map((name) => this.fetchDocument(name)));
        for (const name of batch) {
          for (const version of this.documents.get(name).versions || []) {
            for (const text of (version.item && version.item.require) || []) queue.push(parseRequirement(text).name);
          }
        }
      }
    }

    document(name) {
      if (!this.entries.has(name)) {
        const close = [...this.entries.keys()].filter((other) =>
          other.replace(/_/g, "-").toLowerCase() === name.replace(/_/g, "-").toLowerCase());
        throw new PrereqError(`no prerequisite named '${name}' in the index`,
          close.length ? `did you mean '${close[0]}'?` : "search the list for it");
      }
      const document = this.documents.get(name);
      if (!document) throw new PrereqError(`${name}: its file is not loaded yet`, "try again");
      return document;
    }

    versions(name) {
      return this.document(name).versions.map((v) => v.version).sort((a, b) => Y.semver.compare(a, b));
    }

    version(name, version) {
      const documents = new Map(this.document(name).versions.map((v) => [v.version, v]));
      const versions = this.versions(name);
      const chosen = version || versions[versions.length - 1];
      if (!documents.has(chosen)) {
        throw new PrereqError(`${name} has no published version ${chosen}`, "published: " + versions.join(", "));
      }
      return documents.get(chosen);
    }

    /* Index.resolve of client.py: `name[@range]` selections to one ordered closure. */
    resolve(selections, locked) {
      locked = locked || new Map();
      const requests = selections.map(parseRequirement);
      for (const request of requests) {
        if (request.range && Y.semver.validRange(request.range) === null) {
          throw new PrereqError(`${request.name}@${request.range} has an invalid version range`, RANGE_HINT);
        }
      }
      const requiresOf = (chosen) => (name) => this.requires(name, chosen).map((text) => parseRequirement(text).name);
      let chosen = new Map();
      for (let round = 0; round < 100; round++) {
        const constraints = new Map();
        const constrain = (name, spec, by) => {
          if (!constraints.has(name)) constraints.set(name, []);
          constraints.get(name).push([spec, by]);
        };
        for (const request of requests) constrain(request.name, request.range, "your selection");
        for (const name of postOrder(requests.map((r) => r.name), requiresOf(chosen))) {
          for (const text of this.requires(name, chosen)) {
            const requirement = parseRequirement(text);
            constrain(requirement.name, requirement.range, `${name} ${chosen.get(name) || ""}`.trim());
          }
        }
        const picked = new Map();
        for (const [name, ranges] of constraints) picked.set(name, this.pick(name, ranges, locked.get(name)));
        const same = picked.size === chosen.size && [...picked].every(([name, version]) => chosen.get(name) === version);
        if (same) break;
        chosen = picked;
      }
      const order = postOrder(requests.map((r) => r.name), requiresOf(chosen));
      const pulledBy = new Map();
      for (const name of order) {
        for (const text of this.requires(name, chosen)) {
          const required = parseRequirement(text).name;
          if (!pulledBy.has(required)) pulledBy.set(required, []);
          pulledBy.get(required).push(name);
        }
      }
      const selected = new Set(requests.map((r) => r.name));
      return order.map((name) => {
        const document = this.version(name, chosen.get(name));
        return {
          name: name, version: chosen.get(name), openpai: document.openpai, digest: document.digest,
          required_by: pulledBy.get(name) || [], selected: selected.has(name),
          deprecated: (document.item && document.item.deprecated) || null
        };
      });
    }

    requires(name, chosen) {
      if (!chosen.has(name)) return [];
      const item = this.version(name, chosen.get(name)).item || {};
      return Array.isArray(item.require) ? item.require.slice() : [];
    }

    pick(name, ranges, locked) {
      const versions = this.versions(name);
      const fitting = versions.filter((v) => ranges.every(([spec]) => satisfies(v, spec)));
      if (locked !== undefined && locked !== null && fitting.includes(locked)) return locked;
      if (fitting.length) return fitting[fitting.length - 1];
      for (let i = 0; i < ranges.length; i++) {
        const [first, firstBy] = ranges[i];
        for (const [second, secondBy] of ranges.slice(i + 1)) {
          if (!versions.some((v) => satisfies(v, first) && satisfies(v, second))) {
            throw new PrereqError(
              `no version of ${name} meets both ${firstBy} (${name}@${first || "*"}) and ` +
              `${secondBy} (${name}@${second || "*"})`,
              `published versions of ${name}: ${versions.join(", ")}; relax one of the ranges`);
          }
        }
      }
      const [spec, by] = ranges[0];
      throw new PrereqError(`no published version of ${name} meets ${name}@${spec} (${by})`,
        `published versions: ${versions.join(", ") || "none"}`);
    }
  }

  // ------------------------------------------------------------------------------ the job text

  function keyOf(pair) {
    return Y.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
  }

  function findPair(map, key) {
    return map.items.find((pair) => keyOf(pair) === String(key));
  }

  function show(path) {
    return path.length ? path.map(String).join(".") : "the document";
  }

  /* The file's own layout, so that re-emitting it changes as little as possible. */
  function detectStyle(text) {
    const lines = text.split(/\r?\n/);
    let indent = null;
    let indentSeq = null;
    for (let i = 0; i < lines.length && (indent === null || indentSeq === null); i++) {
      const key = /^( *)([^\s#\-[{][^#]*?|-[^\s#][^#]*?):[ \t]*(#.*)?$/.exec(lines[i]);
      if (!key) continue;
      let j = i + 1;
      while (j < lines.length && /^\s*(#.*)?$/.test(lines[j])) j++;
      if (j >= lines.length) break;
      const next = /^( *)(-(?:\s|$))?/.exec(lines[j]);
      const step = next[1].length - key[1].length;
      if (next[2]) {
        if (indentSeq === null) indentSeq = step > 0;
      } else if (step > 0 && indent === null) {
        indent = step;
      }
    }
    return { indent: indent || 2, indentSeq: indentSeq === null ? true : indentSeq };
  }

  /* A YAML document edited by path, like yamledit.YamlText (set / insert / delete / get / exists). */
  class YamlDoc {
    constructor(text, source) {
      this.source = source;
      this.original = text;
      this.style = detectStyle(text);
      this.doc = Y.parseDocument(text, { version: "1.1", prettyErrors: true, uniqueKeys: true });
      if (this.doc.errors.length) {
        const error = this.doc.errors[0];
        const where = error.linePos && error.linePos[0] ? `${source}:${error.linePos[0].line}:${error.linePos[0].col}` : source;
        throw new PrereqError(`${where}: ${error.message.split("\n")[0]}`, "fix the YAML first");
      }
      this.edited = false;
      this._data = undefined;
    }

    get data() {
      if (this._data === undefined) this._data = this.doc.contents === null ? null : this.doc.toJS({ maxAliasCount: -1 });
      return this._data;
    }

    get text() {
      if (!this.edited) return this.original;
      return this.doc.toString({
        lineWidth: 0, minContentWidth: 0, indent: this.style.indent, indentSeq: this.style.indentSeq,
        flowCollectionPadding: false
      });
    }

    touched() {
      this.edited = true;
      this._data = undefined;
    }

    get(path, fallback) {
      let value = this.data;
      for (const key of path) {
        if (Array.isArray(value) && typeof key === "number" && key >= 0 && key < value.length) value = value[key];
        else if (has(value, key)) value = value[key];
        else return fallback;
      }
      return value;
    }

    exists(path) {
      const missing = {};
      return this.get(path, missing) !== missing;
    }

    node(path) {
      let node = this.doc.contents;
      for (const key of path) {
        if (Y.isMap(node)) {
          const pair = findPair(node, key);
          if (!pair) return undefined;
          node = pair.value;
        } else if (Y.isSeq(node)) {
          node = node.items[key];
        } else {
          return undefined;
        }
      }
      return node;
    }

    /* The node an alias stands for (the node itself when it is none). */
    deref(node) {
      for (let hops = 0; hops < 100 && node && !Y.isScalar(node) && !Y.isCollection(node) &&
        typeof node.resolve === "function"; hops++) node = node.resolve(this.doc);
      return node;
    }

    /* The line of a character offset in the text as it was read. */
    lineAt(offset) {
      return this.original.slice(0, offset).split("\n").length;
    }

    /* The line where `node` starts in the text as it was read, else `fallback`'s (a node made by an
     * edit, or "key:" with no value node, has no place in it). */
    lineOf(node, fallback) {
      const found = [this.deref(node), fallback].find((n) => n && n.range);
      return this.lineAt(found ? found.range[0] : 0);
    }

    /* The line of `path`'s value (or, with `key`, of its key), else of its nearest ancestor's, in the text as
     * it was read: yamlio.LoadedYaml.position, what the CLI's messages name. */
    line(path, key) {
      let node = this.deref(this.doc.contents);
      let offset = node && node.range ? node.range[0] : 0;
      for (const step of path) {
        let keyNode = null;
        if (Y.isMap(node)) {
          const pair = findPair(node, step);
          if (!pair) break;
          keyNode = pair.key;
          node = pair.value;
        } else if (Y.isSeq(node) && typeof step === "number" && node.items[step]) {
          node = node.items[step];
        } else {
          break;
        }
        node = this.deref(node);
        const at = [key ? keyNode : node, keyNode, node].find((n) => n && n.range);
        if (at) offset = at.range[0];
      }
      return this.lineAt(offset);
    }

    create(value) {
      return this.doc.createNode(value);
    }

    set(path, value, options) {
      const before = (options && options.before) || [];
      const after = (options && options.after) || [];
      if (!path.length) throw new Error("cannot replace the whole document");
      const parentPath = path.slice(0, -1);
      const key = path[path.length - 1];
      if (this.exists(path)) {
        if (deepEqual(this.get(path), value)) return;
        const parent = this.node(parentPath);
        if (Y.isMap(parent)) findPair(parent, key).value = this.create(value);
        else parent.items[key] = this.create(value);
        this.touched();
        return;
      }
      if (!this.exists(parentPath) || this.get(parentPath) === null || this.get(parentPath) === undefined) {
        if (parentPath.length && typeof key !== "number") {
          this.set(parentPath, { [key]: value });
          return;
        }
      }
      const parent = this.node(parentPath);
      if (!Y.isMap(parent)) throw new PrereqError(`${this.source}: ${show(parentPath)} is not a mapping; cannot add '${key}'`);
      const keys = parent.items.map(keyOf);
      let position = keys.length;
      const afterFound = after.filter((k) => keys.includes(k));
      const beforeFound = before.filter((k) => keys.includes(k));
      if (afterFound.length) position = Math.max(...afterFound.map((k) => keys.indexOf(k))) + 1;
      else if (beforeFound.length) position = Math.min(...beforeFound.map((k) => keys.indexOf(k)));
      parent.items.splice(position, 0, this.doc.createPair(key, value));
      this.touched();
    }

    insert(path, value) {
      const parentPath = path.slice(0, -1);
      const index = path[path.length - 1];
      const parent = this.node(parentPath);
      if (!Y.isSeq(parent)) throw new PrereqError(`${this.source}: ${show(parentPath)} is not a list`);
      if (index < 0 || index > parent.items.length) throw new RangeError(String(index));
      parent.items.splice(index, 0, this.create(value));
      this.touched();
    }

    delete(path) {
      if (!this.exists(path)) throw new Error("no " + show(path));
      const parent = this.node(path.slice(0, -1));
      const key = path[path.length - 1];
      if (Y.isMap(parent)) parent.items.splice(parent.items.indexOf(findPair(parent, key)), 1);
      else parent.items.splice(key, 1);
      this.touched();
    }
  }

  /* The pair of a mapping node whose key the CLI reads as the string `key`. */
  function corePair(doc, map, key) {
    return (map ? map.items : []).find((pair) => coreValue(doc, pair.key) === key) || null;
  }

  /* Does the CLI read the node as null (None)? */
  function isNull(doc, node) {
    node = doc.deref(node);
    return !Y.isCollection(node) && coreScalar(node) === null;
  }

  /* Is the node a list of what the CLI reads as strings? */
  function isStringList(doc, node) {
    node = doc.deref(node);
    return Y.isSeq(node) && node.items.every((item) => typeof coreValue(doc, item) === "string");
  }

  class Job {
    constructor(text, source) {
      this.source = source || SOURCE;
      this.doc = new YamlDoc(text, this.source);
      this.checkShape();
    }

    get data() { return this.doc.data; }
    get text() { return this.doc.text; }
    get roles() { return this.data.taskRoles; }

    /* The task role names in the job's order, as the CLI lists them (a JS object lists "1" before "train"). */
    roleOrder() {
      const map = this.mapAt(["taskRoles"]);
      const order = new Set((map ? map.items : []).map(keyOf).filter((name) => has(this.roles, name)));
      for (const name of Object.keys(this.roles)) order.add(name);
      return [...order];
    }

    where(path, key) { return `${this.source}:${this.doc.line(path, key)}`; }

    whereItem(name) {
      const items = this.doc.get(["prerequisites"]);
      if (Array.isArray(items)) {
        const position = items.findIndex((item) => isPlainObject(item) && item.name === name);
        if (position >= 0) return this.where(["prerequisites", position]);
      }
      return this.source;
    }

    error(path, message, hint) { return new PrereqError(`${this.where(path)}: ${message}`, hint); }

    /* An error at the line of `node` (else of `fallback`): for keys the CLI reads as no string, which a
     * path of the composer's document cannot name. */
    errorAt(node, fallback, message, hint) {
      return new PrereqError(`${this.source}:${this.doc.lineOf(node, fallback)}: ${message}`, hint);
    }

    /* The mapping node at `path` (aliases followed), or null. */
    mapAt(path) {
      const node = this.doc.deref(this.doc.node(path));
      return Y.isMap(node) ? node : null;
    }

    checkShape() {
      const data = this.data;
      if (!isPlainObject(data)) throw new PrereqError(`${this.source}: not an OpenPAI job (the file is not a YAML mapping)`);
      const roles = data.taskRoles;
      if (!isPlainObject(roles) || !Object.keys(roles).length) {
        throw this.error(has(data, "taskRoles") ? ["taskRoles"] : [], "an OpenPAI job needs 'taskRoles' with at least one task role");
      }
      // The task roles as the CLI reads them (see coreScalar): names and lists of names must be strings.
      for (const pair of (this.mapAt(["taskRoles"]) || { items: [] }).items) {
        const role = coreValue(this.doc, pair.key);
        if (typeof role !== "string") {
          throw this.errorAt(pair.key, pair.value, `task role name ${pyShow(role)} is not a string`,
            "OpenPAI task role names are strings such as 'train'; quote a name that YAML would read as a number, " +
            "boolean or null");
        }
        const spec = this.doc.deref(pair.value);
        if (!Y.isMap(spec)) throw this.errorAt(pair.value, pair.key, `task role ${role} is not a mapping`);
        const names = corePair(this.doc, spec, "prerequisites");
        if (names && !isNull(this.doc, names.value) && !isStringList(this.doc, names.value)) {
          throw this.errorAt(names.value, names.key, `taskRoles.${role}.prerequisites must be a list of prerequisite names`);
        }
      }
      const top = data.prerequisites;
      if (top !== null && top !== undefined && !Array.isArray(top)) throw this.error(["prerequisites"], "'prerequisites' must be a list");
      // Task roles refer to prerequisites by name: a name must be a string (only those count as names).
      const items = this.doc.deref(this.doc.node(["prerequisites"]));
      for (const item of Y.isSeq(items) ? items.items : []) {
        const entry = this.doc.deref(item);
        const name = Y.isMap(entry) ? corePair(this.doc, entry, "name") : null;
        if (!name) continue;
        const value = coreValue(this.doc, name.value);
        if (typeof value !== "string") {
          throw this.errorAt(name.value, name.key, `prerequisite name ${pyShow(value)} is not a string`,
            "task roles refer to prerequisites by name: write a string");
        }
      }
    }

    top() { return this.data.prerequisites || []; }
    topNames() { return this.top().map((item) => (isPlainObject(item) && typeof item.name === "string" ? item.name : null)); }
    roleNames(role) { return (this.roles[role].prerequisites || []).slice(); }

    /* extras.prereq, checked as job.py's _Job.state does, reading its scalars as the CLI does (coreScalar). */
    state() {
      const state = { index: null, selected: new Map(), lock: new Map() };
      const extras = this.data.extras;
      if (extras !== undefined && extras !== null && !isPlainObject(extras)) {
        throw this.error(["extras"], "extras must be a mapping",
          "OpenPAI keeps extras free-form, as a mapping; prereq records its items under extras.prereq");
      }
      const doc = this.doc;
      const rawPair = isPlainObject(extras) ? corePair(doc, this.mapAt(["extras"]), STATE_KEY) : null;
      const raw = rawPair ? doc.deref(rawPair.value) : null;
      if (!rawPair || isNull(doc, raw)) return state;
      const hint = "extras.prereq is written by prereq: {index, selected: {ROLE: [NAME[@RANGE]]}, lock: {NAME: {version, digest}}}";
      if (!Y.isMap(raw)) throw this.errorAt(raw, rawPair.key, "extras.prereq must be a mapping", hint);
      const index = corePair(doc, raw, "index");
      const indexValue = index ? coreValue(doc, index.value) : null;
      if (indexValue !== null && typeof indexValue !== "string") {
        throw this.errorAt(index.value, index.key, "extras.prereq.index must be a string (a build folder or URL)", hint);
      }
      state.index = indexValue;
      // `raw.get("selected") or {}`: a missing or empty (false, 0, "", [], ...) one is no selection.
      const selected = corePair(doc, raw, "selected");
      if (selected && pyTruthy(doc, selected.value)) {
        const roles = doc.deref(selected.value);
        if (!Y.isMap(roles)) {
          throw this.errorAt(roles, selected.key, "extras.prereq.selected must map task roles to lists", hint);
        }
        for (const pair of roles.items) {
          const role = coreValue(doc, pair.key);
          const list = doc.deref(pair.value);
          if (!isStringList(doc, list)) {
            throw this.errorAt(list, pair.key, `extras.prereq.selected.${pyStr(role)} must be a list of NAME[@RANGE]`, hint);
          }
          if (typeof role !== "string" || !has(this.roles, role)) {
            throw this.errorAt(list, pair.key, `extras.prereq.selected names task role ${pyRepr(role)}, which the job does not have`,
              `rename it there too when you rename a task role (task roles: ${this.roleOrder().join(", ")})`);
          }
          const names = list.items.map((item) => coreValue(doc, item));
          names.forEach((text, position) => {
            const requirement = parseRequirement(text);
            if (!requirement.name) {
              throw this.errorAt(list.items[position], list, `${pyRepr(text)} in extras.prereq.selected.${role} is not ` +
                "NAME or NAME@RANGE", hint);
            }
            if (requirement.range && Y.semver.validRange(requirement.range) === null) {
              throw this.errorAt(list.items[position], list, `${text} in extras.prereq.selected.${role} has an invalid ` +
                "version range", RANGE_HINT);
            }
          });
          state.selected.set(role, names);
        }
      }
      const lock = corePair(doc, raw, "lock");
      if (lock && pyTruthy(doc, lock.value)) {
        const entries = doc.deref(lock.value);
        if (!Y.isMap(entries)) throw this.errorAt(entries, lock.key, "extras.prereq.lock must be a mapping", hint);
        for (const pair of entries.items) {
          const name = coreValue(doc, pair.key);
          if (typeof name !== "string") {
            throw this.errorAt(pair.key, pair.value, `extras.prereq.lock names ${pyShow(name)}, which is not a string`,
              "run 'prereq job lock' to rewrite the lock");
          }
          const entry = doc.deref(pair.value);
          const version = Y.isMap(entry) && corePair(doc, entry, "version");
          const digest = Y.isMap(entry) && corePair(doc, entry, "digest");
          const versionValue = version ? coreValue(doc, version.value) : null;
          const digestValue = digest ? coreValue(doc, digest.value) : null;
          if (typeof versionValue !== "string" || typeof digestValue !== "string") {
            throw this.errorAt(entry, pair.key, `extras.prereq.lock.${name} needs version and digest strings`,
              "run 'prereq job lock' to rewrite the lock");
          }
          state.lock.set(name, { version: versionValue, digest: digestValue });
        }
      }
      return state;
    }
  }

  function stateData(state) {
    const data = {};
    if (state.index) data.index = state.index;
    data.selected = {};
    for (const [role, names] of state.selected) if (names.length) data.selected[role] = names.slice();
    data.lock = {};
    for (const name of [...state.lock.keys()].sort()) {
      data.lock[name] = { version: state.lock.get(name).version, digest: state.lock.get(name).digest };
    }
    return data;
  }

  function stateEmpty(state) {
    return ![...state.selected.values()].some((names) => names.length) && !state.lock.size;
  }

  function copyState(state) {
    return {
      index: state.index,
      selected: new Map([...state.selected].map(([role, names]) => [role, names.slice()])),
      lock: new Map(state.lock)
    };
  }

  // ------------------------------------------------------------------------------ reconciling (job.py)

  function orderedForm(form) {
    const out = {};
    for (const key of FORM_ORDER) if (has(form, key)) out[key] = form[key];
    for (const key of Object.keys(form).filter((k) => !has(out, k)).sort()) {
      let value = form[key];
      if (key === "callbacks" && Array.isArray(value)) {
        value = value.map((cb) => {
          if (!isPlainObject(cb) || !has(cb, "event") || !has(cb, "commands")) return cb;
          const ordered = { event: cb.event, commands: cb.commands };
          for (const [k, v] of Object.entries(cb)) if (k !== "event" && k !== "commands") ordered[k] = v;
          return ordered;
        });
      }
      if (key === "userssh" && isPlainObject(value)) {
        const ordered = {};
        for (const k of ["type", "value"]) if (has(value, k)) ordered[k] = value[k];
        for (const [k, v] of Object.entries(value)) if (k !== "type" && k !== "value") ordered[k] = v;
        value = ordered;
      }
      out[key] = value;
    }
    return out;
  }

  function transitive(deps) {
    const out = new Map();
    function visit(name, trail) {
      if (out.has(name)) return out.get(name);
      const found = new Set();
      for (const dep of deps.get(name) || []) {
        if (trail.includes(dep)) continue;
        found.add(dep);
        for (const more of visit(dep, trail.concat(name))) found.add(more);
      }
      out.set(name, found);
      return found;
    }
    for (const name of deps.keys()) visit(name, []);
    return out;
  }

  /* Where `name` goes: before the first entry that needs it, after its own requirements. */
  function position(names, name, needs) {
    const dependents = [];
    const requirements = [];
    names.forEach((other, i) => {
      if (other && (needs.get(other) || new Set()).has(name)) dependents.push(i);
      if (other && (needs.get(name) || new Set()).has(other)) requirements.push(i);
    });
    let at = dependents.length ? Math.min(...dependents) : names.length;
    if (requirements.length && at <= Math.max(...requirements)) at = Math.max(...requirements) + 1;
    return at;
  }

  function isCmd(form) { return isPlainObject(form) && form.plugin === CMD_PLUGIN; }

  function isLoadLine(index, command) {
    return typeof command === "string" && (command === index.loadLine ||
      (index.envMark !== null && command.includes(index.envMark) && command.trimStart().startsWith("if [ -f")));
  }

  /* openpai.digest(entry) != locked.digest in job.py: the job's entry is not the form prereq wrote for
   * its lock.  The form behind a lock digest is the index's form of the locked version; when the index
   * no longer has that form (the version is gone, or its digest changed), nothing can be told. */
  function editedByHand(index, name, entry, locked) {
    let published;
    try {
      published = index.version(name, locked.version);
    } catch (error) {
      if (error instanceof PrereqError) return false;
      throw error;
    }
    return published.digest === locked.digest && !deepEqual(entry, published.openpai);
  }

  function describe(change) {
    let text = change.action === "updated" ? `updated ${change.name} ${change.previous} -> ${change.version}`
      : `${change.action} ${change.name} ${change.version}`;
    if (change.required_by && change.required_by.length) text += ", required by " + change.required_by.join(", ");
    else if (change.selected && change.action === "added") text += ", selected";
    if (change.reason) text += ` (${change.reason})`;
    return text;
  }

  function reconcile(job, old, next, index) {
    const warnings = [];
    const managedOld = new Set(old.lock.keys());
    const oldVersions = new Map([...old.lock].map(([name, entry]) => [name, entry.version]));

    const oldClosure = new Map();
    for (const [role, names] of old.selected) {
      try {
        oldClosure.set(role, new Set(names.length ? index.resolve(names, oldVersions).map((r) => r.name) : []));
      } catch (error) {
        if (!(error instanceof PrereqError)) throw error;
        oldClosure.set(role, new Set(managedOld));
      }
    }

    const references = new Map();
    for (const role of job.roleOrder()) {
      const spec = job.roles[role];
      for (const name of spec.prerequisites || []) {
        if (managedOld.has(name) && !(oldClosure.get(role) || new Set()).has(name) && !references.has(name)) {
          references.set(name, `task role ${role} lists it`);
        }
      }
      for (const field of TASK_ROLE_FIELDS) {
        const name = spec[field];
        if (typeof name === "string" && managedOld.has(name) && !references.has(name)) {
          references.set(name, `the ${field} of task role ${role} names it`);
        }
      }
    }

    const locked = new Map(oldVersions);
    const selections = [].concat(...[...next.selected.values()]);
    const refs = [...references.keys()].sort();
    const all = selections.concat(refs);
    const closure = all.length ? index.resolve(all, locked) : [];
    const versions = new Map(closure.map((r) => [r.name, r]));
    const deps = new Map(closure.map((r) => [r.name, new Set()]));
    for (const r of closure) {
      for (const requirer of r.required_by) {
        if (!deps.has(requirer)) deps.set(requirer, new Set());
        deps.get(requirer).add(r.name);
      }
    }
    const needs = transitive(deps);

    const roleClosure = new Map();
    for (const [role, names] of next.selected) {
      if (names.length) {
        const pinned = new Map([...versions].map(([name, r]) => [name, r.version]));
        roleClosure.set(role, index.resolve(names, pinned).map((r) => r.name));
      }
    }

    job.topNames().forEach((name, at) => {
      if (name !== null && versions.has(name) && !managedOld.has(name)) {
        throw job.error(["prerequisites", at],
          `the job's own prerequisite '${name}' has the name of a registry item; prereq does not overwrite it`,
          `rename or remove your '${name}' to use the registry's, or keep yours and do not select the registry item`);
      }
    });

    for (const [role, names] of roleClosure) {
      const images = names.filter((n) => versions.get(n).openpai.type === "dockerimage");
      if (images.length > 1) {
        throw new PrereqError(`task role ${role} would get two docker images: ${images[0]} and ${images[1]}`,
          "select only one dockerimage item per task role");
      }
      const current = job.roles[role].dockerImage;
      if (images.length && current !== undefined && current !== null && current !== images[0]) {
        throw job.error(["taskRoles", role, "dockerImage"],
          `task role ${role} already uses dockerImage '${current}'; ${images[0]} is another image`,
          `remove its dockerImage line to use ${images[0]}, or do not select ${images[0]}`);
      }
    }

    const changes = itemChanges(old, versions, managedOld, new Set(job.topNames()));

    // 1. The top-level prerequisites: remove, update, add.
    for (let at = job.top().length - 1; at >= 0; at--) {
      const name = job.topNames()[at];
      if (name !== null && managedOld.has(name) && !versions.has(name)) {
        if (job.top().length === 1) job.doc.delete(["prerequisites"]);
        else job.doc.delete(["prerequisites", at]);
      }
    }
    job.topNames().forEach((name, at) => {
      if (name === null || !versions.has(name) || !managedOld.has(name)) return;
      const chosen = versions.get(name);
      const entry = job.top()[at];
      const before = old.lock.get(name);
      if (before && before.version === chosen.version && before.digest === chosen.digest) {
        if (editedByHand(index, name, entry, before)) {
          warnings.push(`${job.whereItem(name)}: ${name} was edited by hand since prereq added it; left as it is`);
        }
        return;
      }
      if (before && editedByHand(index, name, entry, before)) {
        warnings.push(`${job.whereItem(name)}: ${name} was edited by hand; replaced by ${name} ${chosen.version} from the index`);
      }
      job.doc.set(["prerequisites", at], orderedForm(chosen.openpai));
    });
    for (const [name, chosen] of versions) {
      const names = job.topNames();
      if (names.includes(name)) continue;
      const form = orderedForm(chosen.openpai);
      if (!job.doc.exists(["prerequisites"]) || job.data.prerequisites === null || job.data.prerequisites === undefined) {
        job.doc.set(["prerequisites"], [form], { before: AFTER_PREREQUISITES });
      } else {
        job.doc.insert(["prerequisites", position(names, name, needs)], form);
      }
    }

    // 2. Each task role: its list, its docker image, the line that loads exported variables.
    const finalForms = new Map([...versions].map(([name, r]) => [name, r.openpai]));
    for (const role of job.roleOrder()) {
      let current = job.roleNames(role);
      const wanted = roleClosure.get(role) || [];
      const stale = new Set([...(oldClosure.get(role) || [])].filter((n) => managedOld.has(n)));
      for (let at = current.length - 1; at >= 0; at--) {
        if (stale.has(current[at]) && !wanted.includes(current[at])) {
          if (job.roleNames(role).length === 1) job.doc.delete(["taskRoles", role, "prerequisites"]);
          else job.doc.delete(["taskRoles", role, "prerequisites", at]);
        }
      }
      for (const name of wanted) {
        current = job.roleNames(role);
        if (current.includes(name)) continue;
        const path = ["taskRoles", role, "prerequisites"];
        const value = job.doc.get(path);
        if (!current.length && (value === null || value === undefined)) {
          job.doc.set(path, [name], { after: ["dockerImage"], before: ["resourcePerInstance", "commands"] });
        } else {
          job.doc.insert(path.concat(position(current, name, needs)), name);
        }
      }
      const images = wanted.filter((n) => finalForms.get(n).type === "dockerimage");
      const image = job.roles[role].dockerImage;
      if (images.length && (image === null || image === undefined)) {
        job.doc.set(["taskRoles", role, "dockerImage"], images[0],
          { after: ["instances"], before: ["resourcePerInstance", "commands", "prerequisites"] });
      }
      loadLine(job, index, role, job.roleNames(role).some((n) => isCmd(finalForms.get(n))), warnings);
    }

    // 3. The record in extras.prereq.
    next.lock = new Map([...versions].map(([name, r]) => [name, { version: r.version, digest: r.digest }]));
    if (stateEmpty(next)) {
      if (job.doc.exists(STATE_PATH)) {
        const extras = job.data.extras;
        if (isPlainObject(extras) && Object.keys(extras).length === 1 && has(extras, STATE_KEY)) job.doc.delete(["extras"]);
        else job.doc.delete(STATE_PATH);
      }
    } else {
      job.doc.set(STATE_PATH, stateData(next));
    }
    return { changes: changes, warnings: warnings, closure: versions, references: references };
  }

  function loadLine(job, index, role, needed, warnings) {
    const path = ["taskRoles", role, "commands"];
    const commands = job.doc.get(path);
    if (!Array.isArray(commands)) {
      if (needed) {
        warnings.push(`${job.where(["taskRoles", role])}: task role ${role} has no list of commands; ` +
          "variables exported by prerequisites will not reach it");
      }
      return;
    }
    const present = [];
    commands.forEach((command, i) => { if (isLoadLine(index, command)) present.push(i); });
    if (needed && !present.length) {
      if (commands.length) job.doc.insert(path.concat(0), index.loadLine);
      else job.doc.set(path, [index.loadLine]);
    } else if (!needed) {
      for (const at of present.reverse()) {
        if (job.doc.get(path).length > 1) job.doc.delete(path.concat(at));
      }
    }
  }

  function itemChanges(old, versions, managedOld, present) {
    const out = [];
    for (const [name, r] of versions) {
      const requiredBy = r.required_by.filter((n) => versions.has(n));
      const previous = old.lock.get(name);
      if (!managedOld.has(name) || !present.has(name)) {
        out.push({ action: "added", name: name, version: r.version, required_by: requiredBy, selected: r.selected });
      } else if (previous && previous.version !== r.version) {
        out.push({ action: "updated", name: name, version: r.version, previous: previous.version, required_by: requiredBy, selected: r.selected });
      }
    }
    const chosen = new Set([].concat(...[...old.selected.values()]).map((t) => parseRequirement(t).name));
    for (const name of [...managedOld].filter((n) => !versions.has(n)).sort()) {
      out.push({ action: "removed", name: name, version: old.lock.get(name).version, reason: chosen.has(name) ? "" : "no longer needed" });
    }
    return out;
  }

  /* The names a job's text brings into play: what add/remove may need to read from the index. */
  function namesOf(job) {
    const names = new Set();
    let state = null;
    try { state = job.state(); } catch (error) { state = null; }
    if (state) {
      for (const list of state.selected.values()) for (const text of list) names.add(parseRequirement(text).name);
      for (const name of state.lock.keys()) names.add(name);
    }
    for (const spec of Object.values(job.roles)) {
      for (const name of spec.prerequisites || []) names.add(name);
      for (const field of TASK_ROLE_FIELDS) if (typeof spec[field] === "string") names.add(spec[field]);
    }
    return names;
  }

  /* `prereq job add --task-role ROLE NAME...` on a text. */
  async function addToText(index, text, names, role, indexSource) {
    const probe = new Job(text);
    await index.ensure([...namesOf(probe), ...names.map((n) => parseRequirement(n).name)]);
    const job = new Job(text);
    const old = job.state();
    if (!has(job.roles, role)) throw new PrereqError(`${job.source}: no task role ${pyRepr(role)}`, "task roles: " + job.roleOrder().join(", "));
    const next = copyState(old);
    next.index = indexSource;
    const notes = [];
    for (const textName of names) {
      const requirement = parseRequirement(textName);
      if (!requirement.name) throw new PrereqError(`${pyRepr(textName)} is not NAME or NAME@RANGE`);
      index.document(requirement.name);
      if (!next.selected.has(role)) next.selected.set(role, []);
      const chosen = next.selected.get(role);
      const same = [];
      chosen.forEach((t, i) => { if (parseRequirement(t).name === requirement.name) same.push(i); });
      if (same.length) {
        if (chosen[same[0]] === textName) notes.push(`${requirement.name} is already selected in task role ${role}`);
        chosen[same[0]] = textName;
        for (const extra of same.slice(1).reverse()) chosen.splice(extra, 1);
      } else {
        chosen.push(textName);
      }
    }
    const outcome = reconcile(job, old, next, index);
    return { before: text, after: job.text, changes: outcome.changes, warnings: notes.concat(outcome.warnings) };
  }

  /* `prereq job remove --task-role ROLE NAME...` on a text. */
  async function removeFromText(index, text, names, role) {
    const probe = new Job(text);
    await index.ensure(namesOf(probe));
    const job = new Job(text);
    const old = job.state();
    const next = copyState(old);
    for (const given of names) {
      const name = parseRequirement(given).name;
      let selecting = [...old.selected].filter(([, chosen]) => chosen.some((t) => parseRequirement(t).name === name)).map(([r]) => r);
      if (!has(job.roles, role)) throw new PrereqError(`${job.source}: no task role ${pyRepr(role)}`, "task roles: " + job.roleOrder().join(", "));
      selecting = selecting.filter((r) => r === role);
      if (!selecting.length) throw notSelected(job, old, name, role);
      next.selected.set(role, next.selected.get(role).filter((t) => parseRequirement(t).name !== name));
      if (!next.selected.get(role).length) next.selected.delete(role);
    }
    const outcome = reconcile(job, old, next, index);
    const changes = outcome.changes.slice();
    for (const name of new Set(names.map((n) => parseRequirement(n).name))) {
      const kept = outcome.closure.get(name);
      if (!kept) continue;
      let reason;
      if (kept.required_by.length) reason = "still required by " + kept.required_by.join(", ");
      else if (outcome.references.has(name)) reason = outcome.references.get(name);
      else reason = "still selected in another task role";
      changes.push({ action: "kept", name: name, version: kept.version, reason: reason });
    }
    return { before: text, after: job.text, changes: changes, warnings: outcome.warnings };
  }

  function notSelected(job, state, name, role) {
    const names = job.topNames();
    if (names.includes(name) && !state.lock.has(name)) {
      return job.error(["prerequisites", names.indexOf(name)], `${name} was written by hand in the job; prereq leaves it alone`,
        "delete it from the YAML yourself");
    }
    if (state.lock.has(name)) {
      return new PrereqError(`${name} is not selected in task role ${role}: it is in the job because other items require it`,
        "remove the items that require it (see extras.prereq.selected)");
    }
    return new PrereqError(`${name} is not in the job`, "see extras.prereq.selected for what prereq added");
  }

  /* What the list shows for one task role: its closure, who requires what, what the text names. */
  async function analyse(index, text, role) {
    const job = new Job(text);
    await index.ensure(namesOf(job));
    const state = job.state();
    const roles = job.roleOrder();
    if (!roles.includes(role)) role = roles[0];
    const selected = (state.selected.get(role) || []).map((t) => parseRequirement(t).name);
    const pinned = new Map([...state.lock].map(([name, entry]) => [name, entry.version]));
    const closure = selected.length ? index.resolve(state.selected.get(role), pinned) : [];
    const inClosure = new Map(closure.map((r) => [r.name, r]));
    const handTop = new Set(job.topNames().filter((n) => n !== null && !state.lock.has(n)));
    const spec = job.roles[role];
    const named = new Set((spec.prerequisites || []).filter((n) => !inClosure.has(n)));
    for (const field of TASK_ROLE_FIELDS) if (typeof spec[field] === "string" && !inClosure.has(spec[field])) named.add(spec[field]);
    const elsewhere = new Map();
    for (const [other, list] of state.selected) {
      if (other === role) continue;
      for (const t of list) {
        const n = parseRequirement(t).name;
        if (!elsewhere.has(n)) elsewhere.set(n, []);
        elsewhere.get(n).push(other);
      }
    }
    return {
      job: job, role: role, roles: roles, state: state, selected: new Set(selected), closure: closure,
      inClosure: inClosure, handTop: handTop, named: named, elsewhere: elsewhere,
      name: typeof job.data.name === "string" ? job.data.name : "job"
    };
  }

  // ------------------------------------------------------------------------------ the page

  const $ = (id) => document.getElementById(id);
  const ui = {
    editor: $("prereq-composer-yaml"), role: $("prereq-composer-role"), list: $("prereq-composer-items"),
    count: $("prereq-composer-count"), more: $("prereq-composer-more"), query: $("prereq-composer-q"),
    type: $("prereq-composer-type"), tag: $("prereq-composer-tag"), deprecated: $("prereq-composer-deprecated"),
    empty: $("prereq-composer-empty"), template: $("prereq-composer-template"), upload: $("prereq-composer-upload"),
    undo: $("prereq-composer-undo"), copy: $("prereq-composer-copy"), download: $("prereq-composer-download"),
    messages: $("prereq-composer-messages"), error: $("prereq-composer-error"), closure: $("prereq-composer-closure"),
    closureTitle: $("prereq-composer-closure-title")
  };

  let index = null;
  let records = []; // window.prereq.searchRecord of every index entry, for the list
  let view = null; // the last analyse() of the editor's text
  let role = "";
  let limit = PAGE;
  let busy = Promise.resolve();
  const history = [];

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function siteRoot() {
    return window.prereq.siteUrl("").replace(/\/+$/, "");
  }

  function saveDraft() {
    try {
      window.localStorage.setItem(DRAFT_KEY, JSON.stringify({ text: ui.editor.value, role: role }));
    } catch (error) { /* storage full or disabled: the draft is not kept */ }
  }

  function loadDraft() {
    try {
      const draft = JSON.parse(window.localStorage.getItem(DRAFT_KEY) || "null");
      if (isPlainObject(draft) && typeof draft.text === "string" && draft.text.trim()) {
        return { text: draft.text, role: typeof draft.role === "string" ? draft.role : "" };
      }
    } catch (error) { /* ignore a broken draft */ }
    return null;
  }

  function showMessages(lines, warnings) {
    ui.messages.textContent = "";
    for (const line of lines) ui.messages.appendChild(el("li", "prereq-composer__change", line));
    for (const line of warnings || []) ui.messages.appendChild(el("li", "prereq-composer__warning", "warning: " + line));
  }

  function showError(error) {
    if (!error) {
      ui.error.hidden = true;
      ui.error.textContent = "";
      return;
    }
    ui.error.textContent = "";
    ui.error.appendChild(el("strong", null, error instanceof PrereqError ? "Cannot do that: " : "Unexpected problem: "));
    ui.error.appendChild(document.createTextNode(error.message));
    if (error.hint) ui.error.appendChild(el("div", "prereq-composer__hint", "hint: " + error.hint));
    ui.error.hidden = false;
    if (!(error instanceof PrereqError)) console.error(error); // eslint-disable-line no-console
  }

  /* Replace the editor's text (an undoable step) and refresh everything. */
  function setText(text, remember) {
    if (remember !== false && text !== ui.editor.value) {
      history.push({ text: ui.editor.value, role: role });
      if (history.length > 50) history.shift();
    }
    ui.editor.value = text;
    ui.undo.disabled = !history.length;
    saveDraft();
    return refresh();
  }

  async function refresh() {
    try {
      view = await analyse(index, ui.editor.value, role);
      role = view.role;
      showError(null);
      root.setAttribute("data-job", "valid");
    } catch (error) {
      view = null;
      showError(error);
      root.setAttribute("data-job", "invalid");
    }
    renderRoles();
    renderClosure();
    renderList();
  }

  /* Run one edit at a time, in order. */
  function queue(task) {
    busy = busy.then(task).catch((error) => showError(error));
    return busy;
  }

  function check(name, on) {
    return queue(async () => {
      root.setAttribute("data-state", "busy");
      try {
        const result = on ? await addToText(index, ui.editor.value, [name], role, siteRoot())
          : await removeFromText(index, ui.editor.value, [name], role);
        if (on) window.prereq.pushRecent(name);
        await setText(result.after);
        showMessages(result.changes.map(describe), result.warnings);
      } catch (error) {
        await refresh();
        showError(error);
      } finally {
        root.setAttribute("data-state", "ready");
      }
    });
  }

  // --- the task role and the closure

  function renderRoles() {
    const roles = view ? view.roles : [];
    ui.role.textContent = "";
    for (const name of roles) {
      const option = el("option", null, name);
      option.value = name;
      ui.role.appendChild(option);
    }
    if (roles.length) ui.role.value = role;
    ui.role.disabled = roles.length < 2;
  }

  function renderClosure() {
    ui.closure.textContent = "";
    ui.closureTitle.textContent = view ? `Task role ${role} runs, in this order` : "The job has a problem";
    if (!view) return;
    if (!view.closure.length) {
      ui.closure.appendChild(el("li", "prereq-composer__none", "no prerequisites from the registry yet"));
      return;
    }
    const names = new Set(view.closure.map((r) => r.name));
    for (const r of view.closure) {
      const item = el("li");
      item.setAttribute("data-name", r.name);
      item.appendChild(el("code", null, r.name));
      item.appendChild(document.createTextNode(" " + r.version));
      const by = r.required_by.filter((n) => names.has(n));
      if (by.length) item.appendChild(el("span", "prereq-composer__why", " — required by " + by.join(", ")));
      else item.appendChild(el("span", "prereq-composer__why", " — selected"));
      ui.closure.appendChild(item);
    }
  }

  // --- the list of prerequisites

  function showMode() {
    const checked = root.querySelector('input[name="prereq-composer-show"]:checked');
    return checked ? checked.value : "";
  }

  function inJob(name) {
    return !!view && (view.inClosure.has(name) || view.state.lock.has(name));
  }

  function renderTags() {
    const counts = new Map();
    for (const entry of index.root.items) for (const tag of entry.tags || []) counts.set(tag, (counts.get(tag) || 0) + 1);
    const tags = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    for (const [tag, count] of tags) {
      const option = el("option", null, `${tag} (${count})`);
      option.value = tag;
      ui.tag.appendChild(option);
    }
  }

  function renderTemplates() {
    for (const template of index.root.templates || []) {
      if (!isPlainObject(template) || typeof template.path !== "string") continue;
      const option = el("option", null, template.name + (template.title ? " — " + template.title : ""));
      option.value = template.name;
      ui.template.appendChild(option);
    }
    ui.template.disabled = !(index.root.templates || []).length;
  }

  function filtered() {
    const find = window.prereq;
    const query = find.searchWords(ui.query.value);
    const mode = showMode();
    const marks = find.marks();
    const filters = {
      words: query, type: ui.type.value, tags: ui.tag.value ? [ui.tag.value] : [], show: mode, marks: marks,
      deprecated: (entry) => ui.deprecated.checked || inJob(entry.name)
    };
    const found = records.filter((record) => find.passes(record, filters) &&
      (mode !== "job" || (!!view && view.inClosure.has(record.entry.name))));
    const closureOrder = view ? view.closure.map((r) => r.name) : [];
    found.sort((a, b) => {
      if (mode === "favorites" || mode === "recent") return marks[mode].get(a.entry.name) - marks[mode].get(b.entry.name);
      if (mode === "job") return closureOrder.indexOf(a.entry.name) - closureOrder.indexOf(b.entry.name);
      const [x, y] = [a.entry.name, b.entry.name];
      return find.nameRank(a, query) - find.nameRank(b, query) || (x < y ? -1 : x > y ? 1 : 0);
    });
    return found.map((record) => record.entry);
  }

  function row(entry) {
    const item = el("li", "prereq-composer__item" + (entry.deprecated ? " prereq-composer__item--deprecated" : ""));
    item.setAttribute("data-name", entry.name);
    const resolved = view ? view.inClosure.get(entry.name) : null;
    const requiredBy = resolved && view ? resolved.required_by.filter((n) => view.inClosure.has(n)) : [];
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = "prereq-composer-item-" + entry.name;
    box.className = "prereq-composer__check";
    box.checked = !!resolved;
    let reason = "";
    if (!view) reason = "fix the job first";
    else if (requiredBy.length) reason = "required by " + requiredBy.join(", ");
    else if (view.handTop.has(entry.name)) reason = "the job defines its own " + entry.name;
    box.disabled = !view || requiredBy.length > 0 || (!resolved && view.handTop.has(entry.name));
    box.addEventListener("change", () => {
      box.disabled = true; // until the edit is done; the list is drawn again from the job
      check(entry.name, box.checked);
    });
    const label = el("label", "prereq-composer__label");
    label.setAttribute("for", box.id);
    label.appendChild(el("span", "prereq-composer__name", entry.name));
    label.appendChild(window.prereq.typeBadge(entry.type));
    label.appendChild(el("span", "prereq-card__version", resolved ? resolved.version : entry.version));
    if (entry.deprecated) label.appendChild(el("span", "prereq-badge prereq-badge--deprecated", "deprecated"));
    label.appendChild(el("span", "prereq-composer__title", entry.title));
    const head = el("div", "prereq-composer__head");
    head.appendChild(box);
    head.appendChild(label);
    head.appendChild(window.prereq.makeStar(entry.name));
    if (SAFE_NAME.test(entry.name)) {
      const link = el("a", "prereq-composer__more", "details");
      link.setAttribute("href", window.prereq.siteUrl("items/" + encodeURIComponent(entry.name) + "/"));
      link.setAttribute("target", "_blank");
      link.setAttribute("rel", "noopener");
      head.appendChild(link);
    }
    item.appendChild(head);
    const notes = [];
    if (reason) notes.push(reason);
    if (resolved && requiredBy.length && view.selected.has(entry.name)) notes.push("also selected");
    if (view && !resolved && view.named.has(entry.name)) notes.push(`named by task role ${role}; check it to add it`);
    if (view && view.elsewhere.has(entry.name)) notes.push("selected in task role " + view.elsewhere.get(entry.name).join(", "));
    if (notes.length) item.appendChild(el("div", "prereq-composer__note", notes.join(" · ")));
    if (requiredBy.length) item.classList.add("prereq-composer__item--required");
    if (resolved) item.classList.add("prereq-composer__item--in");
    return item;
  }

  function renderList() {
    if (!index) return;
    const found = filtered();
    ui.list.textContent = "";
    found.slice(0, limit).forEach((entry) => ui.list.appendChild(row(entry)));
    ui.more.hidden = found.length <= limit;
    const total = index.root.items.length;
    ui.count.textContent = found.length === total ? `${total} prerequisites` : `${found.length} of ${total} prerequisites`;
  }

  // --- starting points

  async function loadTemplate(name) {
    const template = (index.root.templates || []).find((t) => t.name === name);
    if (!template) return;
    const response = await fetch(new URL(template.path, index.base).href);
    if (!response.ok) throw new PrereqError(`cannot load the template ${name} (${response.status})`);
    let text = await response.text();
    await setText(text);
    // Select the registry items the template's task roles name, as `prereq job add --task-role` would.
    const lines = [];
    const warnings = [];
    const job = new Job(text);
    await index.ensure(namesOf(job));
    const defined = new Set(job.topNames().filter((n) => n !== null));
    for (const roleName of job.roleOrder()) {
      const spec = job.roles[roleName];
      const names = [];
      for (const n of (spec.prerequisites || []).concat(TASK_ROLE_FIELDS.map((f) => spec[f]))) {
        if (typeof n === "string" && index.entries.has(n) && !defined.has(n) && !names.includes(n)) names.push(n);
      }
      if (!names.length) continue;
      const result = await addToText(index, text, names, roleName, siteRoot());
      text = result.after;
      lines.push(`task role ${roleName}: selected ${names.join(", ")} (named by the template)`);
      lines.push(...result.changes.map(describe));
      warnings.push(...result.warnings);
    }
    if (lines.length) await setText(text, false);
    showMessages([`started from the template ${name}`].concat(lines), warnings);
  }

  function download() {
    const name = (view && view.name ? view.name : "job").replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^[.-]+/, "") || "job";
    const blob = new Blob([ui.editor.value], { type: "application/yaml;charset=utf-8" });
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = name + ".yaml";
    document.body.appendChild(link);
    link.click();
    link.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  function bind() {
    let typing = null;
    ui.editor.addEventListener("input", () => {
      window.clearTimeout(typing);
      saveDraft();
      typing = window.setTimeout(() => queue(refresh), 250);
    });
    ui.role.addEventListener("change", () => {
      role = ui.role.value;
      saveDraft();
      queue(refresh);
    });
    for (const input of [ui.query]) input.addEventListener("input", () => { limit = PAGE; renderList(); });
    for (const input of [ui.type, ui.tag, ui.deprecated]) input.addEventListener("change", () => { limit = PAGE; renderList(); });
    root.querySelectorAll('input[name="prereq-composer-show"]').forEach((radio) =>
      radio.addEventListener("change", () => { limit = PAGE; renderList(); }));
    ui.more.addEventListener("click", () => { limit += PAGE; renderList(); });
    ui.empty.addEventListener("click", () => queue(async () => {
      role = "";
      await setText(EMPTY_JOB);
      showMessages(["started a new empty job"], []);
    }));
    ui.template.addEventListener("change", () => {
      const name = ui.template.value;
      ui.template.value = "";
      if (name) queue(() => loadTemplate(name));
    });
    ui.upload.addEventListener("change", () => {
      const file = ui.upload.files && ui.upload.files[0];
      ui.upload.value = "";
      if (!file) return;
      queue(async () => {
        const text = await file.text();
        role = "";
        await setText(text);
        showMessages([`opened ${file.name}`], []);
      });
    });
    ui.undo.addEventListener("click", () => queue(async () => {
      const last = history.pop();
      if (!last) return;
      role = last.role;
      await setText(last.text, false);
      ui.undo.disabled = !history.length;
      showMessages(["undone"], []);
    }));
    ui.copy.addEventListener("click", () => {
      const label = "Copy";
      window.prereq.copyText(ui.editor.value).then(() => {
        ui.copy.textContent = "Copied ✓";
      }, () => {
        ui.copy.textContent = "Select the text and copy it";
      }).then(() => window.setTimeout(() => { ui.copy.textContent = label; }, 2000));
    });
    ui.download.addEventListener("click", download);
    document.addEventListener("prereq:storage", () => renderList());
  }

  async function start(vendor) {
    Y = vendor;
    index = await Index.load(window.prereq.siteUrl("api/v1/"));
    records = index.root.items.map(window.prereq.searchRecord);
    renderTags();
    renderTemplates();
    bind();
    const draft = loadDraft();
    role = draft ? draft.role : "";
    ui.editor.value = draft ? draft.text : EMPTY_JOB;
    ui.undo.disabled = true;
    await refresh();
    const params = new URLSearchParams(window.location.search);
    const template = params.get("template");
    const wanted = params.get("add");
    if (template !== null || wanted !== null) {
      // Done once: a reload must not start again or add again.
      params.delete("template");
      params.delete("add");
      const rest = params.toString();
      window.history.replaceState(null, "", window.location.pathname + (rest ? "?" + rest : "") + window.location.hash);
    }
    if (template !== null) {
      if ((index.root.templates || []).some((t) => t.name === template)) await queue(() => loadTemplate(template));
      else showError(new PrereqError(`no job template named '${template}' in the index`, "pick one in the Template list"));
    }
    if (wanted !== null) {
      if (!index.entries.has(wanted)) {
        showError(new PrereqError(`no prerequisite named '${wanted}' in the index`, "search the list for it"));
      } else if (view && view.inClosure.has(wanted)) {
        showMessages([`${wanted} is already in task role ${role}`], []);
      } else if (view) {
        await check(wanted, true);
      }
    }
    root.setAttribute("data-state", "ready");
  }

  // Exposed for debugging and tests; the page itself does not need it.
  window.prereqComposer = {
    add: (text, names, roleName) => addToText(index, text, names, roleName, siteRoot()),
    remove: (text, names, roleName) => removeFromText(index, text, names, roleName),
    idle: () => busy
  };

  import(new URL("vendor/prereq-vendor.js", SELF).href).then(start).catch((error) => {
    root.setAttribute("data-state", "failed");
    showError(error instanceof PrereqError ? error : new PrereqError("the composer could not start: " + error.message,
      "reload the page; the site may be incomplete"));
  });
})();
