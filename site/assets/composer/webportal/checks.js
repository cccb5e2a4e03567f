/* What the rest-server would say of the job before Submit (no DOM): whether the user already has a
 * job of that name (names are unique per user: 409) and whether the user's groups may use its virtual
 * cluster (else 403).  A check the token cannot make says why; it never stops a submission.
 *
 * May import: core/, yaml/, jobs/, ui/, execution/.
 */

import { NAME_LENGTH } from "../jobs/prepare.js";
import { YamlText } from "../yaml/yamltext.js";

const FRESH_TRIES = 8;

export function nextName(name) {
  const numbered = /^(.*)_([1-9][0-9]*)$/.exec(name);
  const next = numbered ? `${numbered[1]}_${Number(numbered[2]) + 1}` : `${name}_2`;
  return next.length <= NAME_LENGTH ? next : "";
}

export async function freshName(server, name) {
  let candidate = name;
  for (let tries = 0; tries < FRESH_TRIES; tries++) {
    candidate = nextName(candidate);
    if (!candidate) return "";
    if (!(await server.hasJob(candidate))) return candidate;
  }
  return "";
}

/* A check not made: error.message (RestServerError's "Cannot …") says which and why. */
const cannot = (before, error) => ({
  state: "unknown",
  message: `${before}${error.message}. You can still submit: the rest-server checks it then.`,
  hint: error.hint || "",
});

export async function checkName(server, name) {
  const check = { check: "name", fresh: "" };
  try {
    if (!(await server.hasJob(name))) return { ...check, state: "free", message: `The name ${name} is free: you have no job of that name.`, hint: "" };
    const fresh = await freshName(server, name);
    return {
      ...check, state: "taken", fresh,
      message: `You already have a job named ${name}: the rest-server would refuse this one (job names are unique per user).`,
      hint: fresh ? `submit it as ${fresh}, or change name: in the YAML` : "change name: in the YAML",
    };
  } catch (error) {
    return { ...check, ...cannot("", error) };
  }
}

/* Not asked about (the rest-server would say it is taken, by this very job); a fresh name offered. */
export async function checkSubmitted(server, name) {
  let fresh = "";
  try {
    fresh = await freshName(server, name);
  } catch (error) { /* the hint says what to do */ }
  return {
    check: "name", state: "submitted", fresh, message: `You submitted ${name} just now.`,
    hint: `to submit it again, give it another name${fresh ? ` (${fresh} is free)` : ": change name: in the YAML"}; job names are unique per user`,
  };
}

/* `record` is null when it could not be read: `recordError` says why. */
export function checkCluster(record, recordError, cluster) {
  const check = { check: "cluster", fresh: "" };
  const mine = record && Array.isArray(record.virtualCluster) ? record.virtualCluster.map(String) : null;
  if (!mine) return { ...check, ...cannot(`Virtual cluster ${cluster} not checked: `, recordError || new Error("your record lists none")) };
  if (mine.includes(cluster)) return { ...check, state: "allowed", message: `Virtual cluster ${cluster}: your groups may use it.`, hint: "" };
  return {
    ...check, state: "denied",
    message: `Your groups may not use the virtual cluster ${cluster}: the rest-server would refuse the job. Yours: ${mine.length ? mine.join(", ") : "none"}.`,
    hint: "set defaults.virtualCluster to one of yours, or pick a queue below",
  };
}

export function withName(text, name) {
  const yaml = new YamlText(text, { source: "job", mergeKeys: true });
  yaml.set(["name"], name);
  return yaml.text;
}
