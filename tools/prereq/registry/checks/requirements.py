"""The require graph: references, ranges, replacements, cycles and conflicts (PRQ14x).

A range the required item's version falls outside is PRQ142 only when no version it published (its
history's included, ``published_ranges``) meets it: else the dependent keeps resolving an older one.

May import: prereq.core, prereq.openpai.runtime (the plugin prefix), prereq.registry."""

from __future__ import annotations

from collections.abc import Iterator

from prereq.core.graph import cycles
from prereq.core.versions import Requirement, fold_name, is_range, sort_versions
from prereq.openpai.runtime import PLUGIN_PREFIX
from prereq.registry.checks.context import Context, at, item_check, registry_check
from prereq.registry.checks.published_ranges import PublishedVersions, stays_on, unmet_ranges
from prereq.registry.loader import LoadedRegistry, SourceItem
from prereq.registry.rules import Problem


@item_check("PRQ140", "PRQ141", "PRQ144")
def check_require(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    require = item.data.get("require")
    for index, text in enumerate(require if isinstance(require, list) else []):
        if not isinstance(text, str):
            continue
        path = ("require", index)
        requirement = Requirement.parse(text)
        name, spec = requirement.name, requirement.range
        if spec and not is_range(spec):
            yield at(item, path, "PRQ141", requirement=text)
            continue
        target = ctx.items.get(name)
        if target is None:
            folded = fold_name(name)
            near = [other for other in ctx.items if fold_name(other) == folded]
            fix = f"did you mean {near[0]!r}?" if near else "add the item to the registry, or fix the name"
            yield at(item, path, "PRQ140", name=name, fix=fix)
            continue
        deprecated = target.data.get("deprecated")
        if isinstance(deprecated, dict) and not item.data.get("deprecated"):
            replacement = deprecated.get("replacement")
            yield at(
                item,
                path,
                "PRQ144",
                name=name,
                replacement=f" (replaced by {replacement!r})" if replacement else "",
                fix=f"require {replacement} instead"
                if replacement
                else f"see why: {deprecated.get('reason', 'no reason given')}",
            )


@item_check("PRQ145")
def check_replacement(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    deprecated = item.data.get("deprecated")
    if isinstance(deprecated, dict):
        replacement = deprecated.get("replacement")
        if isinstance(replacement, str) and replacement not in ctx.items:
            yield at(item, ("deprecated", "replacement"), "PRQ145", name=replacement)


@item_check("PRQ146", "PRQ147")
def check_conflicts(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    conflicts = item.data.get("conflicts")
    if not isinstance(conflicts, list) or not conflicts:
        return  # most items declare none: walking every closure would make validation quadratic
    required: set[str] = set()
    queue = list(ctx.requires_of(item.name))  # a copy: the context keeps the list
    while queue:  # everything it requires, transitively (a cycle is PRQ143's)
        name = queue.pop()
        if name not in required:
            required.add(name)
            queue += ctx.requires_of(name)
    for index, name in enumerate(conflicts):
        if not isinstance(name, str) or name.startswith(PLUGIN_PREFIX):
            continue
        if name == item.name or name in required:
            why = "is this item" if name == item.name else "it requires"
            yield at(item, ("conflicts", index), "PRQ147", name=name, why=why)
        elif name not in ctx.items:
            near = [other for other in ctx.items if fold_name(other) == fold_name(name)]
            fix = f"did you mean {near[0]!r}?" if near else "fix the name, or write a plugin in full"
            yield at(item, ("conflicts", index), "PRQ146", name=name, fix=fix)


@registry_check("PRQ142")
def check_ranges(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    """Each range no published version of its item meets (the history is read only when one is unmet)."""
    published = PublishedVersions(registry.root, cache=ctx.cache)
    for unmet in unmet_ranges(registry.items, ctx.items):
        if stays_on(unmet, published) is None:
            known = ", ".join(sort_versions([*{*published.of(unmet.name), unmet.version}]))
            yield at(
                unmet.item,
                ("require", unmet.index),
                "PRQ142",
                name=unmet.name,
                range=unmet.range,
                version=unmet.version,
                published=known,
            )


@registry_check("PRQ143")
def check_cycles(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    """Each cycle once, named whole, at the ``require`` entry of its first item that leads on around it
    (an item requiring itself included)."""
    for cycle in cycles(ctx.graph):
        first, following = ctx.items[cycle[0]], cycle[1]
        require = first.data["require"]  # the graph's edges come from it
        index = next(
            index
            for index, text in enumerate(require)
            if isinstance(text, str) and Requirement.parse(text).name == following
        )
        edge = f"{cycle[0]} -> {following}"
        yield at(first, ("require", index), "PRQ143", cycle=" -> ".join(cycle), edge=edge)


CHECKS = (
    check_require,
    check_replacement,
    check_conflicts,
    check_ranges,
    check_cycles,
)
