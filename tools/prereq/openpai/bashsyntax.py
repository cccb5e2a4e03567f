"""Scripts checked as the runtime's bash reads them: ``bash -n`` on exactly the file the cmd plugin writes
(``shelllint.runtime_script``), beside ShellCheck's reading of the item's own commands (``check_scripts``:
both, for the shell checks, PRQ172 and PRQ173); where a quote bash found unclosed opens (``unclosed_quote``).

``bash -n`` reads 200 scripts at a time, each the body of a function of its own (the ones ShellCheck
could read; one process each for the others and for a batch that fails), each script once per process
whatever the number of items that share it, and, given a ``Cache``, once for good under the identity
of the bash binary.

May import: the standard library, prereq.core, prereq.openpai.shelllint.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from prereq.core.files import NO_CACHE, Cache
from prereq.openpai.shelllint import (
    Lint,
    ShellIssue,
    issues_json,
    issues_of,
    lint_scripts,
    no_room,
    script_digest,
    temporary_folder,
    tool_identity,
)

_BASH_ERROR = re.compile(r"^[^:]*: line (\d+): (.*)$")
_OPEN_QUOTE = re.compile(r"unexpected EOF while looking for matching `(.)'")
BATCH = 200  # scripts per bash -n process
_SYNTAX: dict[str, list[ShellIssue]] = {}  # each script's verdict, once per process


def _bash_n(path: Path) -> list[ShellIssue]:
    run = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, errors="replace", check=False)
    if run.returncode == 0:
        return []
    issues = []
    for text in run.stderr.splitlines():
        match = _BASH_ERROR.match(text)
        if match:
            issues.append(ShellIssue(int(match[1]), 0, match[2]))
    if run.returncode < 0:  # bash's own parser ran out of stack: so would the runtime's bash
        return [ShellIssue(1, 0, f"bash crashed reading it (signal {-run.returncode}): is it nested too deep?")]
    return issues[:1] or [ShellIssue(1, 0, run.stderr.strip().split("\n")[0] or "bash cannot read it")]


def _batch_passes(folder: Path, texts: list[str]) -> bool:
    """``bash -n`` of many scripts at once, each the body of a function of its own, so that a construct
    one leaves open makes the whole batch fail.  Only scripts ShellCheck's parser read are batched:
    two broken scripts that close each other's quote would pass together, never one."""
    path = folder / f"batch-{hashlib.sha256(''.join(texts).encode()).hexdigest()[:20]}.sh"
    path.write_text("".join(f"prereq_check_{i}() {{\n{text}\n}}\n" for i, text in enumerate(texts)), "utf-8")
    return not _bash_n(path)


def _syntax(folder: Path, scripts: dict[str, str], trusted: set[str]) -> dict[str, list[ShellIssue]]:
    """bash's syntax errors of each script: batches of the ``trusted`` ones first, one process each for
    the others and for every script of a batch that failed."""
    batched = [sha for sha in scripts if sha in trusted]
    chunks = [batched[start : start + BATCH] for start in range(0, len(batched), BATCH)]
    found: dict[str, list[ShellIssue]] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        passed = pool.map(lambda chunk: _batch_passes(folder, [scripts[sha] for sha in chunk]), chunks)
        for chunk, ok in zip(chunks, passed, strict=True):
            found.update({sha: [] for sha in chunk} if ok else {})
        single = [sha for sha in scripts if sha not in found]
        paths = {sha: folder / f"{sha[:20]}.sh" for sha in single}
        for sha, path in paths.items():
            path.write_text(scripts[sha], encoding="utf-8")
        found.update(zip(single, pool.map(_bash_n, paths.values()), strict=True))
    return found


def check_scripts(
    pairs: Sequence[tuple[str, str]], *, cache: Cache = NO_CACHE
) -> tuple[list[list[ShellIssue]], list[Lint]]:
    """For each (script bash runs, script ShellCheck reads) pair: bash's syntax errors of the first,
    ShellCheck's reading of the second, in order (both kept in ``cache``)."""
    lints = lint_scripts([lint for _, lint in pairs], cache=cache)
    shelf = cache.shelf("bash-syntax", identity=tool_identity(shutil.which("bash") or "bash", BATCH))
    todo: dict[str, tuple[str, bool]] = {}
    for (run, _), lint in zip(pairs, lints, strict=True):
        sha = script_digest(run)
        if sha not in _SYNTAX and sha not in todo:
            kept = issues_of(shelf.get(sha))
            if kept is not None:
                _SYNTAX[sha] = list(kept)
            else:
                todo[sha] = (run, lint.read)
    if todo:
        folder = Path(temporary_folder("prereq-shell-"))
        try:
            trusted = {sha for sha, (_, read) in todo.items() if read}
            found = _syntax(folder, {sha: run for sha, (run, _) in todo.items()}, trusted)
        except OSError as exc:
            raise no_room(exc) from None
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        _SYNTAX.update(found)
        for sha, issues in found.items():
            shelf.put(sha, issues_json(issues))
    return [_SYNTAX[script_digest(run)] for run, _ in pairs], lints


def unclosed_quote(commands: Sequence[str], message: str) -> tuple[int, int, int] | None:
    """Where the quote bash's ``message`` says it found open at the end opens, in ``commands`` as the
    runtime's script holds them (one after the other, a line each): the command's index, the line
    within it and the column within that line (0-based); None for another error, or a quote the
    scanner (``_open_quote``) does not find open too (a here-document's, say)."""
    wanted = _OPEN_QUOTE.search(message)
    opened = _open_quote("\n".join(commands)) if wanted else None
    if wanted is None or opened is None or opened[1] != wanted[1]:
        return None
    offset = opened[0]
    for index, command in enumerate(commands):
        if offset <= len(command):
            line_start = command.rfind("\n", 0, offset) + 1
            return index, command.count("\n", 0, offset), offset - line_start
        offset -= len(command) + 1
    return None


def _open_quote(text: str) -> tuple[int, str] | None:
    """The offset of the innermost quote ``text`` leaves open at its end, and the quote bash names for
    it: ``'...'`` (nothing escapes), ``"..."`` and ``$'...'`` (a backslash escapes the next character;
    ``$(...)`` nests in the first), a backslash outside quotes, comments; prereq's templates
    (``<% ... %>``) are words."""
    stack: list[tuple[str, int]] = []  # what is open: a quote, or "(" inside a command substitution
    i = 0
    while i < len(text):
        c, top = text[i], stack[-1][0] if stack else ""
        if text.startswith("<%", i) and (end := text.find("%>", i)) >= 0:
            i = end + 1
        elif top == "'":
            if c == "'":
                stack.pop()
        elif c == "\\":
            i += 1  # escapes the next character, outside quotes and in the other two
        elif top in ('"', "$'"):
            if c == top[-1]:
                stack.pop()
            elif top == '"' and text.startswith("$(", i):
                stack.append(("(", i))
                i += 1
        elif c == "#" and (i == 0 or text[i - 1] in " \t\n;&|("):
            i = len(text) if (end := text.find("\n", i)) < 0 else end - 1
        elif text.startswith("$'", i) or c in "'\"" or (c == "(" and top == "("):
            i += c == "$"  # bash names the quote of ``$'``
            stack.append(("$'" if c == "$" else c, i))
        elif c == ")" and top == "(":
            stack.pop()
        i += 1
    quotes = [(offset, kind[-1]) for kind, offset in stack if kind != "("]
    return quotes[-1] if quotes else None
