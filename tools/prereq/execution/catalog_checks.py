"""Names, references, library chains and credentials (PRQ303-PRQ306, PRQ317, PRQ318): names that
people can tell apart, what each catalog file names exists, what a library's dependencies leave of its
languages and environments, and no credential in what the index publishes of the catalog.

Each check is a function of the ``CatalogContext`` yielding problems, listed in ``CHECKS`` with the
rule ids it may emit (``catalog_validation`` refuses any other, as the registry's checks do)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from prereq.core.graph import build_graph, cycles
from prereq.core.versions import Requirement, fold_name, is_range, is_version, satisfies
from prereq.execution.catalog_records import Catalog, Library, Ref, Source
from prereq.execution.rules import at, problem
from prereq.registry import secretscan
from prereq.registry.loader import OWNERS_FILE, Owners, SourceItem
from prereq.registry.rules import Problem


@dataclass
class CatalogContext:
    """What the checks look at: the catalog, and the registry around it (owners, items)."""

    catalog: Catalog
    owners: Owners
    items: dict[str, SourceItem]

    @cached_property
    def groups(self) -> dict[str, frozenset[str]]:
        """Every group by name and its users: owners.yaml's teams, then rights.yaml's groups ('*': all)."""
        found = {team: frozenset(members) for team, members in self.owners.teams.items()}
        for name, members in self.catalog.groups.items():
            found.setdefault(name, frozenset(self.owners.users if members is None else members))
        return found

    @cached_property
    def library_graph(self) -> Any:
        libraries = self.catalog.libraries
        return build_graph({str(ref): [str(d) for d in lib.depends] for ref, lib in libraries.items()})

    @cached_property
    def cyclic(self) -> frozenset[Ref]:
        return frozenset(Ref.parse(node) for cycle in cycles(self.library_graph) for node in cycle)


def check_names(ctx: CatalogContext) -> Iterator[Problem]:
    """Names of one kind that differ only in case or '-'/'_' (folded as item names are, PRQ121), at the
    name of each file of the later name in sorted order."""
    catalog = ctx.catalog
    kinds: dict[str, list[tuple[str, Source]]] = {
        "environment": [(ref.name, environment.source) for ref, environment in catalog.environments.items()],
        "library": [(ref.name, library.source) for ref, library in catalog.libraries.items()],
        "queue": [(name, queue.source) for name, queue in catalog.queues.items()],
    }
    for what, named in kinds.items():
        first: dict[str, str] = {}  # folded name: the first name folding to it
        files: dict[str, str] = {}  # name: its first file
        for name, source in sorted(named, key=lambda pair: (pair[0], pair[1].rel)):
            other = first.setdefault(fold_name(name), name)
            files.setdefault(name, source.rel)
            if other != name:
                yield at(source, ("name",), "PRQ317", what=what, name=name, other=other, other_file=files[other])


def _missing(catalog: Catalog, kind: str, ref: Ref | str) -> bool:
    """Whether ``ref`` is absent, and not because its own file is broken (that is reported there)."""
    present = {
        "environment": ref in catalog.environments,
        "library": ref in catalog.libraries,
        "queue": ref in catalog.queues,
    }[kind]
    return not present and f"{kind} {ref}" not in catalog.broken


def _ref_fix(kind: str, ref: Ref, known: list[Ref]) -> str:
    versions = sorted(r.version for r in known if r.name == ref.name)
    if versions:
        return f"name a version that exists: {', '.join(f'{ref.name}@{v}' for v in versions)}"
    folder = "environments" if kind == "environment" else "libraries"
    return f"add {folder}/{ref.name}/{ref.version}.yaml, or fix the name"


def check_references(ctx: CatalogContext) -> Iterator[Problem]:
    catalog = ctx.catalog
    for queue in catalog.queues.values():
        for index, ref in enumerate(queue.environments):
            if _missing(catalog, "environment", ref):
                fix = _ref_fix("environment", ref, list(catalog.environments))
                yield at(
                    queue.source,
                    ("environments", index),
                    "PRQ303",
                    what="environment",
                    name=str(ref),
                    where="in the catalog",
                    fix=fix,
                )
    for library in catalog.libraries.values():
        for key, kind, known in (
            ("environments", "environment", catalog.environments),
            ("depends", "library", catalog.libraries),
        ):
            for index, ref in enumerate(getattr(library, key)):
                if _missing(catalog, kind, ref):
                    fix = _ref_fix(kind, ref, list(known))
                    yield at(
                        library.source,
                        (key, index),
                        "PRQ303",
                        what=kind,
                        name=str(ref),
                        where="in the catalog",
                        fix=fix,
                    )
        if library.install_item is not None:
            yield from _item_reference(ctx, library.source, ("install", "prerequisite"), library.install_item, None)
    for environment in catalog.environments.values():
        if environment.image_item is not None:
            yield from _item_reference(
                ctx, environment.source, ("image", "item"), environment.image_item, "dockerimage"
            )
    yield from _rights_references(ctx)
    yield from _owner_references(ctx)


def _item_reference(
    ctx: CatalogContext, source: Source, path: tuple[Any, ...], text: str, kind: str | None
) -> Iterator[Problem]:
    """A prerequisite item a catalog file names (of ``kind`` when given), at a version meeting its range."""
    requirement = Requirement.parse(text)
    item = ctx.items.get(requirement.name)
    what = f"{kind} item" if kind else "prerequisite"
    if item is None:
        fix = "add the item to registry/prerequisites/, or fix the name"
        yield at(source, path, "PRQ303", what=what, name=requirement.name, where="in the registry", fix=fix)
        return
    if kind is not None and item.data.get("type") != kind:
        fix = f"name an item of type {kind}: an environment runs in a docker image"
        where = f"of type {kind}: it is a {item.data.get('type')} item"
        yield at(source, path, "PRQ303", what="item", name=requirement.name, where=where, fix=fix)
        return
    version, spec = item.data.get("version"), requirement.range
    if spec and (
        not is_range(spec) or (isinstance(version, str) and is_version(version) and not satisfies(version, spec))
    ):
        fix = f"widen the range: the registry has {requirement.name} {version}"
        yield at(
            source, path, "PRQ303", what=what, name=text, where="in the registry at a version in that range", fix=fix
        )


def _rights_references(ctx: CatalogContext) -> Iterator[Problem]:
    catalog, source = ctx.catalog, ctx.catalog.rights_source
    if source is None:
        return
    for row in catalog.rights:
        if _missing(catalog, "queue", row.queue):
            fix = f"add queues/{row.queue}.yaml, or name one of: {', '.join(sorted(catalog.queues)) or 'no queue yet'}"
            yield at(
                source,
                ("rights", row.index, "queue"),
                "PRQ303",
                what="queue",
                name=row.queue,
                where="in the catalog",
                fix=fix,
            )
        if row.group not in ctx.groups:
            fix = "name a team of owners.yaml, or define the group under groups: in rights.yaml"
            where = "a team of owners.yaml nor a group of rights.yaml"
            yield at(
                source, ("rights", row.index, "group"), "PRQ303", what="group", name=row.group, where=where, fix=fix
            )
    for name, members in catalog.groups.items():
        for index, user in enumerate(members or ()):
            if user not in ctx.owners.users:
                fix = f"add {user} to users in owners.yaml, or fix the name"
                yield at(
                    source, ("groups", name, index), "PRQ303", what="user", name=user, where="in owners.yaml", fix=fix
                )


def _owner_references(ctx: CatalogContext) -> Iterator[Problem]:
    if not ctx.owners.loaded:
        return  # a broken owners.yaml is reported once, as PRQ161
    records: list[Any] = [
        *ctx.catalog.environments.values(),
        *ctx.catalog.queues.values(),
        *ctx.catalog.libraries.values(),
    ]
    for record in records:
        for index, owner in enumerate(record.owners):
            if not ctx.owners.known(owner):
                fix = f"add {owner} to owners.yaml, or name one of its users or teams"
                yield at(
                    record.source,
                    ("owners", index),
                    "PRQ303",
                    what="owner",
                    name=owner,
                    where="in owners.yaml",
                    fix=fix,
                )


def check_library_cycles(ctx: CatalogContext) -> Iterator[Problem]:
    """Each cycle once and whole, at the dependency of its first library that leads on around it."""
    for cycle in cycles(ctx.library_graph):
        first = ctx.catalog.libraries[Ref.parse(cycle[0])]
        index = [str(d) for d in first.depends].index(cycle[1])
        edge = f"{cycle[0]} -> {cycle[1]}"
        yield at(first.source, ("depends", index), "PRQ304", cycle=" -> ".join(cycle), edge=edge)


def check_languages(ctx: CatalogContext) -> Iterator[Problem]:
    catalog = ctx.catalog
    for library in catalog.libraries.values():
        for index, ref in enumerate(library.depends):
            other = catalog.libraries.get(ref)
            if other is not None and other.language != library.language:
                fix = f"depend on a {library.language} library, or give {library.ref} the language of what it uses"
                details: dict[str, Any] = {
                    "library": str(library.ref),
                    "language": library.language,
                    "target": f"its dependency {ref}",
                }
                yield at(library.source, ("depends", index), "PRQ305", **details, other=other.language, fix=fix)
        for index, ref in enumerate(library.environments):
            environment = catalog.environments.get(ref)
            if environment is not None and library.language not in environment.languages:
                fix = f"list an environment that has {library.language}"
                details = {
                    "library": str(library.ref),
                    "language": library.language,
                    "target": f"its environment {ref}",
                }
                shown = " and ".join(environment.languages)
                yield at(library.source, ("environments", index), "PRQ305", **details, other=f"for {shown}", fix=fix)


@dataclass(frozen=True)
class Narrowed:
    """What a library's dependencies leave of its environments; when nothing, the chain from the
    library to the dependency that removed the last one, and what was left just before it."""

    environments: frozenset[Ref]
    chain: tuple[Ref, ...] = ()
    before: frozenset[Ref] = frozenset()


def effective_environments(library: Library, libraries: dict[Ref, Library]) -> Narrowed:
    """The environments ``library`` works in: its own list, intersected along every dependency, direct
    or not, depth first in written order.  Missing dependencies are skipped (PRQ303)."""
    left = frozenset(library.environments)
    seen = {library.ref}
    stack: list[tuple[Ref, ...]] = [(library.ref, ref) for ref in reversed(library.depends)]
    while stack:
        chain = stack.pop()
        ref = chain[-1]
        if ref in seen or ref not in libraries:
            continue
        seen.add(ref)
        dependency = libraries[ref]
        narrowed = left & frozenset(dependency.environments)
        if not narrowed:
            return Narrowed(frozenset(), chain, left)
        left = narrowed
        stack.extend((*chain, d) for d in reversed(dependency.depends))
    return Narrowed(left)


def check_environments_left(ctx: CatalogContext) -> Iterator[Problem]:
    """PRQ306 where the chain empties, not again on every library above it."""
    libraries = ctx.catalog.libraries
    narrowed = {ref: effective_environments(lib, libraries) for ref, lib in libraries.items() if ref not in ctx.cyclic}
    empty = {ref for ref, found in narrowed.items() if not found.environments}
    for ref in sorted(empty):
        library, chain = libraries[ref], narrowed[ref].chain
        if any(d in empty for d in library.depends):
            continue  # that dependency's own problem
        culprit = chain[-1]
        remaining = ", ".join(sorted(str(r) for r in narrowed[ref].before))
        fix = f"list an environment that {culprit} works in too, or depend on another version of {culprit.name}"
        details: dict[str, Any] = {
            "library": str(ref),
            "culprit": str(culprit),
            "chain": " -> ".join(str(r) for r in chain),
        }
        at_path = ("depends", library.depends.index(chain[1]))
        yield at(library.source, at_path, "PRQ306", **details, remaining=remaining, fix=fix)


def check_secrets(ctx: CatalogContext) -> Iterator[Problem]:
    """Every string and key of every catalog file (rights.yaml's too) and of owners.yaml (whose users and
    teams the catalog publishes as groups), scanned as items' are (PRQ190): the index publishes the
    catalog, and the history keeps every version."""
    catalog = ctx.catalog
    sources = [environment.source for environment in catalog.environments.values()]
    sources += [library.source for library in catalog.libraries.values()]
    sources += [queue.source for queue in catalog.queues.values()]
    sources += [catalog.rights_source] if catalog.rights_source else []
    sources += [Source(OWNERS_FILE, ctx.owners.source)] if ctx.owners.source else []
    for source in sorted(sources, key=lambda source: source.rel):
        for found in secretscan.locate(source.yaml):
            literal = [leak for leak in found.leaks if leak.literal]
            if literal:
                where = "a key" if found.on == "key" else ".".join(str(part) for part in found.path) or "the file"
                kinds = secretscan.kinds(literal)
                yield problem("PRQ318", file=source.rel, line=found.line, column=found.column, where=where, kinds=kinds)


CHECKS: tuple[tuple[Callable[[CatalogContext], Iterator[Problem]], tuple[str, ...]], ...] = (
    (check_names, ("PRQ317",)),
    (check_secrets, ("PRQ318",)),
    (check_references, ("PRQ303",)),
    (check_library_cycles, ("PRQ304",)),
    (check_languages, ("PRQ305",)),
    (check_environments_left, ("PRQ306",)),
)
