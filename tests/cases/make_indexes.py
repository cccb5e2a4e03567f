"""Build the committed index fixtures of the case corpus (``indexes/<name>/api/v1``).

Each registry under ``registries/<source>/`` is a row of commit folders
(``01-first-versions``, ``02-...``), applied in order on top of each other in a
fresh git repository with fixed names and dates, so the index gets several
versions of an item from history and every build gives the same bytes.

    python tests/cases/make_indexes.py          # rewrite indexes/
    python tests/cases/make_indexes.py --check  # exit 1, naming a file, when a fresh build differs
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

CASES = Path(__file__).resolve().parent
REGISTRIES = CASES / "registries"
INDEXES = CASES / "indexes"

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Case Corpus",
    "GIT_AUTHOR_EMAIL": "cases@example.com",
    "GIT_COMMITTER_NAME": "Case Corpus",
    "GIT_COMMITTER_EMAIL": "cases@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "HOME": os.devnull,
    "TZ": "UTC",
    "LC_ALL": "C",
}


@dataclass(frozen=True)
class Fixture:
    """One index folder: ``source``'s registry as of its first ``commits`` commits."""

    name: str
    source: str
    commits: int


FIXTURES = (
    Fixture("tiny-old", "tiny", 1),
    Fixture("tiny", "tiny", 3),
    Fixture("story", "story", 2),
    Fixture("needs", "needs", 1),
    Fixture("solver", "solver", 2),
    Fixture("rights", "rights", 1),
)


def commit_folders(source: str) -> list[Path]:
    return sorted(path for path in (REGISTRIES / source).iterdir() if path.is_dir())


def commit_date(position: int) -> str:
    """Commit ``position`` (1, 2, ...) is dated the ``position``-th of January 2026, midnight UTC."""
    return f"2026-01-{position:02d}T00:00:00+00:00"


def git(repo: Path, *args: str, date: str | None = None) -> None:
    env = {**os.environ, **GIT_ENV}
    if date:
        env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def overlay(folder: Path, registry: Path) -> None:
    """Write every file of ``folder`` over ``registry`` (new files, new timestamps)."""
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            target = registry / path.relative_to(folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())


def make_repo(root: Path, fixture: Fixture) -> Path:
    """A git repository whose ``registry/`` went through ``fixture``'s commits; returns the registry."""
    registry = root / "registry"
    registry.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    folders = commit_folders(fixture.source)[: fixture.commits]
    if len(folders) < fixture.commits:
        raise SystemExit(f"registries/{fixture.source} has {len(folders)} commits, not {fixture.commits}")
    for position, folder in enumerate(folders, start=1):
        overlay(folder, registry)
        (root / ".git" / "index").unlink(missing_ok=True)  # staged from the files' content, never their stat
        git(root, "add", "-A")
        message = folder.name.split("-", 1)[-1].replace("-", " ")
        git(root, "commit", "-q", "-m", message, date=commit_date(position))
    return registry


def build_fixture(fixture: Fixture, out: Path) -> None:
    from prereq.marketplace.build import build

    with tempfile.TemporaryDirectory(prefix=f"prereq-cases-{fixture.name}-") as folder:
        registry = make_repo(Path(folder) / "repo", fixture)
        result = build(registry, Path(folder) / "out", with_site=False)
        if not result.built:
            errors = [str(problem) for problem in result.problems if problem.severity == "error"]
            raise SystemExit(f"registries/{fixture.source} does not build:\n" + "\n".join(errors))
        if result.warnings:
            raise SystemExit(f"registries/{fixture.source} builds with warnings:\n" + "\n".join(result.warnings))
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(result.out, out)


def build_indexes(out_dir: Path) -> None:
    """Build every fixture into ``out_dir/<name>/``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for fixture in FIXTURES:
        build_fixture(fixture, out_dir / fixture.name)


def files_under(folder: Path) -> set[str]:
    return {path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()}


def first_difference(expected: Path, actual: Path) -> str | None:
    """The first file (relative to the two folders) that only one has or that differs; None when equal."""
    left, right = files_under(expected), files_under(actual)
    for rel in sorted(left | right):
        if rel not in left or rel not in right:
            return rel
        if not filecmp.cmp(expected / rel, actual / rel, shallow=False):
            return rel
    return None


def check(committed: Path) -> str | None:
    """The first committed index file a fresh build would change, or None."""
    with tempfile.TemporaryDirectory(prefix="prereq-cases-check-") as folder:
        fresh = Path(folder) / "indexes"
        build_indexes(fresh)
        return first_difference(committed, fresh)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare a fresh build with the committed indexes")
    args = parser.parse_args(argv)
    if args.check:
        differing = check(INDEXES)
        if differing:
            print(f"indexes/{differing} differs from a fresh build; run make_indexes.py", file=sys.stderr)
            return 1
        print("indexes are up to date")
        return 0
    fresh = Path(tempfile.mkdtemp(prefix="prereq-cases-indexes-", dir=CASES))
    try:
        build_indexes(fresh)
        if INDEXES.exists():
            shutil.rmtree(INDEXES)
        fresh.rename(INDEXES)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    print(f"wrote {', '.join(f'indexes/{f.name}' for f in FIXTURES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
