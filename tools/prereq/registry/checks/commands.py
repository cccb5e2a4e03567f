"""What items run: placeholders, shell variables, the runtime round trip, shell syntax, ShellCheck and
data-pipeline hints (PRQ15x, PRQ170-PRQ177).

May import: prereq.core, prereq.openpai, prereq.registry."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from prereq.core import placeholders
from prereq.core.graph import lookup_parameter, reachable_union
from prereq.core.shapes import as_dict, as_list
from prereq.openpai import forms, runtime, shellhints, shelllint, shellvars
from prereq.registry.checks.base import Context, at, item_check, registry_check
from prereq.registry.loader import LoadedRegistry, SourceItem
from prereq.registry.rules import Problem, problem

Entry = tuple[tuple[Any, ...], str]  # a command and where it is in its file


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


@registry_check("PRQ170")
def check_variables(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    """Variables used that nothing sets, in each item's start and succeed commands (``unset_variables``).
    ShellCheck reads every item's blocks and every job template's task roles in one run, so that
    job_templates' and check_shell's readings of the same scripts are the cached ones."""
    blocks: list[tuple[SourceItem, str, list[Entry], set[str], str | None]] = []
    for item in registry.items:
        raw = forms.command_blocks(item.data)
        rendered = forms.command_blocks(_with_parameters(item, ctx)) if _shell_readable(item, ctx) else {}
        known = set(ctx.exported_below.get(item.name, ()))
        own = set(ctx.exports.get(item.name, []))  # a start callback's exports reach its succeed callback
        for event, known_here in ((runtime.START, known), (runtime.SUCCEED, known | own)):
            lint = shelllint.lint_script([c for _, c in rendered[event]]).text if rendered and raw[event] else None
            blocks.append((item, event, raw[event], known_here, lint))
    roles = [shelllint.lint_script([c for _, c in entries]).text for _, _, entries, _ in _task_role_blocks(registry)]
    shelllint.lint_scripts([lint for *_, lint in blocks if lint is not None] + roles, cache=ctx.cache)
    for item, event, entries, known_here, lint in blocks:
        yield from unset_variables(item, event, entries, known=known_here, lint=lint)


def unset_variables(
    item: SourceItem, event: str, entries: list[Entry], *, known: set[str], lint: str | None
) -> Iterator[Problem]:
    """PRQ170 for one block of commands, at the line of each name's first use: a name prereq's reader
    finds used with nothing defining it before (not ``known``, not the runtime's), that ShellCheck, when it
    read ``lint`` (these commands as it reads them; None: not read), also says nothing assigns (SC2154).
    Each knows what the other cannot: the reader, what required items export, the runtime's variables
    and what ``conda activate`` sets; ShellCheck, assignments by any builtin the reader does not follow."""
    reading = shelllint.lint_scripts([lint])[0] if lint is not None else shelllint.Lint()
    for use in shellvars.undefined_uses([c for _, c in entries], known, unassigned=reading.unassigned):
        path, command = entries[use.command]
        line, column = command_line(item, path, command, use.line)
        yield problem("PRQ170", file=item.rel, line=line, column=column, name=use.name, event=event)


@item_check("PRQ154", "PRQ155")
def check_placeholder_graph(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    """Parameters that use parameters: no cycle, and no expansion past ``forms.MAX_RENDERED``."""
    if not ctx.valid(item):
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
    form = ctx.form(item) if ctx.valid(item) else None
    if not isinstance(form, dict):
        return  # only a valid item has a form to check (PRQ154/155 say why a form could not be made)
    for broken in forms.check_round_trip(form):
        top = re.split(r"[.\[]", broken, maxsplit=1)[0]
        yield at(item, (top,) if top in item.data else (), "PRQ171", on_key=True, field=broken)


def command_line(item: SourceItem, path: tuple[Any, ...], command: str, offset: int) -> tuple[int, int]:
    """The file line of line ``offset`` of the command at ``path``: a command of several lines is a
    block scalar (``|``), whose text starts on the line after its indicator."""
    line, column = item.position(path)
    lines = command.rstrip("\n").count("\n")
    return (line + 1 + min(offset, lines), 1) if lines else (line, column)


@registry_check("PRQ172", "PRQ173")
def check_shell(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    """Every cmd item's commands of each event, and every job template's task role commands: bash's
    syntax errors, then ShellCheck's findings on the ones bash reads (all scripts of the registry in one
    ShellCheck run)."""
    blocks = [
        (item, event, entries, str(item.data.get("failurePolicy", "fail")))
        for item in ctx.items.values()
        if _shell_readable(item, ctx)
        for event, entries in forms.command_blocks(_with_parameters(item, ctx)).items()
        if entries
    ]
    blocks += _task_role_blocks(registry)
    run = [shelllint.runtime_script([c for _, c in e], policy=policy) for _, _, e, policy in blocks]
    lint = [shelllint.lint_script([c for _, c in entries]) for _, _, entries, _ in blocks]
    syntax, linted = shelllint.check_scripts(
        [(r.text, li.text) for r, li in zip(run, lint, strict=True)], cache=ctx.cache
    )
    for (item, event, entries, _), script, errors, lint_script, findings in zip(
        blocks, run, syntax, lint, linted, strict=True
    ):
        for issue in errors:
            yield _shell_problem(item, entries, script, issue, "PRQ172", event=event)
        for issue in findings.findings if not errors else ():
            yield _shell_problem(item, entries, lint_script, issue, "PRQ173", code=issue.code)


def _shell_readable(item: SourceItem, ctx: Context) -> bool:
    """A valid cmd item whose commands' templates are all closed (PRQ153 says where one is not)."""
    if item.data.get("plugin", runtime.DEFAULT_PLUGIN) != runtime.DEFAULT_PLUGIN or not ctx.valid(item):
        return False
    blocks = forms.command_blocks(item.data).values()
    return not any(placeholders.unclosed(command) for entries in blocks for _, command in entries)


