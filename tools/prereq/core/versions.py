"""Semantic versions and npm ranges behind one small module (node-semver)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cmp_to_key, lru_cache
from typing import Any

import nodesemver


@dataclass(frozen=True)
class Requirement:
    """One entry of ``require``: ``name`` or ``name@range``."""

    name: str
    range: str | None  # None: any version

    @classmethod
    def parse(cls, text: str) -> Requirement:
        name, _, spec = text.partition("@")
        return cls(name=name.strip(), range=spec.strip() or None)

    def __str__(self) -> str:
        return f"{self.name}@{self.range}" if self.range else self.name


def fold_name(name: str) -> str:
    """Names compare equal after folding case and '-'/'_': people type them both ways."""
    return name.casefold().replace("_", "-")


def is_version(text: str) -> bool:
    return isinstance(text, str) and len(text) <= MAX_RANGE_LENGTH and nodesemver.valid(text, loose=False) is not None


MAX_RANGE_LENGTH = 256  # characters; node-semver's parser backtracks for seconds on 30 KB


def is_range(text: str) -> bool:
    return _parsed_range(text) is not None


@lru_cache(maxsize=4096)
def _parsed_range(spec: str) -> nodesemver.Range | None:
    # Parsing a range is node-semver's slow part; registries reuse a few ranges.
    if len(spec) > MAX_RANGE_LENGTH:
        return None
    try:
        return nodesemver.make_range(spec, loose=False)
    except (ValueError, TypeError):
        return None


@lru_cache(maxsize=65536)
def satisfies(version: str, spec: str | None) -> bool:
    if spec is None:
        return True
    parsed = _parsed_range(spec)
    try:
        return parsed is not None and bool(parsed.test(version))
    except (ValueError, TypeError):
        return False


def version_key(version: str) -> Any:
    return cmp_to_key(lambda a, b: nodesemver.compare(a, b, loose=False))(version)


def sort_versions(versions: list[str]) -> list[str]:
    return sorted(versions, key=version_key)
