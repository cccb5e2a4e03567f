"""OpenPAI's job schema: the rest-server's JSON Schema made standard, and its errors in our own words.

- the schema (``protocol.js`` of microsoft/pai, as JSON, copied into ``schema/``): the non-standard
  ``$merge`` keyword of ajv-merge-patch is resolved (the ``source`` schema with ``with`` applied as a
  JSON Merge Patch, RFC 7386) and ``base.json`` references are inlined, so any draft-7 validator
  applies it;
- jsonschema finds the errors; the messages are ours, values shown as JSON, so that the composer's
  ``site/assets/composer/openpai/protocol.js`` gives the same problems word for word (the shared cases in
  ``tests/cases/protocol/`` hold both to that).

May import: prereq.core.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # jsonschema costs a tenth of a second: imported when a job is first checked
    import jsonschema


from prereq.core.errors import PrereqError
from prereq.core.files import SCHEMA_DIR
from prereq.core.yamlload import format_path

# The rest-server's schema, copied into the repository so results never depend
# on what lies beside a checkout (a test keeps the copy equal to ../shared's).
BUNDLED_SCHEMA = SCHEMA_DIR / "openpai-protocol.schema.json"

PREREQUISITE_TYPES = ("script", "output", "data", "dockerimage")


@dataclass(frozen=True)
class JobProblem:
    """One reason OpenPAI would refuse the job; ``path`` points into the job."""

    path: tuple[Any, ...]
    message: str
    source: str  # the part of OpenPAI: "schema" | "rest-server" | "entrypoint" | "webportal" | "runtime"

    def where(self) -> str:
        return format_path(self.path, empty="(job)")


def schema_file() -> Path:
    if BUNDLED_SCHEMA.is_file():
        return BUNDLED_SCHEMA
    raise PrereqError(
        "the OpenPAI protocol schema is missing",
        hint=f"expected {BUNDLED_SCHEMA} (a copy of ../shared/openpai/protocol-schema.json)",
    )


def load_protocol(path: Path | None = None) -> dict[str, Any]:
    """The two schemas as given: ``{"baseSchema": ..., "protocolSchema": ...}``."""
    path = path or schema_file()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PrereqError(f"cannot read the OpenPAI schema {path}: {exc}") from None
    return {"baseSchema": raw["baseSchema"], "protocolSchema": raw["protocolSchema"]}


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON Merge Patch: ``patch`` applied to ``target`` (neither is modified)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _pointer(document: Any, pointer: str) -> Any:
    for part in [p for p in pointer.split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        document = document[int(part)] if isinstance(document, list) else document[part]
    return document


def resolve_schema(protocol: dict[str, Any]) -> dict[str, Any]:
    """The protocol schema as plain draft 7: ``$merge`` applied and ``base.json`` refs inlined."""
    documents = {"base.json": protocol["baseSchema"], "protocol.json": protocol["protocolSchema"]}

    def resolve_ref(ref: str) -> Any:
        document, _, pointer = ref.partition("#")
        if document not in documents:
            raise PrereqError(f"the OpenPAI schema refers to an unknown document {ref!r}")
        return walk(_pointer(documents[document], pointer))

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(child) for child in node]
        if not isinstance(node, dict):
            return node
        if "$merge" in node:
            spec = node["$merge"]
            return walk(merge_patch(walk(spec["source"]), spec["with"]))
        if isinstance(node.get("$ref"), str) and not node["$ref"].startswith("#"):
            resolved = resolve_ref(node["$ref"])
            rest = {k: walk(v) for k, v in node.items() if k != "$ref"}
            return {**resolved, **rest} if rest else resolved
        return {key: walk(value) for key, value in node.items() if key != "$id"}

    schema = walk(protocol["protocolSchema"])
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    return schema


# ------------------------------------------------------------------------------------------------- messages
#
# jsonschema finds the errors (its traversal, type checks and error order are kept); the words are
# ours, written so that the composer's site/assets/composer/openpai/protocol.js gives the very same text:
# values are shown as JSON (``show``), never as Python reprs.  tests/cases/protocol/ holds both to it.

# The keywords whose errors we word, those that only descend (their errors come from the schemas
# below them) and "format", which Draft7Validator checks only when given a format checker.
WORDED_KEYWORDS = (
    "type",
    "required",
    "additionalProperties",
    "enum",
    "minItems",
    "minProperties",
    "pattern",
    "maxLength",
    "minimum",
    "oneOf",
)
DESCENDING_KEYWORDS = ("properties", "patternProperties", "items")
SUPPORTED_KEYWORDS = (*WORDED_KEYWORDS, *DESCENDING_KEYWORDS, "format")
# The keys a dockerimage prerequisite may have (the dockerimage branch of the schema's oneOf).
DOCKERIMAGE_KEYS = ("protocolVersion", "name", "version", "contributor", "description", "type", "uri", "auth")
_SAFE_INTEGER = 2**53
# The draft-7 keywords whose value is one schema (besides "items", which may be a list of them).
_ONE_SCHEMA = ("additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else")


def show(value: Any) -> str:
    """``value`` as JSON, written as JavaScript writes it, so that protocol.js can say the same.

    ``", "`` and ``": "`` between items (as ``json.dumps``); numbers as JavaScript's ``String(n)``
    prints them (``1.0`` is ``1``, ``1e21`` is ``1e+21``, ``1e-7`` stays ``1e-7``; integers beyond
    2**53 as the double JavaScript would hold); NaN and infinities by name; lone surrogates escaped
    (as ``JSON.stringify``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, (int, float)):
        return _js_number(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_json_key(k)}: {show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(item) for item in value) + "]"
    return _json_string(str(value))


