"""The checks, by rule family: small functions that turn a loaded registry into problems.

``items`` (schema, names, plugins, owners), ``requirements`` (the require graph),
``commands`` (placeholders, shell variables, the runtime round trip), ``job_templates``
and ``secrets`` (credentials in any string); ``base`` holds the context they share and the
declaration of ids.

May import: prereq.core, prereq.openpai, prereq.registry.loader/rules/schemas/secrets.
"""

from __future__ import annotations

from prereq.core.files import NO_CACHE, Cache, Shelf, shaped
from prereq.core.terminal import Progress, silent
from prereq.openpai import shelllint
from prereq.registry.checks import commands, items, job_templates, requirements, secrets
from prereq.registry.checks.base import Check, Context, make_context
from prereq.registry.loader import TEMPLATES_DIR, LoadedRegistry, SourceItem
from prereq.registry.rules import RULES, Problem, Severity

CHECKS: tuple[Check, ...] = (
    *items.CHECKS,
    *requirements.CHECKS,
    *commands.CHECKS,
    *job_templates.CHECKS,
    *secrets.CHECKS,
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
    reading = shelllint.prefetch(commands.lint_texts(registry, ctx), cache=cache)  # read while the rest is checked
    cached = cache.folder is not None
    progress(_checking(len(sources), fresh=sum(known is None for known in kept.values()), cached=cached))
    if reading:
        kept_later = " (the cache keeps its readings)" if cached else ""
        progress(f"ShellCheck is reading {reading:,} script{'s' * (reading != 1)} beside the checks{kept_later}")
    for source in sources:
        known = kept[source.rel]
        found.extend(known if known is not None else _file_problems(source, ctx, shelf))
    for item in registry.items:
        for check in CHECKS:
            if check.scope == "item":
                found.extend(_declared(check, list(check.run(item, ctx))))
    progress("checking across items")
    for check in CHECKS:
        if check.scope == "registry":
            found.extend(_declared(check, list(check.run(registry, ctx))))
    return ctx, sorted(set(found), key=Problem.sort_key)


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
    if not isinstance(kept, dict) or not shaped(kept.get("problems"), [_KEPT_PROBLEM]):
        return None
    if any(rule not in RULES for rule, *_ in kept["problems"]):
        return None
    try:
        problems = [Problem(r, Severity(s), source.rel, n, c, m, h) for r, s, n, c, m, h in kept["problems"]]
    except (TypeError, ValueError):
        return None
    ctx.facts[source.rel] = {"valid": bool(kept.get("valid")), "templated": bool(kept.get("templated"))}
    return problems


_KEPT_PROBLEM = (str, str, int | None, int | None, str, str)  # rule, severity, line, column, message, hint


def _file_problems(source: SourceItem, ctx: Context, shelf: Shelf) -> list[Problem]:
    """The file checks' problems of one item or job template, kept in ``shelf`` with its facts."""
    template = source.rel.startswith(TEMPLATES_DIR + "/")
    checks = [check for check in CHECKS if check.scope == "file" and (check.templates or not template)]
    problems = [problem for check in checks for problem in _declared(check, list(check.run(source, ctx)))]
    rows = [[p.rule, p.severity.value, p.line, p.column, p.message, p.hint] for p in problems]
    valid = template or not ctx.schema_issues(source)
    shelf.put(_key(source), {"problems": rows, "valid": valid, "templated": ctx.templated(source)})
    return problems
