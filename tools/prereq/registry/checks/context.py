"""What every check may look at (``Context``), and how a check declares the rule ids it emits.

A check is a small function decorated with ``item_check(*ids)`` (run once per item),
``file_check(*ids)`` (once per item, and per job template with ``templates=True``, looking at
nothing but that file: its problems are kept across runs by the file's content and path) or
``registry_check(*ids)`` (once per registry); ``run_checks`` refuses a problem whose id
its check did not declare, and a test holds every rule of the table to exactly the
checks (or the loader) that declare it.  The checks across items ``run_checks`` keeps by
``Context.closure_key`` read only an item and what it requires, directly or not; those that run once
per registry skip the files ``Context.kept`` names (``Context.fresh``).

May import: prereq.core, prereq.openpai, prereq.registry.loader/rules/schemas.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, TypeVar

from prereq.core import placeholders
from prereq.core.files import NO_CACHE, Cache, shaped
from prereq.core.graph import Graph, build_graph, lookup_parameter, reachable_union
from prereq.openpai import forms, runtime, shelllint, shellvars
from prereq.registry import schemas
from prereq.registry.loader import LoadedRegistry, Owners, SourceItem
from prereq.registry.rules import RULES, Problem

Entry = tuple[tuple[Any, ...], str]  # a command and where it is in its file
T = TypeVar("T")


def names(kept: Any) -> list[str]:
    """A list of names, as ``Context.remembered`` keeps it (TypeError for anything else)."""
    if not shaped(kept, [str]):
        raise TypeError("not a list of names")
    return kept


@dataclass
class Context:
    """What every check may look at: the items by name and their graph."""

    items: dict[str, SourceItem]
    owners: Owners
    graph: Graph
    cache: Cache = NO_CACHE  # what earlier runs read of files and scripts
    facts: dict[str, dict[str, bool]] = field(default_factory=dict)  # by file, as an earlier run found them
    kept: frozenset[str] = frozenset()  # files whose checks across items an earlier run's results stand for
    rechecked: frozenset[str] | None = None  # the names of the other files (None: every item's)
    unsure: set[str] = field(default_factory=set)  # files a tool could not read this run: nothing kept of them
    _schema_issues: dict[str, list[schemas.SchemaIssue]] = field(default_factory=dict)
    _forms: dict[str, dict[str, Any] | forms.PlaceholderError] = field(default_factory=dict)
    _blocks: dict[str, dict[str, list[Entry]]] = field(default_factory=dict)
    _shell_blocks: dict[str, dict[str, list[Entry]] | None] = field(default_factory=dict)
    _requires: dict[str, list[str]] = field(default_factory=dict)
    _exports: dict[str, list[str]] = field(default_factory=dict)
    _lint_scripts: dict[tuple[str, ...], shelllint.Script] = field(default_factory=dict)

    def fresh(self, item: SourceItem) -> bool:
        """The checks across items look at this file this run (its results were not kept)."""
        return item.rel not in self.kept

    def closure_key(self, item: SourceItem) -> str | None:
        """A digest of the file and of every file its item requires, directly or not, as this registry
        resolves their names (an item added under a required name, or another file claiming it, changes
        it): what a check across items reads of the registry.  None for a file without a digest."""
        below = self._node_keys.get(item.name, "")
        if not (item.digest and below):
            return None
        return hashlib.sha256(f"{item.rel}\0{item.digest}\0{below}".encode("utf-8", "surrogatepass")).hexdigest()

    @cached_property
    def _node_keys(self) -> dict[str, str]:
        """Each item's digest of itself and everything below it, a component at a time after those it
        reaches (linear: per item, walking every closure is quadratic in the length of require chains);
        "" where a file has no digest, and above it."""
        keys: dict[str, str] = {}
        for members in self.graph.components:
            inside = set(members)
            below = {keys[child] for name in members for child in self.graph.successors[name] if child not in inside}
            gaps = "" in below or any(not self.items[name].digest for name in members)
            files = sorted(f"{name}\0{self.items[name].rel}\0{self.items[name].digest}" for name in members)
            text = "\0".join([*files, "", *sorted(below)]).encode("utf-8", "surrogatepass")
            keys.update(dict.fromkeys(members, "" if gaps else hashlib.sha256(text).hexdigest()))
        return keys

    @cached_property
    def _needed(self) -> list[str]:
        """The items the checks across items read this run: those they check, and all they require."""
        if self.rechecked is None:
            return list(self.graph.successors)
        seen, todo = set(), [name for name in self.rechecked if name in self.items]
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo += self.graph.successors[name]
        return [name for name in self.graph.successors if name in seen]  # in the graph's order

    def reached(self, own: Callable[[str], Iterable[str]]) -> dict[str, frozenset[str]]:
        """``reachable_union`` of ``own`` (asked once per item) over the items this run reads across items
        (a warm run's few, a cold run's every one)."""
        needed = self._needed
        graph = Graph({name: self.graph.successors[name] for name in needed})  # closed under requiring
        return reachable_union(graph, {name: own(name) for name in needed})

    def requires_of(self, name: str) -> list[str]:
        """What the item ``name`` requires that the registry has (its ranges parsed once)."""
        if name not in self._requires:
            item = self.items.get(name)
            self._requires[name] = [r.name for r in item.requires if r.name in self.items] if item else []
        return self._requires[name]

    def schema_issues(self, item: SourceItem) -> list[schemas.SchemaIssue]:
        """The item's schema issues, computed once (several checks need to know)."""
        if item.rel not in self._schema_issues:
            self._schema_issues[item.rel] = schemas.check_item(item.data, written=item.written)
        return self._schema_issues[item.rel]

    def valid(self, item: SourceItem) -> bool:
        """The item passes its schema (known from an earlier run when its file is unchanged)."""
        known = self.facts.get(item.rel, {}).get("valid")
        return known if known is not None else not self.schema_issues(item)

    def templated(self, item: SourceItem) -> bool:
        """A string of the item holds ``<%`` (without one, nothing renders and no template check has
        anything to say), known from an earlier run when its file is unchanged."""
        known = self.facts.get(item.rel, {}).get("templated")
        if known is None:
            known = any(placeholders.OPEN in value for _, value in placeholders.strings(item.data))
            self.facts.setdefault(item.rel, {})["templated"] = known
        return known

    def form(self, item: SourceItem) -> dict[str, Any] | forms.PlaceholderError:
        """The OpenPAI form of a valid item, its templates rendered from this registry (computed once),
        or why its ``<% this.* %>`` cannot be rendered.  Keyed by file: two files may claim one name."""
        if item.rel not in self._forms:

            def lookup(key: str) -> Any:
                found = lookup_parameter(item.name, key, self.parameters, self.requires_of)
                return found[1] if isinstance(found, tuple) else None

            try:
                self._forms[item.rel] = forms.compile_item(item.data, lookup=lookup)
            except forms.PlaceholderError as exc:
                self._forms[item.rel] = exc
        return self._forms[item.rel]

    def blocks(self, item: SourceItem) -> dict[str, list[Entry]]:
        """The item's commands per event (``forms.command_blocks``), once per file."""
        if item.rel not in self._blocks:
            self._blocks[item.rel] = forms.command_blocks(item.data)
        return self._blocks[item.rel]

    def shell_blocks(self, item: SourceItem) -> dict[str, list[Entry]] | None:
        """The item's commands per event as the shell will see them, ``<% this.KEY %>`` filled in one level
        deep (``for s in <% this.splits %>`` is a loop over several words), once per file; None for what
        the shell checks do not read: an invalid or not cmd item, or a template left open (PRQ153's)."""
        if item.rel not in self._shell_blocks:
            blocks = self.blocks(item)
            readable = item.data.get("plugin", runtime.DEFAULT_PLUGIN) == runtime.DEFAULT_PLUGIN and self.valid(item)
            if readable and not self.templated(item):
                self._shell_blocks[item.rel] = blocks
            elif readable and not any(placeholders.unclosed(c) for entries in blocks.values() for _, c in entries):

                def lookup(key: str) -> str | None:
                    found = lookup_parameter(item.name, key, self.parameters, self.requires_of)
                    return str(found[1]) if isinstance(found, tuple) else None

                self._shell_blocks[item.rel] = {
                    event: [(path, placeholders.render(command, "this", lookup)) for path, command in entries]
                    for event, entries in blocks.items()
                }
            else:
                self._shell_blocks[item.rel] = None
        return self._shell_blocks[item.rel]

    def lint_script(self, entries: list[Entry]) -> shelllint.Script:
        """``shelllint.lint_script`` of these commands, made once per run (several checks read it)."""
        commands = tuple(command for _, command in entries)
        if commands not in self._lint_scripts:
            self._lint_scripts[commands] = shelllint.lint_script(commands)
        return self._lint_scripts[commands]

    def remembered(self, kind: str, key: Any, compute: Callable[[], Any], read: Callable[[Any], T]) -> T:
        """``read(compute())``: ``compute`` is a pure function of ``key`` (JSON: the texts it reads) that
        returns JSON, kept across runs; ``read`` turns it into what the check uses, and raises on what
        prereq did not write (a damaged cache: computed again)."""
        if self.cache.folder is None:
            return read(compute())
        shelf = self.cache.shelf(kind)
        text = key if isinstance(key, str) else json.dumps(key)  # a text is its own key; JSON keeps lists apart
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        kept = shelf.get(digest)
        if kept is not None:
            try:
                return read(kept)
            except (TypeError, ValueError):
                pass
        kept = compute()
        shelf.put(digest, kept)
        return read(kept)

    def exports_of(self, name: str) -> list[str]:
        """The variables the start commands of the item ``name`` export (none: not an item)."""
        if name not in self._exports:
            item = self.items.get(name)
            texts = [command for _, command in self.blocks(item)[runtime.START]] if item else []
            found = partial(shellvars.exported_variables, texts)
            self._exports[name] = self.remembered("shell-exports", texts, found, names) if texts else []
        return self._exports[name]

    @cached_property
    def exports(self) -> dict[str, list[str]]:
        """The variables each item's start commands export."""
        return {name: self.exports_of(name) for name in self.items}

    @cached_property
    def exported_below(self) -> dict[str, frozenset[str]]:
        """The variables exported by everything each item read across items requires, directly or not
        (computed once for the graph: per item, this walk made validation quadratic in chain lengths)."""
        return self.reached(self.exports_of)

    @cached_property
    def parameters(self) -> dict[str, dict[str, Any]]:
        """Each item's parameters (computed once: every template check reads them)."""
        return {
            name: item.data.get("parameters") or {}
            for name, item in self.items.items()
            if isinstance(item.data.get("parameters"), dict)
        }


