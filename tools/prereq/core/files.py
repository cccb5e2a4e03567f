"""Writing files atomically: a temporary file beside the target, then os.replace."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from prereq.core.errors import PrereqError


def write_atomic(path: Path, text: str, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``text`` at once, so a reader never sees half a file.

    ``mode`` defaults to the file's current mode (or the umask's for a new
    file).  A symbolic link stays a link: the file it points to is replaced.
    A file that cannot be written (no such folder, no permission, disk full)
    is a PrereqError naming ``path``; the target is then left as it was."""
    target = Path(os.path.realpath(path))
    try:
        if mode is None:
            try:
                mode = target.stat().st_mode & 0o7777
            except FileNotFoundError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
        handle, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
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
            raise _cannot_write(path, exc) from None
        raise


def _cannot_write(path: Path, exc: OSError) -> PrereqError:
    folder = Path(path).parent
    return PrereqError(
        f"cannot write {path}: {exc.strerror or exc}",
        hint=f"check that the folder {folder} exists and that you may write there",
    )
