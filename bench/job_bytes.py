"""Bytes of the bundled job templates once resolved, and prereq's own lines in them (issue 29).

Builds the repository's registry (a copy, committed once in a scratch git repository) into a scratch
index, runs ``prereq job resolve`` on every template in ``registry/templates/`` and prints, per template:
the resolved job's bytes, its cmd prerequisites, prereq's lines (one per callback and per task role) and
their share, then the bytes per prerequisite.  Run it on two commits to compare.

    .venv/bin/python bench/job_bytes.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
PREREQ = [sys.executable, "-m", "prereq"]
MARK = "# prereq: load variables exported by prerequisites"


def _index(scratch: Path) -> Path:
    registry = scratch / "registry"
    shutil.copytree(REPO / "registry", registry)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org"]
    subprocess.run([*git, "init", "-q"], cwd=registry, check=True)
    subprocess.run([*git, "add", "-A"], cwd=registry, check=True)
    subprocess.run([*git, "commit", "-qm", "bench"], cwd=registry, check=True)
    out = scratch / "out"
    subprocess.run([*PREREQ, "build", "--registry", str(registry), "--out", str(out), "--no-site", "-q"], check=True)
    return out


def _own_lines(job: dict) -> list[str]:
    """prereq's lines: the first command of every cmd callback, and each task role's load line."""
    lines = [cb["commands"][0] for e in job["prerequisites"] for cb in e.get("callbacks") or [] if cb.get("commands")]
    lines += [c for r in job["taskRoles"].values() for c in r.get("commands") or [] if isinstance(c, str) and MARK in c]
    return lines


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="prereq-job-bytes-") as folder:
        index = _index(Path(folder))
        total = items = 0
        for template in sorted((REPO / "registry" / "templates").glob("*.yaml")):
            resolve = [*PREREQ, "job", "resolve", "--index", str(index), str(template)]
            text = subprocess.run(resolve, capture_output=True, text=True, check=True).stdout
            job = yaml.safe_load(text)
            cmd = [e for e in job["prerequisites"] if e.get("callbacks")]
            own = sum(len(line) for line in _own_lines(job))
            size = len(text.encode())
            total, items = total + size, items + len(cmd)
            print(
                f"{template.stem}: {size} B, {len(cmd)} cmd prerequisites, prereq's lines {own} B "
                f"({own / size:.0%}), {size / max(len(cmd), 1):.0f} B per prerequisite"
            )
        print(f"all templates: {total} B, {items} cmd prerequisites, {total / max(items, 1):.0f} B per prerequisite")
    return 0


if __name__ == "__main__":
    sys.exit(main())
