"""Runs one hostile case: sets up its folder, runs prereq on it as a user would (a subprocess, its time
and peak memory measured by ``wait4``), and says what happened and what changed.

A case is a folder under ``cases/`` holding ``case.yaml`` and the files it starts from (copied into
a fresh work folder).  ``case.yaml`` says:

    class, what          the class of hostile input (issue 10's headings) and the case in a line
    argv                 prereq's arguments; {work}, {indexes}, {drip} and each NAME of
                         repeat ({NAME: [text, times]}: a long argument) are filled in
    cwd                  where to run, relative to the work folder (default: the work folder)
    exit                 the expected exit code (never 3: that is a bug in prereq)
    problems             [{rule, file, line}] validate must print: exactly these (text output)
    stdout, stderr       substrings the output must hold; absent: substrings it must not hold
    changes              globs of what may change in the work folder ('x/**' is x and all below it)
    created, gone        paths that must exist afterwards, and paths that must not
    modes                {path: octal mode} paths must have afterwards
    intact               an earlier build's folder that must still be whole and readable

and how to set it up, in this order: generate (a function of hostile_generators and its arguments:
big fixtures are built, never committed), git (a folder to commit as a repository), mkdocs ({old:
new}: the site's sources, and mkdocs.yml with these replacements), previous_build ({registry, out}:
a build made before the run), write ({path: text}), fifos [paths], links {path: target}; and how to
run: umask (octal), patch ({module.NAME: value} set before the CLI starts, to shorten a deadline),
tty (on a terminal, to see what reaches one).  {drip} is an HTTP index that sends a byte every 0.2 s.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import pty
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hostile_generators
import yaml

from gitrepo import GitRepo

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
REPO = HERE.parents[1]
INDEXES = REPO / "tests" / "cases" / "indexes"
PREREQ = Path(sys.executable).with_name("prereq")
PATCHED = [sys.executable, str(HERE / "run_patched.py")]  # the CLI with module constants set first


@dataclass
class Case:
    name: str
    folder: Path
    spec: dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.spec[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.spec.get(key, default)


def load_cases() -> list[Case]:
    folders = sorted(p for p in CASES.iterdir() if (p / "case.yaml").is_file())
    return [Case(p.name, p, yaml.safe_load((p / "case.yaml").read_text(encoding="utf-8"))) for p in folders]


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    seconds: float
    peak_rss_kb: int
    hung: bool = False


# --- setting up ----------------------------------------------------------------------------------


def set_up(case: Case, work: Path) -> None:
    shutil.copytree(case.folder, work, ignore=shutil.ignore_patterns("case.yaml"), dirs_exist_ok=True)
    if case.get("generate"):
        spec = dict(case["generate"])
        getattr(hostile_generators, spec.pop("kind"))(work, **spec)
    if case.get("git"):
        repo = GitRepo(work / case["git"])
        repo.commit("the case's files")
    if case.get("mkdocs"):  # the site's sources, and a configuration changed by these replacements
        shutil.copytree(REPO / "site", work / "site")
        config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
        for old, new in case["mkdocs"].items():
            assert old in config, old
            config = config.replace(old, new)
        (work / "mkdocs.yml").write_text(config, encoding="utf-8")
    if case.get("previous_build"):
        from prereq.marketplace.build import build

        spec = case["previous_build"]
        with hostile_generators.BUILDING:
            assert build(work / spec["registry"], work / spec["out"], with_site=False).built
    for rel, text in (case.get("write") or {}).items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text, encoding="utf-8")
    for rel in case.get("fifos") or []:
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(work / rel)
    for rel, target in (case.get("links") or {}).items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target.format(work=work), work / rel)


# --- what changed ---------------------------------------------------------------------------------


def snapshot(root: Path) -> dict[str, tuple[Any, ...]]:
    """Every entry under ``root``, never following a link nor opening anything but regular files."""
    found: dict[str, tuple[Any, ...]] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            info = path.lstat()
            rel = path.relative_to(root).as_posix()
            if stat.S_ISREG(info.st_mode):
                found[rel] = ("file", stat.S_IMODE(info.st_mode), hashlib.sha256(path.read_bytes()).hexdigest())
            elif stat.S_ISDIR(info.st_mode):
                found[rel] = ("folder", stat.S_IMODE(info.st_mode))
            elif stat.S_ISLNK(info.st_mode):
                found[rel] = ("link", os.readlink(path))
            else:
                found[rel] = ("special", stat.S_IFMT(info.st_mode))
    return found


def changed(before: dict[str, tuple[Any, ...]], after: dict[str, tuple[Any, ...]]) -> list[str]:
    return sorted(rel for rel in set(before) | set(after) if before.get(rel) != after.get(rel))


def allowed(rel: str, globs: list[str]) -> bool:
    return any(
        fnmatch.fnmatchcase(rel, glob) or (glob.endswith("/**") and (rel == glob[:-3] or rel.startswith(glob[:-2])))
        for glob in globs
    )


# --- running ------------------------------------------------------------------------------------


def _drain(fd: int, into: list[bytes]) -> None:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the terminal's other end is closed
            return
        if not chunk:
            return
        into.append(chunk)


def run_prereq(argv: list[str], *, cwd: Path, env: dict[str, str], timeout: float, **options: Any) -> Run:
    """Run prereq, measuring its own time and peak memory (``wait4``: this child only, not the
    largest of every child this session); killed after ``timeout`` seconds (``hung``)."""
    command = (PATCHED if options.get("patch") else [str(PREREQ)]) + argv
    if options.get("patch"):
        env = {**env, "PREREQ_HOSTILE_PATCH": json.dumps(options["patch"])}
    umask = int(str(options["umask"]), 8) if options.get("umask") is not None else -1
    terminal = pty.openpty() if options.get("tty") else None
    output: list[bytes] = []
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=terminal[1] if terminal else out,
            stderr=terminal[1] if terminal else err,
            umask=umask,
        )
        reader = None
        if terminal:
            os.close(terminal[1])
            reader = threading.Thread(target=_drain, args=(terminal[0], output), daemon=True)
            reader.start()
        hung = False
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > timeout:
                process.kill()
                pid, status, usage = os.wait4(process.pid, 0)
                hung = True
                break
            time.sleep(0.005)
        seconds = time.monotonic() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if reader is not None and terminal is not None:
            reader.join(timeout=5)
            os.close(terminal[0])
        out.seek(0)
        err.seek(0)
        stdout = b"".join(output) if terminal else out.read()
        stderr = b"" if terminal else err.read()
    decode = lambda raw: raw.decode("utf-8", "replace")  # noqa: E731
    return Run(process.returncode, decode(stdout), decode(stderr), seconds, usage.ru_maxrss, hung)
