"""Helpers for the execution catalog's tests (tests/test_execution_*.py): a small catalog written as a
registry, in the shape of the PRQ3xx fixtures, with the rows of issue 15's three users."""

from __future__ import annotations

from pathlib import Path

OWNERS = "users: [alice, bob, carol]\nteams:\n  default: [alice, bob, carol]\n  special: [bob]\n  super: [carol]\n"
IMAGE = (
    "name: base-image\nversion: 1.0.0\ntype: dockerimage\ntitle: Base image\nowners: [alice]\nuri: python:3.11-slim\n"
)
TOOL = """\
name: tool-setup
version: 1.0.0
type: script
title: Tool setup
owners: [alice]
callbacks:
  - event: taskStarts
    commands:
      - echo tool ready
"""


def environment(name: str = "py", version: str = "1.0.0", *, extra: str = "", image: str = "{item: base-image}") -> str:
    return (
        f"name: {name}\nversion: {version}\ntitle: Python\nos: {{name: debian, version: '12'}}\n"
        f"languages: [python]\npackages: {{python: '3.11.9'}}\n{extra}image: {image}\nowners: [alice]\n"
    )


def queue(name: str = "q1", *, envs: str = "[py@1.0.0]", per_machine: int = 2, total: int = 4, extra: str = "") -> str:
    return (
        f"name: {name}\ntitle: 3 hours/4G on Python\nmemory_mb: 4096\ntime_limit_minutes: 180\ncores_per_slot: 2\n"
        f"{extra}slots_per_machine: {per_machine}\ntotal_slots: {total}\nenvironments: {envs}\n"
        "virtual_cluster: default\nowners: [alice]\n"
    )


def library(
    name: str, *, envs: str = "[py@1.0.0]", depends: str = "[]", install: str = "{prerequisite: tool-setup}"
) -> str:
    return (
        f"name: {name}\nversion: 1.0.0\ntitle: Library {name}\nlanguage: python\nenvironments: {envs}\n"
        f"depends: {depends}\ninstall: {install}\nowners: [alice]\n"
    )


# Issue 15's rows: Q1 default 2 0, Q1 special 1 1, Q1 super 3 1.
RIGHTS = """\
rights:
  - {queue: q1, group: default, slots: 2, priority: 0}
  - {queue: q1, group: special, slots: 1, priority: 1}
  - {queue: q1, group: super, slots: 3, priority: 1}
"""


def write_catalog(root: Path, files: dict[str, str] | None = None) -> Path:
    """A registry at ``root`` with a valid catalog, ``files`` replacing or adding some of it."""
    every = {
        "owners.yaml": OWNERS,
        "prerequisites/base-image.yaml": IMAGE,
        "prerequisites/tool-setup.yaml": TOOL,
        "environments/py/1.0.0.yaml": environment(),
        "queues/q1.yaml": queue(),
        "rights.yaml": RIGHTS,
        **(files or {}),
    }
    for rel, text in every.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
