"""An item as it goes into a job: the OpenPAI form.

``compile_item`` takes an item as its author wrote it and returns the
prerequisite exactly as a job's ``prerequisites`` list needs it: plugin written
out, ``<% this.* %>`` rendered, events mapped, ``publicKeys`` turned into
``userssh``, registry-only fields left out, callbacks compiled so exported
variables flow (see ``runtime``) and every parameter survives the runtime's
repr round trip.  ``check_round_trip`` tells which values of a form would not.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from prereq.core import placeholders
from prereq.core.yamlload import format_path
from prereq.openpai import runtime, shellvars

# Keys that say what an item is and how it runs, each with its own place in the form and on its page.
ITEM_KEYS = (
    "name",
    "version",
    "payloadVersion",
    "type",
    "title",
    "description",
    "tags",
    "owners",
    "license",
    "homepage",
    "deprecated",
    "require",
    "conflicts",
    "suppress",
    "parameters",
    "plugin",
    "failurePolicy",
    "callbacks",
    "preCommands",
    "postCommands",
)
# Keys that never become plugin parameters: the item keys and the ones the compiler places itself.
NOT_PARAMETERS = (*ITEM_KEYS, "uri", "auth", "publicKeys", "userssh")

ParameterLookup = Callable[[str], Any]


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


MAX_RENDERED = 100_000  # characters one parameter may expand to
MAX_NESTING = 32  # parameters that use parameters that use parameters...


class PlaceholderError(Exception):
    """``<% this.KEY %>`` cannot be rendered: it refers to itself (``cycle``), or grows too large."""

    def __init__(self, key: str, *, cycle: list[str] | None = None) -> None:
        super().__init__(key)
        self.key = key
        self.cycle = cycle or []


def _render_this(value: Any, lookup: ParameterLookup) -> Any:
    """``value`` with every ``<% this.KEY %>`` filled in.  A parameter's value may itself use
    ``<% this.* %>``: each key is rendered once, in this item's scope, and reused, so the work is
    linear; a key that comes back to itself, or grows past ``MAX_RENDERED``, is a PlaceholderError."""
    rendered: dict[str, str | None] = {}
    active: list[str] = []

    def find(key: str) -> str | None:
        if key in rendered:
            return rendered[key]
        if key in active:
            raise PlaceholderError(key, cycle=[*active[active.index(key) :], key])
        found = lookup(key)
        if found is None or len(active) >= MAX_NESTING:
            if found is not None:
                raise PlaceholderError(key)
            rendered[key] = None
            return None
        active.append(key)
        text = placeholders.render(_plain(found), "this", find)
        active.pop()
        if len(text) > MAX_RENDERED:
            raise PlaceholderError(key)
        rendered[key] = text
        return text

    return placeholders.render(value, "this", find)


def command_blocks(data: dict[str, Any]) -> dict[str, list[tuple[tuple[Any, ...], str]]]:
    """An item's commands per OpenPAI event, each with its path in the item,
    in the order the runtime runs them (one process per event and item)."""
    blocks: dict[str, list[tuple[tuple[Any, ...], str]]] = {runtime.START: [], runtime.SUCCEED: []}
    callbacks = data.get("callbacks")
    for index, callback in enumerate(callbacks if isinstance(callbacks, list) else []):
        if not isinstance(callback, dict):
            continue
        event = callback.get("event")
        event = runtime.EVENT_SYNONYMS.get(event, event) if isinstance(event, str) else event
        commands = callback.get("commands")
        if event in blocks and isinstance(commands, list):
            blocks[event].extend((("callbacks", index, "commands", i), str(c)) for i, c in enumerate(commands))
    for key, event in runtime.COMMAND_KEYS.items():
        commands = data.get(key)
        if isinstance(commands, list):
            blocks[event].extend(((key, i), str(c)) for i, c in enumerate(commands))
    return blocks


def exports(data: dict[str, Any]) -> list[str]:
    """Variables the item's start commands export: what later items and the job see."""
    return shellvars.exported_variables([command for _, command in command_blocks(data)[runtime.START]])


