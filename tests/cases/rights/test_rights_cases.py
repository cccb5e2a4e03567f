"""The rights corpus against the Python engine: every case's ``expect`` is what ``user_rights`` gives
on the catalog of the registry its index was built from (tests/js/rights.test.js holds the composer to
the same files, reading the published catalog)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rights_corpus import case_files, outcome


@pytest.mark.parametrize("path", case_files(), ids=lambda p: p.stem)
def test_rights_case(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    assert outcome(case) == case["expect"]


def test_the_corpus_names_rights_errors_and_nothing() -> None:
    expects = [json.loads(p.read_text(encoding="utf-8"))["expect"] for p in case_files()]
    assert any(e.get("rights") for e in expects)
    assert any("error" in e for e in expects)
    assert any(e.get("rights") == [] for e in expects)