def _task_role_blocks(registry: LoadedRegistry) -> list[tuple[SourceItem, str, list[Entry], str]]:
    """Each job template's task role commands.  The runtime joins them into one script under errexit
    (user.sh), whose first lines are the runtime's and prereq's own as a callback's script are: bash
    reads the commands after them the same way, so a callback's script stands in for it."""
    blocks = []
    for template in registry.templates:
        for role, spec in as_dict(template.data.get("taskRoles")).items():
            entries = role_commands(role, spec)
            if entries and role_readable(entries):
                blocks.append((template, f"task role {role!r}", entries, "fail"))
    return blocks


def role_commands(role: str, spec: Any) -> list[Entry]:
    """A task role's commands (the strings of its ``commands``) with their paths in the template."""
    commands = as_list(spec.get("commands")) if isinstance(spec, dict) else []
    return [(("taskRoles", role, "commands", i), c) for i, c in enumerate(commands) if isinstance(c, str)]


def role_readable(entries: list[Entry]) -> bool:
    """Commands whose templates are all closed, which the shell checks read."""
    return not any(placeholders.unclosed(command) for _, command in entries)


def _with_parameters(item: SourceItem, ctx: Context) -> dict[str, Any]:
    """The item with its ``<% this.KEY %>`` filled in, one level deep, as the shell will see them
    (``for s in <% this.splits %>`` is a loop over several words)."""

    def lookup(key: str) -> str | None:
        found = lookup_parameter(item.name, key, ctx.parameters, ctx.requires_of)
        return str(found[1]) if isinstance(found, tuple) else None

    rendered = placeholders.render(item.data, "this", lookup)
    return rendered if isinstance(rendered, dict) else item.data


def _shell_problem(
    item: SourceItem,
    entries: list[Entry],
    script: shelllint.Script,
    issue: shelllint.ShellIssue,
    rule: str,
    **details: Any,
) -> Problem:
    found = script.locate(issue.line) or (0, 0)  # a line of prereq's own: the first command
    path, command = entries[found[0]]
    line, column = command_line(item, path, command, found[1])
    return problem(rule, file=item.rel, line=line, column=column, detail=issue.message, **details)


@registry_check("PRQ174", "PRQ175", "PRQ176", "PRQ177")
def check_pipeline(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    """Downloads and ``cd`` into folders nothing created, ``curl | sh`` over http, ``rm -r $EMPTY/``.
    The folders each item creates are gathered once for the whole graph (per item, following every
    require chain would be quadratic in their length)."""
    blocks = {
        name: forms.command_blocks(_with_parameters(item, ctx))
        for name, item in ctx.items.items()
        if _shell_readable(item, ctx)
    }
    texts = {
        name: {event: "\n".join(shelllint.as_shell(c) for _, c in entries) for event, entries in events.items()}
        for name, events in blocks.items()
    }
    made = {name: shellhints.created_folders(events[runtime.START]) for name, events in texts.items()}
    below = reachable_union(ctx.graph, made)
    for name, events in blocks.items():
        item, created = ctx.items[name], set(below.get(name, ()))
        for event, entries in events.items():  # start first: the succeed commands see what it made
            for hint in shellhints.hints(texts[name][event], created=created):
                index, offset = _command_at(entries, hint.offset)
                line, column = command_line(item, entries[index][0], entries[index][1], offset)
                yield problem(hint.rule, file=item.rel, line=line, column=column, **dict(hint.details))
            created.update(made[name])


def _command_at(entries: list[tuple[tuple[Any, ...], str]], offset: int) -> tuple[int, int]:
    """The command holding ``offset`` of the commands joined by newlines, and the line within it."""
    start = 0
    for index, (_, command) in enumerate(entries):
        text = shelllint.as_shell(command)
        if offset <= start + len(text):
            return index, text.count("\n", 0, max(offset - start, 0))
        start += len(text) + 1
    return len(entries) - 1, 0


CHECKS = (
    check_templates,
    check_placeholder_graph,
    check_variables,
    check_round_trip,
    check_shell,
    check_pipeline,
)
