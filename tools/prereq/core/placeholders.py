"""Placeholders in item strings: ``<% namespace.path %>``.

prereq renders ``this`` (item parameters) and ``expression`` (per-user values);
OpenPAI renders the ``$``-namespaces, so those pass through untouched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

TEMPLATE = re.compile(r"<%\s*(.*?)\s*%>", re.DOTALL)
OPEN = "<%"
OPENPAI_NAMESPACES = ("$parameters", "$secrets", "$data", "$script", "$output")
_REFERENCE = re.compile(r"^(?P<ns>\$?[A-Za-z_][A-Za-z0-9_]*)(?P<rest>(?:\.[A-Za-z0-9_-]+|\[\d+\])+)$")


@dataclass(frozen=True)
class Template:
    text: str  # the whole "<% ... %>"
    expression: str  # what is inside
    namespace: str | None  # "this", "expression", "$secrets", ... or None when malformed
    key: str  # first name after the namespace ("mountPoint")


def parse(expression: str, text: str = "") -> Template:
    match = _REFERENCE.match(expression)
    if not match:
        return Template(text, expression, None, "")
    rest = match["rest"]
    key = rest[1:].split(".")[0].split("[")[0] if rest.startswith(".") else ""
    return Template(text, expression, match["ns"], key)


def find(value: str) -> Iterator[Template]:
    for match in TEMPLATE.finditer(value):
        yield parse(match[1], match[0])


def unclosed(value: str) -> str | None:
    """The text of a ``<%`` that is never closed, if any."""
    rest = TEMPLATE.sub("", value)
    index = rest.find(OPEN)
    return rest[index : index + 30] if index >= 0 else None


def is_known(template: Template) -> bool:
    if template.namespace in OPENPAI_NAMESPACES:
        return True
    return template.namespace in ("this", "expression") and bool(template.key) and template.expression.count(".") == 1


def strings(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    """Every string inside a JSON-like value, with its path."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from strings(child, path + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from strings(child, path + (index,))


def render(value: Any, namespace: str, lookup: Callable[[str], str | None]) -> Any:
    """Replace ``<% namespace.KEY %>`` everywhere in ``value``; unknown keys stay as written."""
    if isinstance(value, dict):
        return {key: render(child, namespace, lookup) for key, child in value.items()}
    if isinstance(value, list):
        return [render(child, namespace, lookup) for child in value]
    if not isinstance(value, str):
        return value

    def substitute(match: re.Match[str]) -> str:
        template = parse(match[1], match[0])
        if template.namespace != namespace:
            return match[0]
        found = lookup(template.key)
        return match[0] if found is None else str(found)

    return TEMPLATE.sub(substitute, value)