def _json_string(text: str) -> str:
    quoted = json.dumps(text, ensure_ascii=False)
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", quoted)


def _json_key(key: Any) -> str:
    return _json_string(key) if isinstance(key, str) else _json_string(show(key))


def _js_number(value: float) -> str:
    """Number::toString of ECMA-262 (6.1.6.1.20), from Python's shortest round-trip digits."""
    if isinstance(value, int) and abs(value) < _SAFE_INTEGER:
        return str(value)
    try:
        number = float(value)
    except OverflowError:
        number = math.inf if value > 0 else -math.inf
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"
    mantissa, _, exponent = repr(abs(number)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(whole + fraction) - len(digits))
    digits = digits.rstrip("0")
    count = len(digits)
    if count <= point <= 21:
        text = digits + "0" * (point - count)
    elif 0 < point <= 21:
        text = digits[:point] + "." + digits[point:]
    elif -6 < point <= 0:
        text = "0." + "0" * -point + digits
    else:
        power = point - 1
        text = digits[0] + ("." + digits[1:] if count > 1 else "") + ("e+" if power >= 0 else "e-") + str(abs(power))
    return ("-" if number < 0 else "") + text


def _text(error: jsonschema.ValidationError) -> str:
    """An error's message; jsonschema itself makes the errors of a ``false`` schema."""
    if error.validator is None:
        return f"False schema does not allow {show(error.instance)}"
    return error.message


def _wording(keyword: str, value: Any, instance: Any, schema: Any, error: jsonschema.ValidationError, n: int) -> str:
    """The message of the ``n``-th error jsonschema's ``keyword`` gave for ``instance``."""
    import jsonschema

    if keyword == "type":
        types = [value] if isinstance(value, str) else value
        return f"{show(instance)} is not of type {', '.join(show(t) for t in types)}"
    if keyword == "required":
        missing = [name for name in value if name not in instance]
        return f"{show(missing[n])} is a required property"
    if keyword == "additionalProperties":
        extras = _additional_properties(instance, schema)
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            patterns = ", ".join(sorted(schema["patternProperties"]))
            return f"{', '.join(map(show, extras))} {verb} not match any of the regexes: {patterns}"
        verb = "was" if len(extras) == 1 else "were"
        return f"Additional properties are not allowed ({', '.join(map(show, extras))} {verb} unexpected)"
    if keyword == "enum":
        return f"{show(instance)} is not one of {show(value)}"
    if keyword in ("minItems", "minProperties"):
        short = "does not have enough properties" if keyword == "minProperties" else "is too short"
        return f"{show(instance)} {'should be non-empty' if value == 1 else short}"
    if keyword == "pattern":
        return f"{show(instance)} does not match {value}"
    if keyword == "maxLength":
        return f"{show(instance)} {'is expected to be empty' if value == 0 else 'is too long'}"
    if keyword == "minimum":
        return f"{show(instance)} is less than the minimum of {show(value)}"
    if keyword == "oneOf":
        if error.context or not value:
            return _one_of_message(instance, error.context)
        valid = [each for each in value if jsonschema.Draft7Validator(each).is_valid(instance)]
        return f"{show(instance)} is valid under each of {', '.join(map(show, valid[1:] + valid[:1]))}"
    raise AssertionError(f"no wording for the keyword {keyword}")


