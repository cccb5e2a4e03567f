"""The require graph's components and cycles (``core.graph``, without networkx but for a graph that has
a cycle) against networkx's own answers on random graphs."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from prereq.core.graph import build_graph, components, cycles

NAMES = st.sampled_from([f"n{i}" for i in range(9)])
EDGES = st.dictionaries(NAMES, st.lists(st.one_of(NAMES, st.just("missing")), max_size=4), max_size=9)


def _networkx(edges: dict[str, list[str]]) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(edges)
    graph.add_edges_from((name, other) for name, required in edges.items() for other in required if other in edges)
    return graph


@settings(max_examples=300, deadline=None)
@given(EDGES)
def test_components_are_networkx_s_and_each_comes_after_what_it_reaches(edges: dict[str, list[str]]) -> None:
    found = components(build_graph(edges))
    assert sorted(map(sorted, found)) == sorted(map(sorted, nx.strongly_connected_components(_networkx(edges))))
    seen: set[str] = set()
    for members in found:
        reached = {other for node in members for other in edges[node] if other in edges} - set(members)
        assert reached <= seen, (members, reached)
        seen.update(members)


@settings(max_examples=300, deadline=None)
@given(EDGES)
def test_cycles_are_the_ones_networkx_finds(edges: dict[str, list[str]]) -> None:
    graph = _networkx(edges)
    expected = []
    for component in nx.strongly_connected_components(graph):
        start = min(component)
        if len(component) == 1 and not graph.has_edge(start, start):
            continue
        found = nx.find_cycle(graph.subgraph(component), source=start)
        body = [found[0][0]] + [edge[1] for edge in found][:-1]
        first = body.index(min(body))
        expected.append(body[first:] + body[:first] + [min(body)])
    assert cycles(build_graph(edges)) == sorted(expected)
