"""Causes, not cascades: which problems follow from another one, linked after the checks ran.

An item that is missing (deleted, renamed, never written), whose file could not be read or loaded
(PRQ101-PRQ109), or whose name differs from its file's (PRQ120), breaks every item that requires it:
each of them says PRQ140 at its ``require`` entry, and PRQ151 for every ``<% this.X %>`` the missing
item might have defined, in it and in whatever requires it in turn.  An item whose ``parameters`` is
not a mapping (a schema error, PRQ110) leaves the same PRQ151s below it.  Each such problem gets
``Problem.consequence_of``: the file's own problem when there is one, else the first PRQ140 that
names the missing item, or the one ``named`` gives for it (a review's deletion or rename, PRQ202 and
PRQ203, explains every dependent's PRQ140 and what follows).  Nothing is dropped: a consequence fails
validation as before, and only the reporters choose to show it under its cause.  Linking reads the
problems and the items only, so the file checks' kept problems (``_kept``) keep their shape.

May import: prereq.core, prereq.registry.loader/rules.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from prereq.core.graph import build_graph, reachable_union
from prereq.core.versions import Requirement
from prereq.registry.loader import ITEMS_DIR, LOADER_RULES, SourceItem
from prereq.registry.rules import Problem

# What keeps a file out of the registry's items: its dependents then cannot find it by its name.
_REFUSING = frozenset({*LOADER_RULES, "PRQ120"})
_BROKEN_PARAMETERS = "PRQ110"  # the schema's verdict on a ``parameters`` that is not a mapping


Unmet = tuple[SourceItem, str, Problem | None]  # an item, a name it requires that is missing, its PRQ140


def link_causes(
    problems: list[Problem], items: Mapping[str, SourceItem], *, named: Mapping[str, Problem] | None = None
) -> list[Problem]:
    """``problems`` (sorted, as the checks return them), each consequence linked to its cause; the cause
    of a missing name ``named`` holds is that problem (itself then a cause, linked to nothing)."""
    if not any(p.rule in ("PRQ140", "PRQ151") for p in problems):
        return problems  # nothing can cascade: the common case costs one pass
    by_file: dict[str | None, list[Problem]] = {}
    for p in problems:
        by_file.setdefault(p.file, []).append(p)
    unmet = [
        (item, name, _require_problem(item, index, by_file))
        for item in items.values()
        for index, name in _missing_requires(item, items)
    ]
    causes = _missing_causes(unmet, by_file)
    causes.update({name: cause for name, cause in (named or {}).items() if name in causes})
    causes.update(_parameter_causes(items, by_file))
    links = {found: causes[name] for _, name, found in unmet if found is not None and name in causes}
    links.update(_placeholder_links(items, unmet, causes, by_file))
    return [dataclasses.replace(p, consequence_of=links[p]) if p in links and links[p] != p else p for p in problems]


def _missing_requires(item: SourceItem, items: Mapping[str, SourceItem]) -> Iterable[tuple[int, str]]:
    """The ``require`` entries (their index in the list, as the require check counts) that name no item."""
    require = item.data.get("require")
    for index, text in enumerate(require if isinstance(require, list) else []):
        name = Requirement.parse(text).name if isinstance(text, str) else None
        if name is not None and name not in items:
            yield index, name


def _require_problem(item: SourceItem, index: int, by_file: Mapping[str | None, list[Problem]]) -> Problem | None:
    """The PRQ140 the require check reported at this entry (None when a suppression silenced it)."""
    line, column = item.position(("require", index))
    found = (p for p in by_file.get(item.rel, []) if p.rule == "PRQ140" and (p.line, p.column) == (line, column))
    return next(found, None)


def _missing_causes(unmet: list[Unmet], by_file: Mapping[str | None, list[Problem]]) -> dict[str, Problem]:
    """For each name required but missing, the problem that explains it: its file's refusal, else the
    first PRQ140 (in the report's order) naming it."""
    leads: dict[str, Problem] = {}
    for _, name, found in unmet:
        if found is not None and (name not in leads or found.sort_key() < leads[name].sort_key()):
            leads[name] = found
    for name in leads:
        refused = [p for p in by_file.get(f"{ITEMS_DIR}/{name}.yaml", []) if p.rule in _REFUSING]
        leads[name] = refused[0] if refused else leads[name]
    return leads


def _parameter_causes(
    items: Mapping[str, SourceItem], by_file: Mapping[str | None, list[Problem]]
) -> dict[str, Problem]:
    """For each item whose ``parameters`` is there but not a mapping, its schema problem (keyed by a
    name no item can have, so it never mixes with a missing item's)."""
    causes = {}
    for name, item in items.items():
        if "parameters" in item.data and not isinstance(item.data["parameters"], dict):
            schema = [p for p in by_file.get(item.rel, []) if p.rule == _BROKEN_PARAMETERS]
            if schema:
                causes[f"{name}/parameters"] = schema[0]
    return causes


def _placeholder_links(
    items: Mapping[str, SourceItem],
    unmet: list[Unmet],
    causes: Mapping[str, Problem],
    by_file: Mapping[str | None, list[Problem]],
) -> dict[Problem, Problem]:
    """Every PRQ151 of an item that, itself or through what it requires, misses an item or reads a
    broken ``parameters``: the value it looks for may well be there, so that is its cause."""
    own: dict[str, set[str]] = {name: {f"{name}/parameters"} & set(causes) for name in items}
    for item, missing, _ in unmet:
        if missing in causes:
            own[item.name].add(missing)
    if not any(own.values()):
        return {}
    graph = build_graph({name: [r.name for r in item.requires] for name, item in items.items()})
    below = reachable_union(graph, own)
    links: dict[Problem, Problem] = {}
    for name, item in items.items():
        broken = own[name] | below.get(name, frozenset())
        if broken:
            cause = min((causes[key] for key in broken), key=Problem.sort_key)
            links.update((p, cause) for p in by_file.get(item.rel, []) if p.rule == "PRQ151")
    return links
