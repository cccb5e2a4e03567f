"""What each item says about itself: its schema, name, plugin and owners (PRQ11x-13x, PRQ160).

May import: prereq.core, prereq.openpai, prereq.registry."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from prereq.core import placeholders
from prereq.core.versions import fold_name
from prereq.core.yamlload import format_path
from prereq.openpai import forms, runtime
from prereq.registry import schemas
from prereq.registry.checks.context import Context, at, file_check, item_check, registry_check
from prereq.registry.itemformat import is_windows_reserved
from prereq.registry.loader import LoadedRegistry, SourceItem
from prereq.registry.rules import Problem


@file_check("PRQ110", "PRQ111", "PRQ112", "PRQ135")
def check_schema(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    for issue in ctx.schema_issues(item):
        if issue.kind == "unknown-key":
            yield at(item, issue.path, "PRQ111", on_key=True, key=issue.key, where=issue.message, fix=issue.hint)
        elif issue.kind == "dockerimage-key":
            yield at(item, issue.path, "PRQ135", on_key=True, key=issue.key)
        elif issue.kind == "missing-key":
            fix = " (data items need an SPDX license)" if issue.key == "license" else ""
            where = f" in {format_path(issue.path, empty='(item)')}" if issue.path else ""
            yield at(item, issue.path, "PRQ112", key=issue.key, where=where, fix=fix)
        else:
            yield at(
                item,
                issue.path,
                "PRQ110",
                path=format_path(issue.path, empty="(item)"),
                detail=issue.message,
                fix=issue.hint or "see the item format reference",
            )


# One line of text: no tab or line break either.
_LINE_FIELDS = ("name", "version", "type", "title", "owners", "tags", "require", "license", "homepage", "plugin")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_IN_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@file_check("PRQ113")
def check_characters(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    for path, value in placeholders.strings(item.data):
        pattern = _CONTROL_IN_LINE if path and path[0] in _LINE_FIELDS else _CONTROL
        found = pattern.search(value)
        if found:
            yield at(item, path, "PRQ113", path=format_path(path), char=f"U+{ord(found.group()):04X}")
    for path in _keys(item.data):
        found = _CONTROL_IN_LINE.search(path[-1])
        if found:
            yield at(item, path, "PRQ113", on_key=True, path=format_path(path), char=f"U+{ord(found.group()):04X}")


_TODO = re.compile(r"\bTODO\b")
_TODO_TAG = "todo"  # the tag prereq new writes: tags are lower case, so the word alone marks it


@file_check("PRQ114")
def check_todo(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    """The blanks ``prereq new`` and ``prereq share`` leave, in any string: a command's ``echo "TODO…"``
    runs on every node without failing, so it is no less unfinished than a title."""
    for path, value in placeholders.strings(item.data):
        if _TODO.search(value) or (path[:1] == ("tags",) and value == _TODO_TAG):
            yield at(item, path, "PRQ114", path=format_path(path))


def _keys(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    stack = [(value, path)]
    while stack:
        current, where = stack.pop()
        if isinstance(current, dict):
            for key, child in current.items():
                yield (*where, key)
                stack.append((child, (*where, key)))
        elif isinstance(current, list):
            stack.extend((child, (*where, index)) for index, child in enumerate(current))


@file_check("PRQ120", "PRQ122")
def check_name(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    name = item.data.get("name")
    if isinstance(name, str) and name != item.stem:
        yield at(item, ("name",), "PRQ120", name=name, stem=item.stem)
    if is_windows_reserved(item.stem):
        yield at(item, ("name",), "PRQ122", name=item.stem)


@registry_check("PRQ121")
def check_collisions(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    first_by_fold: dict[str, SourceItem] = {}
    for item in registry.items:
        folded = fold_name(item.name)
        other = first_by_fold.setdefault(folded, item)
        if other is not item:
            yield at(item, ("name",), "PRQ121", name=item.name, other=other.name, other_file=other.rel)


@file_check("PRQ130", "PRQ131", "PRQ132", "PRQ133", "PRQ134", "PRQ136")
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
        if not any(key in data for key in ("callbacks", "preCommands", "postCommands")) and not forms.is_passive(data):
            yield at(item, (), "PRQ136")  # a uri-only item is passive: the task role binding it reads its uri
        callbacks = data.get("callbacks")
        for index, callback in enumerate(callbacks if isinstance(callbacks, list) else []):
            event = callback.get("event") if isinstance(callback, dict) else None
            if event in runtime.EVENT_SYNONYMS:
                target = runtime.EVENT_SYNONYMS[event]
                note = (
                    "; on OpenPAI it runs only when the task succeeded, never after a failure"
                    if event == "containerExit"
                    else ""
                )
                yield at(item, ("callbacks", index, "event"), "PRQ134", event=event, target=target, note=note)
    if short == "ssh" and "userssh" in data and "publicKeys" in data:
        yield at(item, ("publicKeys",), "PRQ133", on_key=True)


@item_check("PRQ160")
def check_owners(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    owners = item.data.get("owners")
    if not ctx.owners.loaded or not isinstance(owners, list):
        return
    for index, owner in enumerate(owners):
        if isinstance(owner, str) and not ctx.owners.known(owner):
            yield at(
                item,
                ("owners", index),
                "PRQ160",
                owner=owner,
                fix=f"add {owner} to users or teams in owners.yaml, or fix the spelling",
            )


CHECKS = (
    check_characters,
    check_todo,
    check_schema,
    check_name,
    check_collisions,
    check_plugin,
    check_owners,
)
