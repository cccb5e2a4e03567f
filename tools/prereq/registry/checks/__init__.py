"""The checks, by rule family: small functions that turn a loaded registry into problems.

``items`` (schema, names, plugins, owners), ``requirements`` (the require graph),
``commands`` (placeholders, shell variables, the runtime round trip), ``job_templates``
and ``secrets`` (credentials in any string); ``base`` holds the context they share and the
declaration of ids.

May import: prereq.core, prereq.openpai, prereq.registry.loader/rules/schemas/secrets.
"""

from __future__ import annotations

from prereq.core.files import NO_CACHE, Cache, Shelf
from prereq.registry.checks import commands, items, job_templates, requirements, secrets
from prereq.registry.checks.base import Check, Context, make_context
from prereq.registry.loader import TEMPLATES_DIR, LoadedRegistry, SourceItem
from prereq.registry.rules import Problem, Severity

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


def run_checks(registry: LoadedRegistry, *, cache: Cache = NO_CACHE) -> tuple[Context, list[Problem]]:
    ctx = make_context(registry, cache=cache)
    found = list(registry.problems)
    shelf = cache.shelf("file-checks")
    for source in (*registry.items, *registry.templates):
        found.extend(_file_problems(source, ctx, shelf))
    for item in registry.items:
        for check in CHECKS:
            if check.scope == "item":
                found.extend(_declared(check, list(check.run(item, ctx))))
    for check in CHECKS:
        if check.scope == "registry":
            found.extend(_declared(check, list(check.run(registry, ctx))))
    return ctx, sorted(set(found), key=Problem.sort_key)


def _file_problems(source: SourceItem, ctx: Context, shelf: Shelf) -> list[Problem]:
    """The file checks' problems of one item or job template, kept in ``shelf`` by its path and content
    (with whether an item passes its schema, which other checks ask)."""
    template = source.rel.startswith(TEMPLATES_DIR + "/")
    key = f"{source.rel}\0{source.digest}"
    kept = shelf.get(key) if source.digest else None
    if isinstance(kept, dict) and isinstance(kept.get("problems"), list):
        try:
            problems = [Problem(r, Severity(s), source.rel, n, c, m, h) for r, s, n, c, m, h in kept["problems"]]
        except (TypeError, ValueError):
            problems = None  # not what prereq wrote: checked again
        if problems is not None:
            if not template:
                ctx.valid_files[source.rel] = bool(kept.get("valid"))
            return problems
    checks = [check for check in CHECKS if check.scope == "file" and (check.templates or not template)]
    problems = [problem for check in checks for problem in _declared(check, list(check.run(source, ctx)))]
    rows = [[p.rule, p.severity.value, p.line, p.column, p.message, p.hint] for p in problems]
    shelf.put(key, {"problems": rows, "valid": template or not ctx.schema_issues(source)})
    return problems
