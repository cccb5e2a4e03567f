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
# What js-yaml 3 (the rest-server's reader) reads as no string, where YAML 1.2 reads a string: its ints and
# floats with "_", 0b or base 60, and timestamps (its null and booleans are YAML 1.2's).
JSYAML_NOT_STRING = re.compile(
    r"[-+]?(?:0b[0-1_]+|0[0-7_]+|0x[0-9a-fA-F_]+|(?:0|[1-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?"
    r"|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|\.(?:inf|Inf|INF))|\.(?:nan|NaN|NAN)"
)
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
        elif isinstance(value, list) and re.fullmatch(r"0|[1-9][0-9]*", part) and int(part) < len(value):
            path, value = path + (int(part),), value[int(part)]
        else:
            return None  # left as written by the rest-server: not this check's
    return path, value


def _jsyaml_number(text: str) -> float | None:
    """The number js-yaml 3 reads from a plain ``text`` that YAML 1.2 reads as a number, or None for a string
    (``089``, ``0o17``: js-yaml 3 knows no leading zero but octal's, nor ``0o``)."""
    sign, body = (-1, text[1:]) if text[:1] == "-" else (1, text.lstrip("+"))
    if re.fullmatch(r"0[0-7]+", body):
        return sign * int(body, 8)
    if re.fullmatch(r"0x[0-9a-fA-F]+", body):
        return sign * int(body, 16)
    if re.fullmatch(r"(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?", body):
        return sign * float(body)
    return sign * float(body[1:]) if body.lower() in (".inf", ".nan") else None


def _changed(written: Written, path: tuple[Any, ...], value: Any) -> str:
    """How the value the rest-server's js-yaml reads differs from the one the user wrote (YAML 1.2's), so
    that String() of it changes the command; "" when only its spelling may (``1e-4``, ``1.50``, ``True``)."""
    if isinstance(value, (dict, list)):
        return "a list or mapping, which it writes as JavaScript does"
    text = written(path)
    if text is None or text[:1] in ("|", ">"):
        return ""  # quoted, or a block: a string as written
    if value is None:
        return "null, for which it leaves the <% %> in the command"
    if isinstance(value, str):
        if TIMESTAMP.fullmatch(value):
            return f"{text}, which it reads as a date"
        return f"{text}, which it reads as a number" if JSYAML_NOT_STRING.fullmatch(value) else ""
    if isinstance(value, bool):
        return ""  # js-yaml 3's booleans are YAML 1.2's
    number = _jsyaml_number(text)
    same = number is None or number == value or (number != number and value != value)  # NaN is NaN
    return "" if same else f"{text}, which it reads as {number}"


def _rendered(data: Any, path: tuple[Any, ...]) -> bool:
    """Whether the rest-server renders the string at ``path``: a task role's command, or a pre- or postCommand
    of the default deployment for a task role the job has."""
    if len(path) == 4 and path[0] == "taskRoles" and path[2] == "commands":
        return True
    if not (len(path) == 6 and path[0] == "deployments" and path[2] == "taskRoles" and path[4] in COMMANDS[1:]):
        return False
    defaults, deployment, roles = data.get("defaults"), data["deployments"][path[1]], data.get("taskRoles")
    default = defaults.get("deployment") if isinstance(defaults, dict) else None
    return default is not None and deployment.get("name") == default and isinstance(roles, dict) and path[3] in roles


def changed_parameters(data: Any, written: Written) -> list[JobProblem]:
    """The rest-server fills ``<% $parameters.X %>`` into a task role's commands (and its deployments'
    pre- and postCommands) with JavaScript's String() of what its js-yaml read: a value it reads otherwise
    than YAML 1.2 (a date, 0755, 1_000, 1:30), null or a list changes the command unsaid."""
    found = []
    for path, text in placeholders.strings(data):
        if not _rendered(data, path):
            continue
        for template in placeholders.find(text):
            named = _parameter(data, template.expression) if template.namespace == "$parameters" else None
            why = _changed(written, *named) if named else ""
            if why:
                message = f"the rest-server fills {template.text} in as {why}: quote the parameter's value"
                found.append(JobProblem(path, message, "entrypoint"))
    return found
