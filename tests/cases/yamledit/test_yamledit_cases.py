"""The YAML-editing corpus against the Python engine: every case's expectation is what it gives now.

The same files run against the JavaScript port in tests/js/yamltext.test.js.  After a deliberate
change of the engine, rewrite them with regen.py (which runs the Python engine for this test too).

    .venv/bin/python -m pytest -q tests/cases/yamledit
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import prereq.core.errors
import prereq.core.yamledit
import prereq.core.yamlload

HERE = Path(__file__).resolve().parent


def _regen():
    # Loaded by path: tests/cases/ has a regen.py of its own, and "regen" may already be that one.
    spec = importlib.util.spec_from_file_location("yamledit_cases_regen", HERE / "regen.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


regen = _regen()
FILES = regen.case_files()


def test_the_engine_is_the_one_regen_runs() -> None:
    assert regen.YamlText is prereq.core.yamledit.YamlText and regen.load_yaml is prereq.core.yamlload.load_yaml
    assert regen.PrereqError is prereq.core.errors.PrereqError


def test_the_corpus_has_cases_of_both_kinds() -> None:
    cases = [regen.read_case(path) for path in FILES]
    assert len(cases) >= 80
    assert any("ops" in case for case in cases) and any("ops" not in case for case in cases)
    assert len({case["description"] for case in cases}) == len(cases), "descriptions are unique"


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_case(path: Path) -> None:
    case = regen.read_case(path)
    assert "expect" in case, "run regen.py to fill in the expectation"
    assert regen.expectation(case) == case["expect"], case["description"]


@pytest.mark.parametrize("path", [p for p in FILES if "browser_refuses" in regen.read_case(p)], ids=lambda p: p.stem)
def test_the_browser_refuses_only_what_the_cli_takes(path: Path) -> None:
    # The one way the composer may part from the CLI: it refuses a text the CLI takes, never the reverse.
    assert "error" not in regen.read_case(path)["expect"]


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_case_file_is_as_regen_writes_it(path: Path) -> None:
    assert regen.dump(json.loads(path.read_text(encoding="utf-8"))) == path.read_text(encoding="utf-8")
