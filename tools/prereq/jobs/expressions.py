"""The user's own stored values for ``<% expression.KEY %>``.

One job then works for many users: the job says ``<% expression.smbUser %>``
and each user's ``prereq job resolve`` fills in their own value.

The values live in ``$XDG_CONFIG_HOME/prereq/expressions.yaml`` (or
``expressions.json``, when the user keeps that one instead); ``XDG_CONFIG_HOME``
defaults to ``~/.config``.  The folder is made ``0700`` and the file ``0600``
(readable by the user only), and every write replaces the file atomically.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

from prereq.core.errors import PrereqError
from prereq.core.files import read_regular, write_atomic
from prereq.core.yamledit import load_error
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.core.yamlrender import Renderer

KEY = re.compile(r"^[A-Za-z0-9_-]+$")  # what ``<% expression.KEY %>`` can name
FILE_NAMES = ("expressions.yaml", "expressions.json")
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
