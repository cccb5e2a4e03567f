"""The checks, by rule family: small functions that turn a loaded registry into problems.

``items`` (schema, names, plugins, owners), ``requirements`` (the require graph),
``commands`` (placeholders, shell variables, the runtime round trip), ``job_templates``
and ``secrets`` (credentials in any string); ``base`` holds the context they share and the
declaration of ids.

May import: prereq.core, prereq.openpai, prereq.registry.loader/rules/schemas/secrets.
"""

from __future__ import annotations

from prereq.registry.checks import commands, items, job_templates, requirements, secrets
from prereq.registry.checks.base import Check, Context, make_context
from prereq.registry.loader import LoadedRegistry
from prereq.registry.rules import Problem

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


def run_checks(registry: LoadedRegistry) -> tuple[Context, list[Problem]]:
    ctx = make_context(registry)
    found = list(registry.problems)
    for item in registry.items:
        for check in CHECKS:
            if check.scope == "item":
                found.extend(_declared(check, list(check.run(item, ctx))))
    for check in CHECKS:
        if check.scope == "registry":
            found.extend(_declared(check, list(check.run(registry, ctx))))
    return ctx, sorted(set(found), key=Problem.sort_key)
