"""The commit-msg hook of .pre-commit-config.yaml (scripts/commit_msg.py), installed by pre-commit into a
real repository: git takes a commit whose subject fits `git log --oneline` and refuses a longer one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from gitrepo import ENV, GitRepo

REPO = Path(__file__).resolve().parents[1]
GOOD = "Say who stays on an older version in validate\n\nThe review said it for every item it judged.\n"


def _hooked(tmp_path: Path) -> tuple[GitRepo, dict[str, str]]:
    """A repository holding this one's pre-commit configuration and hook, with the hook installed."""
    repo = GitRepo(tmp_path / "repo")
    shutil.copy(REPO / ".pre-commit-config.yaml", repo.root)
    (repo.root / "scripts").mkdir()
    shutil.copy2(REPO / "scripts" / "commit_msg.py", repo.root / "scripts")
    env = {**os.environ, **ENV, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit")}
    install = [sys.executable, "-m", "pre_commit", "install"]  # the configuration names the hook type
    subprocess.run(install, cwd=repo.root, env=env, check=True, capture_output=True, timeout=120)
    return repo, env


def _commit(repo: GitRepo, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    (repo.root / "notes.txt").write_text(message, encoding="utf-8")  # each commit changes something
    repo.git("add", "-A")
    commit = ["git", "commit", "-q", "-m", message]
    # git passes a hook's output on to its own standard error
    return subprocess.run(
        commit, cwd=repo.root, env=env, stderr=subprocess.STDOUT, stdout=subprocess.PIPE, text=True, timeout=120
    )


def test_the_hook_takes_a_short_subject_and_refuses_a_long_one(tmp_path: Path) -> None:
    repo, env = _hooked(tmp_path)
    good = _commit(repo, env, GOOD)
    assert good.returncode == 0, good.stdout
    long = "Say who stays on an older version in validate, not in every review of every item"
    bad = _commit(repo, env, f"{long}\n\nWhy.\n")
    assert bad.returncode != 0
    assert f".git/COMMIT_EDITMSG:1: the commit's subject is {len(long)} characters; at most 72" in bad.stdout, (
        bad.stdout
    )
    assert repo.git("log", "--format=%s").splitlines() == [GOOD.splitlines()[0]]
    edge = "Fit " + "x" * 68  # 72 characters: the limit itself is fine
    assert _commit(repo, env, edge).returncode == 0
    assert _commit(repo, env, edge + "s").returncode != 0


def test_a_subject_wrapped_without_a_blank_line_counts_whole(tmp_path: Path) -> None:
    """Git shows a first paragraph as one subject: the hook counts what git shows, and says why."""
    repo, env = _hooked(tmp_path)
    wrapped = "Say who stays on an older version in validate,\nnot in every review of every item\n\nWhy.\n"
    bad = _commit(repo, env, wrapped)
    assert bad.returncode != 0
    assert "hint: git reads lines 1-2 as one subject" in bad.stdout, bad.stdout
    repo.git("commit", "-q", "--no-verify", "-m", wrapped)  # what git makes of it, had the hook let it in
    assert repo.git("log", "-1", "--format=%s").strip() == " ".join(wrapped.split("\n\n")[0].splitlines())
    fixup = _commit(repo, env, f"fixup! {'x' * 72}\n")  # autosquash drops the prefix: not counted
    assert fixup.returncode == 0, fixup.stdout
