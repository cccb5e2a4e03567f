"""The requires / required-by diagram of an item page, as inline SVG.

Rendered at build time, so the page loads no diagram library.  A simple
layered layout, left to right: the items that require this one, the item, then
its requirements by depth (each node in the column after the deepest item that
needs it), ordered within a column by the mean position of their parents.
Bounded both ways, so that a page stays a page however large the graph: the first
``MAX_DEPENDENTS`` dependents and the ``MAX_REQUIREMENTS`` nearest requirements,
each side's rest in one "+N more" box.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from markupsafe import Markup

from prereq.core.graph import post_order

CHAR_WIDTH = 7.4  # at the diagram's 12.5px font, monospace-ish estimate
NODE_HEIGHT = 30
ROW_GAP = 14
COLUMN_GAP = 56
PADDING = 8
MAX_LABEL = 32
MAX_DEPENDENTS = 12
MAX_REQUIREMENTS = 12
ARC_LIFT = 34


@dataclass
class _Node:
    key: str
    label: str
    href: str | None
    kind: str  # "self" | "requirement" | "dependent" | "more"
    tooltip: str
    column: int = 0
    row: float = 0.0


def _clip(text: str) -> str:
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


def _nearest(name: str, edges: dict[str, list[str]]) -> tuple[dict[str, list[str]], int]:
    """The item's requirements the diagram draws (nearest first, at most ``MAX_REQUIREMENTS``) as edges
    among them, and how many it leaves out."""
    reached, seen = [name], {name}
    for current in reached:  # breadth first: the list grows while it is walked
        for child in edges.get(current, []):
            if child not in seen:
                seen.add(child)
                reached.append(child)
    kept = set(reached[: MAX_REQUIREMENTS + 1])
    return {node: [c for c in edges.get(node, []) if c in kept] for node in kept}, len(reached) - len(kept)


def _nodes(
    name: str,
    version: str,
    edges: dict[str, list[str]],
    versions: dict[str, str],
    required_by: list[str],
    href: Callable[[str], str],
    more_href: str | None = None,
    more_requirements_href: str | None = None,
) -> tuple[dict[str, _Node], list[str], list[tuple[str, str]]]:
    """The boxes (the item, its nearest requirements, the first dependents) in columns, their order and
    the links."""
    nodes: dict[str, _Node] = {name: _Node(name, f"{name} {version}", None, "self", f"{name} {version}")}
    edges, left_out = _nearest(name, edges)
    # Longest distance from the item: every edge then points to a later column.
    depth: dict[str, int] = {name: 0}
    order = list(reversed(post_order([name], lambda node: edges.get(node, []))))
    for current in order:
        for child in edges.get(current, []):
            depth[child] = max(depth.get(child, 0), depth[current] + 1)
    for current in order:
        if current != name:
            label = f"{current} {versions.get(current, '')}".strip()
            nodes[current] = _Node(current, label, href(current), "requirement", label)
    if left_out:
        depth["\0more-requirements"] = max(depth.values()) + 1
        tip = f"{left_out} more items {name} requires"
        nodes["\0more-requirements"] = _Node(
            "\0more-requirements", f"+{left_out} more", more_requirements_href, "more", tip
        )
    shown = required_by[:MAX_DEPENDENTS]
    for dependent in shown:
        nodes["\0" + dependent] = _Node("\0" + dependent, dependent, href(dependent), "dependent", dependent)
    if len(required_by) > len(shown):
        more = len(required_by) - len(shown)
        nodes["\0more"] = _Node("\0more", f"+{more} more", more_href, "more", f"{more} more items require {name}")
    offset = 1 if required_by else 0
    for key, node in nodes.items():  # the dependents' side has no depth
        node.column = depth[key] + offset if key in depth else 0
    links: list[tuple[str, str]] = [("\0" + d, name) for d in shown]
    links += [(parent, child) for parent in order for child in edges.get(parent, [])]
    return nodes, order, links


def _rows(nodes: dict[str, _Node], links: list[tuple[str, str]]) -> dict[int, list[_Node]]:
    """Each column's boxes, ordered by the mean row of their parents (fewer crossings)."""
    columns: dict[int, list[_Node]] = {}
    for node in nodes.values():
        columns.setdefault(node.column, []).append(node)
    parents: dict[str, list[str]] = {}
    for source, target in links:
        parents.setdefault(target, []).append(source)
    for index in sorted(columns):
        column = columns[index]
        if index > 0:
            column.sort(
                key=lambda n: (
                    sum(nodes[p].row for p in parents.get(n.key, [])) / max(len(parents.get(n.key, [])), 1),
                    n.label,
                )
            )
        for row, node in enumerate(column):
            node.row = row
    return columns


