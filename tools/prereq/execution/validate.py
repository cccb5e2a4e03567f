"""The catalog's problems, and the registry's validation with them.

``registry.validate`` sits below this package and cannot call it, so the callers that validate a
whole registry (``prereq validate``, ``prereq build``) pass its result through ``with_catalog``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from prereq.core.errors import PrereqError
from prereq.execution import checks, checks_queues
from prereq.execution.load import LOAD_RULES, load_catalog
from prereq.execution.published import published_problems
from prereq.execution.records import Catalog
from prereq.registry.loader import Owners, SourceItem, load_registry
from prereq.registry.rules import Problem, Severity
from prereq.registry.validate import ValidationResult

CHECKS = (*checks.CHECKS, *checks_queues.CHECKS)
# Every rule this package reports (the loader's PRQ101-PRQ109 aside, which it reuses as they are).
EXECUTION_RULES = (*LOAD_RULES, *(rule for _, ids in CHECKS for rule in ids), "PRQ314")


@dataclass
class CatalogResult:
    catalog: Catalog
    problems: list[Problem]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]


def check_catalog(root: Path, *, owners: Owners, items: dict[str, SourceItem], history: bool = True) -> CatalogResult:
    """Load and check the catalog under the registry folder ``root``; ``history``: also PRQ314, which
    reads the git history."""
    catalog, problems = load_catalog(root)
    ctx = checks.CatalogContext(catalog=catalog, owners=owners, items=items)
    for run, ids in CHECKS:
        found = list(run(ctx))
        undeclared = sorted({p.rule for p in found} - set(ids))
        if undeclared:
            raise RuntimeError(f"{run.__name__} emitted {', '.join(undeclared)}, which it does not declare")
        problems += found
    if history:
        problems += published_problems(root, catalog)
    return CatalogResult(catalog=catalog, problems=sorted(set(problems), key=Problem.sort_key))


def with_catalog(result: ValidationResult, *, history: bool = True) -> ValidationResult:
    """``result`` (the registry's own validation) with the catalog's problems added."""
    found = check_catalog(result.root, owners=result.owners, items=result.items, history=history)
    if not found.problems:
        return result
    return replace(result, problems=sorted(set(result.problems) | set(found.problems), key=Problem.sort_key))


def open_catalog(root: Path) -> tuple[Catalog, Owners]:
    """The catalog of the registry folder ``root`` and its owners, for computing with: refused (exit 1)
    while it has errors, which ``prereq validate`` lists."""
    registry = load_registry(root)
    items: dict[str, SourceItem] = {}
    for item in registry.items:
        items.setdefault(item.name, item)
    checked = check_catalog(registry.root, owners=registry.owners, items=items, history=False)
    if checked.errors:
        first = checked.errors[0]
        raise PrereqError(
            f"the execution catalog of {root} has {len(checked.errors)} error(s), the first at {first.file}"
            f"{f':{first.line}' if first.line else ''}: {first.message}",
            hint=f"run 'prereq validate {root}' for all of them, with their fixes",
            exit_code=1,
        )
    if checked.catalog.empty:
        raise PrereqError(
            f"{root} has no execution catalog",
            hint="add queues/, environments/, libraries/ and rights.yaml to the registry ('prereq rules' lists PRQ3xx)",
        )
    return checked.catalog, registry.owners
