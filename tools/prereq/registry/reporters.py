"""Problem reports as text, JSON or GitHub workflow annotations (pure functions)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from prereq.registry.rules import Problem

FORMATS = ("text", "json", "github")


def _position(problem: Problem) -> str:
    parts = [problem.file or "(registry)"]
    if problem.line is not None:
        parts.append(str(problem.line))
        if problem.column is not None:
            parts.append(str(problem.column))
    return ":".join(parts)


def as_text(problems: list[Problem], *, item_count: int) -> str:
    lines = []
    for p in problems:
        lines.append(f"{_position(p)}: {p.rule} {p.severity.value} {p.message}")
        if p.hint:
            lines.append(f"    hint: {p.hint}")
    errors = sum(p.severity.value == "error" for p in problems)
    warnings = len(problems) - errors
    lines.append(f"{item_count} items checked: {errors} error{'s' * (errors != 1)}, "
                 f"{warnings} warning{'s' * (warnings != 1)}")
    return "\n".join(lines)


def as_json(problems: list[Problem], *, item_count: int) -> str:
    return json.dumps({"items": item_count, "problems": [p.as_dict() for p in problems]}, indent=2)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def as_github(problems: list[Problem], *, registry_root: Path, repo_root: Path) -> str:
    """``::error file=...,line=...::message`` lines, paths relative to the repository."""
    lines = []
    for p in problems:
        level = "error" if p.severity.value == "error" else "warning"
        props = []
        if p.file:
            props.append("file=" + _escape_property(os.path.relpath(registry_root / p.file, repo_root)))
        if p.line is not None:
            props.append(f"line={p.line}")
        if p.column is not None:
            props.append(f"col={p.column}")
        props.append("title=" + _escape_property(p.rule))
        lines.append(f"::{level} {','.join(props)}::{_escape_data(p.message + ' (hint: ' + p.hint + ')')}")
    return "\n".join(lines)
