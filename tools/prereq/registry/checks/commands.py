"""What items run: placeholders, shell variables and the runtime round trip (PRQ15x, PRQ170, PRQ171).

May import: prereq.core, prereq.openpai, prereq.registry."""

from __future__ import annotations

import re
from collections.abc import Iterator

from prereq.core import placeholders
from prereq.core.graph import lookup_parameter
from prereq.openpai import forms, runtime, shellvars
from prereq.registry.checks.base import Context, at, item_check
from prereq.registry.loader import SourceItem
from prereq.registry.rules import Problem


@item_check("PRQ150", "PRQ151", "PRQ152", "PRQ153")
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


@item_check("PRQ170")
def check_variables(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    blocks = forms.command_blocks(item.data)
    known = set(ctx.exported_below.get(item.name, ()))
    own = set(ctx.exports.get(item.name, []))
    for event, known_here in ((runtime.START, known), (runtime.SUCCEED, known | own)):
        entries = blocks[event]
        for name in shellvars.used_variables([command for _, command in entries], known=known_here):
            pattern = re.compile(r"\$\{?" + re.escape(name) + r"(?![A-Za-z0-9_])")
            path = next((p for p, command in entries if pattern.search(command)), entries[0][0])
            yield at(item, path, "PRQ170", name=name, event=event)


@item_check("PRQ154", "PRQ155")
def check_placeholder_graph(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    """Parameters that use parameters: no cycle, and no expansion past ``forms.MAX_RENDERED``."""
    if ctx.schema_issues(item):
        return
    form = ctx.form(item)
    if not isinstance(form, forms.PlaceholderError):
        return
    key = form.key
    where: tuple[str, ...] = ("parameters", key) if key in (item.data.get("parameters") or {}) else ()
    if not where:
        needle = f"this.{key}"
        where = next((p for p, value in placeholders.strings(item.data) if needle in value), ())
    if form.cycle:
        yield at(item, where, "PRQ154", key=key, cycle=" -> ".join(form.cycle))
    else:
        yield at(item, where, "PRQ155", key=key, limit=forms.MAX_RENDERED, nesting=forms.MAX_NESTING)


@item_check("PRQ171")
def check_round_trip(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    form = ctx.form(item) if not ctx.schema_issues(item) else None
    if not isinstance(form, dict):
        return  # only a valid item has a form to check (PRQ154/155 say why a form could not be made)
    for broken in forms.check_round_trip(form):
        top = re.split(r"[.\[]", broken, maxsplit=1)[0]
        yield at(item, (top,) if top in item.data else (), "PRQ171", on_key=True, field=broken)


CHECKS = (
    check_templates,
    check_placeholder_graph,
    check_variables,
    check_round_trip,
)