@dataclass
class _Geometry:
    columns: dict[int, list[_Node]]
    widths: dict[int, float]
    x_of: dict[int, float]
    lift: float
    width: float
    height: float

    @classmethod
    def of(cls, nodes: dict[str, _Node], columns: dict[int, list[_Node]], links: list[tuple[str, str]]) -> _Geometry:
        widths = {i: max(len(_clip(n.label)) for n in column) * CHAR_WIDTH + 20.0 for i, column in columns.items()}
        tallest = max(len(column) for column in columns.values())
        # Edges that skip columns arc over the nodes between: room for the arcs above.
        spans = [nodes[target].column - nodes[source].column for source, target in links]
        lift = ARC_LIFT if any(span > 1 for span in spans) else 0
        height = tallest * (NODE_HEIGHT + ROW_GAP) - ROW_GAP + 2 * PADDING + lift
        x_of: dict[int, float] = {}
        x = float(PADDING)
        for index in sorted(columns):
            x_of[index] = x
            x += widths[index] + COLUMN_GAP
        return cls(columns, widths, x_of, lift, x - COLUMN_GAP + PADDING, height)

    def box(self, node: _Node) -> tuple[float, float, float]:
        column = self.columns[node.column]
        free = self.height - self.lift - 2 * PADDING - (len(column) * (NODE_HEIGHT + ROW_GAP) - ROW_GAP)
        top = self.lift + PADDING + free / 2
        return self.x_of[node.column], top + node.row * (NODE_HEIGHT + ROW_GAP), self.widths[node.column]


_CURVE = '<path d="M{:.0f} {:.0f}C{:.0f} {:.0f} {:.0f} {:.0f} {:.0f} {:.0f}"/>'


def _edge(nodes: dict[str, _Node], geometry: _Geometry, source: str, target: str) -> Markup:
    sx, sy, sw = geometry.box(nodes[source])
    tx, ty, _ = geometry.box(nodes[target])
    if nodes[target].column - nodes[source].column > 1:
        # Leave from the top, arc over the columns between, arrive on top.
        x1, y1, x2, y2 = sx + sw / 2, sy, tx + 12, ty
        peak = min(y1, y2) - geometry.lift + 4
        return Markup(_CURVE).format(x1, y1, x1, peak, x2, peak, x2, y2 - 1)
    x1, y1, x2, y2 = sx + sw, sy + NODE_HEIGHT / 2, tx, ty + NODE_HEIGHT / 2
    middle = (x1 + x2) / 2
    return Markup(_CURVE).format(x1, y1, middle, y1, middle, y2, x2 - 1, y2)


def _node(node: _Node, geometry: _Geometry) -> Markup:
    """One box: its link (or a bare group), a tooltip only where it says more than the box (a clipped
    name, what "+N more" stands for), its rectangle and its label."""
    nx, ny, nw = geometry.box(node)
    label = _clip(node.label)
    return Markup(
        '{open}{tip}<rect x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h}"/>'
        '<text x="{tx:.0f}" y="{ty:.0f}">{label}</text>{close}'
    ).format(
        open=Markup('<a href="{}">').format(node.href) if node.href else Markup("<g>"),
        close=Markup("</a>" if node.href else "</g>"),
        tip=Markup("<title>{}</title>").format(node.tooltip) if node.tooltip != label else "",
        x=nx,
        y=ny,
        w=nw,
        h=NODE_HEIGHT,
        tx=nx + nw / 2,
        ty=ny + NODE_HEIGHT / 2,
        label=label,
    )


def dependency_svg(
    name: str,
    version: str,
    *,
    edges: dict[str, list[str]],
    versions: dict[str, str],
    required_by: list[str],
    href: Callable[[str], str],
    more_href: str | None = None,
    more_requirements_href: str | None = None,
) -> Markup:
    """``edges``: item name → names it directly requires, for the item and its whole closure;
    ``versions``: name → the version in the closure; ``href(name)``: the link to an item page;
    ``more_href``: where the dependents' "+N more" box leads (every item that requires this one),
    ``more_requirements_href`` where the requirements' one does (all of them)."""
    nodes, _, links = _nodes(name, version, edges, versions, required_by, href, more_href, more_requirements_href)
    geometry = _Geometry.of(nodes, _rows(nodes, links), links)
    # role="group", not "img": the boxes are links, and links inside an image are hidden from screen readers.
    parts = [
        Markup(
            '<svg class="prereq-graph" xmlns="http://www.w3.org/2000/svg" role="group" '
            'viewBox="0 0 {w:.0f} {h:.0f}" width="{w:.0f}" height="{h:.0f}" aria-labelledby="prereq-graph-title">'
            '<title id="prereq-graph-title">{title}</title>'
            '<defs><marker id="prereq-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
            'markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z"/></marker></defs>'
        ).format(w=geometry.width, h=geometry.height, title=f"What {name} requires and what requires it")
    ]
    # The edges and each run of boxes of one kind share a group, which carries the class: the
    # stylesheet (prereq.css) draws arrows, centres the text and rounds the corners.  Bytes on every page.
    parts.append(Markup('<g class="prereq-graph__edges">'))
    parts += [_edge(nodes, geometry, source, target) for source, target in links]
    parts.append(Markup("</g>"))
    for kind, run in itertools.groupby(nodes.values(), key=lambda node: node.kind):
        parts.append(Markup('<g class="prereq-graph__node prereq-graph__node--{}">').format(kind))
        parts += [_node(node, geometry) for node in run]
        parts.append(Markup("</g>"))
    parts.append(Markup("</svg>"))
    return Markup("").join(parts)
