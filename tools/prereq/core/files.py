"""Files: where prereq's own are (its schemas and site sources), and those it writes.

prereq's own files (``schema/``, the site's ``site/`` and ``mkdocs.yml``) are package data: an
installed wheel carries them in ``prereq/data/`` (the build maps them there from the top of the
repository); an editable install reads them from the checkout itself.  ``DATA_DIR`` is whichever
holds them.  What prereq writes replaces nothing it was not asked to replace:

A published folder carries a marker file; ``prereq build`` writes only into a missing or empty
folder or one with that marker, never into the registry, the current folder, the repository or
an ancestor of any of them.  The new output is made beside the old one and swapped in: the old
one is kept until the new one is in place and put back on any failure, and a build killed
half-way leaves folders the next build cleans up (or restores).  Files are written atomically
and replace only regular files.

May import: prereq.core.errors.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from prereq.core.errors import PrereqError


def _data_dir() -> Path:
    packaged = importlib.resources.files("prereq").joinpath("data")
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[3]  # tools/prereq/core/files.py -> the repository
    if (checkout / "schema").is_dir():
        return checkout
    raise RuntimeError(f"prereq's data files are missing: neither {packaged} nor {checkout}/schema exists")


DATA_DIR = _data_dir()
SCHEMA_DIR = DATA_DIR / "schema"
MARKER = ".prereq-build"
MARKER_TEXT = "Written by 'prereq build': this folder is replaced as a whole by the next build.\n"
_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.(?P<kind>tmp|old)-(?P<pid>\d+)(?:-.*)?$")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def within(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies below it (as written: resolve both first where links matter)."""
    return path == folder or folder in path.parents


def link_inside(path: Path, root: Path) -> Path | None:
    """The first symbolic link on the way to ``path`` (itself included) that lies below ``root``, else
    None.  Links above ``root`` (/tmp -> /private/tmp) are the machine's, not the checkout's."""
    path, root = Path(os.path.abspath(path)), Path(os.path.realpath(root))
    for step in (path, *path.parents):
        real = Path(os.path.realpath(step.parent)) / step.name  # where it lies, the folders above resolved
        if real != root and within(real, root) and step.is_symlink():
            return step
    return None


def check_output_folder(out: Path, *, protected: Iterable[Path], registry: Path) -> None:
    """Refuse ``out`` (exit 2) unless it is missing, an empty folder, or an earlier build's output.

    It may never be one of the ``protected`` folders or an ancestor of one, nor lie in the registry."""
    out = Path(os.path.abspath(out))
    for folder in (Path(os.path.abspath(p)) for p in protected):
        if within(folder, out):
            raise PrereqError(
                f"--out {out} would replace {folder} and everything in it",
                hint="pass a folder of its own for the build, such as build/site",
            )
    if within(out, Path(os.path.abspath(registry))):
        raise PrereqError(
            f"--out {out} lies inside the registry {registry}",
            hint="publish outside the registry, such as build/site next to it",
        )
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise PrereqError(f"--out {out} is not a folder", hint="pass a folder (missing, empty, or an earlier build's)")
    if out.is_dir() and any(out.iterdir()) and not is_build_output(out):
        raise PrereqError(
            f"--out {out} holds files that 'prereq build' did not write",
            hint="pass a new or empty folder; delete this one yourself if you mean to replace it",
        )


def is_build_output(folder: Path) -> bool:
    """True for a folder an earlier ``prereq build`` wrote: its marker, or (before markers) its index."""
    if (folder / MARKER).is_file():
        return True
    try:
        return '"format": "prereq-index/' in (folder / "api" / "v1" / "index.json").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


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


def clean_leftovers(out: Path) -> None:
    """What killed builds left beside ``out``: an old output with no new one in place is put back,
    other old outputs and half-written folders of processes no longer running are removed."""
    if not out.parent.is_dir():
        return
    for entry in sorted(out.parent.iterdir()):
        match = _LEFTOVER.match(entry.name)
        if not match or match["name"] != out.name or _alive(int(match["pid"])) or not entry.is_dir():
            continue
        if match["kind"] == "old" and not out.exists() and is_build_output(entry):
            entry.rename(out)
        else:
            shutil.rmtree(entry, ignore_errors=True)


def publish_folder(staging: Path, out: Path) -> None:
    """Mark ``staging``, give it the umask's mode (mkdtemp made it private), and swap it in as ``out``:
    the previous ``out`` stays until the new one is in place and comes back on any failure."""
    (staging / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
    os.chmod(staging, 0o777 & ~_umask())
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        out.rename(old)
    try:
        staging.rename(out)
    except BaseException:
        if old is not None:
            old.rename(out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def regular_or_missing(path: Path) -> Path:
    """``path`` with its links followed, when it is a regular file or does not exist yet; else exit 2."""
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise cannot_write(path, exc) from None
    if not stat.S_ISREG(mode):
        kind = (
            "a folder" if stat.S_ISDIR(mode) else "a pipe" if stat.S_ISFIFO(mode) else "a device or other special file"
        )
        raise PrereqError(
            f"{path} is {kind}, not a regular file: prereq writes only regular files",
            hint="name a file to create or replace",
        )
    return target


def write_atomic(path: Path, text: str, *, mode: int | None = None, follow_links: bool = True) -> None:
    """Replace ``path`` with ``text`` at once, so a reader never sees half a file.

    ``mode`` defaults to the file's current mode (or the umask's for a new file).  A symbolic
    link stays a link: the file it points to is replaced, unless ``follow_links`` is False (for
    files in a checkout someone else may have planted links in), which refuses it; anything but
    a regular file is refused.  A file that cannot be written (no such folder, no permission,
    disk full) is a PrereqError naming ``path``; the target is then left as it was."""
    if not follow_links and Path(path).is_symlink():
        raise PrereqError(
            f"{path} is a symbolic link: prereq does not write through it (it could point anywhere)",
            hint="remove the link, or name another file",
        )
    target = regular_or_missing(path)
    try:
        if mode is None:
            try:
                mode = target.stat().st_mode & 0o7777
            except FileNotFoundError:
                mode = 0o666 & ~_umask()
        handle, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise cannot_write(path, exc) from None
    try:
        os.fchmod(handle, mode)
        with os.fdopen(handle, "wb") as stream:
            stream.write(text.encode("utf-8"))
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise cannot_write(path, exc) from None
        raise


def read_regular(path: Path, *, what: str) -> bytes:
    """The bytes of ``path`` when it is a regular file (a pipe would block, a device never end)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise PrereqError(f"no such {what}: {path}") from None
    except OSError as exc:
        raise PrereqError(f"cannot read {path}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise PrereqError(f"{path} is not a regular file", hint=f"name the {what} itself")
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise PrereqError(f"cannot read {path}: {exc.strerror}") from None


def cannot_write(path: Path, exc: OSError) -> PrereqError:
    folder = Path(path).parent
    return PrereqError(
        f"cannot write {path}: {exc.strerror or exc}",
        hint=f"check that the folder {folder} exists and that you may write there",
    )
