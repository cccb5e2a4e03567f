"""What validation says while it runs: the library's phases, and ``--progress`` on stderr (by
default only when stderr is a terminal, so that pre-commit, CI logs and pipes stay as they were)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from check_helpers import item
from gitrepo import GitRepo, item_yaml
from prereq import cli
from prereq.openpai import shelllint
from prereq.registry.validate import validate

PREREQ = Path(sys.executable).with_name("prereq")  # the installed command
needs_shellcheck = pytest.mark.skipif(not shelllint.available(), reason="ShellCheck is not installed")


def _registry(make_registry: Callable[..., Path], tag: str) -> Path:
    # Commands no other test lints: ShellCheck's readings are kept per process, so these must be new.
    return make_registry({f"prerequisites/{n}.yaml": item(n, commands=(f"echo {n}-{tag}",)) for n in ("one", "two")})


@needs_shellcheck
def test_the_phases_of_a_cold_run_then_of_a_warm_one(
    make_registry: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = _registry(make_registry, tmp_path.name)
    monkeypatch.setenv("PREREQ_CACHE", str(tmp_path / "cache"))
    said: list[str] = []
    assert validate(root, progress=said.append).problems == []
    assert said[0].startswith("read 2 item files in ")
    assert said[1:] == [
        "checking 2 files",
        "ShellCheck is reading 2 scripts beside the checks (the cache keeps its readings)",
        "checking across items",
    ]
    # One file changed, its commands not: no script for ShellCheck; the other file as the cache kept it.
    path = root / "prerequisites" / "two.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("two item", "the second item"), encoding="utf-8")
    said.clear()
    validate(root, progress=said.append)
    assert said[1:] == ["checking 2 files, 1 new or changed since the cache's last run", "checking across items"]


@needs_shellcheck
def test_without_a_cache_nothing_promises_one(
    make_registry: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = _registry(make_registry, tmp_path.name)
    monkeypatch.setenv("PREREQ_CACHE", "off")
    said: list[str] = []
    validate(root, history=True, progress=said.append)
    assert "ShellCheck is reading 2 scripts beside the checks" in said
    assert said[-1] == "checking across items"  # outside a git repository there is no history to check


def test_progress_is_asked_for_or_refused_on_the_command_line(
    make_registry: Callable[..., Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = _registry(make_registry, tmp_path.name)
    assert cli.main(["validate", str(root), "--progress"]) == 0
    out, err = capsys.readouterr()
    assert out == "2 items checked: 0 errors, 0 warnings\n"  # the report alone on stdout
    lines = err.splitlines()
    assert lines[0].startswith("validate: read 2 item files in ") and lines[-1].startswith("validate: done in ")
    assert "validate: checking across items" in " ".join(lines)
    assert cli.main(["validate", str(root), "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
    assert "--no-progress" in _help(capsys)


def _help(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        cli.main(["validate", "--help"])
    return capsys.readouterr().out


def _on_a_terminal(*argv: str, cwd: Path) -> tuple[int, str]:
    """Run prereq with its stderr on a pseudo-terminal (stdout a pipe); its exit code and what the
    terminal showed."""
    leader, follower = pty.openpty()
    try:
        run = subprocess.run(
            [str(PREREQ), *argv],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=follower,
            stdin=subprocess.DEVNULL,
            timeout=120,
            check=False,
        )
        os.close(follower)
        follower = -1
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end is closed: all of it was read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(leader)
        if follower != -1:
            os.close(follower)
    return run.returncode, shown.decode("utf-8", "replace")


def test_a_terminal_sees_progress_unless_told_not_to(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/tools.yaml", item_yaml("tools", "1.0.0"))
    repo.commit("tools")
    code, shown = _on_a_terminal("validate", "registry", cwd=repo.root)
    assert code == 0, shown
    assert "validate: read 1 item file in " in shown and "validate: done in " in shown
    assert "validate: checking the git history for credentials" in shown
    code, shown = _on_a_terminal("validate", "registry", "--no-progress", cwd=repo.root)
    assert (code, shown) == (0, "")


def test_a_review_and_a_build_say_their_phases_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/tools.yaml", item_yaml("tools", "1.0.0"))
    repo.commit("tools")
    repo.git("branch", "base")
    repo.write("registry/prerequisites/tools.yaml", item_yaml("tools", "1.1.0"))
    repo.commit("bump")
    registry = str(repo.root / "registry")
    assert cli.main(["validate", registry, "--base", "base", "--author", "alice", "--progress"]) == 0
    err = capsys.readouterr().err
    assert "validate: reviewing the change against base\n" in err and err.rstrip().split("\n")[-1].startswith(
        "validate: done in "
    )
    assert cli.main(["build", "--registry", registry, "--out", str(tmp_path / "out"), "--no-site"]) == 0
    err = capsys.readouterr().err
    assert "build: validating the registry\nbuild: read 1 item file in " in err
