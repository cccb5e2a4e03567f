"""The user's own stored values for ``<% expression.KEY %>``.

One job then works for many users: the job says ``<% expression.smbUser %>``
and each user's ``prereq job resolve`` fills in their own value.

The values live in ``$XDG_CONFIG_HOME/prereq/expressions.yaml`` (or
``expressions.json``, when the user keeps that one instead); ``XDG_CONFIG_HOME``
defaults to ``~/.config``.  The folder is made ``0700`` and the file ``0600``
(readable by the user only), and every write replaces the file atomically.

A value filled into a command (``fill``) is quoted for bash where it stands, so that a value is
never run as a command: a word of its own (``'...'``), escaped inside ``"..."``; where it cannot be
quoted (inside ``'...'`` when it holds a ``'``, inside backticks, ``$'...'``, arithmetic, ``${...}``,
a comment, from a here-document or a ``case`` on, a script prereq encoded for the runtime) it is
filled in as written, with a warning.  Quoting cannot help a command that evaluates its words again
(``eval``, ``bash -c``, ``let``, ``[[ -v ]]``): such a command must not take a user's value.

May import: prereq.core, prereq.openpai.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prereq.core import placeholders
from prereq.core.errors import PrereqError
from prereq.core.files import read_regular, write_atomic
from prereq.core.yamledit import load_error
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.core.yamlrender import Renderer
from prereq.openpai import shellwords
from prereq.openpai.runtime import ENCODED_MARK

KEY = re.compile(r"^[A-Za-z0-9_-]+$")  # what ``<% expression.KEY %>`` can name
FILE_NAMES = ("expressions.yaml", "expressions.json")
COMMAND_KEYS = ("commands", "preCommands", "postCommands")  # lists of commands bash runs
HEADER = "# prereq expressions: values for <% expression.KEY %> in jobs (prereq expression set KEY VALUE)\n"


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME")
    # The XDG spec says to ignore a relative XDG_CONFIG_HOME.
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".config"
    return root / "prereq"


def store_path() -> Path:
    """The file that holds the values: the YAML one, or the JSON one when only that exists."""
    folder = config_dir()
    for name in FILE_NAMES:
        if (folder / name).is_file():
            return folder / name
    return folder / FILE_NAMES[0]


def check_key(key: str) -> str:
    if not isinstance(key, str) or not KEY.match(key):
        raise PrereqError(
            f"'{key}' is not a valid expression key",
            hint="use letters, digits, '_' and '-' (the KEY of <% expression.KEY %>)",
        )
    return key


def load_expressions(path: Path | None = None) -> dict[str, str]:
    """Every stored value (an empty mapping when nothing is stored yet)."""
    path = path or store_path()
    if not path.exists():
        return {}
    raw = read_regular(path, what="expression store")
    if not raw.strip():
        return {}
    hint = "fix or delete the file; 'prereq expression set' rewrites it"
    try:
        data = json.loads(raw) if path.suffix == ".json" else load_yaml(raw).data
    except YamlLoadError as exc:
        raise load_error(str(path), exc, what="not valid YAML", hint=hint, exit_code=2) from None
    except json.JSONDecodeError as exc:
        raise PrereqError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}", hint=hint) from None
    except ValueError as exc:  # bytes that are not UTF-8 (or UTF-16/32) text
        raise PrereqError(f"{path} is not valid JSON: {exc}", hint=hint) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PrereqError(f"{path} must hold a mapping of KEY: VALUE")
    values: dict[str, str] = {}
    for key, value in data.items():
        if not isinstance(key, str) or not KEY.match(key):
            raise PrereqError(f"{path}: '{key}' is not a valid expression key")
        if isinstance(value, (dict, list)) or value is None:
            raise PrereqError(f"{path}: the value of {key} must be a string")
        values[key] = value if isinstance(value, str) else json.dumps(value)
    return values


def save_expressions(values: Mapping[str, str], path: Path | None = None) -> Path:
    """Write all values at once: folder 0700, file 0600, replaced atomically."""
    path = path or store_path()
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if stat.S_IMODE(folder.stat().st_mode) & 0o077:
            folder.chmod(0o700)
    except OSError as exc:
        raise PrereqError(
            f"cannot write {folder}: {exc.strerror or exc}",
            hint="set XDG_CONFIG_HOME to a folder you can write to (default ~/.config)",
        ) from None
    ordered = {key: str(values[key]) for key in sorted(values)}
    if path.suffix == ".json":
        body = json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"
    else:
        body = HEADER + ("\n".join(Renderer().lines(ordered, 0)) if ordered else "{}") + "\n"
    write_atomic(path, body, mode=0o600)
    return path


def get_expression(key: str, *, path: Path | None = None) -> str:
    values = load_expressions(path)
    if check_key(key) not in values:
        raise PrereqError(f"no stored expression named '{key}'", hint=f"set it with: prereq expression set {key} VALUE")
    return values[key]


def set_expression(key: str, value: str, *, path: Path | None = None) -> Path:
    values = load_expressions(path)
    values[check_key(key)] = str(value)
    return save_expressions(values, path)


def delete_expression(key: str, *, path: Path | None = None) -> Path:
    values = load_expressions(path)
    if check_key(key) not in values:
        raise PrereqError(f"no stored expression named '{key}'", hint="list them with: prereq expression list")
    del values[key]
    return save_expressions(values, path)


@dataclass(frozen=True)
class Unquoted:
    """A value filled into a command where it could not be quoted: ``context`` is where it stands."""

    key: str
    context: str

    def describe(self, where: str) -> str:
        place = "inside '...'" if self.context == shellwords.SINGLE else "where prereq cannot quote it"
        holds = "a '" if self.context == shellwords.SINGLE else "shell syntax"
        return (
            f"{where}: <% expression.{self.key} %> stands {place} and its value holds {holds}: "
            "it is filled in as written, so the shell may read part of it as a command"
        )


def quote(value: str, context: str) -> str:
    """``value`` as bash reads it back where it stands: ``context`` is one of ``shellwords``' contexts."""
    if context == shellwords.WORD:
        return value if shellwords.SAFE_WORD.fullmatch(value) else "'" + value.replace("'", "'\\''") + "'"
    if context == shellwords.DOUBLE:
        return re.sub(r'([\\"$`])', r"\\\1", value)
    return value