def _compile_callbacks(data: dict[str, Any]) -> list[dict[str, Any]]:
    """All start commands in one callback and all succeed commands in another,
    wrapped to load and save the shared environment file."""
    blocks = {event: [command for _, command in entries] for event, entries in command_blocks(data).items()}
    compiled = []
    for event, commands in blocks.items():
        if not commands:
            continue
        if not all(runtime.scalar_survives(command) for command in commands):
            # The whole block at once (multi-line constructs stay whole), templates kept readable.
            commands = runtime.encode_script(commands)
        compiled.append({"event": event, "commands": [runtime.CALLBACK_LINE, *commands]})
    return compiled


def _safe_uri(value: Any) -> Any:
    """A URI that would not survive, with the characters that break it
    percent-encoded (quotes, backslashes, spaces and control characters have
    no place in a URI as written anyway)."""
    if isinstance(value, list):
        return [_safe_uri(item) for item in value]
    if not isinstance(value, str) or runtime.scalar_survives(value):
        return value
    return "".join(
        ch if ch.isprintable() and ch not in "'\"\\ " else "".join(f"%{byte:02X}" for byte in ch.encode("utf-8"))
        for ch in value
    )


def is_passive(data: dict[str, Any]) -> bool:
    """A data, script or output item that is only a ``uri`` (no plugin, no commands): OpenPAI's commonest
    prerequisite, read by the task role that binds it (``data: NAME``) through ``<% $data.uri[0] %>``."""
    return (
        data.get("type") in ("data", "script", "output")
        and "uri" in data
        and not any(key in data for key in ("plugin", "callbacks", "preCommands", "postCommands"))
    )


def compile_item(data: dict[str, Any], *, lookup: ParameterLookup) -> dict[str, Any]:
    """The OpenPAI form of a valid item.  ``lookup(key)`` resolves ``<% this.key %>``."""
    data = _render_this(data, lookup)
    # A payload version is what the job reads as the version; the semantic one orders and locks.
    version = data.get("payloadVersion", data["version"])
    form: dict[str, Any] = {"name": data["name"], "type": data["type"], "version": version}
    owners = data.get("owners") or []
    if owners:
        form["contributor"] = runtime.safe_text(", ".join(owners))
    if data.get("title"):
        form["description"] = runtime.safe_text(data["title"])
    if data["type"] == "dockerimage":
        form["uri"] = data["uri"]
        if data.get("auth"):
            form["auth"] = dict(data["auth"])
        return form
    if is_passive(data):
        form["uri"] = _safe_uri(data["uri"])
        return _drop_nulls(form)  # no plugin: the runtime leaves it alone, the task role's binding reads it
    plugin = data.get("plugin", runtime.DEFAULT_PLUGIN)
    if not plugin.startswith(runtime.PLUGIN_PREFIX):
        plugin = runtime.PLUGIN_PREFIX + plugin
    form["plugin"] = plugin
    if "failurePolicy" in data:
        form["failurePolicy"] = data["failurePolicy"]
    if "uri" in data:
        form["uri"] = _safe_uri(data["uri"])
    short = plugin.removeprefix(runtime.PLUGIN_PREFIX)
    if short == "cmd":
        callbacks = _compile_callbacks(data)
        if callbacks:
            form["callbacks"] = callbacks
    elif short == "ssh":
        for key in ("jobssh", "sshbarrier", "sshbarrierTimeout"):
            if key in data:
                form[key] = data[key]
        if "userssh" in data:
            form["userssh"] = dict(data["userssh"])
        else:
            form["userssh"] = {"type": "custom", "value": _ssh_keys(data.get("publicKeys") or [])}
    else:
        for key, value in data.items():
            if key not in NOT_PARAMETERS:
                form[key] = value
    return _drop_nulls(form)


