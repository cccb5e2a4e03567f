/* Choosing versions as tools/prereq/index/resolver.py (its docstring says how): per item the highest
 * version meeting every range, a lock kept while it fits (locks that all fit: in one pass).  On a
 * conflict, a backtracking search in the order resolver.py gives resolvelib; only when nothing fits is
 * the plain choice's conflict reported.
 * May import: core/.
 */

import { PrereqError } from "../core/errors.js";
import { byCodePoint } from "../core/order.js";
import { postOrder } from "../core/graph.js";
import { satisfies } from "../core/versions.js";

const SELECTION = "your selection";
const MAX_STEPS = 10000; // versions tried before a search counts as too deep
const PLAIN_ROUNDS = 10000; // rounds of the plain choice: one per level of the deepest chain (resolver.py)

/* The plain choice's failure; `constraints`: every range it had met. */
class Conflict extends Error {
  constructor(message, hint, sides) {
    super(message);
    this.hint = hint;
    this.sides = sides; // [name, range, who asks]
    this.constraints = null;
  }
}

function pick(name, ranges, versions, locked) {
  const fitting = versions.filter((v) => ranges.every(([range]) => satisfies(v, range)));
  if (locked !== null && locked !== undefined && fitting.includes(locked)) return locked;
  if (fitting.length) return fitting[fitting.length - 1];
  for (let i = 0; i < ranges.length; i++) {
    const [first, firstBy] = ranges[i];
    for (const [second, secondBy] of ranges.slice(i + 1)) {
      if (!versions.some((v) => satisfies(v, first) && satisfies(v, second))) {
        throw new Conflict(`no version of ${name} meets both ${firstBy} (${name}@${first || "*"}) and ` +
          `${secondBy} (${name}@${second || "*"})`,
        `published versions of ${name}: ${versions.join(", ")}; relax one of the ranges`,
        [[name, first, firstBy], [name, second, secondBy]]);
      }
    }
  }
  const [range, by] = ranges[0];
  throw new Conflict(`no published version of ${name} meets ${name}@${range || "*"} (${by})`,
    `published versions: ${versions.join(", ") || "none"}`, [[name, range, by]]);
}

/* resolver._locks_that_fit: the locks when all fit, else null (or the index has not a name). */
function locksThatFit(requests, versionsOf, requiresOf, locked) {
  const ranges = new Map();
  const ask = (name, range) => (ranges.get(name) || ranges.set(name, []).get(name)).push(range);
  const published = (name) => locked.has(name) && versionsOf(name).includes(locked.get(name));
  requests.forEach((r) => ask(r.name, r.range));
  try {
    const reached = postOrder(requests.map((r) => r.name), (name) => (published(name)
      ? requiresOf(name, locked.get(name)).map((r) => (ask(r.name, r.range), r.name)) : []));
    const fits = reached.every((name) => published(name) && ranges.get(name).every((range) => satisfies(locked.get(name), range)));
    return fits ? new Map(reached.map((name) => [name, locked.get(name)])) : null;
  } catch (error) { if (error instanceof PrereqError) return null; throw error; }
}

/* The highest version meeting every range of the versions chosen so far, until nothing moves. */
function plain(requests, versionsOf, requiresOf, locked) {
  let chosen = new Map();
  const required = (name) => (chosen.has(name) ? requiresOf(name, chosen.get(name)) : []);
  let settled = false;
  for (let round = 0; round < PLAIN_ROUNDS && !settled; round++) {
    const constraints = new Map();
    const constrain = (name, range, by) => (constraints.get(name) || constraints.set(name, []).get(name)).push([range, by]);
    for (const request of requests) constrain(request.name, request.range, SELECTION);
    for (const name of postOrder(requests.map((r) => r.name), (n) => required(n).map((r) => r.name))) {
      for (const requirement of required(name)) constrain(requirement.name, requirement.range, `${name} ${chosen.get(name)}`);
    }
    const picked = new Map();
    for (const [name, ranges] of constraints) {
      try {
        picked.set(name, pick(name, ranges, versionsOf(name), locked.get(name)));
      } catch (error) {
        if (error instanceof Conflict) error.constraints = constraints;
        throw error;
      }
    }
    settled = picked.size === chosen.size && [...picked].every(([name, version]) => chosen.get(name) === version);
    chosen = picked;
  }
  if (!settled) {
    throw new PrereqError(`the versions did not settle in ${PLAIN_ROUNDS.toLocaleString("en-US")} rounds ` +
      `(requirements more than ${PLAIN_ROUNDS.toLocaleString("en-US")} deep?)`, { hint: "shorten the chain of requirements" });
  }
  return chosen;
}

