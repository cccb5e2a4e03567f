"""Data-pipeline hints on an item's commands, read with our own shell reader: a download into a folder
nothing created, ``curl | sh`` from plain http, a ``cd`` into a folder nothing created, ``rm -r`` of a
path that is ``/...`` when a variable is empty.

Folders count as created by ``mkdir``, ``install -d``, ``git clone URL DIR``, ``wget -P``, ``unzip -d``,
``cp``/``rsync`` targets and a ``cd`` that got there, earlier in the same commands or in the commands
of the items run before (``created``); a folder every image has (``/tmp``, ``/root``, ``/usr/...``) needs
no creating.  Only absolute paths written out are judged: a path held in a variable may be anything.

May import: the standard library, prereq.openpai.shellscan/shellwords.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from prereq.openpai.shellscan import Scanner, Word

IMAGE_FOLDERS = frozenset(
    "/ /tmp /root /home /opt /mnt /srv /var /var/tmp /usr /usr/local /usr/local/bin /usr/local/lib "
    "/usr/local/share /usr/bin /usr/lib /usr/share /etc /bin /lib /lib64 /sbin /run /dev /proc /sys".split()
)
_SYSTEM_TREES = (
    "/usr/",
    "/etc/",
    "/proc/",
    "/sys/",
    "/dev/",
    "/lib/",
    "/run/",
    "/var/lib/",
    "/var/cache/",
    "/var/log/",
)
_PIPE_TO_SHELL = re.compile(
    r"\b(?P<tool>curl|wget)\b[^|;&\n]*?\bhttp://[^|;&\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?P<shell>(?:ba|z|da|k)?sh)\b"
)
# `$X/...`, `${X}/...` or `${X:-}/...` (an empty default), quoted or not; `${X:?}` and `${X:-/a}` are safe.
_EMPTY_VARIABLE = re.compile(
    r'^"?\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?::?-)?\}|(?P<plain>[A-Za-z_][A-Za-z0-9_]*))"?(?P<rest>/.*)'
)


@dataclass(frozen=True)
class Hint:
    """One finding at ``offset`` in the commands' text: its rule and what its message says."""

    rule: str
    offset: int
    details: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _Command:
    offset: int
    words: tuple[Word, ...]

    def texts(self) -> list[str | None]:
        return [word.value for word in self.words]


class _Reader(Scanner):
    """The simple commands, in order, and the offsets at which each variable gets a value."""

    def __init__(self, text: str, base: int = 0) -> None:
        super().__init__(text, base)
        self.commands: list[_Command] = []
        self.assigned: dict[str, int] = {}

    def command(self, words: list[Word]) -> None:
        self.commands.append(_Command(self.base + words[0].start, tuple(words)))

    def define(self, offset: int, name: str, exported: bool = False) -> None:
        self.assigned.setdefault(name, self.base + offset)
        super().define(offset, name, exported)

    def merge(self, other: Scanner) -> None:
        super().merge(other)
        if isinstance(other, _Reader):
            self.commands.extend(other.commands)
            for name, offset in other.assigned.items():
                self.assigned.setdefault(name, offset)


def _read(text: str) -> _Reader:
    reader = _Reader(text)
    reader.parse_list(0)
    reader.commands.sort(key=lambda command: command.offset)
    return reader


def _positional(words: Sequence[Word]) -> list[str]:
    return [w.value for w in words[1:] if w.value is not None and not w.value.startswith("-")]


def _option_value(words: Sequence[Word], short: str, long: str) -> str | None:
    """The value of ``-X VALUE``, ``-XVALUE``, ``--long VALUE`` or ``--long=VALUE``."""
    for index, word in enumerate(words[1:], start=1):
        text = word.value or ""
        following = words[index + 1].value if index + 1 < len(words) else None
        if text in (short, long):
            return following
        if text.startswith(long + "="):
            return text[len(long) + 1 :]
        if short and text.startswith(short) and len(text) > 2 and not text.startswith("--"):
            return text[2:]
    return None


def _created_by(command: _Command) -> list[str]:
    words, texts = command.words, command.texts()
    name = texts[0] or ""
    paths = _positional(words)
    if name == "mkdir" or (name == "install" and "-d" in texts):
        return paths
    if name == "git" and paths[:1] == ["clone"] and len(paths) >= 3:
        return [paths[-1]]
    if name in ("cp", "rsync", "mv") and len(paths) >= 2:
        return [paths[-1]]
    if name == "wget":
        return [p for p in (_option_value(words, "-P", "--directory-prefix"),) if p]
    if name == "unzip":
        return [p for p in (_option_value(words, "-d", ""),) if p]
    if name == "cd":
        return paths[:1]
    return []


def _exists(path: str, created: Iterable[str]) -> bool:
    path = path.rstrip("/") or "/"
    if path in IMAGE_FOLDERS or path.startswith(_SYSTEM_TREES):
        return True
    return any(made.rstrip("/") == path or made.startswith(path + "/") for made in created)


def _judged(path: str | None) -> bool:
    """Only absolute paths written out: no variable, template or glob."""
    return path is not None and path.startswith("/") and not any(ch in path for ch in "$`*?[<")


def _download_folder(command: _Command) -> tuple[str, str] | None:
    words, texts = command.words, command.texts()
    name = texts[0] or ""
    if name == "wget":
        target = _option_value(words, "-O", "--output-document")
    elif name == "curl" and "--create-dirs" not in texts:
        target = _option_value(words, "-o", "--output")
    else:
        return None
    if not target or not _judged(target) or target.endswith("/"):
        return None
    return name, target.rsplit("/", 1)[0] or "/"


def _empty_variable(command: _Command, assigned: dict[str, int]) -> Hint | None:
    texts = command.texts()
    if texts[0] != "rm" or not any(t and re.fullmatch(r"-[a-zA-Z]*[rR][a-zA-Z]*|--recursive", t) for t in texts):
        return None
    for word in command.words[1:]:
        match = _EMPTY_VARIABLE.match(word.raw)
        name = match and (match["braced"] or match["plain"])
        if match and name and not (name in assigned and assigned[name] < command.offset):
            details = (("arg", word.raw), ("means", match["rest"]), ("name", name))
            return Hint("PRQ177", command.offset, details)
    return None


def created_folders(text: str) -> list[str]:
    """The folders the commands ``text`` create (for the items that run after them)."""
    return [path for command in _read(text).commands for path in _created_by(command)]


def hints(text: str, *, created: Iterable[str] = ()) -> list[Hint]:
    """PRQ174-PRQ177 in the commands ``text`` (one event's commands, joined by newlines); ``created``:
    the folders that what runs first creates."""
    created = list(created)
    reader = _read(text)
    found: list[Hint] = []
    for command in reader.commands:
        download = _download_folder(command)
        if download and not _exists(download[1], created):
            found.append(Hint("PRQ174", command.offset, (("tool", download[0]), ("folder", download[1]))))
        target = _positional(command.words)[:1] if command.texts()[0] == "cd" else []
        if target and _judged(target[0]) and not _exists(target[0], created):
            found.append(Hint("PRQ176", command.offset, (("folder", target[0]),)))
        empty = _empty_variable(command, reader.assigned)
        if empty:
            found.append(empty)
        created.extend(_created_by(command))
    for match in _PIPE_TO_SHELL.finditer(text):
        found.append(Hint("PRQ175", match.start(), (("tool", match["tool"]), ("shell", match["shell"]))))
    return sorted(found, key=lambda hint: hint.offset)
