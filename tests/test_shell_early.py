"""ShellCheck reads while the registry loads (``EarlyLint``): the scripts an item's file alone tells are
handed over a batch at a time as the files are read; what only the whole registry tells (templates
filled from required items) follows with the checks.  No script is read twice, and the problems are
those of a run that hands everything over at once."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from check_helpers import FIXTURE_DIRS, item
from conftest import REPO
from prereq import cli
from prereq.core.files import Cache
from prereq.openpai import bashsyntax, shelllint
from prereq.registry import validate as validation
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
    shelllint.stop()  # what had started ends; nothing else starts, and nothing is left pending
    assert shelllint._PENDING == {}
    assert len([run for run in runs if "json1" in run]) < 100
    linted = shelllint.lint_scripts(scripts)
    assert [[issue.code for issue in lint.findings] for lint in linted] == [[2046]] * 200


def test_a_process_that_gives_no_reading_costs_its_neighbours_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """One script past the time allowed (or a signal) ends the process that was reading it with others:
    each is read again alone, so a script's reading never depends on what it was sent with."""
    real = shelllint._shellcheck

    def failing_together(binary: str, paths: dict[str, Path]) -> dict[str, shelllint.Lint] | None:
        return None if len(paths) > 1 else real(binary, paths)

    monkeypatch.setattr(shelllint, "_shellcheck", failing_together)
    monkeypatch.setattr(shelllint, "_LINT", {})
    scripts = [shelllint.lint_script([command]).text for command in ("echo $(date) neighbours", "echo fine")]
    linted = shelllint.lint_scripts(scripts)
    assert [[issue.code for issue in lint.findings] for lint in linted] == [[2046], []]
    assert all(lint.read for lint in linted)


def test_an_invalid_item_s_scripts_are_never_sent(
    make_registry: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No check reads an invalid item's commands: ShellCheck is not given them early either (a hostile
    one, nested a thousand deep, took it seconds)."""
    monkeypatch.setattr(EarlyLint, "BATCH", 1)
    monkeypatch.setenv("PREREQ_CACHE", "off")
    token = re.sub(r"\W", "_", tmp_path.name)
    invalid = item("bad", commands=(f"echo never-{token}",)).replace("title: bad item\n", "")
    root = make_registry(
        {"prerequisites/bad.yaml": invalid, "prerequisites/ok.yaml": item("ok", commands=(f"echo ok-{token}",))}
    )
    sent: list[str] = []
    real = shelllint._start_chunk

    def recorded(binary: str, texts: dict[str, str]) -> Any:
        sent.extend(texts.values())
        return real(binary, texts)

    monkeypatch.setattr(shelllint, "_start_chunk", recorded)
    assert [problem.rule for problem in validate(root).problems] == ["PRQ112"]
    assert sent and not [text for text in sent if f"never-{token}" in text]


def test_a_run_interrupted_while_it_keeps_the_readings_leaves_the_next_one_whole(
    make_registry: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    token = re.sub(r"\W", "_", tmp_path.name)
    files = {f"prerequisites/i{i}.yaml": item(f"i{i}", commands=(f"echo $(date) {token}{i}",)) for i in range(5)}
    root = make_registry(files)
    monkeypatch.setenv("PREREQ_CACHE", str(tmp_path / "cache"))
    real, kept = Cache.shelf, []

    def shelf(self: Cache, kind: str, **options: Any) -> Any:
        found = real(self, kind, **options)
        if kind == "shellcheck":
            put = found.put

            def interrupted(key: str, value: Any) -> None:
                kept.append(key)
                if len(kept) == 3:  # Ctrl-C while lint_scripts keeps what ShellCheck read
                    raise KeyboardInterrupt
                put(key, value)

            found.put = interrupted  # type: ignore[method-assign]
        return found

    monkeypatch.setattr(Cache, "shelf", shelf)
    with pytest.raises(KeyboardInterrupt):
        validate(root)
    monkeypatch.setattr(Cache, "shelf", real)
    assert [problem.rule for problem in validate(root).problems] == ["PRQ173"] * 5


def _isolated_temp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Where the checks' temporary folders go, for this test alone."""
    folder = tmp_path / "temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_no_folder_of_scripts_is_left_after_a_run_or_an_interrupted_one(
    make_registry: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    temp = _isolated_temp(monkeypatch, tmp_path)
    monkeypatch.setattr(EarlyLint, "BATCH", 1)
    monkeypatch.setenv("PREREQ_CACHE", "off")
    token = re.sub(r"\W", "_", tmp_path.name)
    root = make_registry({f"prerequisites/i{i}.yaml": item(f"i{i}", commands=(f"echo {token}{i}",)) for i in range(6)})
    assert validate(root).problems == []
    assert list(temp.iterdir()) == []
    monkeypatch.setattr(shelllint, "_LINT", {})

    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt  # Ctrl-C once the files are read, ShellCheck's chunks queued

    monkeypatch.setattr(validation, "validate_loaded", interrupted)
    with pytest.raises(KeyboardInterrupt):
        validate(root)
    assert list(temp.iterdir()) == [] and shelllint._PENDING == {}


