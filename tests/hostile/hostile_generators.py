"""The hostile fixtures too big to commit, built into a case's work folder: long require chains and
cycles, an alias bomb, a long version range, deeply nested commands and index files, huge files.

Each takes the work folder and the arguments its case.yaml gives under ``generate``."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from gitrepo import item_yaml

OWNERS = "users: [alice]\n"
BUILDING = threading.Lock()  # cases are set up side by side: one build at a time in this process


def _registry(work: Path, items: dict[str, str]) -> None:
    folder = work / "registry" / "prerequisites"
    folder.mkdir(parents=True, exist_ok=True)
    (work / "registry" / "owners.yaml").write_text(OWNERS, encoding="utf-8")
    for name, text in items.items():
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")


def chain(work: Path, *, length: int) -> None:
    """c0 requires c1, which requires c2, ... (once quadratic, then a RecursionError)."""
    _registry(
        work,
        {
            f"c{i}": item_yaml(f"c{i}", "1.0.0", require=[f"c{i + 1}"] if i + 1 < length else None)
            for i in range(length)
        },
    )


def cycle(work: Path, *, length: int) -> None:
    """c0 requires c1, ..., the last requires c0."""
    _registry(work, {f"c{i}": item_yaml(f"c{i}", "1.0.0", require=[f"c{(i + 1) % length}"]) for i in range(length)})


def alias_bomb(work: Path, *, chars: int, rows: int, per_row: int) -> None:
    """One long string repeated through aliases: a few hundred KB that expand to gigabytes of text."""
    text = item_yaml("bomb", "1.0.0", parameters={"long": f'&long "{"x" * chars}"'})
    text += "".join(f"      - [{', '.join(['*long'] * per_row)}]\n" for _ in range(rows))
    _registry(work, {"bomb": text})


def long_range(work: Path, *, chars: int) -> None:
    """A version range of ``chars`` characters (node-semver's parser once backtracked for seconds)."""
    ranged = "base@" + ("1.0.0 || " * (chars // 9)) + "1.0.0"
    _registry(work, {"ranged": item_yaml("ranged", "1.0.0", require=[ranged]), "base": item_yaml("base", "1.0.0")})


def nested_command(work: Path, *, opening: str, closing: str, depth: int) -> None:
    """A command nested ``depth`` levels deep (the shell reader once recursed once per level)."""
    command = "echo " + opening * depth + "x" + closing * depth
    _registry(work, {"nested": item_yaml("nested", "1.0.0", commands=[json.dumps(command)])})


def deep_index(work: Path, *, depth: int) -> None:
    """An index whose root file is ``depth`` nested lists (json.loads once raised RecursionError)."""
    api = work / "index" / "api" / "v1"
    api.mkdir(parents=True)
    (api / "index.json").write_text("[" * depth + "]" * depth, encoding="utf-8")


def tampered_index(work: Path, *, title: str) -> None:
    """An index built from a one-item registry, its title then swapped for ``title`` (terminal escapes)."""
    from prereq.marketplace.build import build

    _registry(work, {"alpha": item_yaml("alpha", "1.0.0")})
    with BUILDING:
        assert build(work / "registry", work / "index", with_site=False).built
    root = work / "index" / "api" / "v1" / "index.json"
    document = json.loads(root.read_text(encoding="utf-8"))
    document["items"][0]["title"] = title
    root.write_text(json.dumps(document), encoding="utf-8")


def huge_file(work: Path, *, size: int) -> None:
    """An item padded with a comment to ``size`` bytes, in lines of 100."""
    text = item_yaml("huge", "1.0.0")
    text += ("#" + "x" * 98 + "\n") * ((size - len(text)) // 100 + 1)
    _registry(work, {"huge": text})


def long_line(work: Path, *, chars: int) -> None:
    """An item whose description is one line of ``chars`` characters (line 5)."""
    _registry(work, {"long": item_yaml("long", "1.0.0").replace("owners:", f"description: {'x' * chars}\nowners:")})


def repository(work: Path) -> None:
    """A repository with a registry, a file and a folder of the user's own (``git: repo`` commits it)."""
    _registry(work / "repo", {"disk": item_yaml("disk", "1.0.0")})
    (work / "repo" / "notes.txt").write_text("my own notes\n", encoding="utf-8")
    (work / "repo" / "docs").mkdir()
    (work / "repo" / "docs" / "mine.md").write_text("a folder of the user's own\n", encoding="utf-8")
