"""The checks: small functions that turn a loaded registry into problems.

Each check yields Problems built from the rule table; ``ITEM_CHECKS`` run once
per item, ``REGISTRY_CHECKS`` once per registry.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import networkx as nx

from prereq.openpai import forms

from prereq.openpai import protocol

from prereq.openpai import runtime

from prereq.registry import schemas

from prereq.openpai import shellvars

from prereq.core import placeholders
from prereq.core.graph import build_graph, cycles, lookup_parameter, post_order
from prereq.registry.loader import LoadedRegistry, Owners, SourceItem
from prereq.registry.rules import Problem, problem
from prereq.core.yamlload import format_path
from prereq.core.versions import Requirement, fold_name, is_range, is_version, satisfies



@dataclass
class Context:
    """What every check may look at: the items by name and their graph."""

    items: dict[str, SourceItem]
    owners: Owners
    graph: nx.DiGraph
    _schema_issues: dict[str, list[schemas.SchemaIssue]] = field(default_factory=dict)

    def requires_of(self, name: str) -> list[str]:
        item = self.items.get(name)
        return [r.name for r in item.requires if r.name in self.items] if item else []

    def schema_issues(self, item: SourceItem) -> list[schemas.SchemaIssue]:
        """The item's schema issues, computed once (several checks need to know)."""
        if item.rel not in self._schema_issues:
            self._schema_issues[item.rel] = schemas.check_item(item.data)
        return self._schema_issues[item.rel]

    def form(self, name: str) -> dict[str, Any]:
        """The OpenPAI form of a valid item, its templates rendered from this registry."""
        def lookup(key: str) -> Any:
            found = lookup_parameter(name, key, self.parameters, self.requires_of)
            return found[1] if isinstance(found, tuple) else None

        return forms.compile_item(self.items[name].data, lookup=lookup)

    @cached_property
    def exports(self) -> dict[str, list[str]]:
        """The variables each item's start commands export."""
        return {name: forms.exports(item.data) for name, item in self.items.items()}

    @cached_property
    def parameters(self) -> dict[str, dict[str, Any]]:
        """Each item's parameters (computed once: every template check reads them)."""
        return {name: item.data.get("parameters") or {} for name, item in self.items.items()
                if isinstance(item.data.get("parameters"), dict)}


def at(item: SourceItem, location: tuple[Any, ...], rule_id: str, /, *, on_key: bool = False,
       **details: Any) -> Problem:
    """A problem at ``location`` in the item's file (at the key itself with ``on_key``)."""
    line, column = item.position(location, key=on_key)
    return problem(rule_id, file=item.rel, line=line, column=column, **details)


