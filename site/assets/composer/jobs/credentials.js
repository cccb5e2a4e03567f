/* Credentials in a job's hand-written prerequisite (tools/prereq/registry/secretscan.py, PRQ190), refused
 * before anything reaches a forge.  A finding names the kind of credential, never its value.  Held to
 * the CLI's findings by tests/cases/credentials/: where JavaScript's regular expressions read otherwise
 * than Python's, the patterns spell Python's out (its \s as PY_SPACE, its "." as [^\n], its \d and \w
 * as Unicode classes), so that the browser may refuse more than `prereq share`, never less.
 * May import: core/, yaml/, openpai/, index/.
 */

import { PY_DIGIT, PY_SPACE, TEMPLATE, parse, renderString } from "../core/placeholders.js";
import { PyDict, pyRepr, pyStr } from "../yaml/pyvalues.js";

const S = PY_SPACE; // a class's body: [${S}] is Python's \s, [^${S}] its \S
const WORD = "\\p{L}\\p{N}_"; // Python's \w, with the u flag

/* detect-secrets' JwtTokenDetector.is_formally_valid: every part base64url, the first two JSON, as
 * Python reads them (its json takes NaN and Infinity). */
function formalJwt(token) {
  return token.split(".").every((part, index) => {
    if (part.length % 4 === 1) return false;
    const bytes = urlsafeDecoded(part + "===".slice(0, part.length % 4 === 2 ? 2 : part.length % 4 === 3 ? 3 : 0));
    if (bytes === null || index >= 2) return bytes !== null;
    try {
      const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      try { JSON.parse(text); } catch { JSON.parse(text.replace(/-?\b(?:NaN|Infinity)\b/g, "0")); }
      return true;
    } catch {
      return false;
    }
  });
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* base64.urlsafe_b64decode as CPython's binascii.a2b_base64 (not strict) decodes: other characters
 * skipped, a pad sequence ends the data; null where it raises. */
function urlsafeDecoded(text) {
  const bytes = [];
  let [quad, pads, left] = [0, 0, 0];
  for (const ch of text.replace(/-/g, "+").replace(/_/g, "/")) {
    if (ch === "=") {
      if (quad >= 2 && quad + ++pads >= 4) return Uint8Array.from(bytes);
      continue;
    }
    const six = BASE64.indexOf(ch);
    if (six < 0) continue;
    pads = 0;
    if (quad === 1) bytes.push((left << 2) | (six >> 4));
    else if (quad === 2) bytes.push(((left << 4) | (six >> 2)) & 0xff);
    else if (quad === 3) bytes.push(((left << 6) | six) & 0xff);
    left = quad === 0 ? six : quad === 1 ? six & 0x0f : quad === 2 ? six & 0x03 : 0;
    quad = (quad + 1) % 4;
  }
  return quad === 0 ? Uint8Array.from(bytes) : null;
}

const JWT = /eyJ[A-Za-z0-9\-_=]+\.[A-Za-z0-9\-_=]+\.?/gu;
const AWS_SECRET = new RegExp(`aws[^\\n]{0,20}?(?:key|pwd|pw|password|pass|token)[^\\n]{0,20}?['"]([0-9a-zA-Z/+]{40})['"]`, "giu");
// [pattern or line test, kind] in secretscan.py's order, which its messages keep.
const SHAPES = [
  [/BEGIN (?:DSA|EC|OPENSSH|RSA) PRIVATE KEY|BEGIN PGP PRIVATE KEY BLOCK|BEGIN PRIVATE KEY|BEGIN SSH2 ENCRYPTED PRIVATE KEY|PuTTY-User-Key-File-2/u,
    "a private key"],
  [(line) => /(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}/u.test(line) ||
    [...line.matchAll(AWS_SECRET)].some((found) => !PLACEHOLDER.test(found[1])), "an AWS access key"],
  [/AccountKey=[a-zA-Z0-9+/=]{88}/u, "an Azure storage account key"],
  [/(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}/u, "a GitHub token"],
  [/(?:glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_-]{20,50}(?!\w)|GR1348941[A-Za-z0-9_-]{20,50}(?!\w)|glcbt-(?:[0-9a-fA-F]{2}_)?[A-Za-z0-9_-]{20,50}(?!\w)|glimt-[A-Za-z0-9_-]{25}(?!\w)|glptt-[A-Za-z0-9_-]{40}(?!\w)|glagent-[A-Za-z0-9_-]{50,1024}(?!\w)|gloas-[A-Za-z0-9_-]{64}(?!\w)/u,
    "a GitLab token"],
  [/xox(?:a|b|p|o|s|r)-(?:\p{Nd}+-)+[a-z0-9]+|https:\/\/hooks\.slack\.com\/services\/T[a-zA-Z0-9_]+\/B[a-zA-Z0-9_]+\/[a-zA-Z0-9_]+/iu,
    "a Slack token"],
  [(line) => [...line.matchAll(JWT)].some((found) => formalJwt(found[0])), "a JSON Web Token"],
  [new RegExp(`//[^\\n]+/:_authToken=[${S}]*(?:npm_|[A-Fa-f0-9-]{36})`, "u"), "an npm token"],
  [/pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{70,}|pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9_-]{70,}/u, "a PyPI token"],
  [/sk-[A-Za-z0-9_-]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}/u, "an OpenAI API key"],
  [/(?:r|s)k_live_[0-9a-zA-Z]{24}/u, "a Stripe key"],
  [/SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}/u, "a SendGrid key"],
  [/[MNO][a-zA-Z\p{Nd}_-]{23,25}\.[a-zA-Z\p{Nd}_-]{6}\.[a-zA-Z\p{Nd}_-]{27}/u, "a Discord bot token"],
  [/[?&]sig=[A-Za-z0-9%+/=]{20,}/u, "an Azure shared access signature"],
  [/\bhf_[A-Za-z0-9]{30,}\b/u, "a Hugging Face token"],
  [/\bgithub_pat_[A-Za-z0-9_]{60,}\b/u, "a GitHub token"],
  [/\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/u, "a Google API key"],
  [new RegExp(`\\bBearer[${S}]+[A-Za-z0-9._~+/=-]{20,}`, "u"), "a bearer token"],
];
const BEARER = "a bearer token"; // named only when nothing names the token it carries

