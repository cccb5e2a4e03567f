"""The catalog as data: what ``load`` makes of the files once they match their schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prereq.core.yamlload import LoadedYaml

FULL_REPUTATION = 100  # percent: x1

GPU = "gpu"  # the capability a GPU queue asks of its environments


@dataclass(frozen=True, order=True)
class Ref:
    """One version of an environment or a library, written ``name@version``."""

    name: str
    version: str

    def __str__(self) -> str:
        return f"{self.name}@{self.version}"

    @classmethod
    def parse(cls, text: str) -> Ref:
        name, _, version = text.partition("@")
        return cls(name, version)


@dataclass
class Source:
    """Where a record was read: the file relative to the registry root, and its positions."""

    rel: str
    yaml: LoadedYaml

    def position(self, path: tuple[Any, ...], *, key: bool = False) -> tuple[int, int]:
        return self.yaml.position(path, key=key)


@dataclass
class Environment:
    ref: Ref
    title: str
    languages: tuple[str, ...]
    capabilities: tuple[str, ...]
    packages: dict[str, str]
    image_item: str | None  # a dockerimage prerequisite, NAME or NAME@RANGE
    image_uri: str | None
    owners: tuple[str, ...]
    data: dict[str, Any]
    source: Source

    @property
    def gpu(self) -> bool:
        return GPU in self.capabilities


@dataclass
class Queue:
    name: str
    title: str
    memory_mb: int  # per slot
    time_limit_minutes: int
    cores_per_slot: int
    gpus_per_slot: int
    slots_per_machine: int
    total_slots: int
    environments: tuple[Ref, ...]
    virtual_cluster: str
    owners: tuple[str, ...]
    data: dict[str, Any]
    source: Source

    @property
    def machines(self) -> int:
        """How many machines the total slots spread over (the last one may have fewer)."""
        return -(-self.total_slots // self.slots_per_machine)


@dataclass
class Library:
    ref: Ref
    title: str
    language: str
    environments: tuple[Ref, ...]
    depends: tuple[Ref, ...]
    install_item: str | None  # a prerequisite that installs it, NAME or NAME@RANGE
    install_files: tuple[dict[str, str], ...]  # or files: {path, uri}
    owners: tuple[str, ...]
    data: dict[str, Any]
    source: Source


@dataclass(frozen=True)
class RightsRow:
    queue: str
    group: str
    slots: int
    priority: int
    index: int  # its place in rights.yaml's list, for positions


@dataclass
class Catalog:
    """Every catalog file that matched its schema, plus the names of those that did not (a reference
    to a broken file is that file's problem, not a second one)."""

    environments: dict[Ref, Environment] = field(default_factory=dict)
    queues: dict[str, Queue] = field(default_factory=dict)
    libraries: dict[Ref, Library] = field(default_factory=dict)
    rights: list[RightsRow] = field(default_factory=list)
    groups: dict[str, tuple[str, ...] | None] = field(default_factory=dict)  # rights.yaml's; None: every user
    rights_source: Source | None = None
    broken: set[str] = field(default_factory=set)  # "environment python@1.0.0", "queue gpu", "library x@1.0.0"

    @property
    def empty(self) -> bool:
        return not (self.environments or self.queues or self.libraries or self.rights_source or self.broken)