def test_a_full_temporary_folder_is_said_so(
    make_registry: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _isolated_temp(monkeypatch, tmp_path)
    monkeypatch.setenv("PREREQ_CACHE", "off")
    root = make_registry({"prerequisites/one.yaml": item("one", commands=(f"echo full-{tmp_path.name}",))})

    def full(*_: Any, **__: Any) -> str:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(tempfile, "mkdtemp", full)
    monkeypatch.setattr(shelllint, "_LINT", {})
    monkeypatch.setattr(bashsyntax, "_SYNTAX", {})
    assert cli.main(["validate", str(root)]) == 2
    err = capsys.readouterr().err
    assert "prereq: error: cannot write the scripts to check to " in err and "No space left on device" in err
    assert "hint: free some space there, or set TMPDIR to a folder with room" in err


def test_a_script_not_read_is_read_again_by_the_next_run_of_the_process(
    make_registry: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PREREQ_CACHE", "off")
    token = re.sub(r"\W", "_", tmp_path.name)
    root = make_registry({"prerequisites/one.yaml": item("one", commands=(f"echo $(date) {token}",))})
    real = shelllint._shellcheck
    monkeypatch.setattr(shelllint, "_shellcheck", lambda binary, paths: None)  # past its time, or a signal
    assert validate(root).problems == []
    monkeypatch.setattr(shelllint, "_shellcheck", real)
    assert [problem.rule for problem in validate(root).problems] == ["PRQ173"]


def test_a_stopping_run_reads_no_chunk_again_script_by_script(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Ctrl-C ends the ShellCheck processes too: their chunks are not read again one script at a time,
    which the run, ending, would wait for."""
    calls: list[int] = []

    def ended(binary: str, paths: dict[str, Path]) -> None:
        calls.append(len(paths))

    monkeypatch.setattr(shelllint, "_shellcheck", ended)
    paths = {f"s{i}": tmp_path / f"s{i}.sh" for i in range(3)}
    shelllint._STOPPING.set()
    try:
        assert shelllint._read_chunk("shellcheck", paths) == {sha: shelllint.Lint() for sha in paths}
    finally:
        shelllint._STOPPING.clear()
    assert calls == [3]
    assert shelllint._read_chunk("shellcheck", paths) == {sha: shelllint.Lint() for sha in paths}
    assert calls == [3, 3, 1, 1, 1]  # not stopping: each alone


def test_a_process_has_as_long_whatever_its_number_of_scripts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A slow script read in a chunk of 2,000 would otherwise have had more time than alone: whether it
    is read would depend on its chunk."""
    token = re.sub(r"\W", "_", tmp_path.name)
    allowed: list[tuple[int, float]] = []
    real = subprocess.run

    def spied(command: list[str], **options: Any) -> Any:
        if "json1" in command:
            allowed.append((len([a for a in command if a.endswith(".sh")]), options["timeout"]))
        return real(command, **options)

    monkeypatch.setattr(shelllint.subprocess, "run", spied)
    monkeypatch.setattr(shelllint, "_LINT", {})
    shelllint.lint_scripts([shelllint.lint_script([f"echo {token}-{i}"]).text for i in range(150)])
    shelllint.lint_scripts([shelllint.lint_script([f"echo {token}-alone"]).text])
    assert sorted(allowed) == [(1, shelllint.LINT_SECONDS), (75, shelllint.LINT_SECONDS), (75, shelllint.LINT_SECONDS)]