// secretscan._COMMAND_FORMS: [pattern, kind of a plain-text value, kind of a template].
const VALUE = `["']?(?<value><%[^\\n]*?%>|[^${S};&|"'\\\\]+)`;
const AFTER = `[^;&|\\n]*?[${S}]`; // the rest of a command, up to its option
const COMMAND_FORMS = [
  [`\\b(?:sshpass|(?:docker|podman|nerdctl|buildah)[${S}]+login)\\b${AFTER}-p[${S}]*(?<value><%[^\\n]*?%>|[^${S};&|]+)`,
    "a plain-text password after -p", "-p"],
  [`\\bmysql(?:dump|admin)?\\b${AFTER}-p(?<value><%[^\\n]*?%>|[^${S};&|<-][^${S};&|]*)`, "a plain-text password after -p", "-p"],
  [`\\bcurl\\b${AFTER}(?:-[A-Za-z]*[uU][${S}]*|--(?:proxy-)?user[=${S}][${S}]*)["']?[^${S}:;&|"']*:${VALUE}`,
    "a plain-text password after curl -u", "curl -u"],
  [`\\baws[${S}]+configure[${S}]+set[${S}]+(?:[${WORD}-]+\\.)?(?:aws_secret_access_key|aws_session_token)[${S}]+${VALUE}`,
    "a plain-text AWS secret after aws configure set", "aws configure set", "i"],
  [`(?:^|[${S}]|\\\\n)login[${S}]+[^${S}\\\\]+(?:[${S}]+|\\\\n)password[${S}]+${VALUE}`, "a .netrc password", "a .netrc password"],
  [`^[${S}]*password[${S}]+(?=[^${S}]*[^A-Za-z${S}])${VALUE}[${S}]*$`, "a .netrc password", "a .netrc password"],
  [`\\bredis-cli\\b${AFTER}-a[${S}]+${VALUE}`, "a plain-text password after redis-cli -a", "-a"],
  [`\\bsmbclient\\b${AFTER}-U[${S}]*["']?[^${S}%"']+%${VALUE}`, "a password after smbclient -U", "-U"],
  [`\\baz[${S}]+login\\b${AFTER}-p[${S}]+${VALUE}`, "a plain-text password after az login -p", "-p"],
  [`\\bauthorization:[${S}]*basic[${S}]+${VALUE}`, "HTTP basic credentials", "Authorization: Basic", "i"],
  [`\\bx-api-key:[${S}]*${VALUE}`, "an API key header", "X-Api-Key:", "i"],
].map(([pattern, plain, name, flags = ""]) => [new RegExp(pattern, `dgu${flags}`), plain, name]);
const CREDENTIAL_NAME =
  "[A-Za-z0-9_.-]*?(?:password|passwd|accountkey|sharedaccesssignature|sas_?token|secret_?access_?key" +
  "|access_?key|secret_?key|client_?secret|api_?key|auth_?token|access_?token|_token|_secret|storage_?key" +
  "|sshpass|_pass|_pwd)";