def _unsafe(value: str, context: str) -> bool:
    if context == shellwords.SINGLE:
        return "'" in value
    return context == shellwords.OTHER and not shellwords.SAFE_WORD.fullmatch(value)


def fill_command(command: str, values: Mapping[str, str]) -> tuple[str, list[Unquoted]]:
    """``command`` with each ``<% expression.KEY %>`` that ``values`` knows quoted where it stands."""
    matches = list(placeholders.TEMPLATE.finditer(command))
    pieces = placeholders.TEMPLATE.split(command)[::2]  # the text between the templates
    contexts = shellwords.quoting_contexts(shellwords.MARK.join(pieces))
    # eval of a script: a value stands where the script puts it; a NUL (YAML's "\0"): no scan holds
    if command.endswith(ENCODED_MARK) or shellwords.MARK in command:
        contexts = [shellwords.OTHER] * len(matches)
    out, unquoted = [pieces[0]], []
    for match, context, after in zip(matches, contexts, pieces[1:], strict=True):
        template = placeholders.parse(match[1], match[0])
        value = values.get(template.key) if template.namespace == "expression" else None
        if value is None:
            out.append(match[0])
        else:
            out.append(quote(value, context))
            if _unsafe(value, context):
                unquoted.append(Unquoted(template.key, context))
        out.append(after)
    return "".join(out), unquoted


def fill(value: str, path: tuple[Any, ...], values: Mapping[str, str]) -> tuple[str, list[Unquoted]]:
    """A string of a job at ``path`` with the stored values filled in: quoted in a command, as they are
    elsewhere (a ``uri``, a description)."""
    if len(path) >= 2 and isinstance(path[-1], int) and path[-2] in COMMAND_KEYS:
        return fill_command(value, values)
    return placeholders.render(value, "expression", values.get), []
