"""The checks, by rule family: small functions that turn a loaded registry into problems.

``items`` (schema, names, plugins, owners), ``requirements`` (the require graph),
``commands`` (placeholders, shell variables, the runtime round trip), ``job_templates``,
``secrets`` (credentials in any string) and ``schemafile`` (the item schema the repository commits);
``published_ranges`` (the versions each item published, for PRQ142) and ``causes`` (a problem's
consequences); ``context`` holds the context they share and the declaration of ids.

What the file checks find in a file is kept across runs by the file (``file-checks``); what the checks
across items (``ACROSS``) find in an item, by the item and everything it requires (``across-items``,
``Context.closure_key``): a pull request that touches one item checks again only it and the items that
require it.

May import: prereq.core, prereq.openpai, prereq.registry.loader/rules/schemas/secretscan/settings.
"""

from __future__ import annotations

from typing import Any

from prereq.core.files import NO_CACHE, Cache, Shelf, shaped
from prereq.core.terminal import Progress, silent
from prereq.openpai import shelllint
from prereq.registry.checks import commands, items, job_templates, requirements, schemafile, secrets
from prereq.registry.checks.context import Check, Context, make_context
from prereq.registry.loader import TEMPLATES_DIR, LoadedRegistry, SourceItem
from prereq.registry.rules import RULES, Problem, Severity

CHECKS: tuple[Check, ...] = (
    *items.CHECKS,
    *requirements.CHECKS,
    *commands.CHECKS,
    *job_templates.CHECKS,
    *secrets.CHECKS,
    *schemafile.CHECKS,
)
# The checks across items whose problems of an item are a function of that item and of what it requires:
# placeholders, compiled forms and the round trip, rendered credentials, variables flowing in, the shell
# and pipeline checks (those once a registry skip the files their kept results stand for).  Not kept:
# what reads other items too (ranges against published versions, conflicts, replacements, names, cycles),
# the owners file, and the job templates, few and reading any item.
ACROSS = frozenset(
    {
        commands.check_templates,
        commands.check_placeholder_graph,
        commands.check_round_trip,
        secrets.check_rendered_secrets,
        commands.check_variables,
        commands.check_shell,
        commands.check_pipeline,
    }
)


def _declared(check: Check, found: list[Problem]) -> list[Problem]:
    undeclared = sorted({p.rule for p in found} - set(check.ids))
    if undeclared:
        raise RuntimeError(f"{check.name} emitted {', '.join(undeclared)}, which it does not declare")
    return found


def run_checks(
    registry: LoadedRegistry, *, cache: Cache = NO_CACHE, progress: Progress = silent
) -> tuple[Context, list[Problem]]:
    ctx = make_context(registry, cache=cache)
    found = list(registry.problems)
    shelf = cache.shelf("file-checks")
    sources = [*registry.items, *registry.templates]
    kept = {source.rel: _kept(source, ctx, shelf) for source in sources}
    across = cache.shelf("across-items", identity=commands.shell_tools()) if cache.folder else None
    found += _kept_across(registry, ctx, across)
    reading = shelllint.prefetch(commands.lint_texts(registry, ctx), cache=cache)  # read while the rest is checked
    cached = cache.folder is not None
    progress(_checking(len(sources), fresh=sum(known is None for known in kept.values()), cached=cached))
    if reading:
        kept_later = " (the cache keeps its readings)" if cached else ""
        progress(f"ShellCheck is reading {reading:,} script{'s' * (reading != 1)} beside the checks{kept_later}")
    for source in sources:
        known = kept[source.rel]
        found.extend(known if known is not None else _file_problems(source, ctx, shelf))
    fresh: list[Problem] = []  # what the checks of ACROSS find this run
    for item in registry.items:
        for check in CHECKS:
            if check.scope == "item" and (check not in ACROSS or ctx.fresh(item)):
                (fresh if check in ACROSS else found).extend(_declared(check, list(check.run(item, ctx))))
    progress("checking across items")
    for check in CHECKS:
        if check.scope == "registry":
            (fresh if check in ACROSS else found).extend(_declared(check, list(check.run(registry, ctx))))
    if across is not None:
        _keep_across(registry, ctx, across, fresh)
    return ctx, sorted(set(found + fresh), key=Problem.sort_key)


