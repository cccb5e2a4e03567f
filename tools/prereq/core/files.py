"""Files: where prereq's own are (its schemas and site sources), and those it writes.

prereq's own files (``schema/``, the site's ``site/`` and ``mkdocs.yml``) are package data: an
installed wheel carries them in ``prereq/data/`` (the build maps them there from the top of the
repository); an editable install reads them from the checkout itself.  ``DATA_DIR`` is whichever
holds them.  What prereq writes replaces nothing it was not asked to replace: files are written
atomically, and replace only regular files the user may write and owns (the folders a build
may replace are prereq.marketplace.build's to say); ``exchange`` swaps two folders in one step
where the system can.

A ``Cache`` keeps results across runs (validation's readings of files and scripts), as ``Shelf``
files of JSON in one folder, each under the identity of what computed it.

May import: prereq.core.errors.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import importlib.resources
import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

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


def umask() -> int:
    """The process's umask (read by setting it, then set back)."""
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


def check_writable(path: Path) -> os.stat_result | None:
    """Refuse (exit 2) to replace an existing ``path`` that is read-only (no write bit for anyone,
    or none for its owner when that is this user) or that this user may not write: the rename
    write_atomic ends with would replace it all the same, as only the folder's permissions govern it.
    A file another user lets this one write (a group's) is replaced as an editor would.  Returns
    the file's stat, None when there is no file yet."""
    real = Path(os.path.realpath(path))
    try:
        info = real.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise cannot_write(path, exc) from None
    mine = info.st_uid == os.geteuid()
    if not info.st_mode & 0o222 or (mine and not info.st_mode & stat.S_IWUSR):
        raise PrereqError(
            f"{path} is read-only: prereq leaves it as it is",
            hint=f"make it writable to let prereq edit it (chmod u+w {path}), or write to another file",
        )
    if not os.access(real, os.W_OK):  # root may write anything: the bits above still bind it
        raise PrereqError(
            f"{path} belongs to another user who does not let you write it: prereq leaves it as it is",
            hint="ask its owner to edit it, or copy it and edit the copy",
        )
    return info


def write_atomic(path: Path, text: str, *, mode: int | None = None, follow_links: bool = True) -> None:
    """Replace ``path`` with ``text`` at once, so a reader never sees half a file.

    ``mode`` defaults to the file's current mode (or the umask's for a new file).  A symbolic
    link stays a link: the file it points to is replaced, unless ``follow_links`` is False (for
    files in a checkout someone else may have planted links in), which refuses it; anything but
    a regular file is refused.  A file that cannot be written (no such folder, no permission,
    disk full) is a PrereqError naming ``path``; the target is then left as it was.  So is a file
    ``check_writable`` refuses."""
    if not follow_links and Path(path).is_symlink():
        raise PrereqError(
            f"{path} is a symbolic link: prereq does not write through it (it could point anywhere)",
            hint="remove the link, or name another file",
        )
    target = regular_or_missing(path)
    info = check_writable(path)  # names the file as the user wrote it
    try:
        if mode is None:
            mode = 0o666 & ~umask() if info is None else info.st_mode & 0o7777
        handle, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise cannot_write(path, exc) from None
    try:
        os.fchmod(handle, mode)
        if info is not None and os.geteuid() == 0 and (info.st_uid, info.st_gid) != (0, 0):
            os.fchown(handle, info.st_uid, info.st_gid)  # root over a user's file (a container) keeps it theirs
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
        raise PrereqError(f"no such {what}: {path}", hint="check the path (relative to the current folder)") from None
    except OSError as exc:
        raise cannot_read(path, exc) from None
    if not stat.S_ISREG(mode):
        raise PrereqError(f"{path} is not a regular file", hint=f"name the {what} itself")
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise cannot_read(path, exc) from None


def cannot_read(path: Path, exc: OSError, *, otherwise: str = "check the path") -> PrereqError:
    """'cannot read PATH: REASON', with 'check its permissions' when they are the reason."""
    denied = exc.errno in (errno.EACCES, errno.EPERM)
    return PrereqError(f"cannot read {path}: {exc.strerror}", hint="check its permissions" if denied else otherwise)


