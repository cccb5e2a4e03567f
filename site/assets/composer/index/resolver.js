/* Choosing versions (tools/prereq/index/resolver.py): one version per item for a set of requests,
 * the highest meeting every range, a lock kept while it fits, requirements first.
 *
 * Folder index/: reading a published index and choosing versions, as prereq.index.
 * May import: core/.
 */

import { PrereqError } from "../core/errors.js";
import { postOrder } from "../core/graph.js";
import { satisfies } from "../core/versions.js";

const SELECTION = "your selection";

function pick(name, ranges, versions, locked) {
  const fitting = versions.filter((v) => ranges.every(([range]) => satisfies(v, range)));
  if (locked !== null && locked !== undefined && fitting.includes(locked)) return locked;
  if (fitting.length) return fitting[fitting.length - 1];
  for (let i = 0; i < ranges.length; i++) {
    const [first, firstBy] = ranges[i];
    for (const [second, secondBy] of ranges.slice(i + 1)) {
      if (!versions.some((v) => satisfies(v, first) && satisfies(v, second))) {
        throw new PrereqError(
          `no version of ${name} meets both ${firstBy} (${name}@${first || "*"}) and ` +
            `${secondBy} (${name}@${second || "*"})`,
          { hint: `published versions of ${name}: ${versions.join(", ")}; relax one of the ranges` });
      }
    }
  }
  const [range, by] = ranges[0];
  throw new PrereqError(`no published version of ${name} meets ${name}@${range || "*"} (${by})`,
    { hint: `published versions: ${versions.join(", ") || "none"}` });
}

/* {order, versions: Map, requires: Map name -> [requirement]} for `requests` ([{name, range}]).
 * `versionsOf(name)` lists published versions ascending; `requiresOf(name, version)` that version's requirements. */
export function chooseVersions(requests, { versionsOf, requiresOf, locked = new Map() }) {
  let chosen = new Map();
  const required = (name) => (chosen.has(name) ? requiresOf(name, chosen.get(name)) : []);
  const walk = () => postOrder(requests.map((r) => r.name), (name) => required(name).map((r) => r.name));
  for (let round = 0; round < 100; round++) { // each round only raises constraints; real registries settle fast
    const constraints = new Map();
    const constrain = (name, range, by) => {
      if (!constraints.has(name)) constraints.set(name, []);
      constraints.get(name).push([range, by]);
    };
    for (const request of requests) constrain(request.name, request.range, SELECTION);
    for (const name of walk()) {
      for (const requirement of required(name)) constrain(requirement.name, requirement.range, `${name} ${chosen.get(name)}`);
    }
    const picked = new Map();
    for (const [name, ranges] of constraints) picked.set(name, pick(name, ranges, versionsOf(name), locked.get(name)));
    const same = picked.size === chosen.size && [...picked].every(([name, version]) => chosen.get(name) === version);
    if (same) break;
    chosen = picked;
  }
  const order = walk();
  return {
    order,
    versions: new Map(order.map((name) => [name, chosen.get(name)])),
    requires: new Map(order.map((name) => [name, required(name)])),
  };
}

/* The items of the choice that require `name`, in order. */
export function pulledBy(choice, name) {
  return choice.order.filter((other) => (choice.requires.get(other) || []).some((r) => r.name === name));
}
