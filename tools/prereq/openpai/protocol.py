"""Check a job the way the OpenPAI rest-server does before it accepts it.

Two parts, as in the rest-server:

- its JSON Schema, in ``jobschema`` (made standard, errors in our own words);
- its own checks after the schema: unique prerequisite names per type
  ("Duplicate script prerequisites X."), every prerequisite a task role names
  exists ("Prerequisite X does not exist."), a default deployment exists; and
  task role names: the schema allows ``^[a-zA-Z_][a-zA-Z0-9_]*$``, but the rest-server runs a task
  role under its ``convertName`` (lower-case letters and digits: ``Worker`` as ``worker``), and
  the runtime looks that name up in the job as written, so ``Worker`` or ``valid_name`` fail once
  the job starts (source ``runtime``); a longer name than the webportal's form allows
  (``^[a-z0-9]{1,63}$``) is a warning (source ``webportal``);
- its HiveD middleware (``middlewares/v2/hived.js``, on clusters scheduled by HiveD), for a job that
  has ``extras.hivedScheduler``: its schema (priority classes, task role names, cell fields), then
  the task roles it names exist, not both ``skuType`` and ``pinnedCellId``, one affinity group one
  cell. Its checks against the cluster (SKU types, a virtual cluster's cells) need the cluster: not here.

A problem's ``source`` names the part of OpenPAI that refuses or fails the job: ``schema`` and
``rest-server`` when it is submitted, ``webportal`` in its submission form, ``runtime`` when it starts.

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
    "hived_problems",
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
_RUNTIME_ROLE_NAME = (
    "task role name {} is accepted by the rest-server, but it names the task role {} (lower-case letters and "
    "digits only), which the runtime then does not find in the job: rename it to match ^[a-z0-9]{{1,63}}$"
)


def framework_role_name(role: str) -> str:
    """The rest-server's convertName: the name the task role runs under, which the runtime looks up."""
    return re.sub(r"[^a-z0-9]", "", role.lower())


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
        accepted = REST_SERVER_ROLE_NAME.fullmatch(str(role))  # whole, as the rest-server's JavaScript matches
        renamed = framework_role_name(str(role))
        if accepted and renamed != role:
            message = _RUNTIME_ROLE_NAME.format(show(role), show(renamed))
            problems.append(JobProblem(("taskRoles", role), message, "runtime"))
        elif accepted and not TASK_ROLE_NAME.match(str(role)):
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


HIVED_PRIORITY_CLASSES = ("prod", "test", "oppo")  # its schema's (its convertPriority also maps "crit")
HIVED_ROLE_NAME = re.compile(r"[A-Za-z0-9._~]+")  # its schema's, the whole key
HIVED_CELL_FIELDS = ("skuType", "pinnedCellId", "affinityGroupName")  # a string or null
_HIVED = ("extras", "hivedScheduler")


def hived_problems(job: Any) -> list[JobProblem]:
    """The rest-server's HiveD middleware, where it needs no cluster: its schema, then its own checks
    (which it makes only once the schema passes)."""
    extras = job.get("extras") if isinstance(job, dict) else None
    if not isinstance(extras, dict) or "hivedScheduler" not in extras:
        return []
    config = extras["hivedScheduler"]
    problems = _hived_schema_problems(config)
    if problems:
        return problems
    hived = config.get("taskRoles")
    if isinstance(hived, (list, str)) and hived:  # its Object.keys: the indexes, and no role is named "0"
        hived = {"0": None}
    return _hived_role_problems(as_dict(job.get("taskRoles")), as_dict(hived))


def _hived_schema_problems(config: Any) -> list[JobProblem]:
    if not isinstance(config, dict):
        return [JobProblem(_HIVED, f'{show(config)} is not of type "object"', "rest-server")]
    problems = []
    if "jobPriorityClass" in config and config["jobPriorityClass"] not in HIVED_PRIORITY_CLASSES:
        message = f"{show(config['jobPriorityClass'])} is not one of HiveD's priority classes"
        problems.append(
            JobProblem((*_HIVED, "jobPriorityClass"), f"{message} {show(list(HIVED_PRIORITY_CLASSES))}", "rest-server")
        )
    roles = config.get("taskRoles")
    if not isinstance(roles, dict):
        return problems  # its schema gives taskRoles no type
    if not roles:
        problems.append(JobProblem((*_HIVED, "taskRoles"), "{} should name at least one task role", "rest-server"))
    for name, spec in roles.items():
        path = (*_HIVED, "taskRoles", name)
        if not HIVED_ROLE_NAME.fullmatch(str(name)):
            message = f"HiveD task role name {show(str(name))} does not match ^[A-Za-z0-9._~]+$"
            problems.append(JobProblem(path, message, "rest-server"))
        elif not isinstance(spec, dict):
            problems.append(JobProblem(path, f'{show(spec)} is not of type "object"', "rest-server"))
        else:
            problems += [
                JobProblem((*path, key), f'{show(spec[key])} is not of type "string", "null"', "rest-server")
                for key in HIVED_CELL_FIELDS
                if key in spec and spec[key] is not None and not isinstance(spec[key], str)
            ]
    return problems


def _hived_role_problems(roles: dict[str, Any], hived: dict[str, Any]) -> list[JobProblem]:
    problems = []
    groups: dict[str, tuple[Any, Any]] = {}
    for name, spec in hived.items():
        path = (*_HIVED, "taskRoles", name)
        if name not in roles:
            problems.append(JobProblem(path, f"Taskrole {name} does not exist.", "rest-server"))
            continue
        cell = (spec.get("skuType"), spec.get("pinnedCellId"))
        if None not in cell:
            message = f"Taskrole {name} has both skuType and pinnedCellId, only one is allowed."
            problems.append(JobProblem(path, message, "rest-server"))
        group = spec.get("affinityGroupName")
        if group is not None and groups.setdefault(group, cell) != cell:
            message = f"AffinityGroup {group} has inconsistent skuType or pinnedCellId."
            problems.append(JobProblem((*path, "affinityGroupName"), message, "rest-server"))
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


def cluster_problems(job: Any) -> list[JobProblem]:
    """The rest-server's put, after its middlewares: it forbids a job whose virtual cluster is not one of the
    user's, found by ``includes``, so a value that is not a string (``123``) is never one of the names."""
    defaults = job.get("defaults") if isinstance(job, dict) else None
    cluster = defaults.get("virtualCluster") if isinstance(defaults, dict) else None
    if cluster is None or isinstance(cluster, str):
        return []
    message = f"{show(cluster)} is not a name: the rest-server finds no virtual cluster of yours by it and forbids"
    return [JobProblem(("defaults", "virtualCluster"), message + " the job (quote it)", "rest-server")]


def validate_job(job: Any) -> list[JobProblem]:
    """Every reason OpenPAI would refuse ``job`` when it is submitted (schema first, then the rest-server's
    checks, then its HiveD middleware's, then its put's)."""
    return schema_problems(job) + rest_server_problems(job) + hived_problems(job) + cluster_problems(job)
