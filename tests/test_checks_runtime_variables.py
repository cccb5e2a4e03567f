"""PRQ170 knows the variables the OpenPAI runtime defines for a task, and only those: one list serves
the check and the rule reference; and it warns only when prereq's reader and ShellCheck's SC2154 (real
ShellCheck) both say nothing sets a variable."""

from __future__ import annotations

import re

import pytest

from check_helpers import found, item
from prereq.openpai import shelllint
from prereq.openpai.runtime import PAI_VARIABLES
from prereq.openpai.shellvars import is_runtime_variable, undefined_uses, used_variables
from prereq.registry.rules import rule_reference_markdown
from prereq.registry.validate import validate
from prereq.review.rules import ALL_RULES

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
    reference = rule_reference_markdown(ALL_RULES)
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


# --- prereq's reader and ShellCheck's SC2154 agree -----------------------------------------------

needs_shellcheck = pytest.mark.skipif(not shelllint.available(), reason="ShellCheck is not installed")

# (commands, known, what prereq's reader alone reports, what ShellCheck's SC2154 names, what PRQ170 says)
AGREEMENT = [
    (["conda activate base", 'ls "$CONDA_PREFIX"'], [], [], {"CONDA_PREFIX"}, []),
    (['ls "$CONDA_PREFIX"'], [], ["CONDA_PREFIX"], {"CONDA_PREFIX"}, ["CONDA_PREFIX"]),
    (["read -r ANSWER < /etc/hostname", 'echo "$ANSWER"'], [], [], set(), []),
    (['for f in /data/*.gz; do gunzip "$f"; done'], [], [], set(), []),
    (["mapfile -t SPLITS < /data/splits", 'echo "${SPLITS[@]}"'], [], [], set(), []),
    (['while getopts "ab:" OPT; do echo "$OPT $OPTARG"; done'], [], [], set(), []),
    (['echo "${MISSING:-default}" "${OTHER-}"'], [], [], set(), []),
    (['echo "${SET:=value}" "$SET"'], [], [], set(), []),
    ([': "${FROM_IMAGE:?the image sets FROM_IMAGE}"', 'ls "$FROM_IMAGE"'], [], [], set(), []),
    (['[ -n "$CACHE" ] || CACHE=/tmp/cache', 'mkdir -p "$CACHE"'], [], ["CACHE"], set(), []),
    (["coproc WORKER { cat; }", 'echo x >&"${WORKER[1]}"'], [], ["WORKER"], set(), []),
    (["exec {LOG}>/tmp/log", 'echo x >&"$LOG"'], [], [], set(), []),
    (['let "N = 1 + 2"', "(( COUNT = N ))", 'echo "$N $COUNT"'], [], [], set(), []),
    (["wait -n -p DONE_ID", 'echo "$DONE_ID"'], [], [], set(), []),
    (["export -n KEPT=1", "declare -A SIZES=([a]=1)", 'echo "$KEPT ${SIZES[a]}"'], [], [], set(), []),
    ([". ./env.sh", 'echo "$FROM_FILE"'], [], ["FROM_FILE"], {"FROM_FILE"}, ["FROM_FILE"]),
    ([". /etc/os-release", 'echo "$VERSION_ID"'], [], [], {"VERSION_ID"}, []),
    (["STAMP=1 make", 'echo "$STAMP"'], [], ["STAMP"], {"STAMP"}, ["STAMP"]),  # make's environment only
    (
        ['echo "$PAI_JOB_NAME $PAI_TASKINDEX"'],
        [],
        ["PAI_TASKINDEX"],
        {"PAI_JOB_NAME", "PAI_TASKINDEX"},
        ["PAI_TASKINDEX"],
    ),
    (['ls "$MNIST_DIR" "$OTHER"'], ["MNIST_DIR"], ["OTHER"], {"MNIST_DIR", "OTHER"}, ["OTHER"]),
    (['echo "$LATER"', "LATER=1"], [], ["LATER"], set(), []),  # ShellCheck does not read in order
    # ShellCheck judges a name by its first reference, and says nothing after a guarded one: prereq does
    (['echo "${PREFIX:-none}"', 'ls "$PREFIX"'], [], ["PREFIX"], set(), ["PREFIX"]),
    (['echo "${PREFIX:+set}"', 'ls "$PREFIX"'], [], ["PREFIX"], set(), ["PREFIX"]),
    (["# shellcheck disable=SC2154", 'echo "$MARKED"'], [], ["MARKED"], set(), []),
]


@needs_shellcheck
@pytest.mark.parametrize(("commands", "known", "reader", "shellcheck", "both"), AGREEMENT)
def test_prq170_reports_what_both_readers_say_nothing_sets(
    commands: list[str], known: list[str], reader: list[str], shellcheck: set[str], both: list[str]
) -> None:
    lint = shelllint.lint_scripts([shelllint.lint_script(commands).text])[0]
    assert lint.read and lint.unassigned == shellcheck
    assert used_variables(commands, known) == reader
    assert [use.name for use in undefined_uses(commands, known, unassigned=lint.unassigned)] == both


@needs_shellcheck
def test_a_variable_set_by_nothing_warns_at_its_first_plain_use_and_stays_suppressible(make_registry) -> None:
    block = '|\n        echo "${CONDA_PREFIX:-none}"\n        ls "$CONDA_PREFIX"'
    quiet = 'ls "$CONDA_PREFIX"/bin  # prereq: disable=PRQ170 -- the image activates its environment'
    root = make_registry(
        {
            "prerequisites/env.yaml": item("env", commands=(block,)),
            "prerequisites/quiet.yaml": item("quiet", commands=(quiet,)),
            "prerequisites/active.yaml": item("active", commands=("conda activate base", 'ls "$CONDA_PREFIX"')),
        }
    )
    result = validate(root)
    assert found(result) == {("PRQ170", "prerequisites/env.yaml", 11)}  # the block's second line
    assert [(s.problem.rule, s.problem.file) for s in result.suppressed] == [("PRQ170", "prerequisites/quiet.yaml")]


def test_without_shellcheck_prereqs_reader_decides_alone(make_registry, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shelllint, "shellcheck_binary", lambda: None)
    monkeypatch.setattr(shelllint, "_LINT", {})
    commands = ('test -n "$ALONE_CACHE" || ALONE_CACHE=/tmp/cache', 'mkdir -p "$ALONE_CACHE"')
    result = validate(make_registry({"prerequisites/alone.yaml": item("alone", commands=commands)}))
    assert found(result) == {("PRQ170", "prerequisites/alone.yaml", 9)}