def _checking(total: int, *, fresh: int, cached: bool) -> str:
    """What the checks are about to read: every file, or the ones the cache holds nothing of."""
    text = f"checking {total:,} file{'s' * (total != 1)}"
    return f"{text}, {fresh:,} new or changed since the cache's last run" if cached and fresh < total else text


def _key(source: SourceItem) -> str:
    return f"{source.rel}\0{source.digest}"


def _kept(source: SourceItem, ctx: Context, shelf: Shelf) -> list[Problem] | None:
    """The file checks' problems ``shelf`` kept for this file (its path and content), with what other
    checks ask of it (``Context.facts``: whether it passes its schema, whether it holds a template);
    None when it kept none (or something prereq did not write)."""
    kept = shelf.get(_key(source)) if source.digest else None
    problems = _problems(kept.get("problems"), source.rel) if isinstance(kept, dict) else None
    if problems is None or not isinstance(kept, dict):
        return None
    ctx.facts[source.rel] = {"valid": bool(kept.get("valid")), "templated": bool(kept.get("templated"))}
    return problems


# What a kept problem is: rule, severity, line, column, message, hint (the file is the key's; what is linked
# to a problem after the checks ran, such as the cause it follows from, is not part of it).
_KEPT_PROBLEM = (str, str, int | None, int | None, str, str)


def _rows(problems: list[Problem]) -> list[list[object]]:
    return [[p.rule, p.severity.value, p.line, p.column, p.message, p.hint] for p in problems]


def _problems(rows: Any, rel: str) -> list[Problem] | None:
    """The problems ``_rows`` kept of the file ``rel``; None for what prereq did not write."""
    if not shaped(rows, [_KEPT_PROBLEM]) or any(rule not in RULES for rule, *_ in rows):
        return None
    try:
        return [Problem(r, Severity(s), rel, n, c, m, h) for r, s, n, c, m, h in rows]
    except (TypeError, ValueError):
        return None


def _kept_across(registry: LoadedRegistry, ctx: Context, shelf: Shelf | None) -> list[Problem]:
    """The problems the checks across items found in each item whose file and everything it requires
    ``shelf`` kept them for; ``Context.kept`` names those files, ``Context.rechecked`` the others' names."""
    found: list[Problem] = []
    kept: set[str] = set()
    if shelf is None:
        return found
    for item in registry.items:
        entry = shelf.get(key) if (key := ctx.closure_key(item)) is not None else None
        problems = _problems(entry.get("problems"), item.rel) if isinstance(entry, dict) else None
        if problems is not None:
            found += problems
            kept.add(item.rel)
    if kept:
        ctx.kept = frozenset(kept)
        ctx.rechecked = frozenset(item.name for item in registry.items if item.rel not in kept)
    return found


def _keep_across(registry: LoadedRegistry, ctx: Context, shelf: Shelf, fresh: list[Problem]) -> None:
    """Keep what the checks across items found in each item they looked at, by its ``closure_key``; not
    what a tool could not read (``Context.unsure``)."""
    by_file: dict[str | None, list[Problem]] = {}
    for found in fresh:
        by_file.setdefault(found.file, []).append(found)
    for item in registry.items:
        key = ctx.closure_key(item)
        if key is not None and ctx.fresh(item) and item.rel not in ctx.unsure:
            shelf.put(key, {"problems": _rows(sorted(set(by_file.get(item.rel, [])), key=Problem.sort_key))})


def _file_problems(source: SourceItem, ctx: Context, shelf: Shelf) -> list[Problem]:
    """The file checks' problems of one item or job template, kept in ``shelf`` with its facts."""
    template = source.rel.startswith(TEMPLATES_DIR + "/")
    checks = [check for check in CHECKS if check.scope == "file" and (check.templates or not template)]
    problems = [problem for check in checks for problem in _declared(check, list(check.run(source, ctx)))]
    valid = template or not ctx.schema_issues(source)
    shelf.put(_key(source), {"problems": _rows(problems), "valid": valid, "templated": ctx.templated(source)})
    return problems
