"""The quoting corpus against the Python engine: cases.json is what quoting_corpus.py makes today
(tests/js/quoting.test.js holds the composer's fillCommand to the same file), it reaches every
context a value can be left in, bash runs no part of a hostile value filled in without a warning,
and a value quoted as a word reaches the command as written."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from quoting_corpus import CASES, cases, outcome

FILE = json.loads(CASES.read_text(encoding="utf-8"))["cases"]


def test_the_file_is_what_the_python_engine_gives_now() -> None:
    assert cases() == FILE, "run tests/cases/quoting/regen.py"


@pytest.mark.parametrize("case", FILE, ids=lambda case: f"{case['command'][:30]!r}-{case['values']['v'][:12]!r}")
def test_quoting_case(case: dict) -> None:
    assert outcome(case["command"], case["values"]) == case["expect"]


def test_the_corpus_reaches_every_way_a_value_is_filled_in() -> None:
    left = {context for case in FILE for _, context in case["expect"]["unquoted"]}
    assert left == {"single", "other"}


SILENT = [case for case in FILE if not case["expect"]["unquoted"] and "PWNED" in case["values"]["v"]]


def test_every_silent_fill_of_a_hostile_value_is_run_by_bash_below() -> None:
    assert len(SILENT) > 50


@pytest.mark.parametrize("case", SILENT, ids=lambda case: f"{case['command'][:30]!r}-{case['values']['v'][:16]!r}")
def test_a_value_filled_without_a_warning_is_never_run(tmp_path: Path, case: dict) -> None:
    """Where prereq gives no warning, bash runs no part of the value, whatever the command does with it."""
    subprocess.run(
        ["bash", "-c", case["expect"]["filled"]],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=10,
        check=False,
    )
    assert not (tmp_path / "PWNED").exists(), case["expect"]["filled"]


SHAPES = [  # a command, and what bash prints for the value v filled into it
    ("printf %s <% expression.v %>", lambda v: v),
    ("cat <<< x\nprintf %s <% expression.v %>", lambda v: "x\n" + v),  # a here-string is no here-document
]


@pytest.mark.parametrize(("command", "printed"), SHAPES)
@pytest.mark.parametrize("value", ["bob; touch PWNED #", "$(touch PWNED)", "it's", "two\nlines"])
def test_a_value_quoted_as_a_word_reaches_the_command_as_written(
    tmp_path: Path, command: str, printed: Callable[[str], str], value: str
) -> None:
    (case,) = [c for c in FILE if c["command"] == command and c["values"]["v"] == value]
    assert case["expect"]["unquoted"] == []
    run = subprocess.run(["bash", "-c", case["expect"]["filled"]], cwd=tmp_path, capture_output=True, text=True)
    assert (run.returncode, run.stdout) == (0, printed(value))
    assert not (tmp_path / "PWNED").exists()
