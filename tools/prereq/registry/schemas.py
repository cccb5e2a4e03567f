"""JSON Schema behind one small module: the item schema and readable errors.

Each error is turned into (path, message, hint, kind).  Subschemas may carry
``x-message`` and ``x-hint`` annotations so a contributor reads
"version '1.0' is not a semantic version" rather than a regular expression.  Given what the file
says at each path (``written``), a number or boolean is shown as written: ``version: 1.10`` is
"version 1.10", not the 1.1 YAML reads, with the hint to quote it.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from prereq.core.files import SCHEMA_DIR
from prereq.core.yamlload import format_path
from prereq.openpai.runtime import DEFAULT_PLUGIN, PLUGIN_PREFIX

if TYPE_CHECKING:  # jsonschema costs a tenth of a second to import; it only explains invalid documents
    import jsonschema

KNOWN_PLUGINS = ("cmd", "ssh", "git", "tensorboard")


@dataclass(frozen=True)
class SchemaIssue:
    path: tuple[Any, ...]
    kind: str  # "unknown-key" | "missing-key" | "dockerimage-key" | "invalid"
    message: str  # for unknown-key: where the key is unknown ("for plugin ...")
    hint: str
    key: str = ""


@cache
def load_schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))


# The index format's name, defined once by the published index schema.
INDEX_FORMAT: str = load_schema("index.schema.json")["$defs"]["root"]["properties"]["format"]["const"]


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:  # the draft the schema names
    import jsonschema

    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@cache
def _fast_validator(name: str) -> jsonschema_rs.Validator:
    return jsonschema_rs.validator_for(load_schema(name))


def index_problems(document: Any, kind: str) -> list[str]:
    """Why ``document`` is not a valid index file of ``kind`` ("root" or "item"), as
    ``path: message`` lines (empty when valid).  The compiled validator answers for a valid file
    (every file a job edit reads); jsonschema explains an invalid one."""
    if _fast_validator_for_def("index.schema.json", kind).is_valid(document):
        return []
    validator = _validator_for_def("index.schema.json", kind)
    found = [
        f"{format_path(tuple(e.absolute_path), empty='(file)')}: {e.message}" for e in validator.iter_errors(document)
    ]
    return found or ["(file): the compiled validator refuses it"]  # a disagreement is never a pass


def _definition_schema(name: str, definition: str) -> dict[str, Any]:
    whole = load_schema(name)
    one = {key: value for key, value in whole.items() if key != "oneOf"}
    one["$ref"] = f"#/$defs/{definition}"
    return one


@cache
def _fast_validator_for_def(name: str, definition: str) -> jsonschema_rs.Validator:
    return jsonschema_rs.validator_for(_definition_schema(name, definition))


@cache
def _validator_for_def(name: str, definition: str) -> jsonschema.protocols.Validator:
    import jsonschema

    return jsonschema.validators.validator_for(load_schema(name))(_definition_schema(name, definition))


def item_keys(item: dict[str, Any]) -> set[str] | None:
    """Keys the item format allows for this item, or None when any key goes (unknown plugin)."""
    schema = load_schema("prerequisite.schema.json")
    defs = schema["$defs"]
    keys = set(schema["properties"])
    if item.get("type") == "dockerimage":
        return keys | set(defs["dockerimage"]["properties"])
    plugin = item.get("plugin", DEFAULT_PLUGIN)
    short = plugin.removeprefix(PLUGIN_PREFIX) if isinstance(plugin, str) else ""
    if short not in KNOWN_PLUGINS:
        return None
    return keys | set(defs["runnable"]["properties"]) | set(defs[f"plugin-{short}"]["properties"])


def _runnable_keys() -> set[str]:
    defs = load_schema("prerequisite.schema.json")["$defs"]
    keys = set(defs["runnable"]["properties"])
    for short in KNOWN_PLUGINS:
        keys |= set(defs[f"plugin-{short}"]["properties"])
    return keys - set(defs["dockerimage"]["properties"])


Written = Callable[[tuple[Any, ...]], "str | None"]  # the text a file has at a path (SourceItem.written)


class _Shown:
    """A value as a message shows it: its repr, or the text the file has for it (``written``), cut to
    ``SHOWN_CHARACTERS`` (a file may hold a 1 MB string)."""

    def __init__(self, value: Any, written: str | None = None) -> None:
        self.value = value
        self.written = written

    def __repr__(self) -> str:
        text = self.written or repr(self.value)
        return text if len(text) <= SHOWN_CHARACTERS else text[: SHOWN_CHARACTERS - 1] + "…"

    __str__ = __repr__


SHOWN_CHARACTERS = 80


def _as_written(error: jsonschema.ValidationError, written: Written | None) -> str | None:
    """What the file says for a number or boolean the schema refuses, when YAML read it otherwise."""
    if written is None or not isinstance(error.instance, (bool, int, float)):
        return None
    text = written(tuple(error.absolute_path))
    return text if text and text != repr(error.instance) else None


def _describe(error: jsonschema.ValidationError, written: Written | None = None) -> tuple[str, str]:
    """The message and the hint for ``error``; a value YAML read otherwise than written is quoted as written."""
    text = _as_written(error, written)
    message, hint = _explain(error, _Shown(error.instance, text))
    if text is None:
        return message, hint
    path = tuple(error.absolute_path)
    key = f"{path[-1]}: " if path and isinstance(path[-1], str) else ""
    read = f"the {_json_type(error.instance)} {_Shown(error.instance)!r}"
    quote = f'YAML reads {text} as {read}: quote it to keep what the file says ({key}"{text}")'
    return message, f"{hint}; {quote}" if hint else quote


def _explain(error: jsonschema.ValidationError, value: _Shown) -> tuple[str, str]:
    expected_value: Any = error.validator_value  # its type depends on the keyword
    custom_message = error.schema.get("x-message") if isinstance(error.schema, dict) else None
    custom_hint = error.schema.get("x-hint", "") if isinstance(error.schema, dict) else ""
    if custom_message:
        return custom_message.format(value=value), custom_hint
    match error.validator:
        case "type":
            names: list[str] = expected_value if isinstance(expected_value, list) else [expected_value]
            expected = " or ".join(_TYPE_NAMES.get(name) or name for name in names)
            hint = custom_hint or f"write {expected}"
            if error.instance is None:  # 'key:' with nothing after it
                return f"is empty, expected {expected}", hint
            return f"{value!r} is a {_json_type(error.instance)}, expected {expected}", hint
        case "enum":
            options = ", ".join(str(v) for v in expected_value)
            return f"{value!r} is not one of {options}", custom_hint or f"use one of: {options}"
        case "const":
            return f"{value!r} must be {expected_value!r}", custom_hint or f"write {expected_value!r}"
        case "minItems" | "minProperties" | "minLength":
            return "must not be empty", custom_hint or "give at least one value, or remove the key"
        case "maxLength":
            return f"is longer than {expected_value} characters", custom_hint or "shorten it"
        case "uniqueItems":
            return "has duplicate entries", custom_hint or "list each value once"
        case "pattern":
            return f"{value!r} does not have the expected form", custom_hint or f"match {expected_value}"
        case "propertyNames":
            return "has an invalid key", custom_hint or "use identifiers: letters, digits and '_'"
        case _:
            return error.message, custom_hint or "see the item format reference"


_TYPE_NAMES = {
    "array": "a list",
    "object": "a mapping",
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "a boolean",
    "null": "null",
}


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    names: dict[type, str] = {str: "string", list: "list", dict: "mapping"}
    return names.get(type(value), type(value).__name__)


def _leaf_errors(error: jsonschema.ValidationError) -> Iterator[jsonschema.ValidationError]:
    """Descend through if/then/allOf wrappers to the errors that say something."""
    if error.context:
        for sub in error.context:
            yield from _leaf_errors(sub)
    else:
        yield error


def item_is_valid(item: Any) -> bool:
    """The compiled check alone: ``check_item`` finds nothing exactly when this says yes."""
    return bool(_fast_validator("prerequisite.schema.json").is_valid(item))


def check_item(item: Any, *, written: Written | None = None) -> list[SchemaIssue]:
    """All schema issues of one item, most specific first, one per path and kind; ``written``: what
    its file says at a path, for the messages (``loader.SourceItem.written``)."""
    # Most items are valid: a compiled validator says so about 100x faster; the
    # pure-Python one (whose errors carry the subschemas our messages come from)
    # runs only for items with something to report.
    if item_is_valid(item):
        return []
    validator = _validator("prerequisite.schema.json")
    issues: list[SchemaIssue] = []
    seen: set[tuple[Any, ...]] = set()
    allowed = item_keys(item) if isinstance(item, dict) else set()
    for top in validator.iter_errors(item):
        for error in _leaf_errors(top):
            path = tuple(error.absolute_path)
            if error.validator == "unevaluatedProperties":
                issues.extend(_unknown_keys(item, path, allowed, seen))
                continue
            if error.validator == "required":
                # One error per missing key, but each carries the whole list: report them all.
                required: list[str] = error.validator_value  # type: ignore[assignment]
                for key in required:
                    marker: tuple[Any, ...] = (path, "missing", key)
                    instance: Any = error.instance
                    if key in instance or marker in seen:
                        continue
                    seen.add(marker)
                    issues.append(SchemaIssue(path, "missing-key", "", "", key=key))
                continue
            marker = (path, str(error.validator))
            if marker in seen:
                continue
            seen.add(marker)
            message, hint = _describe(error, written)
            issues.append(SchemaIssue(path, "invalid", message, hint))
    if not issues:
        # The compiled validator refuses what the explaining one accepts (Python's `$` also matches
        # before a final newline, for one): never a pass.
        issues.append(
            SchemaIssue(
                (),
                "invalid",
                "does not match the item format (the compiled schema check refuses it)",
                "look for a trailing newline or an odd character in a name or version",
            )
        )
    return issues


def _unknown_keys(
    item: Any, path: tuple[Any, ...], allowed: set[str] | None, seen: set[tuple[Any, ...]]
) -> Iterator[SchemaIssue]:
    if path or not isinstance(item, dict) or allowed is None:
        return
    for key in item:
        if key in allowed or ((key,), "unknown") in seen:
            continue
        seen.add(((key,), "unknown"))
        if item.get("type") == "dockerimage" and key in _runnable_keys():
            yield SchemaIssue((key,), "dockerimage-key", "", "", key=str(key))
            continue
        close = difflib.get_close_matches(str(key), sorted(allowed), n=1, cutoff=0.6)
        plugin = item.get("plugin", DEFAULT_PLUGIN)
        where = f" for type {item.get('type')}" if item.get("type") == "dockerimage" else f" for plugin {plugin}"
        fix = f"did you mean {close[0]!r}?" if close else "remove it; allowed keys: " + ", ".join(sorted(allowed))
        yield SchemaIssue((key,), "unknown-key", where, fix, key=str(key))


def document_issues(
    name: str, document: Any, *, definition: str | None = None, written: Written | None = None
) -> list[SchemaIssue]:
    """Every issue of ``document`` against the schema file ``name`` (or its ``$defs`` entry
    ``definition``), one per path and kind, with the item schema's messages: for the other files the
    registry holds (the execution catalog's).  Such schemas close their mappings with
    ``additionalProperties: false``: each key they refuse is an "unknown-key" issue at that key."""
    validator = _validator_for_def(name, definition) if definition else _validator(name)
    issues: list[SchemaIssue] = []
    seen: set[tuple[Any, ...]] = set()
    for top in validator.iter_errors(document):
        for error in _explained_errors(top):
            path = tuple(error.absolute_path)
            if error.validator == "additionalProperties" and isinstance(error.instance, dict):
                known = sorted(error.schema.get("properties", {})) if isinstance(error.schema, dict) else []
                for key in error.instance:
                    if key not in known and (path, "unknown", key) not in seen:
                        seen.add((path, "unknown", key))
                        close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
                        fix = f"did you mean {close[0]!r}?" if close else "remove it; allowed keys: " + ", ".join(known)
                        issues.append(SchemaIssue((*path, key), "unknown-key", "", fix, key=str(key)))
            elif error.validator == "required":
                required: list[str] = error.validator_value  # type: ignore[assignment]
                for key in required:
                    if isinstance(error.instance, dict) and key not in error.instance and (path, key) not in seen:
                        seen.add((path, key))
                        issues.append(SchemaIssue(path, "missing-key", "", "", key=key))
            elif (path, str(error.validator)) not in seen:
                seen.add((path, str(error.validator)))
                message, hint = _describe(error, written)
                issues.append(SchemaIssue(path, "invalid", message, hint))
    return issues


def _explained_errors(error: jsonschema.ValidationError) -> Iterator[jsonschema.ValidationError]:
    """Like ``_leaf_errors``, but a subschema with its own ``x-message`` speaks for its branches (a
    ``oneOf`` of two shapes says what it wants once, not why each shape failed)."""
    if error.context and not (isinstance(error.schema, dict) and "x-message" in error.schema):
        for sub in error.context:
            yield from _explained_errors(sub)
    else:
        yield error
