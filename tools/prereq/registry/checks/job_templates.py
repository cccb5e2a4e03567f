"""Job templates: each a valid OpenPAI job once the items it names are filled in (PRQ18x, PRQ170).

May import: prereq.core, prereq.openpai, prereq.registry."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from functools import partial
from typing import Any

from prereq.core.graph import post_order
from prereq.core.shapes import as_dict, as_list
from prereq.openpai import protocol, shelllint
from prereq.registry.checks import commands
from prereq.registry.checks.context import Context, at, registry_check
from prereq.registry.loader import LoadedRegistry, SourceItem
from prereq.registry.rules import Problem


@registry_check("PRQ170", "PRQ180", "PRQ181")
def check_job_templates(registry: LoadedRegistry, ctx: Context) -> Iterator[Problem]:
    for template in registry.templates:
        yield from _check_job_template(template, ctx)


def _check_job_template(template: SourceItem, ctx: Context) -> Iterator[Problem]:
    job = template.data
    written = as_list(job.get("prerequisites"))
    own = {p["name"] for p in written if isinstance(p, dict) and isinstance(p.get("name"), str)}
    roles = as_dict(job.get("taskRoles"))

    def requires_of(name: str) -> list[str]:
        return ctx.requires_of(name) if name in ctx.items and name not in own else []

    added: list[str] = []
    complete = True
    resolved = copy.deepcopy(job)
    references = protocol.role_references(job)
    for role, path, name in references:
        if name not in own and name not in ctx.items:
            complete = False
            fix = f"add {name} to registry/prerequisites, define it in this job's prerequisites, or fix the name"
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
        entries = commands.role_commands(role, spec)
        readable = entries and commands.role_readable(entries)
        lint = shelllint.lint_scripts([ctx.lint_script(entries).text])[0] if readable else shelllint.Lint()
        where = f"task role {role!r}"
        yield from commands.unset_variables(ctx, template, where, entries, known=partial(set, known), lint=lint)
    if not complete or not all(ctx.valid(ctx.items[n]) for n in added):
        return  # the missing or invalid items are reported already
    added_forms = [ctx.form(ctx.items[n]) for n in added]
    if any(not isinstance(form, dict) for form in added_forms):
        return  # an item whose placeholders cannot be rendered is reported there (PRQ154, PRQ155)
    if added:
        resolved["prerequisites"] = list(job.get("prerequisites") or []) + added_forms
    for found in protocol.validate_job(resolved):
        path = found.path if _exists(job, found.path) else ()
        yield at(template, path, "PRQ181", where=found.where(), detail=found.message)


def _exists(value: Any, path: tuple[Any, ...]) -> bool:
    for part in path:
        if (isinstance(value, dict) and part in value) or (
            isinstance(value, list) and isinstance(part, int) and part < len(value)
        ):
            value = value[part]
        else:
            return False
    return True


CHECKS = (check_job_templates,)
