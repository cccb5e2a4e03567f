"""What items run: placeholders, shell variables, the runtime round trip, shell syntax, ShellCheck and
data-pipeline hints (PRQ15x, PRQ170-PRQ177).

May import: prereq.core, prereq.openpai, prereq.registry."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Collection, Iterator
from functools import cache, partial
from typing import Any

from prereq.core import placeholders
from prereq.core.files import Cache, shaped
from prereq.core.graph import lookup_parameter
from prereq.core.shapes import as_dict, as_list
from prereq.openpai import bashsyntax, forms, runtime, shellhints, shelllint, shellvars
from prereq.openpai.shelllint import tool_identity
from prereq.registry import schemas
from prereq.registry.checks.context import Context, Entry, at, item_check, names, registry_check
from prereq.registry.loader import LoadedRegistry, SourceItem
from prereq.registry.rules import Problem, problem


@item_check("PRQ150", "PRQ151", "PRQ152", "PRQ153")
def check_templates(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    if not ctx.templated(item):
        return
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
    blocks: list[tuple[SourceItem, str, list[Entry], str | None]] = []
    for item in filter(ctx.fresh, registry.items):
        raw, rendered = ctx.blocks(item), ctx.shell_blocks(item)
        for event in (runtime.START, runtime.SUCCEED):
            lint = ctx.lint_script(rendered[event]).text if rendered and raw[event] else None
            blocks.append((item, event, raw[event], lint))
    roles = [ctx.lint_script(entries).text for _, _, entries, _ in _task_role_blocks(registry)]
    texts = [lint for *_, lint in blocks if lint is not None]
    readings = dict(zip(texts, shelllint.lint_scripts(texts + roles, cache=ctx.cache), strict=False))
    for item, event, entries, lint in blocks:
        reading = readings[lint] if lint is not None else shelllint.Lint()
        _unread(ctx, item, reading if lint is not None else None)
        yield from unset_variables(
            ctx, item, event, entries, known=partial(_flowing_in, ctx, item, event), lint=reading
        )


def _flowing_in(ctx: Context, item: SourceItem, event: str) -> set[str]:
    """What reaches a block of the item from elsewhere: what everything it requires exports, and for its
    succeed commands what its own start commands export."""
    known = set(ctx.exported_below.get(item.name, ()))
    return known | set(ctx.exports_of(item.name)) if event == runtime.SUCCEED else known


def _unread(ctx: Context, item: SourceItem, lint: shelllint.Lint | None) -> None:
    """A script of the item an installed ShellCheck gave no reading of (a run past its time may read it
    next time): what the checks found of the item this run is not kept."""
    if lint is not None and not lint.read and shelllint.available():
        ctx.unsure.add(item.rel)


def shell_tools() -> str:
    """What the shell checks' findings depend on besides the scripts: the ShellCheck and bash programs
    (as ``shelllint`` and ``bashsyntax`` key their own readings)."""
    binary = shelllint.shellcheck_binary()
    lint = tool_identity(binary, sorted(shelllint.IGNORED_CODES), shelllint.MAX_LINT_NESTING) if binary else "-"
    return f"ShellCheck {lint} bash {tool_identity(shutil.which('bash') or 'bash', bashsyntax.BATCH)}"


def unset_variables(
    ctx: Context,
    item: SourceItem,
    event: str,
    entries: list[Entry],
    *,
    known: Callable[[], Collection[str]],
    lint: shelllint.Lint,
) -> Iterator[Problem]:
    """PRQ170 for one block of commands, at the line of each name's first use: a name prereq's reader
    finds used with nothing defining it before (not ``known()``, not the runtime's), that ShellCheck, when
    it read these commands (``lint``, its reading; ``Lint()``: not read), also says nothing assigns
    (SC2154).  Each knows what the other cannot: the reader, what required items export, the runtime's
    variables and what ``conda activate`` sets; ShellCheck, assignments by any builtin the reader does not
    follow.  The reading of the commands is kept across runs; what flows in from other items is applied
    to it every time (a name ``known()`` holds is never a use, whatever else the commands hold), asked
    only for a block that uses a name it does not define."""
    commands = [c for _, c in entries]
    if not commands:
        return
    unassigned = lint.unassigned
    reading = [commands, sorted(unassigned) if unassigned is not None else None]
    uses = ctx.remembered("shell-uses", reading, partial(_uses, commands, unassigned), _read_uses)
    flowing = known() if uses else ()
    for name, index, offset in uses:
        if name not in flowing:
            path, command = entries[index]
            line, column = command_line(item, path, command, offset)
            yield problem("PRQ170", file=item.rel, line=line, column=column, name=name, event=event)


def _uses(commands: list[str], unassigned: frozenset[str] | None) -> list[list[Any]]:
    return [[u.name, u.command, u.line] for u in shellvars.undefined_uses(commands, unassigned=unassigned)]


def _read_uses(kept: Any) -> list[tuple[str, int, int]]:
    if not shaped(kept, [(str, int, int)]):
        raise TypeError("not a list of variables used")
    return [(name, index, offset) for name, index, offset in kept]


@item_check("PRQ154", "PRQ155")
def check_placeholder_graph(item: SourceItem, ctx: Context) -> Iterator[Problem]:
    """Parameters that use parameters: no cycle, and no expansion past ``forms.MAX_RENDERED``."""
    if not ctx.valid(item) or not ctx.templated(item):
        return  # without a template there is nothing to render
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
    """What the runtime's round trip breaks in the item's OpenPAI form: a form without templates is a pure
    function of the file, and its verdict is kept across runs by the file's content."""
    if not ctx.valid(item):
        return  # only a valid item has a form to check
    if ctx.templated(item):
        paths = _round_trip(ctx, item)
    else:
        paths = ctx.remembered("round-trip", item.digest, partial(_round_trip, ctx, item), names)
    for broken in paths:
        top = re.split(r"[.\[]", broken, maxsplit=1)[0]
        yield at(item, (top,) if top in item.data else (), "PRQ171", on_key=True, field=broken)


def _round_trip(ctx: Context, item: SourceItem) -> list[str]:
    form = ctx.form(item)
    return forms.check_round_trip(form) if isinstance(form, dict) else []  # else PRQ154/155 say why


def command_line(
    item: SourceItem, path: tuple[Any, ...], command: str, offset: int, *, within: int | None = None
) -> tuple[int, int]:
    """The file line of line ``offset`` of the command at ``path``: a command of several lines is a
    block scalar (``|``), whose text starts on the line after its indicator.  With ``within`` (a column
    of that line of the command), its column too, where the file holds the line as it is (else the
    command's first column)."""
    line, column = item.position(path)
    lines = command.rstrip("\n").count("\n")
    if lines:
        line, column = line + 1 + min(offset, lines), 1
    if within is None:
        return line, column
    text = command.split("\n")[offset]
    held = item.raw.decode("utf-8", "replace").split("\n")[line - 1]
    # A block's lines are indented past the command's own indentation; a plain scalar starts at ``column``.
    start = len(held) - len(held.lstrip(" ")) - (len(text) - len(text.lstrip(" "))) if lines else column - 1
    return (line, start + within + 1) if start >= 0 and held[start : start + len(text)] == text else (line, column)


@registry_check("PRQ172", "PRQ173")
def check_shell(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    """Every cmd item's commands of each event, and every job template's task role commands: bash's
    syntax errors, then ShellCheck's findings on the ones bash reads (all scripts of the registry in one
    ShellCheck run)."""
    blocks = [
        (item, event, entries, str(item.data.get("failurePolicy", "fail")))
        for item in filter(ctx.fresh, ctx.items.values())
        for event, entries in (ctx.shell_blocks(item) or {}).items()
        if entries
    ]
    blocks += _task_role_blocks(registry)
    run = [shelllint.runtime_script([c for _, c in e], policy=policy) for _, _, e, policy in blocks]
    lint = [ctx.lint_script(entries) for _, _, entries, _ in blocks]
    syntax, linted = bashsyntax.check_scripts(
        [(r.text, li.text) for r, li in zip(run, lint, strict=True)], cache=ctx.cache
    )
    for (item, event, entries, _), script, errors, lint_script, findings in zip(
        blocks, run, syntax, lint, linted, strict=True
    ):
        _unread(ctx, item, findings)
        for issue in errors:
            yield _shell_problem(item, entries, script, issue, "PRQ172", event=event)
        for issue in findings.findings if not errors else ():
            yield _shell_problem(item, entries, lint_script, issue, "PRQ173", code=issue.code)


def lint_texts(registry: LoadedRegistry, ctx: Context) -> list[str]:
    """Every script ShellCheck reads for ``check_variables`` and ``check_shell``: each block of commands
    the shell checks read (of the files they look at this run), and each job template's task role commands."""
    fresh = filter(ctx.fresh, registry.items)
    blocks = [entries for item in fresh for entries in (ctx.shell_blocks(item) or {}).values() if entries]
    blocks += [entries for _, _, entries, _ in _task_role_blocks(registry)]
    return [ctx.lint_script(entries).text for entries in blocks]


class EarlyLint:
    """Hands ShellCheck an item's scripts as its file is parsed (``load_registry``'s ``parsed``: a file
    the cache kept is not, nor are its scripts new), a batch at a time, so that it reads while the rest
    of the registry loads: in a cold run of 10,000 items it could otherwise start only when every file
    was read, two seconds in.  Only what the file alone tells: the commands of a valid cmd item
    without a template (``Context.shell_blocks`` gives those as they are; an invalid item's are never
    read), in full batches only.  ``lint_texts`` later hands over the rest (a small registry's scripts
    all at once, in one ShellCheck process), and ShellCheck reads no script twice."""

    BATCH = 1000  # scripts a batch: a ShellCheck process starts at about 15 ms

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.texts: list[str] = []
        self.started = 0  # scripts ShellCheck was started on

    def add(self, item: SourceItem) -> None:
        plugin = item.data.get("plugin", runtime.DEFAULT_PLUGIN)
        if plugin != runtime.DEFAULT_PLUGIN or not schemas.item_is_valid(item.data):
            return
        blocks = [[command for _, command in entries] for entries in forms.command_blocks(item.data).values()]
        if not any(placeholders.OPEN in command for commands in blocks for command in commands):
            self.texts += [shelllint.lint_script(commands).text for commands in blocks if commands]
        if len(self.texts) >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        self.started += shelllint.prefetch(self.texts, cache=self.cache)
        self.texts = []


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


def _shell_problem(
    item: SourceItem,
    entries: list[Entry],
    script: shelllint.Script,
    issue: shelllint.ShellIssue,
    rule: str,
    **details: Any,
) -> Problem:
    quote = bashsyntax.unclosed_quote([command for _, command in entries], issue.message)
    found = quote or script.locate(issue.line) or (0, 0)  # a line of prereq's own: the first command
    path, command = entries[found[0]]
    line, column = command_line(item, path, command, found[1], within=quote[2] if quote else None)
    return problem(rule, file=item.rel, line=line, column=column, detail=issue.message, **details)


@registry_check("PRQ174", "PRQ175", "PRQ176", "PRQ177")
def check_pipeline(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    """Downloads and ``cd`` into folders nothing created, ``curl | sh`` over http, ``rm -r $EMPTY/``.
    The folders each item creates are gathered once for the graph (per item, following every require
    chain would be quadratic in their length), when a block needs them; what each text's reading finds
    is kept across runs (``_hints``)."""
    blocks = {
        name: shell
        for name, item in ctx.items.items()
        if ctx.fresh(item) and (shell := ctx.shell_blocks(item)) is not None
    }
    texts = {name: {event: _text(entries) for event, entries in events.items()} for name, events in blocks.items()}

    @cache
    def made(name: str) -> list[str]:
        shell = ctx.shell_blocks(ctx.items[name])
        return _created(ctx, _text(shell[runtime.START])) if shell is not None else []

    @cache
    def below() -> dict[str, frozenset[str]]:
        return ctx.reached(made)

    def created(name: str, event: str) -> set[str]:
        """The folders made before a block runs: by what the item requires, and for its succeed
        commands by its own start commands (gathered only when a block needs to know)."""
        folders = set(below().get(name, ()))
        return folders | set(made(name)) if event == runtime.SUCCEED else folders

    for name, events in blocks.items():
        item = ctx.items[name]
        for event, entries in events.items():
            for hint in _hints(ctx, texts[name][event], partial(created, name, event)):
                index, offset = _command_at(entries, hint.offset)
                line, column = command_line(item, entries[index][0], entries[index][1], offset)
                yield problem(hint.rule, file=item.rel, line=line, column=column, **dict(hint.details))


def _text(entries: list[Entry]) -> str:
    return "\n".join(shelllint.as_shell(c) for _, c in entries)


def _created(ctx: Context, text: str) -> list[str]:
    return ctx.remembered("shell-folders", text, partial(shellhints.created_folders, text), names) if text else []


_FOLDER_HINTS = ("PRQ174", "PRQ176")  # the hints a folder made before can silence; the others never change


def _hints(ctx: Context, text: str, created: Callable[[], set[str]]) -> list[shellhints.Hint]:
    """The hints of one text: read as if nothing were made before it (kept by the text), and only when
    that finds a download or ``cd`` into a missing folder, read again with the folders made before it
    (kept by both): more folders can only silence those."""
    if not text:
        return []

    def find(folders: set[str]) -> list[list[Any]]:
        return [[h.rule, h.offset, [list(d) for d in h.details]] for h in shellhints.hints(text, created=folders)]

    alone = ctx.remembered("shell-hints", text, partial(find, set()), _read_hints)
    if not any(hint.rule in _FOLDER_HINTS for hint in alone):
        return alone
    folders = created()
    return ctx.remembered("shell-hints-after", [text, sorted(folders)], partial(find, folders), _read_hints)


def _read_hints(kept: Any) -> list[shellhints.Hint]:
    if not shaped(kept, [(str, int, [(str, str)])]):
        raise TypeError("not a list of hints")
    return [shellhints.Hint(rule, offset, tuple((k, v) for k, v in details)) for rule, offset, details in kept]


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
