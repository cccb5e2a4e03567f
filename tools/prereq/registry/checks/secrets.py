"""Credentials in items and job templates (PRQ190, PRQ191): ``registry.secrets`` finds them, this
module places them at the line of the string that holds them.

May import: prereq.core, prereq.openpai, prereq.registry."""

from __future__ import annotations

from collections.abc import Iterator

from prereq.core.yamlload import format_path
from prereq.registry import secrets
from prereq.registry.checks.base import Context, file_check
from prereq.registry.loader import SourceItem
from prereq.registry.rules import Problem, problem


def leak_problems(item: SourceItem) -> Iterator[Problem]:
    image = item.data.get("type") == "dockerimage"
    # The schema holds a docker image's auth to secret references (PRQ110): not said twice.
    for found in secrets.locate(item.yaml, skip=lambda path: image and path[:1] == ("auth",)):
        where, line, column = format_path(found.path, empty="the item"), found.line, found.column
        literal = [leak for leak in found.leaks if leak.literal]
        if literal:
            kinds = secrets.kinds(literal)
            yield problem("PRQ190", file=item.rel, line=line, column=column, where=where, kinds=kinds)
        for leak in found.leaks:
            if not leak.literal:
                yield problem("PRQ191", file=item.rel, line=line, column=column, where=where, name=leak.kind)


@file_check("PRQ190", "PRQ191", templates=True)
def check_secrets(source: SourceItem, ctx: Context) -> Iterator[Problem]:
    """Every item and every job template (one check for both: a rule is declared in one place)."""
    yield from leak_problems(source)


CHECKS = (check_secrets,)
