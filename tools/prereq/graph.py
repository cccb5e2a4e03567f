"""The dependency graph: cycles, requirement order and parameter lookup (networkx)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar

import networkx as nx

Node = TypeVar("Node", bound=Hashable)


def build_graph(requires: Mapping[str, Iterable[str]]) -> nx.DiGraph:
    """Edges from each item to the items it requires (only those that exist)."""
    graph = nx.DiGraph()
    graph.add_nodes_from(requires)
    for name, required in requires.items():
        for other in required:
            if other in requires:
                graph.add_edge(name, other)
    return graph


def cycles(graph: nx.DiGraph) -> list[list[str]]:
    """One cycle per strongly connected component, as a path that ends where it starts."""
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
    the items that need them, in the order each ``require`` list is written."""
    order: list[Node] = []
    seen: set[Node] = set()
    active: set[Node] = set()

    def visit(node: Node) -> None:
        if node in seen or node in active:
            return
        active.add(node)
        for child in requires_of(node):
            visit(child)
        active.discard(node)
        seen.add(node)
        order.append(node)

    for root in roots:
        visit(root)
    return order


def lookup_parameter(start: str, key: str, parameters: Mapping[str, Mapping[str, Any]],
                     requires_of: Callable[[str], Iterable[str]]) -> tuple[str, Any] | list[str] | None:
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
