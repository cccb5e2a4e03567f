"""The validator's library API: a registry folder in, items and problems out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from prereq.registry.checks import run_checks
from prereq.registry.history import history_problems
from prereq.registry.loader import LoadedRegistry, Owners, SourceItem, load_registry
from prereq.registry.rules import Problem, Severity


@dataclass
class ValidationResult:
    root: Path
    items: dict[str, SourceItem]
    owners: Owners
    problems: list[Problem]
    templates: list[SourceItem]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.WARNING]

    def failed(self, *, strict: bool = False) -> bool:
        return bool(self.errors or (strict and self.warnings))


def validate_loaded(registry: LoadedRegistry) -> ValidationResult:
    ctx, problems = run_checks(registry)
    return ValidationResult(
        root=registry.root, items=ctx.items, owners=registry.owners, problems=problems, templates=registry.templates
    )


def validate(root: Path, *, history: bool = False) -> ValidationResult:
    """Check every file under the registry folder ``root``; never raises for bad content.  With
    ``history``, also every revision in the git history around it (PRQ192): ``prereq validate`` asks
    for it, the build does not (it leaves such versions out instead of failing)."""
    result = validate_loaded(load_registry(root))
    if history:
        result.problems = sorted(set(result.problems) | set(history_problems(root)), key=Problem.sort_key)
    return result