const NAME_ONLY = new RegExp(`^(?:${CREDENTIAL_NAME}|token|secret)$`, "iu");
const OPTION = new RegExp(
  `(?<![A-Za-z0-9_])(?<name>${CREDENTIAL_NAME}|token|secret)(?:=|[${S}]*:[${S}]*(?=["']))` +
    `(?<value><%[^\\n]*?%>|"[^"]*"|'[^']*'|[^${S};&,'"]*)`,
  "dgiu",
);
const LEADING_TEMPLATE = /^<%[^\n]*?%>/u;
const LONG_OPTION = new RegExp(`--(?:[a-z]+-)?(?:password|passwd|token|secret|api-key|account-key|sas-token)(?=[=${S}])`, "gu");
const URL_USERINFO = new RegExp(`://(?<user>[^${S}/@:]+):(?<value><%[^\\n]*?%>|[^${S}/@]+)@(?<host>[^${S}/?#:]+)`, "dgu");
const HOST = new RegExp(`(?:://(?:[^${S}/@]*@)?|(?<![${WORD}])machine[${S}]+)([^${S}/?#:'"\\\\]+)`, "gu");
const EXAMPLE_HOST = /(^|\.)(example\.(com|net|org)|example|invalid|test)$/iu;
const PLACEHOLDER = /^(<[^<>%]*>|\{[^{}]*\}|\*+|x+|\.+|changeme|secret|password|pass|token|none|null|)$/iu;
const URL_PASSWORD = "a password in a URL (user:password@host)";
// secretscan._MAYBE: text without which no rule matches (its (?i:...) parts as a second pattern).
const MAYBE_CASED = /BEGIN|PuTTY|A3T|ABIA|ACCA|AKIA|ASIA|AccountKey|gh[pousr]_|GR1348941|gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-|xox|eyJ|npm_|_authToken|pypi-AgE|T3BlbkFJ|_live_|SG\.|[MNO][\p{L}\p{N}_-]{23,25}\.[\p{L}\p{N}_-]{6}\.|:\/\/|sig=|hf_|github_pat_|AIza|Bearer/u;
const MAYBE_ANY_CASE = /aws[^\n]{0,20}?(?:key|pw|pass|token)|key|pass|token|secret|signature|login|mysql|curl|redis|smbclient|authoriz|pwd/iu;
// Python's case-insensitive i is also ı and İ, which the u flag does not fold: patterns that ignore case
// read the line with them as i (one code unit for one: a match's indices hold in the line as written).
const fold = (text) => text.replace(/[\u0130\u0131]/g, "i");
const maybe = (text, folded = fold(text)) => MAYBE_CASED.test(folded) || MAYBE_ANY_CASE.test(folded);
const WHOLE_TEMPLATE = new RegExp(`^${TEMPLATE.source}$`); // placeholders.TEMPLATE.fullmatch

