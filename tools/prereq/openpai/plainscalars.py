"""A job's plain scalars as OpenPAI's YAML 1.1 readers take them, where prereq's YAML 1.2 keeps the text:
what the rest-server (js-yaml 3) would refuse or change, and the runtime (PyYAML) fail.  Each check takes
the job's data and ``written(path, key=False)``: the text of a value (or key) the user wrote plain, None
in quotes (``jobs.document.JobDocument.written``).  The composer's ``openpai/plainscalars.js`` states the
same rules.

May import: prereq.core, prereq.openpai.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from prereq.core import placeholders
from prereq.core.yamlrender import yaml11_string
from prereq.openpai.protocol import JobProblem

Written = Callable[..., "str | None"]  # written(path, key=False)

# A YAML 1.1 timestamp (PyYAML's and js-yaml's pattern): the rest-server's js-yaml reads such a plain
# scalar as a date, where prereq's YAML 1.2 reading keeps the string, so OpenPAI refuses what prereq reads.
TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}"
    r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?"
)
FREE_FORM = ("extras", "parameters", "secrets")  # keys whose values the rest-server's schema does not type
# YAML 1.1's booleans that YAML 1.2 reads as strings: written plain, such a task role name is a bool to the
# runtime's PyYAML, which then does not find the task role it runs (true, false and null are no names to
# prereq either; a name starting with a digit is the schema's to refuse).
RUNTIME_NOT_A_NAME = re.compile(r"yes|no|on|off")
# Plain numbers that JavaScript's String() writes back as written: whole ones of at most 15 digits, and
# decimals of at most 15 digits ending in one that is not 0, not below 1e-6 (else exponents).
SAME_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]{0,14})|-?(?:0\.0{0,5}[1-9][0-9]*|[1-9][0-9]*\.[0-9]*)(?<=[1-9])")
COMMANDS = ("commands", "preCommands", "postCommands")  # the lists the rest-server joins into an entrypoint


def plain_timestamps(data: Any, written: Written) -> list[JobProblem]:
    """The user's plain scalars outside the free-form keys that are YAML 1.1 timestamps: the rest-server
    reads each as a date where its schema wants a string or number."""
    return [
        JobProblem(path, f"{value} is a date to the rest-server (a YAML 1.1 timestamp): quote it", "rest-server")
        for path, value in placeholders.strings(data)
        if not (path and path[0] in FREE_FORM) and TIMESTAMP.fullmatch(value) and written(path) is not None
    ]


def misread_role_names(data: Any, written: Written) -> list[JobProblem]:
    """The task roles whose names, written plain, the runtime's YAML 1.1 reads as no name."""
    message = (
        "task role name {}, written plain, is a boolean to the runtime's YAML 1.1, which then does not find the "
        "task role: quote it or rename it"
    )
    return [
        JobProblem(("taskRoles", role), message.format(role), "runtime")
        for role in data["taskRoles"]
        if isinstance(role, str)
        and RUNTIME_NOT_A_NAME.fullmatch(role)
        and written(("taskRoles", role), key=True) is not None
    ]


def _parameter(data: Any, expression: str) -> tuple[tuple[Any, ...], Any] | None:
    """The path and value ``<% $parameters.a.b[0] %>`` names in the job (as mustache looks names up)."""
    parts = expression.replace("[", ".").replace("]", "").split(".")[1:]
    path: tuple[Any, ...] = ("parameters",)
    value = data.get("parameters")
    for part in parts:
        if isinstance(value, dict) and part in value:
            path, value = path + (part,), value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            path, value = path + (int(part),), value[int(part)]
        else:
            return None  # left as written by the rest-server: not this check's
    return path, value


def _changed(written: Written, path: tuple[Any, ...], value: Any) -> str:
    """How the rest-server's String() of the value its js-yaml read differs from what the user wrote, or ""."""
    if isinstance(value, (dict, list)):
        return "a list or mapping, which it writes as JavaScript does"
    text = written(path)
    if text is None or text[:1] in ("|", ">"):
        return ""  # quoted, or a block: a string as written
    if value is None:
        return "null, for which it leaves the <% %> in the command"
    if isinstance(value, str):
        if yaml11_string(value):
            return ""
        return f"{text}, which it reads as {'a date' if TIMESTAMP.fullmatch(value) else 'no string'}"
    if value is True or value is False:
        return "" if text in ("true", "false") else f"{text}, which it writes as {str(value).lower()}"
    return "" if SAME_NUMBER.fullmatch(text) else f"{text}, which it may write otherwise as a number"


def changed_parameters(data: Any, written: Written) -> list[JobProblem]:
    """The rest-server fills ``<% $parameters.X %>`` into a task role's commands (and its deployments'
    pre- and postCommands) with JavaScript's String() of what its js-yaml read: a value whose String() is not
    its text as written (a date, 0755, True, 1.50, null, a list) changes the command unsaid."""
    found = []
    for path, text in placeholders.strings(data):
        if len(path) < 2 or path[0] not in ("taskRoles", "deployments") or path[-2] not in COMMANDS:
            continue
        for template in placeholders.find(text):
            named = _parameter(data, template.expression) if template.namespace == "$parameters" else None
            why = _changed(written, *named) if named else ""
            if why:
                message = f"the rest-server fills {template.text} in as {why}: quote the parameter's value"
                found.append(JobProblem(path, message, "entrypoint"))
    return found
