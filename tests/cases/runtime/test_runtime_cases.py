"""The runtime round-trip corpus against Python: values.json is what regen.py makes from
prereq.openpai.runtime and forms today, and every case's answers are what they give for the value
as a reader of the file gets it (tests/js/runtime.test.js holds the JS engine to the same file)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve().parent


def _load_regen() -> ModuleType:
    # By path and under a name of its own: tests/cases/regen.py is another module named "regen".
    spec = importlib.util.spec_from_file_location("runtime_cases_regen", HERE / "regen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


regen = _load_regen()
CASES = json.loads(regen.VALUES.read_text(encoding="utf-8"))["cases"]


def test_the_corpus_is_what_python_gives_today() -> None:
    run = subprocess.run(
        [sys.executable, str(HERE / "regen.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=HERE.parents[2],
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_check_fails_on_a_stale_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "values.json"
    stale.write_text(regen.VALUES.read_text(encoding="utf-8").replace('"survives": true', '"survives": false', 1))
    monkeypatch.setattr(regen, "VALUES", stale)
    assert regen.main(["--check"]) == 1


def test_python_gives_every_recorded_answer() -> None:
    wrong = [case["value"] for case in CASES if regen.case(case["value"]) != case]
    assert wrong == []


def test_the_corpus_holds_300_values_in_the_range_javascript_reads_back() -> None:
    assert len(CASES) >= 300
    assert [case["value"] for case in CASES if not regen.supported(case["value"])] == []
