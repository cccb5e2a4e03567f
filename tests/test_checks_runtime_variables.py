"""PRQ170 knows the variables the OpenPAI runtime defines for a task, and only those: one list serves
the check and the rule reference."""

from __future__ import annotations

import re

from check_helpers import found, item
from prereq.openpai.runtime import PAI_VARIABLES
from prereq.openpai.shellvars import is_runtime_variable
from prereq.registry.rules import rule_reference_markdown
from prereq.registry.validate import validate

FILLED = {"<ROLE>": "worker", "<INDEX>": "0", "<PORT>": "ssh"}


def _filled(name: str) -> str:
    return re.sub(r"<[A-Z]+>", lambda m: FILLED[m[0]], name)


def test_every_listed_variable_is_known_and_no_other_pai_name() -> None:
    names = [name for group, _ in PAI_VARIABLES for name in group]
    for name in names:
        assert is_runtime_variable(_filled(name)), name
    for name in ("PAI_TASKINDEX", "PAI_JOB_NAMES", "PAI_", "PAI_HOST_IP_worker", "PAI_HOST_IP_worker_x"):
        assert not is_runtime_variable(name), name


def test_the_rule_reference_lists_them_in_prq170s_entry() -> None:
    reference = rule_reference_markdown()
    entry = reference.split("\n## PRQ170\n", 1)[1].split("\n## ", 1)[0]
    for group, what in PAI_VARIABLES:
        row = "| " + ", ".join(f"`{name}`" for name in group) + f" | {what} |"
        assert row in entry.splitlines(), row


def test_a_misspelt_runtime_variable_warns(make_registry) -> None:
    commands = ('echo "$PAI_HOST_IP_worker_0 $PAI_CURRENT_TASK_ROLE_NAME"', 'echo "$PAI_TASKINDEX"')
    root = make_registry({"prerequisites/ranks.yaml": item("ranks", commands=commands)})
    result = validate(root)
    assert found(result) == {("PRQ170", "prerequisites/ranks.yaml", 10)}
    assert "$PAI_TASKINDEX" in result.problems[0].message