/* How the plain choice came to ask for `name@range`: `your selection -> A@* -> A 1.0 -> C@^1`. */
function chain(constraints, name, range, by) {
  const steps = [`${name}@${range || "*"}`];
  const seen = new Set([name]);
  while (by !== SELECTION) {
    const cut = by.lastIndexOf(" ");
    const [parent, version] = [by.slice(0, cut), by.slice(cut + 1)];
    if (!constraints.has(parent)) break;
    steps.unshift(`${parent}@${constraints.get(parent)[0][0] || "*"}`, `${parent} ${version}`);
    if (seen.has(parent)) break; // a cycle: the chain has said enough
    seen.add(parent);
    by = constraints.get(parent)[0][1];
  }
  return [SELECTION, ...steps].join(" -> ");
}

function search(requests, versionsOf, requiresOf, locked, conflict) {
  const first = new Map();
  requests.forEach((r, i) => { if (!first.has(r.name)) first.set(r.name, i); });
  const rank = (a, b) => (first.has(a) && first.has(b) ? first.get(a) - first.get(b)
    : first.has(a) !== first.has(b) ? (first.has(a) ? -1 : 1) : byCodePoint(a, b));
  let steps = 0;
  const solve = (pinned) => {
    if (++steps > MAX_STEPS) {
      throw new PrereqError(`${conflict.message} (no other choice found within ${MAX_STEPS} steps)`, { hint: conflict.hint });
    }
    const ranges = new Map(requests.map((r) => [r.name, []]));
    for (const r of requests) ranges.get(r.name).push(r.range);
    for (const [name, version] of pinned) {
      for (const r of requiresOf(name, version)) ranges.set(r.name, [...(ranges.get(r.name) || []), r.range]);
    }
    if ([...pinned].some(([name, version]) => !(ranges.get(name) || []).every((range) => satisfies(version, range)))) return null;
    const open = [...ranges.keys()].filter((name) => !pinned.has(name)).sort(rank);
    if (!open.length) return pinned;
    const name = open[0];
    const fitting = versionsOf(name).filter((v) => ranges.get(name).every((range) => satisfies(v, range))).reverse();
    const lock = locked.get(name);
    const candidates = fitting.includes(lock) ? [lock, ...fitting.filter((v) => v !== lock)] : fitting;
    for (const version of candidates) {
      const found = solve(new Map([...pinned, [name, version]]));
      if (found) return found;
    }
    return null;
  };
  const found = solve(new Map());
  if (found) return found;
  const chains = conflict.sides.map(([name, range, by]) => chain(conflict.constraints, name, range, by));
  throw new PrereqError(`${conflict.message}, and no other versions fit: ${chains.join("; ")}`, { hint: conflict.hint });
}

/* `versionsOf(name)`: published versions, ascending; `requiresOf(name, version)`: its requirements. */
export function chooseVersions(requests, { versionsOf, requiresOf, locked = new Map() }) {
  let chosen;
  try {
    chosen = locksThatFit(requests, versionsOf, requiresOf, locked) || plain(requests, versionsOf, requiresOf, locked);
  } catch (error) {
    if (!(error instanceof Conflict)) throw error;
    // Ranges the selection itself asks for: no other version helps.
    if (error.sides.every(([, , by]) => by === SELECTION)) throw new PrereqError(error.message, { hint: error.hint });
    chosen = search(requests, versionsOf, requiresOf, locked, error);
  }
  const required = (name) => (chosen.has(name) ? requiresOf(name, chosen.get(name)) : []);
  const order = postOrder(requests.map((r) => r.name), (name) => required(name).map((r) => r.name));
  const pulledBy = new Map(order.map((name) => [name, []]));
  for (const name of order) new Set(required(name).map((r) => r.name)).forEach((needed) => pulledBy.get(needed).push(name));
  return {
    order, pulledBy,
    versions: new Map(order.map((name) => [name, chosen.get(name)])),
  };
}