# at(item, path, rule_id, on_key=..., **details): a problem at ``path`` in the item's file; every layer's
# table has the one helper (``RuleTable.at``), so the review's and the catalog's checks point alike.
at = RULES.at


@dataclass(frozen=True)
class Check:
    """A check function with the rule ids it may emit and what it runs on (``item`` or ``registry``)."""

    run: Callable[..., Iterator[Problem]]
    ids: tuple[str, ...]
    scope: str
    templates: bool = False  # a file check that also runs on every job template

    @property
    def name(self) -> str:
        return self.run.__name__


def item_check(*ids: str) -> Callable[[Callable[[SourceItem, Context], Iterator[Problem]]], Check]:
    return lambda run: Check(run, ids, "item")


def file_check(
    *ids: str, templates: bool = False
) -> Callable[[Callable[[SourceItem, Context], Iterator[Problem]]], Check]:
    """A check of one file that looks at nothing else (its data, positions and path; of the context only
    ``schema_issues`` of that file): what it finds is a pure function of the file, kept across runs."""
    return lambda run: Check(run, ids, "file", templates)


def registry_check(*ids: str) -> Callable[[Callable[[LoadedRegistry, Context], Iterator[Problem]]], Check]:
    return lambda run: Check(run, ids, "registry")


def make_context(registry: LoadedRegistry, *, cache: Cache = NO_CACHE) -> Context:
    items: dict[str, SourceItem] = {}
    for item in registry.items:
        items.setdefault(item.name, item)
    graph = build_graph({name: [r.name for r in item.requires] for name, item in items.items()})
    return Context(items=items, owners=registry.owners, graph=graph, cache=cache)
