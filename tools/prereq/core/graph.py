"""The dependency graph: components and cycles, requirement order, closures and parameter lookup.

The one depth-first walk of prereq (``post_order``): validation, the index, job editing
and the site's diagram all order requirements with it.

May import: the standard library and networkx.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

Node = TypeVar("Node", bound=Hashable)


@dataclass(frozen=True)
class Graph:
    """Edges from each node to the nodes it requires, each once, in the order written."""

    successors: dict[str, list[str]]

    @cached_property
    def components(self) -> list[list[str]]:
        """``components`` of this graph, found once."""
        return components(self)


def build_graph(requires: Mapping[str, Iterable[str]]) -> Graph:
    """Edges from each item to the items it requires (only those that exist)."""
    successors: dict[str, list[str]] = {name: [] for name in requires}
    for name, required in requires.items():
        edges = successors[name]
        for other in required:
            if other in successors and other not in edges:
                edges.append(other)
    return Graph(successors)


def components(graph: Graph) -> list[list[str]]:
    """The strongly connected components (Tarjan's, iterative: a chain of any length fits), each after
    every component it reaches."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in graph.successors:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(graph.successors[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while not component or component[-1] != node:
                        component.append(stack.pop())
                        on_stack.discard(component[-1])
                    found.append(component)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(graph.successors[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def _cyclic(graph: Graph, members: list[str]) -> bool:
    return len(members) > 1 or members[0] in graph.successors[members[0]]


def cycles(graph: Graph) -> list[list[str]]:
    """One cycle per strongly connected component, as a path that ends where it starts (networkx's
    ``find_cycle``, imported only for a graph that has one)."""
    found = []
    for members in graph.components:
        if not _cyclic(graph, members):
            continue
        import networkx as nx

        inside = set(members)
        sub = nx.DiGraph()
        sub.add_nodes_from(node for node in graph.successors if node in inside)  # the order written
        sub.add_edges_from((node, child) for node in sub for child in graph.successors[node] if child in inside)
        edges = nx.find_cycle(sub, source=min(members))
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


def reachable_union(graph: Graph, own: Mapping[str, Iterable[str]]) -> dict[str, frozenset[str]]:
    """For each node, the union of ``own[n]`` over every node ``n`` reachable from its successors
    (the node itself only through a cycle).  Shared work over the graph's strongly connected
    components, so it stays linear in the graph (plus the size of the unions)."""
    component_of: dict[str, int] = {}
    below: list[frozenset[str]] = []  # each component's own values and everything under it
    out: dict[str, frozenset[str]] = {}
    for number, members in enumerate(graph.components):  # what a component reaches comes before it
        component_of.update((node, number) for node in members)
        reached = {component_of[child] for node in members for child in graph.successors[node]} - {number}
        under = below[next(iter(reached))] if len(reached) == 1 else frozenset().union(*(below[c] for c in reached))
        mine = frozenset(value for node in members for value in own.get(node, ()))
        below.append(mine | under if mine - under else under)  # shared, not copied, when it adds nothing
        for node in members:
            out[node] = below[number] if _cyclic(graph, members) else under
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
