"""Shared test helpers: where the fixtures live and a way to write small registries."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"

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
