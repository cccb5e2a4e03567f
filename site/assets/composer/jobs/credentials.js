/* Credentials in a job's hand-written prerequisite (tools/prereq/registry/secrets.py, PRQ190), refused
 * before anything reaches a forge.  A finding names the kind of credential, never its value.
 * May import: core/, yaml/, openpai/, index/.
 */

import { TEMPLATE, parse, strings } from "../core/placeholders.js";

/* detect-secrets' JwtTokenDetector: header and payload are base64url JSON. */
function formalJwt(token) {
  return token.split(".").slice(0, 2).every((part) => {
    const body = part.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
    if (body.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(body)) return false;
    try {
      const bytes = Uint8Array.from(atob(body + "===".slice((body.length + 3) % 4)), (c) => c.charCodeAt(0));
      JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
      return true;
    } catch (error) {
      return false;
    }
  });
}

const JWT = /eyJ[A-Za-z0-9\-_=]+\.[A-Za-z0-9\-_=]+\.?/g;
// [pattern or line test, kind] in secrets.py's order, which its messages keep.
const SHAPES = [
  [/BEGIN (?:DSA|EC|OPENSSH|RSA) PRIVATE KEY|BEGIN PGP PRIVATE KEY BLOCK|BEGIN PRIVATE KEY|BEGIN SSH2 ENCRYPTED PRIVATE KEY|PuTTY-User-Key-File-2/,
    "a private key"],
  [(line) => /(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}/.test(line) ||
    /aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?['"][0-9a-zA-Z/+]{40}['"]/i.test(line), "an AWS access key"],
  [/AccountKey=[a-zA-Z0-9+/=]{88}/, "an Azure storage account key"],
  [/(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}/, "a GitHub token"],
  [/(?:glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_-]{20,50}(?!\w)|GR1348941[A-Za-z0-9_-]{20,50}(?!\w)|glcbt-(?:[0-9a-fA-F]{2}_)?[A-Za-z0-9_-]{20,50}(?!\w)|glimt-[A-Za-z0-9_-]{25}(?!\w)|glptt-[A-Za-z0-9_-]{40}(?!\w)|glagent-[A-Za-z0-9_-]{50,1024}(?!\w)|gloas-[A-Za-z0-9_-]{64}(?!\w)/,
    "a GitLab token"],
  [/xox(?:a|b|p|o|s|r)-(?:\d+-)+[a-z0-9]+|https:\/\/hooks\.slack\.com\/services\/T[a-zA-Z0-9_]+\/B[a-zA-Z0-9_]+\/[a-zA-Z0-9_]+/i,
    "a Slack token"],
  [(line) => [...line.matchAll(JWT)].some((found) => formalJwt(found[0])), "a JSON Web Token"],
  [/\/\/.+\/:_authToken=\s*(?:npm_.+|[A-Fa-f0-9-]{36})/, "an npm token"],
  [/pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{70,}|pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9_-]{70,}/, "a PyPI token"],
  [/sk-[A-Za-z0-9_-]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}/, "an OpenAI API key"],
  [/(?:r|s)k_live_[0-9a-zA-Z]{24}/, "a Stripe key"],
  [/SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}/, "a SendGrid key"],
  [/[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}/, "a Discord bot token"],
  [/[?&]sig=[A-Za-z0-9%+/=]{20,}/, "an Azure shared access signature"],
  [/\bhf_[A-Za-z0-9]{30,}\b/, "a Hugging Face token"],
  [/\bgithub_pat_[A-Za-z0-9_]{60,}\b/, "a GitHub token"],
  [/\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/, "a Google API key"],
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{20,}/, "a bearer token"],
];
const BEARER = "a bearer token"; // named only when nothing names the token it carries
// Commands whose short -p takes a password (secrets.py _SHORT_PASSWORD).
const SHORT_PASSWORD = [
  /\b(?:sshpass|(?:docker|podman|nerdctl|buildah)\s+login)\b[^;&|\n]*?\s-p\s*(?<value><%.*?%>|[^\s;&|]+)/g,
  /\bmysql(?:dump|admin)?\b[^;&|\n]*?\s-p(?<value><%.*?%>|[^\s;&|<-][^\s;&|]*)/g,
];
const LEADING_TEMPLATE = /^<%[^\n]*?%>/; // Python's ".": all but a line feed
const URL_PASSWORD = "a password in a URL (user:password@host)";
const CREDENTIAL_NAME =
  "[A-Za-z0-9_.-]*?(?:password|passwd|accountkey|sharedaccesssignature|sas_?token|secret_?access_?key" +
  "|access_?key|secret_?key|client_?secret|api_?key|auth_?token|access_?token|_token|_secret)";
