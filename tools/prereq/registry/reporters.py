"""Problem reports, chosen by name: ``text``, ``json`` and ``github`` (workflow annotations).

Every reporter has one signature, ``(result, base) -> str``: the validation result
carries the problems, the item count and the registry root; ``base`` is where the paths
shown start: the current folder for text (so a terminal or an editor opens them), the
repository root for GitHub's annotations.  JSON paths stay relative to the registry.
Reporters only format: the CLI prints what they return.

May import: prereq.core, prereq.registry.rules and prereq.registry.validate.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from prereq.core.terminal import visible
from prereq.registry.rules import Problem, Severity
from prereq.registry.validate import ValidationResult

Reporter = Callable[[ValidationResult, Path], str]


def _position(problem: Problem, result: ValidationResult, base: Path) -> str:
    parts = [_shown_path(result.root / problem.file, base) if problem.file else "(registry)"]
    if problem.line is not None:
        parts.append(str(problem.line))
        if problem.column is not None:
            parts.append(str(problem.column))
    return ":".join(parts)


def summary(result: ValidationResult) -> str:
    """``N items checked: E errors, W warnings``."""
    items, errors, warnings = len(result.items), len(result.errors), len(result.warnings)
    return (
        f"{items} item{'s' * (items != 1)} checked: {errors} error{'s' * (errors != 1)}, "
        f"{warnings} warning{'s' * (warnings != 1)}"
    )


def _shown_path(path: Path, base: Path) -> str:
    try:
        return os.path.relpath(path, base)
    except ValueError:  # another drive (Windows): no relative path exists
        return str(path)


def report_text(result: ValidationResult, base: Path) -> str:
    """A line a problem (and one for its hint): what the registry wrote is shown, never obeyed."""
    lines = []
    for p in result.problems:
        lines.append(visible(f"{_position(p, result, base)}: {p.rule} {p.severity.value} {p.message}", keep=""))
        if p.hint:
            lines.append(visible(f"    hint: {p.hint}", keep=""))
    lines.append(summary(result))
    return "\n".join(lines)


def report_json(result: ValidationResult, base: Path) -> str:
    return json.dumps({"items": len(result.items), "problems": [p.as_dict() for p in result.problems]}, indent=2)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def report_github(result: ValidationResult, base: Path) -> str:
    """``::error file=...,line=...::message`` lines, paths relative to the repository, then the summary."""
    lines = []
    for p in result.problems:
        level = "error" if p.severity is Severity.ERROR else "warning"
        props = []
        if p.file:
            props.append("file=" + _escape_property(_shown_path(result.root / p.file, base)))
        if p.line is not None:
            props.append(f"line={p.line}")
        if p.column is not None:
            props.append(f"col={p.column}")
        props.append("title=" + _escape_property(p.rule))
        lines.append(f"::{level} {','.join(props)}::{_escape_data(p.message + ' (hint: ' + p.hint + ')')}")
    lines.append(summary(result))
    return "\n".join(lines)


REPORTERS: dict[str, Reporter] = {"text": report_text, "json": report_json, "github": report_github}


def report(result: ValidationResult, *, format: str = "text", base: Path | None = None) -> str:
    """The report of ``result`` in ``format`` (one of ``REPORTERS``), paths from ``base`` (default: the registry)."""
    return REPORTERS[format](result, base or result.root)
