/* The one depth-first walk (tools/prereq/core/graph.py): requirements before what needs them.
 * May import: vendor/.
 */

/* Iterative, so that a long chain does not exhaust the stack; an edge back to a node in progress is skipped. */
export function postOrder(roots, requiresOf) {
  const order = [];
  const seen = new Set();
  for (const root of roots) {
    if (seen.has(root)) continue;
    seen.add(root);
    const stack = [[root, requiresOf(root)[Symbol.iterator]()]];
    while (stack.length) {
      const [node, children] = stack[stack.length - 1];
      const next = children.next();
      if (next.done) {
        stack.pop();
        order.push(node);
      } else if (!seen.has(next.value)) {
        seen.add(next.value);
        stack.push([next.value, requiresOf(next.value)[Symbol.iterator]()]);
      }
    }
  }
  return order;
}
