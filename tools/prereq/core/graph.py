"""The dependency graph: cycles (networkx), requirement order, closures and parameter lookup.

The one depth-first walk of prereq (``post_order``): validation, the index, job editing
and the site's diagram all order requirements with it.

May import: the standard library and networkx.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # networkx costs a tenth of a second to import: only validation needs it
    import networkx as nx

    Graph = nx.DiGraph  # the require graph's type, for modules that hold one without using networkx

Node = TypeVar("Node", bound=Hashable)


def build_graph(requires: Mapping[str, Iterable[str]]) -> nx.DiGraph:
    """Edges from each item to the items it requires (only those that exist)."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(requires)
    for name, required in requires.items():
        for other in required:
            if other in requires:
                graph.add_edge(name, other)
    return graph


def cycles(graph: nx.DiGraph) -> list[list[str]]:
    """One cycle per strongly connected component, as a path that ends where it starts."""
    import networkx as nx

    found = []
    for component in nx.strongly_connected_components(graph):
        start = min(component)
        if len(component) == 1 and not graph.has_edge(start, start):
            continue
        sub = graph.subgraph(component)
        edges = nx.find_cycle(sub, source=start)
        path = [edges[0][0]] + [edge[1] for edge in edges]
        # Rotate so the report is stable: start at the smallest name.
        body = path[:-1]
        first = body.index(min(body))
        body = body[first:] + body[:first]
        found.append(body + [body[0]])
    return sorted(found)


def post_order(roots: Iterable[Node], requires_of: Callable[[Node], Iterable[Node]]) -> list[Node]:
    """Depth-first post-order from ``roots``, each node once: requirements before
    the items that need them, in the order each ``require`` list is written.

    Iterative, so a chain of any length does not exhaust Python's stack; an edge back
    to a node still being visited (a cycle) is skipped."""
    order: list[Node] = []
    seen: set[Node] = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack: list[tuple[Node, Iterator[Node]]] = [(root, iter(requires_of(root)))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                order.append(node)
            elif child not in seen:
                seen.add(child)
                stack.append((child, iter(requires_of(child))))
    return order


def transitive_requirements(requires: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    """Each node's requirements, direct and indirect (never the node itself)."""
    return {name: set(post_order(requires[name], lambda n: requires.get(n, ()))) - {name} for name in requires}


def reachable_union(graph: nx.DiGraph, own: Mapping[str, Iterable[str]]) -> dict[str, frozenset[str]]:
    """For each node, the union of ``own[n]`` over every node ``n`` reachable from its successors
    (the node itself only through a cycle).  Shared work over the graph's strongly connected
    components, so it stays linear in the graph (plus the size of the unions)."""
    import networkx as nx

    condensed = nx.condensation(graph)
    members: dict[int, list[str]] = {c: data["members"] for c, data in condensed.nodes(data=True)}
    below: dict[int, frozenset[str]] = {}  # each component's own values and everything under it
    out: dict[str, frozenset[str]] = {}
    for component in reversed(list(nx.topological_sort(condensed))):
        under = frozenset().union(*(below[c] for c in condensed.successors(component)))
        mine = frozenset(value for node in members[component] for value in own.get(node, ()))
        below[component] = mine | under
        cyclic = len(members[component]) > 1 or any(graph.has_edge(n, n) for n in members[component])
        for node in members[component]:
            out[node] = (mine | under) if cyclic else under
    return out


def lookup_parameter(
    start: str, key: str, parameters: Mapping[str, Mapping[str, Any]], requires_of: Callable[[str], Iterable[str]]
) -> tuple[str, Any] | list[str] | None:
    """Find ``key`` in ``start``'s parameters, else in the items it requires, nearest first.

    Returns (provider, value); a list of the providers when two at the same
    distance disagree; None when no item defines it.
    """
    layer, seen = [start], {start}
    while layer:
        hits = [(name, parameters[name][key]) for name in layer if key in parameters.get(name, {})]
        if hits:
            values = {repr(value) for _, value in hits}
            return hits[0] if len(values) == 1 else [name for name, _ in hits]
        following: list[str] = []
        for name in layer:
            for child in requires_of(name):
                if child not in seen:
                    seen.add(child)
                    following.append(child)
        layer = following
    return None