const unquote = (value) => value.replace(/^["']+|["']+$/g, "");
const [DIGITS, SPACES] = [new RegExp(`^[${PY_DIGIT}]+$`, "u"), new RegExp(`[${S}]+`, "u")]; // within str.isdigit
const exampleLine = (line) => [...line.matchAll(HOST)].some((found) => EXAMPLE_HOST.test(fold(found[1])));
const written = (line, match, group) => line.slice(...match.indices.groups[group]); // a group of a folded line

/* true: a literal credential; false: a template other than a secret reference; null: nothing to say. */
function valueKind(value) {
  value = unquote(value);
  const template = WHOLE_TEMPLATE.exec(value);
  if (template && parse(template[1]).namespace === "$secrets") return null;
  if (PLACEHOLDER.test(value) || value.startsWith("$") || value.startsWith("`")) return null;
  return !value.includes("<%");
}

function* options(line, folded) {
  for (const match of folded.matchAll(OPTION)) {
    const [name, value] = [written(line, match, "name"), written(line, match, "value")];
    const whole = line.slice(match.index, match.index + match[0].length).toLowerCase();
    if (["token", "secret"].includes(name.toLowerCase()) && !whole.startsWith("token=") && !whole.startsWith("secret=")) continue;
    const literal = valueKind(value);
    if (literal !== null && !(literal && DIGITS.test(unquote(value)) && value.length < 5)) {
      yield [literal ? `a plain-text ${name}= value` : `${name}=`, literal];
    }
  }
  for (const match of line.matchAll(LONG_OPTION)) {
    const rest = line.slice(match.index + match[0].length).replace(/^[ =]+/, "");
    const template = LEADING_TEMPLATE.exec(rest); // `--password <% $secrets.pw %>`: one value, spaces and all
    const value = template ? template[0] : rest.split(SPACES).find(Boolean) || "";
    const literal = value.startsWith("-") ? null : valueKind(value);
    if (literal !== null) yield [literal ? `a plain-text value after ${match[0]}` : match[0], literal];
  }
  for (const [pattern, plain, name] of COMMAND_FORMS) {
    for (const match of folded.matchAll(pattern)) {
      const literal = valueKind(written(line, match, "value"));
      if (literal !== null && !exampleLine(line)) yield [literal ? plain : name, literal];
    }
  }
}

function* urlPasswords(line, folded) {
  for (const match of folded.matchAll(URL_USERINFO)) {
    const literal = valueKind(written(line, match, "value"));
    if (literal !== null && !EXAMPLE_HOST.test(match.groups.host)) yield [literal ? URL_PASSWORD : "the password of a URL", literal];
  }
}

/* One {line, kind, literal} per line and kind. */
export function scanText(text) {
  if (!maybe(text)) return [];
  const leaks = [];
  text.split("\n").forEach((line, number) => {
    const folded = fold(line);
    if (!maybe(line, folded)) return;
    const found = SHAPES.filter(([match]) => (typeof match === "function" ? match(folded) : match.test(folded)));
    const named = [...new Set(found.map(([, kind]) => kind))];
    if (named.length > 1 && named.includes(BEARER)) named.splice(named.indexOf(BEARER), 1);
    const generic = new Map();
    for (const [kind, literal] of [...urlPasswords(line, folded), ...options(line, folded)]) {
      if (!(named.length && literal)) generic.set(kind, literal);
    }
    for (const kind of named) leaks.push({ line: number, kind, literal: true });
    for (const [kind, literal] of generic) leaks.push({ line: number, kind, literal });
  });
  return leaks;
}

/* secretscan._credential_key */
function credentialKey(path) {
  if (path.length >= 2 && path[0] === "secrets") return `secrets.${path[1]}`;
  const last = path[path.length - 1];
  return typeof last === "string" && NAME_ONLY.test(fold(last)) ? last : null;
}

function scanValue(path, value) {
  const leaks = scanText(value);
  const key = credentialKey(path);
  if (key === null || leaks.length) return leaks;
  let literal = valueKind(value);
  if (key.startsWith("secrets.") && literal === false) literal = null;
  if (literal !== null) leaks.push({ line: 0, kind: literal ? "a plain-text credential" : key, literal });
  return leaks;
}

// A parameter as secretscan.rendered fills it in: Python's str(), but a bool as YAML writes it.
function shown(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean") return value ? "true" : "false";
  return Array.isArray(value) || value instanceof PyDict ? pyRepr(value) : pyStr(value);
}

const RENDER_DEPTH = 8; // secretscan._RENDER_DEPTH and _RENDER_SIZE
const RENDER_SIZE = 100000;

function rendered(text, lookup) {
  for (let round = 0; round < RENDER_DEPTH; round++) {
    let filled = renderString(text, "this", lookup);
    if (filled.length > RENDER_SIZE) filled = Array.from(filled).slice(0, RENDER_SIZE).join(""); // code points, as Python
    if (filled === text || !filled.includes("<%")) return filled;
    text = filled;
  }
  return text;
}

/* secretscan.rendered_leaks: what `<% this.KEY %>` filled in shows that the string as written (`leaks`) did not. */
function renderedLeaks(path, value, lookup, leaks) {
  const lines = value.split("\n");
  const written = new Set(leaks.map((leak) => `${leak.line} ${leak.kind}`));
  const found = new Map();
  lines.forEach((line, number) => {
    if (!line.includes("<%")) return;
    const text = rendered(line, lookup);
    if (text === line) return;
    for (const leak of lines.length === 1 ? scanValue(path, text) : scanText(text)) {
      const at = `${number} ${leak.kind}`;
      if (leak.literal && !written.has(at) && !found.has(at)) found.set(at, { line: number, kind: leak.kind, literal: true });
    }
  });
  return [...found.values()];
}

/* [path, string] of every string, and of every key with a `key` flag, in a value of yaml/pyvalues.js. */
function* walk(value, path = []) {
  if (typeof value === "string") yield [path, value, false];
  else if (Array.isArray(value)) for (const [index, child] of value.entries()) yield* walk(child, [...path, index]);
  else if (value instanceof PyDict) {
    for (const [key, child] of value.entries()) {
      if (typeof key === "string") yield [[...path, key], key, true];
      yield* walk(child, [...path, key]);
    }
  }
}

/* secretscan.scan_document of a value of yaml/pyvalues.js: [path, leak] for every string, as written and
 * with its `<% this.KEY %>` filled in from the value's own parameters, then for every key (`key: true`). */
export function scanDocument(data) {
  const held = data instanceof PyDict && data.has("parameters") ? data.get("parameters") : null;
  const lookup = (key) => (held instanceof PyDict && held.has(key) ? shown(held.get(key)) : null);
  const found = [];
  const keys = [];
  for (const [path, text, isKey] of walk(data)) {
    if (isKey) {
      if (maybe(text)) keys.push(...scanText(text).filter((leak) => leak.literal).map((leak) => [path, { ...leak, key: true }]));
      continue;
    }
    const leaks = scanValue(path, text);
    if (text.includes("<%")) leaks.push(...renderedLeaks(path, text, lookup, leaks));
    found.push(...leaks.map((leak) => [path, leak]));
  }
  return [...found, ...keys];
}

/* "an AWS access key and a GitHub token" */
export function kinds(leaks) {
  const names = [...new Set(leaks.map((leak) => leak.kind))];
  return names.length < 3 ? names.join(" and ") : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
}
