"""``prereq build``: validate, write the index, build the site, swap into place.

Everything is written to a temporary folder beside the output and moved into
place only when complete, so a failed build leaves the previous output as it was
(``core.files`` says which folders a build may replace).

May import: prereq.core, prereq.registry, prereq.index and the rest of prereq.marketplace.
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
from prereq.index.builder import IndexBuild, build_index, write_index
from prereq.registry.rules import Problem
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


def build(registry: Path, out: Path, *, with_site: bool = True, progress: Progress = lambda _: None) -> BuildResult:
    """Validate ``registry`` and publish it under ``out``; nothing is written when it has errors."""
    progress("validating the registry")
    result = validate(registry)
    if result.errors:
        return BuildResult(out=out, validation=result)
    repo = Repository.find(result.root)
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
    try:
        write_index(index, staging)
        if with_site:
            from prereq.marketplace.site import build_site  # MkDocs is imported only when a site is built

            progress("building the marketplace site")
            site_warnings = build_site(index_dir=staging, registry=result.root, out=staging, progress=progress)
        files.publish_folder(staging, out)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise files.cannot_write(out, exc) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return BuildResult(
        out=out,
        validation=result,
        index=index,
        warnings=index.warnings + [f"site: {warning}" for warning in site_warnings],
    )


def serve(registry: Path, *, dev_addr: str, progress: Progress = lambda _: None) -> BuildResult:
    """Index the registry into a temporary folder and preview the site on it.

    Returns only when the server stops (or at once when the registry has errors)."""
    with tempfile.TemporaryDirectory(prefix="prereq-serve-") as folder:
        result = build(registry, Path(folder) / "index", with_site=False, progress=progress)
        if result.built:
            from prereq.marketplace.site import serve_site

            progress(f"serving on http://{dev_addr}/ (registry changes need a restart; site sources reload)")
            serve_site(index_dir=result.out, registry=registry, dev_addr=dev_addr)
        return result
