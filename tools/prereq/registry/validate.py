"""The validator's library API: a registry folder in, items and problems out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from prereq.registry import suppress
from prereq.registry.checks import CHECKS, run_checks
from prereq.registry.history import HISTORY_RULES, cleared_lines, history_problems
from prereq.registry.loader import LOADER_RULES, LoadedRegistry, Owners, SourceItem, load_registry
from prereq.registry.rules import Problem, Severity


@dataclass
class ValidationResult:
    root: Path
    items: dict[str, SourceItem]
    owners: Owners
    problems: list[Problem]
    templates: list[SourceItem]
    suppressed: list[suppress.Suppressed] = field(default_factory=list)  # shown, not counted

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.WARNING]

    def failed(self, *, strict: bool = False) -> bool:
        return bool(self.errors or (strict and self.warnings))


def validate_loaded(registry: LoadedRegistry, *, history: bool = False) -> ValidationResult:
    """Every check (and with ``history`` the git history's credentials, PRQ192), suppressions applied."""
    ctx, problems = run_checks(registry)
    # A suppression is judged unused only for the rules this run checks (not the review's, nor the
    # history's without ``history``).
    judged = {rule for check in CHECKS for rule in check.ids} | set(LOADER_RULES)
    judged |= set(HISTORY_RULES) if history else set()
    sources = [*registry.items, *registry.templates]
    if history:  # the history skips what today's files suppress PRQ190 on, as the build publishes it
        _, first = suppress.apply(registry.root, sources, problems, judged=judged)
        problems = problems + history_problems(registry.root, cleared=cleared_lines(ctx.items, first))
    kept, suppressed = suppress.apply(registry.root, sources, problems, judged=judged)
    return ValidationResult(
        root=registry.root,
        items=ctx.items,
        owners=registry.owners,
        problems=kept,
        templates=registry.templates,
        suppressed=suppressed,
    )


def validate(root: Path, *, history: bool = False) -> ValidationResult:
    """Check every file under the registry folder ``root``; never raises for bad content.  With
    ``history``, also every revision in the git history around it (PRQ192): ``prereq validate`` asks
    for it, the build does not (it leaves such versions out instead of failing)."""
    return validate_loaded(load_registry(root), history=history)
