"""The case corpus against the Python engine: every case's steps, what its texts mean to PyYAML, the
committed indexes, the folders, and regen.py leaving hand-written cases alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import regen
import yaml
from corpus import (
    CASE_FILE,
    INDEXES,
    JOB_FILE,
    case_folders,
    expectation_files,
    expected_outcome,
    load_case,
    read_text,
    step_files,
)
from engine_py import run_case
from make_indexes import build_indexes, first_difference
from meaning import meaning, same

FOLDERS = case_folders()
HAND_WRITTEN = [folder for folder in FOLDERS if load_case(folder).hand_written]


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


@pytest.mark.parametrize("folder", FOLDERS, ids=[folder.name for folder in FOLDERS])
def test_every_text_a_step_yields_means_its_data_to_pyyaml(folder: Path) -> None:
    """OpenPAI's runtime (PyYAML) loads each expected text to its meaning file's data
    (tests/js/corpus_meaning.test.js checks the rest-server's js-yaml 3.13.1 against the same files)."""
    for text_file, meaning_file in load_case(folder).meaning_files().items():
        expected = json.loads(read_text(folder / meaning_file))
        assert same(meaning(read_text(folder / text_file)), expected), f"{folder.name}/{text_file}"


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
    assert len(HAND_WRITTEN) >= 3


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
    meanings = set(case.meaning_files().values())
    assert meanings <= expectation_files(folder), "run tests/cases/regen.py to write the meaning files"
    assert {path.name for path in folder.iterdir()} == {CASE_FILE, JOB_FILE} | set(named.values()) | meanings


def test_regen_leaves_hand_written_cases_byte_for_byte(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every expectation file of a hand-written case (and its case.yaml) is tampered with in a copy of the
    corpus; regen.py restores a generated case so tampered, and leaves the hand-written ones as they are."""
    generated = next(folder for folder in FOLDERS if folder not in HAND_WRITTEN)
    jobs = tmp_path / "jobs"
    for folder in [generated, *HAND_WRITTEN]:
        shutil.copytree(folder, jobs / folder.name)
        for name in [CASE_FILE, *expectation_files(folder)]:
            with (jobs / folder.name / name).open("a", encoding="utf-8") as file:
                file.write("# tampered\n")
    tampered = {path: path.read_bytes() for path in sorted(jobs.glob("*/*"))}
    assert regen.main(["--check"], jobs=jobs) == 1
    assert regen.main([], jobs=jobs) == 0
    assert f"1 changed, {len(HAND_WRITTEN)} hand-written left as they are" in capsys.readouterr().out
    assert regen.main(["--check"], jobs=jobs) == 0
    for path, before in tampered.items():
        if path.parent.name != generated.name:
            assert path.read_bytes() == before, path
    for path in (jobs / generated.name).iterdir():
        assert path.read_bytes() == (generated / path.name).read_bytes(), path
