"""Check a job the way the OpenPAI rest-server does before it accepts it.

Two parts, as in the rest-server:

- its JSON Schema, in ``jobschema`` (made standard, errors in our own words);
- its own checks after the schema: unique prerequisite names per type
  ("Duplicate script prerequisites X."), every prerequisite a task role names
  exists ("Prerequisite X does not exist."), a default deployment exists; and
  the webportal's rule for task role names (``^[a-z0-9]{1,63}$``), stricter than the
  rest-server's (``^[a-zA-Z_][a-zA-Z0-9_]*$``, in its schema): only its submission form
  refuses ``Worker`` or ``valid_name``, so that problem (source ``webportal``) is a warning.

The composer's ``site/assets/composer/openpai/protocol.js`` (the schema) and ``restserver.js`` (the
rest) give the same problems word for word (the shared cases in ``tests/cases/protocol/`` hold both
to that).

May import: prereq.core and prereq.openpai.jobschema.
"""

from __future__ import annotations

import re
from typing import Any

from prereq.core.shapes import as_dict, as_list
from prereq.openpai.jobschema import (
    BUNDLED_SCHEMA,
    PREREQUISITE_TYPES,
    JobProblem,
    load_protocol,
    resolve_schema,
    schema_problems,
    show,
)

# What other modules use of the protocol, wherever it is defined.
__all__ = [
    "BUNDLED_SCHEMA",
    "PREREQUISITE_TYPES",
    "TASK_ROLE_FIELDS",
    "TASK_ROLE_NAME",
    "JobProblem",
    "image_name_problems",
    "load_protocol",
    "refusals",
    "resolve_schema",
    "rest_server_problems",
    "role_references",
    "schema_problems",
    "validate_job",
]

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


TASK_ROLE_NAME = re.compile(r"^[a-z0-9]{1,63}$")  # the webportal's form
REST_SERVER_ROLE_NAME = re.compile(
    r"^[a-zA-Z_][a-zA-Z0-9_]*$"
)  # its schema's; a name it refuses is the schema's problem
WARNING_SOURCES = ("webportal",)
_WEBPORTAL_ROLE_NAME = (
    "task role name {} is accepted by the rest-server, but the webportal's submission form allows only "
    "^[a-z0-9]{{1,63}}$ (lower-case letters and digits)"
)  # problems that do not stop the rest-server


def refusals(problems: list[JobProblem]) -> list[JobProblem]:
    """The problems for which the rest-server refuses the job (the others are warnings)."""
    return [problem for problem in problems if problem.source not in WARNING_SOURCES]


def rest_server_problems(job: Any) -> list[JobProblem]:
    """The rest-server's checks after the schema, and the webportal's task role names."""
    if not isinstance(job, dict):
        return []
    problems: list[JobProblem] = []
    by_type: dict[str, set[str]] = {kind: set() for kind in PREREQUISITE_TYPES}
    prerequisites = as_list(job.get("prerequisites"))
    for position, item in enumerate(prerequisites):
        kind, name = (item.get("type"), item.get("name")) if isinstance(item, dict) else (None, None)
        if not isinstance(kind, str) or kind not in by_type or not isinstance(name, str):
            continue
        if name in by_type[kind]:
            problems.append(
                JobProblem(("prerequisites", position), f"Duplicate {kind} prerequisites {name}.", "rest-server")
            )
        by_type[kind].add(name)
    every = set().union(*by_type.values())
    roles = as_dict(job.get("taskRoles"))
    for role, spec in roles.items():
        if REST_SERVER_ROLE_NAME.match(str(role)) and not TASK_ROLE_NAME.match(str(role)):
            problems.append(JobProblem(("taskRoles", role), _WEBPORTAL_ROLE_NAME.format(show(role)), "webportal"))
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


def image_name_problems(job: Any) -> list[JobProblem]:
    """A task role's dockerImage whose name another prerequisite shares: the rest-server accepts it (names
    are unique per type), but the runtime's image check looks prerequisites up by name alone and fails."""
    items = as_list(job.get("prerequisites")) if isinstance(job, dict) else []
    kinds: dict[str, list[str]] = {}
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("name"), str) and isinstance(item.get("type"), str):
            kinds.setdefault(item["name"], []).append(item["type"])
    problems = []
    for role, path, name in role_references(job):
        others = [kind for kind in kinds.get(name, []) if kind != "dockerimage"]
        if path[-1] == "dockerImage" and "dockerimage" in kinds.get(name, []) and others:
            message = (
                f"dockerImage {name} of task role {role} shares its name with the {others[0]} prerequisite "
                f"{name}: the runtime's image check looks prerequisites up by name alone and fails; rename one"
            )
            problems.append(JobProblem(path, message, "runtime"))
    return problems


def validate_job(job: Any) -> list[JobProblem]:
    """Every reason OpenPAI would refuse ``job`` (schema first, then the rest-server's checks)."""
    problems = schema_problems(job)
    return problems + rest_server_problems(job)
