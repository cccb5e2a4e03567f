"""Shared test helpers: where the fixtures live, a way to write small registries, and the built
indexes the job tests run against."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Validation keeps no cache in the tests (nor in the processes they start): every run computes what it
# reports, and nothing is written into the checkout or a home.  tests/test_validation_cache.py turns it on.
os.environ["PREREQ_CACHE"] = "off"

OWNERS_YAML = "users: [alice, bob]\nteams:\n  data-team: [alice, bob]\n"


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture
def make_registry(tmp_path: Path) -> Callable[..., Path]:
    """Write ``{relative path: text or bytes}`` under a fresh registry folder and return it.

    ``owners.yaml`` gets a small default (users alice and bob, team data-team)
    unless ``files`` gives one; pass ``owners=None`` to leave it out.
    """

    def make(files: dict[str, str | bytes], *, root: Path | None = None, owners: str | None = OWNERS_YAML) -> Path:
        root = root or tmp_path / "registry"
        (root / "prerequisites").mkdir(parents=True, exist_ok=True)
        if owners is not None and "owners.yaml" not in files:
            (root / "owners.yaml").write_text(owners, encoding="utf-8")
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return root

    return make


# --------------------------------------------------------------------------- built indexes


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled registry with its site, built once as `prereq build` does (tests only read it)."""
    from prereq.marketplace.build import build

    result = build(REPO / "registry", tmp_path_factory.mktemp("site") / "site")
    assert result.built, result.problems
    return result.out


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled registry's index (no site), built once per module."""
    from prereq.marketplace.build import build

    out = tmp_path_factory.mktemp("bundled") / "site"
    result = build(REPO / "registry", out, with_site=False)
    assert result.built, [str(p) for p in result.problems if p.severity == "error"]
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two indexes of a tiny registry in a temporary git repository whose history holds several
    versions of an item (locks, upgrades, conflicting ranges, deprecation): see job_helpers.tiny_indexes."""
    from job_helpers import tiny_indexes

    return tiny_indexes(tmp_path_factory.mktemp("tiny"))
