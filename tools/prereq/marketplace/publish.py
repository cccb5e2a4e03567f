"""``prereq build``: validate, write the index, build the site, swap into place.

Everything is written to a temporary folder beside the output and moved into
place only when complete, so a failed build leaves the previous output as it was
(``core.files`` says which folders a build may replace).

May import: prereq.core, prereq.registry, prereq.index, prereq.execution and the rest of prereq.marketplace.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from prereq.core import files
from prereq.core.errors import PrereqError
from prereq.core.gitrepo import Repository
from prereq.execution.publish import write_catalog_index
from prereq.execution.validate import with_catalog
from prereq.index.builder import IndexBuild, build_index, write_index
from prereq.registry.rules import Problem
from prereq.registry.settings import Settings, load_settings
from prereq.registry.validate import ValidationResult, validate

Progress = Callable[[str], None]


@dataclass
class BuildResult:
    out: Path
    validation: ValidationResult  # the registry's problems, whether or not anything was published
    index: IndexBuild | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[Problem]:
        return self.validation.problems

    @property
    def built(self) -> bool:
        return self.index is not None


def build(
    registry: Path,
    out: Path,
    *,
    with_site: bool = True,
    allow_shallow: bool = False,
    settings: Settings | None = None,
    progress: Progress = lambda _: None,
) -> BuildResult:
    """Validate ``registry`` and publish it under ``out``; nothing is written when it has errors.

    A shallow clone is refused (the index would lack every version published before its first
    commit) unless ``allow_shallow``, which then warns what is missing."""
    progress("validating the registry")
    result = with_catalog(validate(registry))  # the execution catalog's problems stop a build too
    if result.errors:
        return BuildResult(out=out, validation=result)
    repo = Repository.find(result.root)
    shallow = _shallow(repo, allow=allow_shallow)
    settings = settings or load_settings(result.root)
    out = Path(os.path.abspath(out))
    files.check_output_folder(
        out, protected=[result.root, Path.cwd(), *([repo.root] if repo else [])], registry=result.root
    )
    progress(f"indexing {len(result.items)} items and their history")
    index = build_index(result, repo=repo)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        files.clean_leftovers(out)
        staging = files.staging_folder(out)
    except OSError as exc:
        raise PrereqError(
            f"cannot write the output folder {out}: {exc.strerror}", hint="pass --out with a folder you can write"
        ) from None
    site_warnings: list[str] = []
    catalog_warnings: list[str] = []
    try:
        write_index(index, staging)
        catalog_warnings = write_catalog_index(result.root, staging)  # api/v1/execution/, for a catalog
        if with_site:
            build_site = _site_builder()
            progress("building the marketplace site")
            site_warnings = build_site(
                index_dir=staging, registry=result.root, out=staging, settings=settings, progress=progress
            )
        files.publish_folder(staging, out)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise files.cannot_write(out, exc) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shallow_warnings = [_shallow_warning(index)] if shallow else []
    return BuildResult(
        out=out,
        validation=result,
        index=index,
        warnings=[*shallow_warnings, *index.warnings, *catalog_warnings, *(f"site: {w}" for w in site_warnings)],
    )


def _shallow(repo: Repository | None, *, allow: bool) -> bool:
    """Whether ``repo`` is a shallow clone; an error unless ``allow``."""
    if repo is None or not repo.is_shallow():
        return False
    if not allow:
        raise PrereqError(
            f"{repo.root} is a shallow clone: versions published in the commits it lacks "
            "would be missing from the index, and jobs locked to them would stop resolving",
            hint="fetch the whole history ('git fetch --unshallow'; in GitHub Actions, actions/checkout with "
            "fetch-depth: 0), or pass --allow-shallow to publish only what this clone holds",
        )
    return True


def _shallow_warning(index: IndexBuild) -> str:
    versions = sum(len(document["versions"]) for document in index.items.values())
    return (
        f"built from a shallow clone: the index holds only the {versions} versions of {len(index.items)} items that "
        "its commits hold; versions published in older commits are missing ('git fetch --unshallow' for them)"
    )


def _site_builder(*, or_else: str = "; or pass --no-site for the index alone") -> Callable[..., list[str]]:
    """``site.build_site``; MkDocs is imported only when a site is built, and may not be installed."""
    try:
        from prereq.marketplace.site import build_site
    except ImportError as exc:
        raise PrereqError(
            f"the site needs MkDocs ({exc.name} is not installed)",
            hint="install the site extra: pip install 'openpai-prereq[site]'" + or_else,
        ) from None
    return build_site


def serve(
    registry: Path, *, dev_addr: str, allow_shallow: bool = False, progress: Progress = lambda _: None
) -> BuildResult:
    """Index the registry into a temporary folder and preview the site on it.

    Returns only when the server stops (or at once when the registry has errors)."""
    with tempfile.TemporaryDirectory(prefix="prereq-serve-") as folder:
        result = build(
            registry, Path(folder) / "index", with_site=False, allow_shallow=allow_shallow, progress=progress
        )
        if result.built:
            _site_builder(or_else="")  # the same clear error when MkDocs is missing (serve has no --no-site)
            from prereq.marketplace.site import serve_site

            progress(f"serving on http://{dev_addr}/ (registry changes need a restart; site sources reload)")
            serve_site(index_dir=result.out, registry=registry, settings=load_settings(registry), dev_addr=dev_addr)
        return result