def is_there(path: Path, *, folder: bool) -> bool:
    """Is ``path`` a regular file (a folder, with ``folder``)?  One below a folder that cannot be
    looked into is a clean error naming that folder (Python 3.11's is_file() and is_dir() raise)."""
    try:
        return path.is_dir() if folder else path.is_file()
    except OSError as exc:
        raise cannot_read(path.parent, exc, otherwise="check its permissions") from None


_AT_FDCWD, _RENAME_EXCHANGE = -100, 2  # paths relative to the current folder, as rename's are; swap them
_NO_EXCHANGE = {errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP}  # the kernel or the file system has none


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    """libc's ``renameat2``; None on other platforms or a libc without it (glibc before 2.28)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def exchange(first: Path, second: Path) -> bool:
    """Swap two existing paths of one file system in one step (Linux's ``renameat2`` with
    ``RENAME_EXCHANGE``): each name holds one or the other at every instant, never neither.  False,
    with nothing changed, where the platform, the kernel or the file system cannot; any other
    failure raises its OSError."""
    call = _renameat2()
    if call is None:
        return False
    if call(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _NO_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(first), None, str(second))


def cannot_write(path: Path, exc: OSError) -> PrereqError:
    folder = Path(path).parent
    return PrereqError(
        f"cannot write {path}: {exc.strerror or exc}",
        hint=f"check that the folder {folder} exists and that you may write there",
    )


# --------------------------------------------------------------------------- results kept across runs

CACHE_ENTRIES = 100_000  # per shelf, past those this run used; the oldest go first
_CACHE_README = "Kept by prereq: results it can compute again, keyed by what they were computed from.\n"


@dataclass(eq=False)  # one shelf is one file's state: compared by identity
class Shelf:
    """Results kept across runs in one JSON file, each a pure function of its key (a digest of what it was
    computed from) under ``identity`` (what computed it: prereq's code, a tool's version).  Read at the
    first ``get``; ``save`` writes it atomically when this run added a result, with the entries this run
    used last.  A file that cannot be read, or that another identity wrote, is an empty shelf; one that
    cannot be written is left as it was.  A file that is a link, not a regular file or another user's is
    neither read nor written (a checkout may hold one): said in ``notes``.  Values are JSON, never None
    (``get``'s "not kept"): each caller checks that what it gets has the shape it wrote (``shaped``)."""

    path: Path | None
    identity: str
    notes: list[str] = field(default_factory=list)
    _kept: dict[str, Any] | None = None
    _used: dict[str, Any] = field(default_factory=dict)
    _added: bool = False

    def get(self, key: str) -> Any:
        if self.path is None:
            return None
        if self._kept is None:
            self._kept = self._read(self.path)
        found = self._used.get(key)
        if found is None:
            found = self._kept.get(key)
            if found is not None:
                self._used[key] = found
        return found

    def put(self, key: str, value: Any) -> None:
        if self.path is not None:
            self._used[key] = value
            self._added = True

    def _read(self, path: Path) -> dict[str, Any]:
        try:  # not through a link, and a pipe does not block: whatever is there is looked at before it is read
            handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            return self._refuse(path, "a symbolic link" if exc.errno == errno.ELOOP else None)
        with os.fdopen(handle, "rb") as stream:
            info = os.fstat(handle)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
                return self._refuse(path, "another user's" if stat.S_ISREG(info.st_mode) else "not a regular file")
            try:
                kept = json.loads(stream.read())
            except (OSError, ValueError, RecursionError):  # too deep a nesting is a damaged file too
                return {}
        ok = isinstance(kept, dict) and kept.get("identity") == self.identity and isinstance(kept.get("entries"), dict)
        return kept["entries"] if ok else {}

    def _refuse(self, path: Path, why: str | None) -> dict[str, Any]:
        if why is not None:  # an unreadable file is only a miss, as before
            self.notes.append(f"the cache file {path} is {why}: prereq neither reads nor writes it")
        self.path = None
        return {}

    def save(self) -> None:
        if self.path is None or not self._added:
            return
        kept = self._kept if self._kept is not None else self._read(self.path)
        if self.path is None:  # refused just now
            return
        older = [(key, value) for key, value in kept.items() if key not in self._used]
        entries = dict(older[max(0, len(older) - CACHE_ENTRIES) :]) | self._used
        text = json.dumps({"identity": self.identity, "entries": entries}, separators=(",", ":"))
        with contextlib.suppress(OSError, PrereqError):  # a cache is a convenience: this run's results stand
            write_atomic(self.path, text, follow_links=False)
        self._added = False


@dataclass(eq=False)
class Cache:
    """The shelves of one run, one file each in ``folder`` (None: nothing is kept, every result is
    computed).  ``identity`` is prereq's own (its code and libraries): a shelf adds what else its results
    depend on.  ``save`` makes the folder when it is missing, git-ignored and tagged as a cache.
    ``notes`` say what was not used, and why (``unusable_folder``, a shelf's file): the CLI shows them."""

    folder: Path | None = None
    identity: str = ""
    notes: list[str] = field(default_factory=list)
    _shelves: dict[str, Shelf] = field(default_factory=dict)

    def shelf(self, name: str, *, identity: str = "") -> Shelf:
        if name not in self._shelves:
            path = self.folder / f"{name}.json" if self.folder is not None else None
            self._shelves[name] = Shelf(path, f"{self.identity} {identity}", self.notes)
        return self._shelves[name]

    def save(self) -> None:
        if self.folder is None or not any(shelf._added for shelf in self._shelves.values()):
            return
        try:
            if not self.folder.is_dir():
                self.folder.mkdir(parents=True)
                # never committed by mistake; written as any file of the cache, never through a link
                write_atomic(self.folder / ".gitignore", "*\n", follow_links=False)
                write_atomic(self.folder / "CACHEDIR.TAG", _CACHEDIR_TAG + _CACHE_README, follow_links=False)
        except (OSError, PrereqError):
            return
        for shelf in self._shelves.values():
            shelf.save()


def unusable_folder(folder: Path, *, checkout: Path | None) -> str | None:
    """Why ``folder`` cannot hold a cache, or None: a symbolic link (itself, or a folder on its way that lies
    in ``checkout``: a pull request can commit one that points out of the work tree or into ``.git``),
    something else than a folder, or a folder another user owns (what it holds is theirs to say)."""
    link = link_inside(folder, checkout) if checkout is not None else None
    if link is not None or folder.is_symlink():
        which = "it" if link in (None, folder) else str(link)
        return f"the cache folder {folder} is not used: {which} is a symbolic link (remove it)"
    try:
        info = folder.lstat()
    except FileNotFoundError:
        return None  # made when a result is kept
    except OSError as exc:
        return f"the cache folder {folder} is not used: {exc.strerror}"
    if not stat.S_ISDIR(info.st_mode):
        return f"the cache folder {folder} is not used: it is not a folder (remove it)"
    if info.st_uid != os.getuid():
        return f"the cache folder {folder} is not used: another user owns it (set PREREQ_CACHE to a folder of yours)"
    return None


def shaped(value: Any, shape: Any) -> bool:
    """Whether a value read from a cache has ``shape``: a type (an int is no bool, and within JSON's safe
    integers: a line number, a count), a union of types (``int | None``), ``[shape]`` (a list of values of
    that shape) or a tuple of shapes (a list of exactly those, in order)."""
    if isinstance(shape, list):
        return isinstance(value, list) and all(shaped(each, shape[0]) for each in value)
    if isinstance(shape, tuple):
        return isinstance(value, list) and len(value) == len(shape) and all(map(shaped, value, shape))
    kinds = get_args(shape) or (shape,)
    if isinstance(value, bool):
        return bool in kinds
    if isinstance(value, int):
        return int in kinds and abs(value) <= _SAFE_INTEGER
    return isinstance(value, tuple(type(None) if kind is None else kind for kind in kinds))


def nested_within(value: Any, depth: int) -> bool:
    """Whether a value read from a cache nests at most ``depth`` levels (what prereq keeps of a file stays
    within what its YAML loader lets through: the checks walk it recursively)."""
    todo = [(value, 0)]
    while todo:
        each, level = todo.pop()
        if level > depth:
            return False
        if isinstance(each, dict):
            todo += [(inner, level + 1) for inner in each.values()]
        elif isinstance(each, list):
            todo += [(inner, level + 1) for inner in each]
    return True


_SAFE_INTEGER = 2**53
_CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n"  # https://bford.info/cachedir/: backups skip it
NO_CACHE = Cache()  # what is computed without a cache folder: kept nowhere
