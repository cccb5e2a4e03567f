"""A job plan's edits spliced at once and checked by one load (issue 30): a 150-item closure was five
loads of a 100 KB text in the composer.  The corpus (tests/cases/) holds the texts; these hold the
number of loads, and that what cannot go in at once still goes in, one checked edit at a time."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from prereq.core import yamledit
from prereq.core.yamledit import YamlText
from prereq.core.yamlsplice import apply_spans, changed_span
from prereq.jobs import add_to_text, remove_from_text

sys.path.insert(0, str(Path(__file__).parent / "cases"))
from engine_py import in_cases_folder, load_index

JOB = (Path(__file__).parent / "cases" / "jobs" / "002-add-with-requirements" / "job.yaml").read_text()


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The texts the editor loads to check its edits."""
    seen: list[str] = []
    real = yamledit.load_yaml

    def counted(text: str, **options: Any) -> Any:
        seen.append(text)
        return real(text, **options)

    monkeypatch.setattr(yamledit, "load_yaml", counted)
    yield seen


def test_adding_a_closure_loads_the_new_text_once(loads: list[str]) -> None:
    with in_cases_folder():
        edit = add_to_text(JOB, ["mnist-data"], index=load_index("story"))
    assert edit.after != JOB and "base-tools" in edit.after
    assert [text for text in loads if text != JOB] == [edit.after]  # besides reading the job


def test_removing_it_loads_the_new_text_once(loads: list[str]) -> None:
    with in_cases_folder():
        index = load_index("story")
        added = add_to_text(JOB, ["mnist-data"], index=index).after
        loads.clear()
        removed = remove_from_text(added, ["mnist-data"], index=index)
    assert removed.after != added
    assert [text for text in loads if text != added] == [removed.after]


def test_edits_that_cannot_go_in_at_once_go_in_one_by_one(loads: list[str]) -> None:
    text = "a: 1\nlist:\n  - x\n"

    def run(doc: YamlText) -> None:
        doc.set(("b",), {"c": 1})
        doc.set(("b", "d"), 2)  # inside what the edit before writes: the text has no lines for it yet
        doc.insert(("list", 1), "y")

    at_once, one_by_one = YamlText(text), YamlText(text)
    at_once.at_once(lambda: run(at_once))
    run(one_by_one)
    assert at_once.text == one_by_one.text == "a: 1\nlist:\n  - x\n  - y\nb:\n  c: 1\n  d: 2\n"
    assert len(loads) > 1  # the one-by-one path's checks


def test_spans_are_the_shortest_and_may_neither_overlap_nor_touch() -> None:
    assert changed_span("a: 1\nb: 2\n", "a: 1\nx: 0\nb: 2\n") == (5, 5, "x: 0\n")
    assert changed_span("same", "same") == (4, 4, "")
    assert apply_spans("abcdef", [(4, 5, "E"), (0, 1, "A")]) == "AbcdEf"
    assert apply_spans("abcdef", [(0, 2, "X"), (2, 3, "Y")]) is None  # touching: the order would matter
    assert apply_spans("abcdef", [(0, 3, "X"), (2, 4, "Y")]) is None
