/* Credentials in a job's hand-written prerequisite, before the composer offers it for a pull request:
 * the browser's share of tools/prereq/registry/secrets.py (PRQ190).
 *
 * Owns: scanDocument (every string of a value, line by line) and kinds (one phrase for a message).
 * Python scans with detect-secrets' plugins and prereq's own rules; this module has prereq's own
 * rules (credential options and names, `user:password@` in URLs, Azure SAS signatures, Hugging Face
 * and fine-grained GitHub tokens) and the three shapes a job most often leaks (private key blocks,
 * AWS access key ids, GitHub tokens), named as Python names them.  The pull request's validation
 * still runs the whole Python scan; tests/cases/share/ holds both engines equal on what both know.
 * A finding names the kind of credential, never its value.
 *
 * Folder jobs/: job editing as a plan plus its application, as prereq.jobs: state, document, plan,
 * apply, operations, prepare; and share, a job's own prerequisite as a registry item (prereq share).
 * May import: core/, yaml/, openpai/, index/.
 */

import { parse, strings } from "../core/placeholders.js";

const SHAPES = [
  [/BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY|PuTTY-User-Key-File/, "a private key"],
  [/(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}/, "an AWS access key"],
  [/gh[pousr]_[A-Za-z0-9_]{36}/, "a GitHub token"],
  [/[?&]sig=[A-Za-z0-9%+/=]{20,}/, "an Azure shared access signature"],
  [/\bhf_[A-Za-z0-9]{30,}\b/, "a Hugging Face token"],
  [/\bgithub_pat_[A-Za-z0-9_]{60,}\b/, "a GitHub token"],
];
const URL_PASSWORD = "a password in a URL (user:password@host)";
const CREDENTIAL_NAME =
  "[A-Za-z0-9_.-]*?(?:password|passwd|accountkey|sharedaccesssignature|sas_?token|secret_?access_?key" +
  "|access_?key|secret_?key|client_?secret|api_?key|auth_?token|access_?token|_token|_secret)";
const NAME_ONLY = new RegExp(`^(?:${CREDENTIAL_NAME})$`, "i");
const OPTION = new RegExp(
  `(?<![A-Za-z0-9_])(?<name>${CREDENTIAL_NAME}|token|secret)(?:=|\\s*:\\s*(?=["']))` +
    `(?<value><%.*?%>|"[^"]*"|'[^']*'|[^\\s;&,'"]*)`,
  "gi",
);
const LONG_OPTION = /--(?:password|passwd|token|secret|api-key|account-key|sas-token)(?=[=\s])/g;
const URL_USERINFO = /:\/\/(?<user>[^\s/@:]+):(?<value><%.*?%>|[^\s/@]+)@(?<host>[^\s/?#:]+)/g;
const EXAMPLE_HOST = /(^|\.)(example\.(com|net|org)|example|invalid|test)$/i;
const PLACEHOLDER = /^(<[^<>%]*>|\{[^{}]*\}|\*+|x+|\.+|changeme|secret|password|pass|token|none|null|)$/i;
const MAYBE = /[=:@]|key|pass|token|secret|eyj|xox|gh[pousr]_|gl|akia|asia|hf_|sk|sg\./i;
const WHOLE_TEMPLATE = /^<%\s*([\s\S]*?)\s*%>$/;

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
    const words = line.slice(match.index + match[0].length).replace(/^[ =]+/, "").trim().split(/\s+/);
    const value = words[0] || ""; // nothing, or only tabs, after the option
    const literal = value.startsWith("-") ? null : valueKind(value);
    if (literal !== null) yield [literal ? `a plain-text value after ${match[0]}` : match[0], literal];
  }
}

function* urlPasswords(line) {
  for (const match of line.matchAll(URL_USERINFO)) {
    const literal = valueKind(match.groups.value);
    if (literal !== null && !EXAMPLE_HOST.test(match.groups.host)) yield [literal ? URL_PASSWORD : "the password of a URL", literal];
  }
}

/* Every credential in ``text``, one {line, kind, literal} per line and kind, in line order. */
export function scanText(text) {
  const leaks = [];
  text.split("\n").forEach((line, number) => {
    if (!MAYBE.test(line)) return;
    const named = [...new Set(SHAPES.filter(([pattern]) => pattern.test(line)).map(([, kind]) => kind))];
    const generic = new Map();
    for (const [kind, literal] of [...urlPasswords(line), ...options(line)]) {
      if (!(named.length && literal)) generic.set(kind, literal);
    }
    for (const kind of named) leaks.push({ line: number, kind, literal: true });
    for (const [kind, literal] of generic) leaks.push({ line: number, kind, literal });
  });
  return leaks;
}

/* The mapping key naming a credential that holds this value, if any (secrets.py _credential_key). */
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

/* Every credential in every string of plain JSON-like data, as [path, leak]. */
export function scanDocument(data) {
  return strings(data).flatMap(([path, value]) => scanValue(path, value).map((leak) => [path, leak]));
}

/* The kinds of ``leaks`` for one message ("an AWS access key and a GitHub token"). */
export function kinds(leaks) {
  const names = [...new Set(leaks.map((leak) => leak.kind))];
  return names.length < 3 ? names.join(" and ") : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
}