const NAME_ONLY = new RegExp(`^(?:${CREDENTIAL_NAME}|token|secret)$`, "i");
const OPTION = new RegExp(
  `(?<![A-Za-z0-9_])(?<name>${CREDENTIAL_NAME}|token|secret)(?:=|\\s*:\\s*(?=["']))` +
    `(?<value><%.*?%>|"[^"]*"|'[^']*'|[^\\s;&,'"]*)`,
  "gi",
);
const LONG_OPTION = /--(?:[a-z]+-)?(?:password|passwd|token|secret|api-key|account-key|sas-token)(?=[=\s])/g;
const URL_USERINFO = /:\/\/(?<user>[^\s/@:]+):(?<value><%.*?%>|[^\s/@]+)@(?<host>[^\s/?#:]+)/g;
const EXAMPLE_HOST = /(^|\.)(example\.(com|net|org)|example|invalid|test)$/i;
const PLACEHOLDER = /^(<[^<>%]*>|\{[^{}]*\}|\*+|x+|\.+|changeme|secret|password|pass|token|none|null|)$/i;
const MAYBE = /[=:@]|key|pass|token|secret|eyj|xox|gh[pousr]_|gl|akia|asia|hf_|sk|sg\.|bearer|login|mysql|aiza/i;
const WHOLE_TEMPLATE = new RegExp(`^${TEMPLATE.source}$`); // placeholders.TEMPLATE.fullmatch

const unquote = (value) => value.replace(/^["']+|["']+$/g, "");

/* true: a literal credential; false: a template other than a secret reference; null: nothing to say. */
function valueKind(value) {
  value = unquote(value);
  const template = WHOLE_TEMPLATE.exec(value);
  if (template && parse(template[1]).namespace === "$secrets") return null;
  if (PLACEHOLDER.test(value) || value.startsWith("$") || value.startsWith("`")) return null;
  return !value.includes("<%");
}

function* options(line) {
  for (const match of line.matchAll(OPTION)) {
    const { name, value } = match.groups;
    const whole = match[0].toLowerCase();
    if (["token", "secret"].includes(name.toLowerCase()) && !whole.startsWith("token=") && !whole.startsWith("secret=")) continue;
    const literal = valueKind(value);
    const shortNumber = literal && /^[0-9]+$/.test(unquote(value)) && value.length < 5;
    if (literal !== null && !shortNumber) yield [literal ? `a plain-text ${name}= value` : `${name}=`, literal];
  }
  for (const match of line.matchAll(LONG_OPTION)) {
    const rest = line.slice(match.index + match[0].length).replace(/^[ =]+/, "");
    const template = LEADING_TEMPLATE.exec(rest); // `--password <% $secrets.pw %>`: one value, spaces and all
    const value = template ? template[0] : rest.trim().split(/\s+/)[0] || ""; // nothing, or only tabs, after it
    const literal = value.startsWith("-") ? null : valueKind(value);
    if (literal !== null) yield [literal ? `a plain-text value after ${match[0]}` : match[0], literal];
  }
  for (const pattern of SHORT_PASSWORD) {
    for (const match of line.matchAll(pattern)) {
      const literal = valueKind(match.groups.value);
      if (literal !== null) yield [literal ? "a plain-text password after -p" : "-p", literal];
    }
  }
}

function* urlPasswords(line) {
  for (const match of line.matchAll(URL_USERINFO)) {
    const literal = valueKind(match.groups.value);
    if (literal !== null && !EXAMPLE_HOST.test(match.groups.host)) yield [literal ? URL_PASSWORD : "the password of a URL", literal];
  }
}

/* One {line, kind, literal} per line and kind. */
export function scanText(text) {
  const leaks = [];
  text.split("\n").forEach((line, number) => {
    if (!MAYBE.test(line)) return;
    const found = SHAPES.filter(([match]) => (typeof match === "function" ? match(line) : match.test(line)));
    const named = [...new Set(found.map(([, kind]) => kind))];
    if (named.length > 1 && named.includes(BEARER)) named.splice(named.indexOf(BEARER), 1);
    const generic = new Map();
    for (const [kind, literal] of [...urlPasswords(line), ...options(line)]) {
      if (!(named.length && literal)) generic.set(kind, literal);
    }
    for (const kind of named) leaks.push({ line: number, kind, literal: true });
    for (const [kind, literal] of generic) leaks.push({ line: number, kind, literal });
  });
  return leaks;
}

/* secrets.py _credential_key */
function credentialKey(path) {
  const keys = path.filter((key) => typeof key === "string");
  if (!keys.length) return null;
  if (path.length >= 2 && path[0] === "secrets") return `secrets.${path[1]}`;
  const last = keys[keys.length - 1];
  return typeof path[path.length - 1] === "string" && NAME_ONLY.test(last) ? last : null;
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

/* [path, leak] for every string of plain data. */
export function scanDocument(data) {
  return strings(data).flatMap(([path, value]) => scanValue(path, value).map((leak) => [path, leak]));
}

/* "an AWS access key and a GitHub token" */
export function kinds(leaks) {
  const names = [...new Set(leaks.map((leak) => leak.kind))];
  return names.length < 3 ? names.join(" and ") : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
}