def _additional_properties(instance: dict[Any, Any], schema: dict[str, Any]) -> list[Any]:
    """The keys jsonschema's additionalProperties finds, in the order it lists them (sorted)."""
    properties = schema.get("properties", {})
    patterns = "|".join(schema.get("patternProperties", {}))
    extras = [key for key in instance if key not in properties and not (patterns and re.search(patterns, key))]
    return sorted(extras, key=str)


def _one_of_message(instance: Any, context: list[jsonschema.ValidationError]) -> str:
    """Why a prerequisite matches none of the schema's three (script/output, data, dockerimage)."""
    if not isinstance(instance, dict):
        return f"{show(instance)} is not valid under any of the given schemas"
    kind = instance.get("type")
    if kind == "dockerimage":
        extra = sorted((key for key in instance if key not in DOCKERIMAGE_KEYS), key=str)
        if extra:
            return f"a dockerimage prerequisite allows no key {', '.join(map(show, extra))}"
        if "uri" not in instance:
            return 'a dockerimage prerequisite needs "uri"'
    if "type" not in instance:
        return f'a prerequisite needs "type", one of {show(list(PREREQUISITE_TYPES))}'
    if kind not in PREREQUISITE_TYPES:
        return f"prerequisite type {show(kind)} is not one of {show(list(PREREQUISITE_TYPES))}"
    # The branch for this type is the one whose "type" matched: report its first error.
    branches: dict[Any, list[jsonschema.ValidationError]] = {}
    for sub in context:
        branches.setdefault(sub.relative_schema_path[0] if sub.relative_schema_path else None, []).append(sub)
    for subs in branches.values():
        if not any(list(sub.relative_path) == ["type"] for sub in subs):
            where = ".".join(map(str, subs[0].relative_path))
            return f"not a valid {kind} prerequisite: " + (f"{where}: " if where else "") + _text(subs[0])
    return "not a valid prerequisite"


def _reworded(keyword: str) -> Callable[..., Iterator[jsonschema.ValidationError]]:
    """jsonschema's check for ``keyword``, its errors given our messages."""
    import jsonschema

    original = jsonschema.Draft7Validator.VALIDATORS[keyword]

    def check(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[jsonschema.ValidationError]:
        for n, error in enumerate(original(validator, value, instance, schema) or ()):
            error.message = _wording(keyword, value, instance, schema, error, n)
            yield error

    return check


def unsupported_keywords(schema: Any) -> list[str]:
    """The draft-7 keywords ``schema`` uses that we do not word (protocol.js refuses the same)."""
    import jsonschema

    found: list[str] = []
    for keyword, value in _schema_keywords(schema):
        if keyword in jsonschema.Draft7Validator.VALIDATORS and keyword not in SUPPORTED_KEYWORDS:
            found.append(keyword)
        elif keyword == "additionalProperties" and not isinstance(value, bool):
            found.append("additionalProperties (a schema)")
    return sorted(set(found))


def _schema_keywords(schema: Any) -> Iterator[tuple[str, Any]]:
    """Every (keyword, value) of ``schema`` and of the schemas within it."""
    if not isinstance(schema, dict):
        return
    for keyword, value in schema.items():
        yield keyword, value
        if keyword in ("properties", "patternProperties", "definitions") and isinstance(value, dict):
            children = list(value.values())
        elif keyword in ("items", "allOf", "anyOf", "oneOf") and isinstance(value, list):
            children = value
        elif keyword == "dependencies" and isinstance(value, dict):
            children = [v for v in value.values() if isinstance(v, dict)]
        elif keyword in _ONE_SCHEMA or keyword == "items":
            children = [value]
        else:
            children = []
        for child in children:
            yield from _schema_keywords(child)


@cache
def _validator() -> jsonschema.protocols.Validator:
    import jsonschema

    schema = resolve_schema(load_protocol())
    jsonschema.Draft7Validator.check_schema(schema)
    unsupported = unsupported_keywords(schema)
    if unsupported:
        raise PrereqError(f"the OpenPAI schema uses keywords prereq cannot word: {', '.join(unsupported)}")
    worded = jsonschema.validators.extend(
        jsonschema.Draft7Validator, validators={keyword: _reworded(keyword) for keyword in WORDED_KEYWORDS}
    )
    return worded(schema)


def schema_problems(job: Any) -> list[JobProblem]:
    """The schema's errors, sorted by path (each part as a string); ties in jsonschema's order."""
    errors = sorted(_validator().iter_errors(job), key=lambda e: list(map(str, e.absolute_path)))
    return [JobProblem(tuple(error.absolute_path), _text(error), "schema") for error in errors]
