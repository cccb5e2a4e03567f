"""What 'prereq validate' says of YAML it refuses (tabs, tags, nesting, alias bombs), and the exit
codes when its output cannot be written (a broken pipe, a full disk, a closed stdout)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_cli_validate import GOOD_ITEM, run


def _shell(folder: Path, command: str) -> subprocess.CompletedProcess[str]:
    """`prereq COMMAND` run by bash with pipefail in ``folder``, its output buffered as on most
    machines (PYTHONUNBUFFERED unset: a broken pipe then shows at Python's last flush)."""
    prereq = Path(sys.executable).with_name("prereq")
    return subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"'{prereq}' {command}"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env={key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"},
    )


@pytest.mark.parametrize(
    ("items", "then", "code"),
    [
        (400, "| head -1", 141),  # the pipe breaks while prereq prints
        (1, "| true", 141),  # it breaks at the last flush, which Python would do at exit
        (1, ">/dev/full", 2),  # nothing can be written: a clean error, not a bug
        (1, ">&-", 1),  # no output at all: what would go there goes nowhere, the exit code stays
    ],
)
def test_output_that_cannot_be_written_never_turns_failure_into_success(
    make_registry, tmp_path, items, then, code
) -> None:
    """`prereq validate | head -1` under `set -o pipefail`, and the other ways output is lost: the
    exit code says so (141 as for SIGPIPE, 2 for an unwritable output), never 0, never a traceback."""
    make_registry({f"prerequisites/bad-{i}.yaml": f"name: bad-{i}\nversion: x\n" for i in range(items)})
    done = _shell(tmp_path, f"validate registry {then}")
    assert done.returncode == code, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr and "Exception" not in done.stderr
    if then == ">/dev/full":
        assert done.stderr == "prereq: error: cannot write the output: No space left on device\n"
    elif then == "| head -1":
        assert done.stdout.count("\n") == 1 and "PRQ" in done.stdout and done.stderr == ""


@pytest.mark.parametrize(
    "text",
    [
        "name: tabbed\nversion: 1.0.0\ncallbacks:\n\t- event: taskStarts\n",  # libyaml: "cannot start any token"
        "name: tabbed\ncallbacks:\n  version: 1\n\tevent: x\n",  # libyaml names the tab itself
    ],
    ids=["cannot-start-a-token", "violates-indentation"],
)
def test_a_tab_in_indentation_is_named_in_the_hint(make_registry, capsys, text) -> None:
    root = make_registry({"prerequisites/tabbed.yaml": text})
    code, out, _ = run(capsys, str(root))
    assert code == 1
    assert "PRQ101" in out and "hint: indent with spaces: YAML does not allow a tab in indentation" in out


def test_a_yaml_tag_is_refused_where_it_is(make_registry, capsys) -> None:
    """prereq would read '!!int "12"' as a string and OpenPAI's rest-server as a number; '!custom' it refuses."""
    text = GOOD_ITEM.replace("title: A good item", "title: !!binary aGVsbG8=")
    root = make_registry({"prerequisites/good.yaml": text})
    code, out, _ = run(capsys, str(root))
    assert code == 1
    assert "good.yaml:4:8: PRQ101 error invalid YAML: YAML tags are not supported (!!binary)" in out
    assert "hint: write the value without its tag" in out


@pytest.mark.parametrize("depth", [150, 1100])  # prereq's own limit, and past libyaml's (1000)
def test_values_nested_too_deep_are_told_to_flatten(make_registry, capsys, depth) -> None:
    root = make_registry({"prerequisites/deep.yaml": "name: deep\na: " + "[" * depth + "]" * depth + "\n"})
    code, out, _ = run(capsys, str(root))
    assert code == 1 and "PRQ101" in out and "hint: flatten it: values nest at most 100 levels deep" in out


def test_an_alias_bomb_is_reported_at_the_key_whose_expansion_passes_the_limit(make_registry, capsys) -> None:
    lines = ["name: bomb", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    root = make_registry({"prerequisites/bomb.yaml": "\n".join(lines) + "\n"})
    code, out, _ = run(capsys, str(root))
    assert code == 1 and "bomb.yaml:6:1: PRQ101 error invalid YAML: the document expands to more than" in out


def test_the_tab_hint_counts_characters_not_bytes(make_registry, capsys) -> None:
    """libyaml's column counts characters: 'éé' before a character that is not a tab is no tab."""
    root = make_registry({"prerequisites/x.yaml": "name: x\ntags: [éé,\t `x]\n"})
    code, out, _ = run(capsys, str(root))
    assert code == 1 and "PRQ101" in out and "indent with spaces" not in out


@pytest.mark.parametrize(
    ("command", "code"),
    [
        ("--help >/dev/full", 2),  # argparse's own printing dropped the error: it ended with 0
        ("--version >/dev/full", 2),
        ("validate --help >/dev/full", 2),
        ("validate no-such-folder 2>/dev/full", 2),  # the error cannot be said: its code stays
        ("--version", 0),
    ],
)
def test_help_and_errors_that_cannot_be_written_keep_their_meaning(tmp_path, command, code) -> None:
    done = _shell(tmp_path, command)
    assert done.returncode == code, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and "Exception" not in done.stderr
