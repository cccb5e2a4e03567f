"""``prereq build``: validate, write the index, build the site, switch it into place.

Everything is written to a temporary folder beside the output and switched into place only when
complete, in one step (publish_folder): at every instant the output holds a whole build, the old
one or the new, and a failed build leaves the previous output as it was.

The output folder carries a marker file listing what the build wrote; ``prereq build`` writes
only into a missing or empty folder or one with that marker and nothing else (or the link to one
that an earlier build made), never into the registry, the current folder, the repository or an
ancestor of any of them.  A build killed half-way leaves folders the next build cleans up (or restores).

Longer than usual: the output folder's rules (what a build may replace, the marker that says so, the
switch and the leftovers it cleans) are one guarantee, and read best together; the folder has no
room for a module of their own.

May import: prereq.core, prereq.registry, prereq.index, prereq.execution, prereq.review.rules (every
layer's rules, which a suppression may name) and the rest of prereq.marketplace.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from prereq.core import files
from prereq.core.errors import PrereqError
from prereq.core.gitrepo import Repository
from prereq.core.terminal import Progress, silent
from prereq.execution.catalog_index import write_catalog_index
from prereq.execution.catalog_validation import with_catalog
from prereq.index.builder import API_DIR, IndexBuild, build_index, write_index
from prereq.registry.rules import Problem
from prereq.registry.settings import Settings, load_settings, start_image_problem
from prereq.registry.validate import ValidationResult, validate
from prereq.review.rules import ALL_RULES

MARKER = ".prereq-build"
MARKER_TEXT = "Written by 'prereq build': this folder is replaced as a whole by the next build.\n"
# Then the files the build wrote, each a JSON string on a line of its own (a name may hold a line
# break, or bytes that are no UTF-8): the next build refuses a folder holding any other.
_LISTED = "Files it wrote, as JSON strings (the next build stops at any other, so that none of yours is lost):\n"
# Beside the output: staging folders (tmp), an old output moved aside (old), and where the file system
# cannot swap two folders, the versions the output links to (v); see publish_folder.
_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.(?P<kind>tmp|old|v)-(?P<pid>\d+)(?:-.*)?$")


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
    strict: bool | None = None,
    sign: Callable[[Path], object] | None = None,
    progress: Progress = silent,
) -> BuildResult:
    """Validate ``registry`` and publish it under ``out``; nothing is written when it has errors, or,
    while ``strict`` (default: prereq.yaml's ``validate.strict``, on unless it says otherwise),
    warnings: ``ValidationResult.failed`` decides, as it decides the pull-request check.

    A shallow clone is refused (the index would lack every version published before its first
    commit) unless ``allow_shallow``, which then warns what is missing.  ``sign`` signs the index's
    folder (``api/v1``) before anything is published: the new index is never live unsigned, and the
    signature is among the files the build wrote."""
    progress("validating the registry")
    # The execution catalog's problems stop a build too.
    result = with_catalog(validate(registry, progress=progress, rules=ALL_RULES))
    settings = settings or load_settings(result.root)
    if result.failed(strict=settings.strictness(strict)):
        return BuildResult(out=out, validation=result)
    refusal = start_image_problem(settings, result.items)
    if refusal is not None:
        raise refusal
    repo = Repository.find(result.root)
    shallow = _shallow(repo, allow=allow_shallow)
    out = Path(os.path.abspath(out))
    check_output_folder(out, protected=[result.root, Path.cwd(), *([repo.root] if repo else [])], registry=result.root)
    progress(f"indexing {len(result.items)} items and their history")
    index = build_index(result, repo=repo, start_image=settings.start_image.name if settings.start_image else None)
    staging = _staging(out)
    try:
        write_index(index, staging)
        catalog_warnings = write_catalog_index(result.root, staging)  # api/v1/execution/, for a catalog
        if sign is not None:
            progress("signing the index")
            sign(staging / API_DIR)
        site_warnings = _write_site(result.root, staging, settings, progress) if with_site else []
        publish_folder(staging, out)
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


def _staging(out: Path) -> Path:
    """A fresh staging folder beside ``out``, what an earlier build left there cleaned first."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        clean_leftovers(out)
        return staging_folder(out)
    except OSError as exc:
        raise PrereqError(
            f"cannot write the output folder {out}: {exc.strerror}", hint="pass --out with a folder you can write"
        ) from None


def _write_site(registry: Path, staging: Path, settings: Settings, progress: Progress) -> list[str]:
    """The marketplace site beside the index in ``staging``; its warnings."""
    build_site = _site_builder()
    progress("building the marketplace site")
    return build_site(index_dir=staging, registry=registry, out=staging, settings=settings, progress=progress)


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


def serve(registry: Path, *, dev_addr: str, allow_shallow: bool = False, progress: Progress = silent) -> BuildResult:
    """Index the registry into a temporary folder and preview the site on it.

    Returns only when the server stops (or at once when the registry has errors)."""
    with tempfile.TemporaryDirectory(prefix="prereq-serve-") as folder:
        result = build(  # a preview shows work in progress: only errors stop it
            registry,
            Path(folder) / "index",
            with_site=False,
            allow_shallow=allow_shallow,
            strict=False,
            progress=progress,
        )
        if result.built:
            _site_builder(or_else="")  # the same clear error when MkDocs is missing (serve has no --no-site)
            from prereq.marketplace.site import serve_site

            progress(f"serving on http://{dev_addr}/ (an edit of an item or a page rebuilds it)")
            serve_site(index_dir=result.out, registry=registry, settings=load_settings(registry), dev_addr=dev_addr)
        return result


# --------------------------------------------------------------------------- the output folder


def check_output_folder(out: Path, *, protected: Iterable[Path], registry: Path) -> None:
    """Refuse ``out`` (exit 2) unless it is missing, an empty folder, or an earlier build's output.

    It may never be one of the ``protected`` folders or an ancestor of one, nor lie in the registry."""
    out = Path(os.path.abspath(out))
    real = Path(os.path.realpath(out))  # compared where it lands: a link above it may lead anywhere
    for folder in protected:
        if files.within(Path(os.path.realpath(folder)), real):
            raise PrereqError(
                f"--out {out} would replace {os.path.abspath(folder)} and everything in it",
                hint="pass a folder of its own for the build, such as build/site",
            )
    if files.within(real, Path(os.path.realpath(registry))):
        raise PrereqError(
            f"--out {out} lies inside the registry {registry}",
            hint="publish outside the registry, such as build/site next to it",
        )
    if out.is_symlink() and _build_link(out) is None:  # but the link an earlier build made (publish_folder)
        raise PrereqError(
            f"--out {out} is a symbolic link: prereq does not build through one",
            hint="pass the folder it points to, or another (missing, empty, or an earlier build's)",
        )
    # The nearest of it and its parents that exists must be a folder (a/b with a a file cannot be made).
    nearest = next(path for path in (out, *out.parents) if path.exists() or path.is_symlink())
    if not nearest.exists():
        raise PrereqError(
            f"--out {out}: {nearest} is a link to nothing", hint="remove the link, or pass another folder"
        )
    if not nearest.is_dir():
        raise PrereqError(
            f"--out {out}: {nearest} is a file, not a folder",
            hint="pass a folder (missing, empty, or an earlier build's)",
        )
    if out.is_dir() and any(out.iterdir()):
        _check_earlier_build(out)


def _check_earlier_build(out: Path) -> None:
    """Refuse a folder that holds anything but what an earlier build wrote there (its marker says)."""
    if not is_build_output(out):
        raise PrereqError(
            f"--out {out} holds files that 'prereq build' did not write (it has no {MARKER} listing them)",
            hint="pass a new or empty folder; delete this one yourself if you mean to replace it",
        )
    try:
        added = files_not_written(out)
    except MarkerUnreadable as exc:  # edited, or not readable: the folder may hold anything
        raise PrereqError(
            f"--out {out}: its {MARKER} cannot be trusted ({exc}), so prereq replaces nothing in it",
            hint="pass a new or empty folder; delete this one yourself if you mean to replace it",
        ) from None
    except OSError as exc:  # a folder in it that cannot be listed may hold anything
        raise PrereqError(
            f"--out {out}: cannot read {exc.filename}: {exc.strerror}",
            hint="check its permissions: the next build replaces the whole folder, and all in it",
        ) from None
    if added:
        shown = ", ".join(_shown(rel) for rel in added[:3]) + (f" and {len(added) - 3} more" if len(added) > 3 else "")
        raise PrereqError(
            f"--out {out} is an earlier build's, but holds files that build did not write: {shown}",
            hint="move them out of it (the next build replaces the whole folder), or delete them yourself",
        )


def _raise(error: OSError) -> None:
    raise error


def _shown(rel: str) -> str:
    """A path as a message shows it: as it is when printable, else as a JSON string (escapes visible)."""
    return rel if rel.isprintable() else json.dumps(rel)


def _files_under(folder: Path) -> list[str]:
    """Every file below ``folder`` but the marker, as sorted '/'-separated paths relative to it; a
    folder that cannot be listed raises its OSError."""
    found = []
    # os.walk: scandir's types, no stat a file (rglob's took 3.5x as long)
    for top, _, names in os.walk(folder, onerror=_raise):
        base = Path(top).relative_to(folder).as_posix()
        found += [name if base == "." else f"{base}/{name}" for name in names]
    return sorted(rel for rel in found if rel != MARKER)


class MarkerUnreadable(Exception):
    """The marker of an output folder says nothing a build can trust: which files are the build's is
    unknown, so none of the folder may be replaced."""


def files_not_written(folder: Path) -> list[str]:
    """The files of an earlier build's ``folder`` that its marker does not list (someone added them);
    none for a marker from before the list (exactly MARKER_TEXT), whose build cannot tell.  A marker
    that cannot be read, or holds anything else, raises MarkerUnreadable; a folder in ``folder``
    that cannot be listed, its OSError."""
    try:
        text = (folder / MARKER).read_bytes().decode("utf-8").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise MarkerUnreadable(getattr(exc, "strerror", None) or "it is not UTF-8 text") from None
    if text == MARKER_TEXT:
        return []
    if not text.startswith(MARKER_TEXT + _LISTED):
        raise MarkerUnreadable("it does not say what prereq wrote there")
    try:
        written = {json.loads(line) for line in text[len(MARKER_TEXT + _LISTED) :].split("\n") if line}
    except ValueError:
        raise MarkerUnreadable("a line of its list is not a JSON string") from None
    return [rel for rel in _files_under(folder) if rel not in written]


def is_build_output(folder: Path) -> bool:
    """True for a folder an earlier ``prereq build`` wrote: it holds the marker.  A folder holding an
    index without one is not: an index copied into someone's folder made all of it look prereq's."""
    return (folder / MARKER).is_file()


def staging_folder(out: Path) -> Path:
    """A new folder beside ``out`` to build into, named so that a later build can clean it up."""
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-{os.getpid()}-", dir=out.parent))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _build_link(out: Path) -> Path | None:
    """The versioned folder beside ``out`` when ``out`` is the link a build made to it, else None."""
    try:
        target = os.readlink(out)
    except OSError:
        return None
    match = _LEFTOVER.match(target)
    if not match or match["kind"] != "v" or match["name"] != out.name or "/" in target:
        return None
    folder = out.parent / target
    return folder if folder.is_dir() and not folder.is_symlink() else None


def clean_leftovers(out: Path) -> None:
    """What killed builds left beside ``out``: an old output with no new one in place is put back,
    other old outputs, versions ``out`` no longer links to, links made under a temporary name and
    half-written folders of processes no longer running are removed."""
    if not out.parent.is_dir():
        return
    live = _build_link(out)
    for entry in sorted(out.parent.iterdir()):
        match = _LEFTOVER.match(entry.name)
        if not match or match["name"] != out.name or entry == live or _alive(int(match["pid"])):
            continue
        if entry.is_symlink():
            entry.unlink()
        elif not entry.is_dir():
            continue
        elif match["kind"] == "old" and not os.path.lexists(out) and is_build_output(entry):
            entry.rename(out)
        else:
            shutil.rmtree(entry, ignore_errors=True)


def swap_step(name: str) -> None:
    """Called before each step of the switch (tests/test_build_swap.py kills the build there)."""


def publish_folder(staging: Path, out: Path) -> None:
    """Mark ``staging``, give it the umask's mode (mkdtemp made it private), and switch it in as
    ``out`` (which check_output_folder allowed) so that ``out`` holds a whole build at every instant:

    - a folder ``out`` is swapped with ``staging`` in one step (``files.exchange``); the old build,
      now at staging's name, is removed;
    - where the file system cannot swap, ``out`` is a link to a versioned folder beside it
      (``.site.v-PID-*``): the new build is moved to one, a link to it made under a temporary name is
      moved over ``out`` in one step, and the old version is removed.  A first build tries the swap
      on two empty folders to choose; a link stays a link (flipping it is atomic everywhere);
    - a folder ``out`` where the swap fails (an output moved there, or written by an earlier
      prereq) becomes a link once: no rename turns a folder into a link in one step, so it is moved
      aside first and put back on any failure, or by the next build if this one is killed then.

    Any failure leaves the previous ``out`` as it was; a killed build leaves what clean_leftovers removes."""
    listing = "".join(json.dumps(rel) + "\n" for rel in _files_under(staging))
    swap_step("marker")
    (staging / MARKER).write_text(MARKER_TEXT + _LISTED + listing, encoding="utf-8")
    os.chmod(staging, 0o777 & ~files.umask())
    if out.is_symlink():
        old = _build_link(out)
        _link_in(staging, out)
        if old is not None:
            swap_step("clean")
            shutil.rmtree(old, ignore_errors=True)
    elif not out.exists():
        if _can_exchange(out):
            swap_step("rename")
            staging.rename(out)
        else:
            _link_in(staging, out)
    else:
        swap_step("exchange")
        if files.exchange(staging, out):
            swap_step("clean")
            shutil.rmtree(staging, ignore_errors=True)  # the old build, at staging's name now
            return
        aside = out.with_name(f".{out.name}.old-{os.getpid()}")
        _link_in(staging, out, aside=aside)
        swap_step("clean")
        shutil.rmtree(aside, ignore_errors=True)


def _can_exchange(out: Path) -> bool:
    """Whether the file system of ``out``'s folder swaps two folders in one step (two empty ones tried)."""
    first, second = (Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-{os.getpid()}-", dir=out.parent)) for _ in "12")
    try:
        return files.exchange(first, second)
    finally:
        first.rmdir()
        second.rmdir()


def _link_in(staging: Path, out: Path, *, aside: Path | None = None) -> None:
    """Move ``staging`` to a new versioned folder beside ``out`` and make ``out`` a link to it, by
    moving a link made under a temporary name over it; a folder ``out`` is moved to ``aside`` first."""
    version = Path(tempfile.mkdtemp(prefix=f".{out.name}.v-{os.getpid()}-", dir=out.parent))
    link = version.with_name(version.name + "-link")
    try:
        swap_step("version")
        staging.rename(version)  # over the empty folder mkdtemp made: a name no other build has
        swap_step("link")
        os.symlink(version.name, link)  # relative: the folder holding both may move
        if aside is not None:
            swap_step("aside")
            out.rename(aside)
        try:
            swap_step("switch")
            os.replace(link, out)
        except BaseException:
            if aside is not None:
                aside.rename(out)
            raise
    except BaseException:
        with contextlib.suppress(OSError):
            link.unlink()
        shutil.rmtree(version, ignore_errors=True)
        raise
