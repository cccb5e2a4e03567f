"""Check a job the way the OpenPAI rest-server does before it accepts it.

Two parts, as in the rest-server:

- its JSON Schema (``protocol.js`` of microsoft/pai, as JSON): the
  non-standard ``$merge`` keyword of ajv-merge-patch is resolved here (the
  ``source`` schema with ``with`` applied as a JSON Merge Patch, RFC 7386) and
  ``base.json`` references are inlined, so any draft-7 validator applies it;
- its own checks after the schema: unique prerequisite names per type
  ("Duplicate script prerequisites X."), every prerequisite a task role names
  exists ("Prerequisite X does not exist."), a default deployment exists; and
  the webportal's rule for task role names (``^[a-z0-9]{1,63}$``).

The schema is read from the copy in ``<repo>/schema/openpai-protocol.schema.json``.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from prereq.core.errors import PrereqError
from prereq.core.resources import SCHEMA_DIR
from prereq.core.shapes import as_dict, as_list
from prereq.core.yamlload import format_path

# The rest-server's schema, copied into the repository so results never depend
# on what lies beside a checkout (a test keeps the copy equal to ../shared's).
BUNDLED_SCHEMA = SCHEMA_DIR / "openpai-protocol.schema.json"

PREREQUISITE_TYPES = ("script", "output", "data", "dockerimage")
# Task role fields that name one prerequisite of a type.
TASK_ROLE_FIELDS = {"dockerImage": "dockerimage", "data": "data", "script": "script", "output": "output"}


def role_references(job: Any) -> list[tuple[str, tuple[Any, ...], str]]:
    """Every prerequisite name a job's task roles mention, as (role, path, name):
    the ``prerequisites`` list, then ``dockerImage``/``data``/``script``/``output``."""
    roles = job.get("taskRoles") if isinstance(job, dict) else None
    found: list[tuple[str, tuple[Any, ...], str]] = []
    for role, spec in roles.items() if isinstance(roles, dict) else []:
        if not isinstance(spec, dict):
            continue
        names = as_list(spec.get("prerequisites"))
        found += [(role, ("taskRoles", role, "prerequisites", i), n) for i, n in enumerate(names) if isinstance(n, str)]
        found += [
            (role, ("taskRoles", role, key), spec[key]) for key in TASK_ROLE_FIELDS if isinstance(spec.get(key), str)
        ]
    return found


TASK_ROLE_NAME = re.compile(r"^[a-z0-9]{1,63}$")


@dataclass(frozen=True)
class JobProblem:
    """One reason OpenPAI would refuse the job; ``path`` points into the job."""

    path: tuple[Any, ...]
    message: str
    source: str  # "schema" | "rest-server" | "webportal"

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


@cache
def _validator() -> jsonschema.Draft7Validator:
    schema = resolve_schema(load_protocol())
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def schema_problems(job: Any) -> list[JobProblem]:
    problems = []
    for error in sorted(_validator().iter_errors(job), key=lambda e: list(map(str, e.absolute_path))):
        problems.append(JobProblem(tuple(error.absolute_path), _message(error), "schema"))
    return problems


def _message(error: jsonschema.ValidationError) -> str:
    if error.validator == "oneOf" and isinstance(error.instance, dict):
        kind = error.instance.get("type")
        if kind == "dockerimage":
            allowed = {"protocolVersion", "name", "version", "contributor", "description", "type", "uri", "auth"}
            extra = sorted(set(error.instance) - allowed)
            if extra:
                return f"a dockerimage prerequisite allows no key {', '.join(map(repr, extra))}"
            if "uri" not in error.instance:
                return "a dockerimage prerequisite needs 'uri'"
        if kind not in PREREQUISITE_TYPES:
            return f"prerequisite type {kind!r} is not one of {', '.join(PREREQUISITE_TYPES)}"
        # The branch for this type is the one whose 'type' matched: report its errors.
        branches: dict[Any, list[jsonschema.ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0] if sub.relative_schema_path else None, []).append(sub)
        for subs in branches.values():
            if not any(list(sub.relative_path) == ["type"] for sub in subs):
                where = ".".join(map(str, subs[0].relative_path))
                return f"not a valid {kind} prerequisite: " + (f"{where}: " if where else "") + subs[0].message
        return "not a valid prerequisite"
    return error.message


def rest_server_problems(job: Any) -> list[JobProblem]:
    """The rest-server's checks after the schema, and the webportal's task role names."""
    if not isinstance(job, dict):
        return []
    problems: list[JobProblem] = []
    by_type: dict[str, set[str]] = {kind: set() for kind in PREREQUISITE_TYPES}
    prerequisites = as_list(job.get("prerequisites"))
    for position, item in enumerate(prerequisites):
        if not isinstance(item, dict) or item.get("type") not in by_type or not isinstance(item.get("name"), str):
            continue
        if item["name"] in by_type[item["type"]]:
            problems.append(
                JobProblem(
                    ("prerequisites", position),
                    f"Duplicate {item['type']} prerequisites {item['name']}.",
                    "rest-server",
                )
            )
        by_type[item["type"]].add(item["name"])
    every = set().union(*by_type.values())
    roles = as_dict(job.get("taskRoles"))
    for role, spec in roles.items():
        if not TASK_ROLE_NAME.match(str(role)):
            problems.append(
                JobProblem(
                    ("taskRoles", role),
                    f"task role name {role!r} must match ^[a-z0-9]{{1,63}}$ (lower-case letters and digits)",
                    "webportal",
                )
            )
        if not isinstance(spec, dict):
            continue
        for field, kind in TASK_ROLE_FIELDS.items():
            name = spec.get(field)
            if isinstance(name, str) and name not in by_type[kind]:
                problems.append(
                    JobProblem(("taskRoles", role, field), f"Prerequisite {name} does not exist.", "rest-server")
                )
        names = as_list(spec.get("prerequisites"))
        for position, name in enumerate(names):
            if isinstance(name, str) and name not in every:
                problems.append(
                    JobProblem(
                        ("taskRoles", role, "prerequisites", position),
                        f"Prerequisite {name} does not exist.",
                        "rest-server",
                    )
                )
    deployments = as_list(job.get("deployments"))
    seen: set[str] = set()
    for position, deployment in enumerate(deployments):
        name = deployment.get("name") if isinstance(deployment, dict) else None
        if not isinstance(name, str):
            continue  # the protocol schema requires a string name
        if name in seen:
            problems.append(JobProblem(("deployments", position), f"Duplicate deployments {name}.", "rest-server"))
        seen.add(name)
    default = (job.get("defaults") or {}).get("deployment") if isinstance(job.get("defaults"), dict) else None
    if isinstance(default, str) and default not in seen:
        problems.append(
            JobProblem(("defaults", "deployment"), f"Default deployment {default} does not exist.", "rest-server")
        )
    return problems


def validate_job(job: Any) -> list[JobProblem]:
    """Every reason OpenPAI would refuse ``job`` (schema first, then the rest-server's checks)."""
    problems = schema_problems(job)
    return problems + rest_server_problems(job)
