"""The catalog's problems, and the registry's validation with them.

``registry.validate`` sits below this package and cannot call it, so the callers that validate a
whole registry (``prereq validate``, ``prereq build``) pass its result through ``with_catalog``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from prereq.core.errors import PrereqError
from prereq.core.gitrepo import blob_id
from prereq.execution import catalog_checks, queue_checks
from prereq.execution.catalog_history import published_problems
from prereq.execution.catalog_records import Catalog
from prereq.execution.load import ENVIRONMENTS_DIR, LIBRARIES_DIR, LOAD_RULES, QUEUES_DIR, RIGHTS_FILE, load_catalog
from prereq.registry.history import history_problems
from prereq.registry.loader import Owners, SourceItem, load_registry
from prereq.registry.rules import Problem, Severity
from prereq.registry.validate import ValidationResult

CHECKS = (*catalog_checks.CHECKS, *queue_checks.CHECKS)
# Every rule this package reports (the loader's PRQ101-PRQ109 aside, which it reuses as they are).
EXECUTION_RULES = (*LOAD_RULES, *(rule for _, ids in CHECKS for rule in ids), "PRQ314")


@dataclass
class CatalogResult:
    catalog: Catalog
    problems: list[Problem]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]


def check_catalog(
    root: Path, *, owners: Owners, items: dict[str, SourceItem], history: bool = True, credentials: bool = False
) -> CatalogResult:
    """Load and check the catalog under the registry folder ``root``; ``history``: also PRQ314, which
    reads the git history; ``credentials``: also PRQ192 over the catalog's history (``prereq validate``
    asks for it, as for items; the build leaves such versions out instead)."""
    catalog, problems = load_catalog(root)
    ctx = catalog_checks.CatalogContext(catalog=catalog, owners=owners, items=items)
    for run, ids in CHECKS:
        found = list(run(ctx))
        undeclared = sorted({p.rule for p in found} - set(ids))
        if undeclared:
            raise RuntimeError(f"{run.__name__} emitted {', '.join(undeclared)}, which it does not declare")
        problems += found
    if history:
        problems += published_problems(root, catalog)
    if credentials:
        problems += history_credentials(root)
    return CatalogResult(catalog=catalog, problems=sorted(set(problems), key=Problem.sort_key))


def history_credentials(root: Path, *, rev: str = "HEAD") -> list[Problem]:
    """PRQ192 for every revision of a catalog file on the history of ``rev`` that held a credential, but
    the working tree's own (PRQ318 points at those)."""
    catalog_files = (ENVIRONMENTS_DIR, LIBRARIES_DIR, QUEUES_DIR, RIGHTS_FILE)
    current = dict(_current_blobs(root, catalog_files))
    return history_problems(root, current=current, folders=catalog_files, rev=rev)


def _current_blobs(root: Path, names: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """Each regular catalog file of the working tree by its path in the registry, with git's id of it;
    one that cannot be read is left out (the loader says why: PRQ107)."""
    for name in names:
        try:
            paths = [root / name] if name == RIGHTS_FILE else sorted((root / name).rglob("*.yaml"))
        except OSError:
            continue
        for path in paths:
            try:
                if not path.is_symlink() and path.is_file():
                    yield path.relative_to(root).as_posix(), blob_id(path.read_bytes())
            except OSError:
                continue


def with_catalog(result: ValidationResult, *, history: bool = True, credentials: bool = False) -> ValidationResult:
    """``result`` (the registry's own validation) with the catalog's problems added (``credentials``: as
    ``check_catalog``)."""
    found = check_catalog(
        result.root, owners=result.owners, items=result.items, history=history, credentials=credentials
    )
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
