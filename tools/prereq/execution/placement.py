"""A block placed on its queue, as the OpenPAI job that runs it, checked as the rest-server checks it.

The job has one task role, named after the block, on the queue's virtual cluster: the environment's
docker image (its registry item, or a dockerimage prerequisite made from its URI), resources per
instance of slots x the queue's per-slot cores, memory and GPUs, and the prerequisites that install
the block's libraries, requirements first (registry items, from the published index; a library of
files gets a script that downloads them under ``/opt/prereq/libraries/<library>/``).  ``prereq job add
--queue`` (``jobs.queue``) puts an ordinary job's task roles on a queue with the same pieces:
``resources``, ``uri_image``, ``download`` and ``python_path``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from prereq.core.errors import PrereqError
from prereq.execution.catalog_records import Catalog, Environment, Library, Queue, Ref
from prereq.index.reader import Index
from prereq.openpai import forms
from prereq.openpai.protocol import JobProblem, validate_job

LIBRARIES_ROOT = "/opt/prereq/libraries"
PYTHONPATH_LINE = f"export PYTHONPATH={LIBRARIES_ROOT}/"  # how the command python_path writes starts


@dataclass
class PlacedJob:
    block: str
    job: dict[str, Any]
    problems: list[JobProblem] = field(default_factory=list)  # why OpenPAI would refuse it (none, normally)


def _name(text: str) -> str:
    """``text`` as an OpenPAI prerequisite or job name (letters, digits, '-' and '_')."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", text)


def place_block(request: Mapping[str, Any], block: str, *, catalog: Catalog, index: Index | None) -> PlacedJob:
    """The OpenPAI job of ``block`` of ``request`` (an execution request, ``request.read_request``)."""
    configuration = request["configuration"].get(block)
    if configuration is None:
        raise PrereqError(
            f"the request has no block {block!r}", hint=f"its blocks: {', '.join(request['configuration'])}"
        )
    queue = catalog.queues.get(configuration["queue"])
    environment = catalog.environments.get(Ref.parse(configuration["environment"]))
    if queue is None or environment is None:
        missing = configuration["queue"] if queue is None else configuration["environment"]
        raise PrereqError(
            f"{missing} is not in the catalog the request is placed with",
            hint="place it with the registry it was requested from (--registry)",
        )
    libraries = [_library(catalog, text) for text in configuration["libraries"]]
    image = _image(environment, index)
    installs = _installs(libraries, index)
    slots = configuration["slots"]
    role: dict[str, Any] = {
        "instances": 1,
        "dockerImage": image["name"],
        "resourcePerInstance": resources(queue, slots),
        "commands": python_path(libraries) + list(configuration["commands"]),
    }
    if installs:
        role["prerequisites"] = [form["name"] for form in installs]
    job: dict[str, Any] = {
        "protocolVersion": 2,
        "name": _name(f"{request['experiment']}-{block}"),
        "type": "job",
        "prerequisites": [image, *installs],
        "taskRoles": {block: role},
        "defaults": {"virtualCluster": queue.virtual_cluster},
        "extras": {
            "execution": {
                "user": request["user"],
                "experiment": request["experiment"],
                "block": block,
                "queue": queue.name,
                "environment": configuration["environment"],
                "libraries": list(configuration["libraries"]),
                "slots": slots,
            }
        },
    }
    return PlacedJob(block, job, validate_job(job))


def _library(catalog: Catalog, text: str) -> Library:
    library = catalog.libraries.get(Ref.parse(text))
    if library is None:
        raise PrereqError(f"{text} is not in the catalog the request is placed with", hint="place it with --registry")
    return library


def _needs_index(what: str) -> PrereqError:
    return PrereqError(f"{what} comes from the registry's published index, and none was found", hint="pass --index")


def resources(queue: Queue, slots: int) -> dict[str, int]:
    """``resourcePerInstance`` of ``slots`` of ``queue``: its per-slot cores, memory and GPUs times slots."""
    per_slot = {"cpu": queue.cores_per_slot, "memoryMB": queue.memory_mb, "gpu": queue.gpus_per_slot}
    return {key: slots * value for key, value in per_slot.items()}


def uri_image(env: Environment) -> dict[str, Any]:
    """The dockerimage prerequisite of an environment given by its image's URI (no registry item)."""
    ref = env.ref
    name = _name(f"{ref.name}-{ref.version}-image")
    return {
        "name": name,
        "type": "dockerimage",
        "version": ref.version,
        "description": f"{ref} image",
        "uri": env.image_uri,
    }


def _image(env: Environment, index: Index | None) -> dict[str, Any]:
    if env.image_item is None:
        return uri_image(env)
    if index is None:
        raise _needs_index(f"{env.ref}'s image ({env.image_item})")
    return dict(index.closure([env.image_item])[-1].openpai)


def _installs(libraries: list[Library], index: Index | None) -> list[dict[str, Any]]:
    """What installs ``libraries`` (dependencies first): registry items with their requirements, then
    a download script for each library of files."""
    selections = list(dict.fromkeys(lib.install_item for lib in libraries if lib.install_item is not None))
    found: list[dict[str, Any]] = []
    if selections:
        if index is None:
            raise _needs_index(f"the install prerequisites {', '.join(selections)}")
        found += [dict(entry.openpai) for entry in index.closure(selections)]
    found += [download(library) for library in libraries if library.install_files]
    return found


def download(library: Library) -> dict[str, Any]:
    """A script prerequisite that puts the library's files in place (its URIs and paths are checked by
    the catalog's schema: no quote or space can reach the commands)."""
    folder = f"{LIBRARIES_ROOT}/{library.ref.name}"
    commands = []
    for entry in library.install_files:
        target = f"{folder}/{entry['path']}"
        commands.append(f"mkdir -p {target.rsplit('/', 1)[0]}")
        commands.append(f"curl -fsSL -o {target} '{entry['uri']}' || wget -q -O {target} '{entry['uri']}'")
    item = {
        "name": _name(f"lib-{library.ref.name}-{library.ref.version}"),
        "version": library.ref.version,
        "type": "script",
        "title": library.title,
        "owners": list(library.owners),
        "callbacks": [{"event": "taskStarts", "commands": commands}],
    }
    return forms.compile_item(item, lookup=lambda key: None)


def python_path(libraries: list[Library]) -> list[str]:
    """Python libraries of files on the block's PYTHONPATH (each prerequisite is its own process, so the
    job's commands set it themselves): the one command, or none.  It starts with PYTHONPATH_LINE."""
    folders = [
        f"{LIBRARIES_ROOT}/{lib.ref.name}" for lib in libraries if lib.install_files and lib.language == "python"
    ]
    if not folders:
        return []
    return [f"export PYTHONPATH={':'.join(folders)}${{PYTHONPATH:+:$PYTHONPATH}}"]
