"""The reader corpus against the Python reader: every case's ``expect`` is what it gives."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reader_corpus import case_files, outcome


@pytest.mark.parametrize("path", case_files(), ids=lambda p: p.stem)
def test_reader_case(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    assert outcome(case["change"]) == case["expect"]


def test_the_corpus_names_both_outcomes() -> None:
    expects = [json.loads(p.read_text(encoding="utf-8"))["expect"] for p in case_files()]
    assert any("items" in e for e in expects) and any("error" in e for e in expects)
