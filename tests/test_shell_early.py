"""ShellCheck reads while the registry loads (``EarlyLint``): the scripts an item's file alone tells are
handed over a batch at a time as the files are read; what only the whole registry tells (templates
filled from required items) follows with the checks.  No script is read twice, and the problems are
those of a run that hands everything over at once."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from check_helpers import FIXTURE_DIRS, item
from conftest import REPO
from prereq.openpai import shelllint
from prereq.registry.checks.commands import EarlyLint
from prereq.registry.validate import validate
from test_shell_checks import _counted_runs

pytestmark = pytest.mark.skipif(not shelllint.available(), reason="ShellCheck is not installed")


def test_the_first_batches_go_while_the_files_load_and_no_script_is_read_twice(
    make_registry: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(EarlyLint, "BATCH", 2)
    monkeypatch.setenv("PREREQ_CACHE", "off")
    token = re.sub(r"\W", "_", tmp_path.name)  # scripts no earlier test has linted
    files = {f"prerequisites/{n}.yaml": item(n, commands=(f"echo {n}-{token}",)) for n in ("a", "b", "c")}
    files["prerequisites/d.yaml"] = item(
        "d", head="parameters:\n  dir: /tmp\n", commands=(f"echo <% this.dir %>-{token}",)
    )
    root = make_registry(files)
    runs = _counted_runs(monkeypatch)
    said: list[str] = []
    assert validate(root, progress=said.append).problems == []
    assert said[0].endswith("; ShellCheck is reading 2 of their scripts")  # a and b: the first full batch
    # c (the last, partial batch) and d (its template filled from the registry) with the checks.
    assert "ShellCheck is reading 2 scripts beside the checks" in said
    read = [Path(arg).name for run in runs if "json1" in run for arg in run if arg.endswith(".sh")]
    assert len(read) == len(set(read)) == 4


@pytest.mark.parametrize(
    "fixture",
    [f for f in FIXTURE_DIRS if f.name.startswith(("PRQ15", "PRQ17", "PRQ18"))] + [REPO / "registry"],
    ids=lambda f: f.name,
)
def test_handing_scripts_over_early_changes_no_problem(fixture: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every script alone as the files load, against all of them with the checks (and a new process's
    readings each time: nothing known from the other run)."""
    monkeypatch.setenv("PREREQ_CACHE", "off")
    found = []
    for batch in (1, 10**9):
        monkeypatch.setattr(EarlyLint, "BATCH", batch)
        monkeypatch.setattr(shelllint, "_LINT", {})
        monkeypatch.setattr(shelllint, "_PENDING", {})
        found.append([problem.as_dict() for problem in validate(fixture).problems])
    assert found[0] == found[1]


def test_stop_drops_what_shellcheck_has_not_started_and_a_later_run_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """An interrupted validation does not wait for ShellCheck to read what nobody will look at; the
    scripts dropped are read again by whoever asks for them later."""
    monkeypatch.setattr(shelllint, "LINT_FILES", 2)
    monkeypatch.setattr(shelllint, "_LINT", {})
    monkeypatch.setattr(shelllint, "_PENDING", {})
    runs = _counted_runs(monkeypatch)
    scripts = [shelllint.lint_script([f"echo stop{i} $(date)"]).text for i in range(200)]
    assert shelllint.prefetch(scripts) == 200  # 100 processes of two scripts, two at a time
    shelllint.stop()
    reading = [future for future, _ in shelllint._PENDING.values()]
    assert not any(future.cancelled() for future in reading)
    for future in reading:  # what had started ends; nothing else starts
        future.result()
    assert len([run for run in runs if "json1" in run]) < 100
    linted = shelllint.lint_scripts(scripts)
    assert [[issue.code for issue in lint.findings] for lint in linted] == [[2046]] * 200