def check_schema(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    for issue in ctx.schema_issues(item):
        if issue.kind == "unknown-key":
            yield at(item, issue.path, "PRQ111", on_key=True, key=issue.key, where=issue.message,
                     fix=issue.hint)
        elif issue.kind == "dockerimage-key":
            yield at(item, issue.path, "PRQ135", on_key=True, key=issue.key)
        elif issue.kind == "missing-key":
            fix = " (data items need an SPDX license)" if issue.key == "license" else ""
            where = f" in {format_path(issue.path, empty='(item)')}" if issue.path else ""
            yield at(item, issue.path, "PRQ112", key=issue.key, where=where, fix=fix)
        else:
            yield at(item, issue.path, "PRQ110", path=format_path(issue.path, empty='(item)'), detail=issue.message,
                     fix=issue.hint or "see the item format reference")


def check_name(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    name = item.data.get("name")
    if isinstance(name, str) and name != item.stem:
        yield at(item, ("name",), "PRQ120", name=name, stem=item.stem)


def check_plugin(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    data = item.data
    if data.get("type") == "dockerimage":
        return
    plugin = data.get("plugin")
    if isinstance(plugin, str):
        if plugin in schemas.KNOWN_PLUGINS:
            yield at(item, ("plugin",), "PRQ130", plugin=plugin)
        elif plugin.removeprefix(runtime.PLUGIN_PREFIX) not in schemas.KNOWN_PLUGINS:
            known = ", ".join(runtime.PLUGIN_PREFIX + p for p in schemas.KNOWN_PLUGINS)
            yield at(item, ("plugin",), "PRQ131", plugin=plugin, known=known)
    short = plugin.removeprefix(runtime.PLUGIN_PREFIX) if isinstance(plugin, str) else "cmd"
    if short == "cmd":
        if "callbacks" in data and ("preCommands" in data or "postCommands" in data):
            yield at(item, ("callbacks",), "PRQ132", on_key=True)
        if not any(key in data for key in ("callbacks", "preCommands", "postCommands")):
            yield at(item, (), "PRQ136")
        callbacks = data.get("callbacks")
        for index, callback in enumerate(callbacks if isinstance(callbacks, list) else []):
            event = callback.get("event") if isinstance(callback, dict) else None
            if event in runtime.EVENT_SYNONYMS:
                target = runtime.EVENT_SYNONYMS[event]
                note = ("; on OpenPAI it runs only when the task succeeded, never after a failure"
                        if event == "containerExit" else "")
                yield at(item, ("callbacks", index, "event"), "PRQ134", event=event, target=target, note=note)
    if short == "ssh" and "userssh" in data and "publicKeys" in data:
        yield at(item, ("publicKeys",), "PRQ133", on_key=True)


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
        version = target.data.get("version")
        # An invalid version is the target's own schema error; do not report it again here.
        if spec and is_version(version) and not satisfies(version, spec):
            yield at(item, path, "PRQ142", name=name, range=spec, version=version)
        deprecated = target.data.get("deprecated")
        if isinstance(deprecated, dict) and not item.data.get("deprecated"):
            replacement = deprecated.get("replacement")
            yield at(item, path, "PRQ144", name=name,
                     replacement=f" (replaced by {replacement!r})" if replacement else "",
                     fix=f"require {replacement} instead" if replacement else
                     f"see why: {deprecated.get('reason', 'no reason given')}")


def check_replacement(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    deprecated = item.data.get("deprecated")
    if isinstance(deprecated, dict):
        replacement = deprecated.get("replacement")
        if isinstance(replacement, str) and replacement not in ctx.items:
            yield at(item, ("deprecated", "replacement"), "PRQ145", name=replacement)


def check_templates(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    parameters = ctx.parameters
    for path, value in placeholders.strings(item.data):
        if path and path[0] in ("description", "title"):
            continue  # prose may talk about templates
        opened = placeholders.unclosed(value)
        if opened:
            yield at(item, path, "PRQ153", text=opened)
        for template in placeholders.find(value):
            if not placeholders.is_known(template):
                yield at(item, path, "PRQ150", expr=template.expression)
            elif template.namespace == "this":
                found = lookup_parameter(item.name, template.key, parameters, ctx.requires_of)
                if found is None:
                    yield at(item, path, "PRQ151", key=template.key)
                elif isinstance(found, list):
                    yield at(item, path, "PRQ152", key=template.key, first=found[0], second=found[1])


def check_variables(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    blocks = forms.command_blocks(item.data)
    known = {name for required in post_order(ctx.requires_of(item.name), ctx.requires_of)
             for name in ctx.exports[required]}
    own = set(ctx.exports.get(item.name, []))
    for event, known_here in ((runtime.START, known), (runtime.SUCCEED, known | own)):
        entries = blocks[event]
        for name in shellvars.used_variables([command for _, command in entries], known=known_here):
            pattern = re.compile(r"\$\{?" + re.escape(name) + r"(?![A-Za-z0-9_])")
            path = next((p for p, command in entries if pattern.search(command)), entries[0][0])
            yield at(item, path, "PRQ170", name=name, event=event)


def check_round_trip(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    if ctx.schema_issues(item):
        return  # only a valid item has a form to check
    for broken in forms.check_round_trip(ctx.form(item.name)):
        top = re.split(r"[.\[]", broken, maxsplit=1)[0]
        yield at(item, (top,) if top in item.data else (), "PRQ171", on_key=True, field=broken)


def check_owners(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    owners = item.data.get("owners")
    if not ctx.owners.loaded or not isinstance(owners, list):
        return
    for index, owner in enumerate(owners):
        if isinstance(owner, str) and not ctx.owners.known(owner):
            yield at(item, ("owners", index), "PRQ160", owner=owner,
                     fix=f"add {owner} to users or teams in owners.yaml, or fix the spelling")


def check_collisions(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    first_by_fold: dict[str, SourceItem] = {}
    for item in registry.items:
        folded = fold_name(item.name)
        other = first_by_fold.setdefault(folded, item)
        if other is not item:
            yield at(item, ("name",), "PRQ121", name=item.name, other=other.name, other_file=other.rel)


def check_cycles(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    for cycle in cycles(ctx.graph):
        yield problem("PRQ143", file=None, cycle=" -> ".join(cycle))


def check_job_templates(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    for template in registry.templates:
        yield from _check_job_template(template, ctx)


def _check_job_template(template: SourceItem, ctx: Context) -> Iterator[Problem]:
    job = template.data
    written = job.get("prerequisites") if isinstance(job.get("prerequisites"), list) else []
    own = {p["name"] for p in written if isinstance(p, dict) and isinstance(p.get("name"), str)}
    roles = job.get("taskRoles") if isinstance(job.get("taskRoles"), dict) else {}

    def requires_of(name: str) -> list[str]:
        return ctx.requires_of(name) if name in ctx.items and name not in own else []

    added: list[str] = []
    complete = True
    resolved = copy.deepcopy(job)
    references = protocol.role_references(job)
    for role, path, name in references:
        if name not in own and name not in ctx.items:
            complete = False
            fix = (f"add {name} to registry/prerequisites, define it in this job's prerequisites, "
                   "or fix the name")
            yield at(template, path, "PRQ180", role=role, name=name, fix=fix)
    for role, spec in roles.items():
        if not isinstance(spec, dict):
            continue
        order = post_order([name for r, _, name in references if r == role], requires_of)
        listed = [name for r, path, name in references if r == role and path[2] == "prerequisites"]
        if listed:
            resolved["taskRoles"][role]["prerequisites"] = post_order(listed, requires_of)
        added += [n for n in order if n in ctx.items and n not in own and n not in added]
        known = {v for n in order for v in ctx.exports.get(n, [])}
        commands = spec.get("commands") if isinstance(spec.get("commands"), list) else []
        for name in shellvars.used_variables([str(c) for c in commands], known=known):
            pattern = re.compile(r"\$\{?" + re.escape(name) + r"(?![A-Za-z0-9_])")
            index = next((i for i, c in enumerate(commands) if pattern.search(str(c))), 0)
            yield at(template, ("taskRoles", role, "commands", index), "PRQ170", name=name,
                     event=f"task role {role!r}")
    if not complete or any(ctx.schema_issues(ctx.items[n]) for n in added):
        return  # the missing or invalid items are reported already
    if added:
        resolved["prerequisites"] = list(job.get("prerequisites") or []) + [ctx.form(n) for n in added]
    for found in protocol.validate_job(resolved):
        path = found.path if _exists(job, found.path) else ()
        yield at(template, path, "PRQ181", where=found.where(), detail=found.message)


def _exists(value: Any, path: tuple[Any, ...]) -> bool:
    for part in path:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and isinstance(part, int) and part < len(value):
            value = value[part]
        else:
            return False
    return True


ItemCheck = Callable[[SourceItem, Context], Iterator[Problem]]
RegistryCheck = Callable[[LoadedRegistry, Context], Iterator[Problem]]

ITEM_CHECKS: tuple[ItemCheck, ...] = (
    check_schema, check_name, check_plugin, check_require, check_replacement, check_templates, check_variables,
    check_round_trip, check_owners,
)
REGISTRY_CHECKS: tuple[RegistryCheck, ...] = (check_collisions, check_cycles, check_job_templates)


def make_context(registry: LoadedRegistry) -> Context:
    items: dict[str, SourceItem] = {}
    for item in registry.items:
        items.setdefault(item.name, item)
    graph = build_graph({name: [r.name for r in item.requires] for name, item in items.items()})
    return Context(items=items, owners=registry.owners, graph=graph)


def run_checks(registry: LoadedRegistry) -> tuple[Context, list[Problem]]:
    ctx = make_context(registry)
    found = list(registry.problems)
    for item in registry.items:
        for check in ITEM_CHECKS:
            found.extend(check(item, ctx))
    for registry_check in REGISTRY_CHECKS:
        found.extend(registry_check(registry, ctx))
    return ctx, sorted(set(found), key=Problem.sort_key)
