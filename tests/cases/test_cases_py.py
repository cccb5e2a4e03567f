"""The case corpus against the Python engine: every case's steps, the committed indexes, the folders."""

from __future__ import annotations

from pathlib import Path

import pytest
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
