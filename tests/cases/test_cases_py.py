"""The case corpus against the Python engine: every case's steps, the committed indexes, the folders."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from corpus import CASE_FILE, INDEXES, JOB_FILE, case_folders, expected_outcome, load_case, step_files
from engine_py import run_case
from make_indexes import build_indexes, first_difference

FOLDERS = case_folders()


@pytest.mark.parametrize("folder", FOLDERS, ids=[folder.name for folder in FOLDERS])
def test_case(folder: Path) -> None:
    case = load_case(folder)
    outcomes = run_case(case.index, case.job_text, [step.as_data() for step in case.steps])
    text = case.job_text
    for number, outcome in enumerate(outcomes, start=1):
        expected = expected_outcome(case, number, text)
        where = f"{case.name} step {number}"
        assert outcome.get("error") == expected.get("error"), where
        assert outcome.get("changes") == expected.get("changes"), where
        assert outcome.get("warnings") == expected.get("warnings"), where
        assert outcome.get("text") == expected.get("text"), where
        text = outcome.get("text", text)


def _browser_refuses(folder: Path) -> dict[str, object] | None:
    refused: dict[str, object] | None = yaml.safe_load((folder / CASE_FILE).read_text(encoding="utf-8")).get(
        "browser_refuses"
    )
    return refused


REFUSED_IN_THE_BROWSER = [folder for folder in FOLDERS if _browser_refuses(folder) is not None]


@pytest.mark.parametrize("folder", REFUSED_IN_THE_BROWSER, ids=[folder.name for folder in REFUSED_IN_THE_BROWSER])
def test_the_browser_refuses_only_what_the_cli_takes(folder: Path) -> None:
    # browser_refuses (README.md) marks the one way the engines may part: the composer refuses a
    # step the CLI takes, never the reverse; tests/js/jobs.test.js checks the composer's side.
    refused = _browser_refuses(folder)
    steps = load_case(folder).steps
    assert refused is not None and set(refused) == {"step", "message"} and isinstance(refused["message"], str)
    step = refused["step"]
    assert isinstance(step, int) and 1 <= step <= len(steps) and "error" not in steps[step - 1].expect


def test_the_committed_indexes_are_what_the_registries_build(tmp_path: Path) -> None:
    build_indexes(tmp_path)
    assert first_difference(INDEXES, tmp_path) is None, "run tests/cases/make_indexes.py"


def test_the_corpus_has_cases() -> None:
    assert len(FOLDERS) >= 45


@pytest.mark.parametrize("folder", FOLDERS, ids=[folder.name for folder in FOLDERS])
def test_case_folder_holds_what_its_steps_name(folder: Path) -> None:
    assert (folder / CASE_FILE).is_file() and (folder / JOB_FILE).is_file()
    case = load_case(folder)
    assert case.description and (INDEXES / case.index).is_dir()
    assert all(step.expect for step in case.steps), "run tests/cases/regen.py to fill in the expectations"
    assert all((INDEXES / step.index).is_dir() for step in case.steps if step.index)
    named = {number: step.expect["text"] for number, step in enumerate(case.steps, start=1) if step.expect.get("text")}
    assert all(name == case.step_file(number) for number, name in named.items()), "step N's text is step-N.yaml"
    assert set(named.values()) == step_files(folder), "every step-N.yaml is named by its step, and exists"
    assert {path.name for path in folder.iterdir()} == {CASE_FILE, JOB_FILE} | set(named.values())