def _ssh_keys(keys: list[str]) -> str:
    value = "\n".join(key.strip() for key in keys)
    # A newline survives the runtime's repr round trip only inside a
    # double-quoted repr, which Python picks when the text holds a "'" and no '"'.
    # An apostrophe in the last key's comment field changes no key.
    if not runtime.scalar_survives(value) and '"' not in value:
        value += " prereq's"
    return value


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


# Keys first in this order when a form is written for people (the digest ignores order).
# Key orders of a form as jobs show it: the form's own keys, each callback's, the ssh plugin's userssh
# (other keys follow, sorted).  Published in the index root so that every job editor writes the same.
KEY_ORDERS: dict[str, tuple[str, ...]] = {
    "form": ("name", "type", "version", "contributor", "description", "plugin", "failurePolicy", "uri", "auth"),
    "callback": ("event", "commands"),
    "userssh": ("type", "value"),
}


def _ordered(mapping: Mapping[str, Any], first: Sequence[str]) -> dict[str, Any]:
    """``mapping`` with the ``first`` keys in that order, then the others sorted."""
    return {key: mapping[key] for key in first if key in mapping} | {
        key: mapping[key] for key in sorted(mapping) if key not in first
    }


def ordered_form(form: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenPAI form with its keys in a readable order, ``KEY_ORDERS`` (the digest ignores order)."""
    out = _ordered(form, KEY_ORDERS["form"])
    if isinstance(out.get("callbacks"), list):
        out["callbacks"] = [
            _ordered(cb, KEY_ORDERS["callback"]) if isinstance(cb, dict) else cb for cb in out["callbacks"]
        ]
    if isinstance(out.get("userssh"), dict):
        out["userssh"] = _ordered(out["userssh"], KEY_ORDERS["userssh"])
    return out


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(form: dict[str, Any]) -> str:
    """``sha256:`` + the SHA-256 of the form as canonical JSON."""
    return "sha256:" + hashlib.sha256(canonical_json(form).encode("utf-8")).hexdigest()


def is_cmd(form: Any) -> bool:
    """True for an OpenPAI form run by the cmd plugin (its commands can export variables to the job)."""
    return isinstance(form, dict) and form.get("plugin") == runtime.DEFAULT_PLUGIN


def runtime_parameters(form: dict[str, Any]) -> dict[str, Any]:
    """What the runtime hands the plugin: the form minus the lifted keys."""
    return {k: v for k, v in form.items() if k not in runtime.LIFTED_KEYS}


def is_runtime_plugin(form: dict[str, Any]) -> bool:
    """True when the runtime turns the form into a plugin (and so re-parses its parameters)."""
    plugin = form.get("plugin")
    return isinstance(plugin, str) and plugin.startswith(runtime.PLUGIN_PREFIX)


def _leaves(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any, bool]]:
    """Every scalar of a parameter tree with its path, and whether it is a mapping key."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield path + (key,), key, True
            yield from _leaves(child, path + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _leaves(child, path + (index,))
    else:
        yield path, value, False


def check_round_trip(form: dict[str, Any]) -> list[str]:
    """The paths (``callbacks[0].commands[2]``) of the values of ``form`` that
    the runtime's ``yaml.safe_load(str(parameters))`` would change or choke
    on; empty when the form is safe.  Forms the runtime does not turn into a
    plugin (``dockerimage``, no runtime plugin) have no parameters to check."""
    if not is_runtime_plugin(form):
        return []
    # Python's repr of a parameter tree is its scalars' reprs between flow
    # delimiters, and YAML reads each quoted or plain scalar on its own, so the
    # tree survives exactly when each scalar survives where it stands: values
    # as list entries, keys as mapping keys (implicit keys have a length limit).
    # Checking scalars (cached) spares a pure-Python parse of every whole tree.
    parameters = runtime_parameters(form)
    broken = [
        format_path(path)
        for path, scalar, is_key in _leaves(parameters, ())
        if not (runtime.key_survives(scalar) if is_key else runtime.scalar_survives(scalar))
    ]
    return list(dict.fromkeys(broken))
