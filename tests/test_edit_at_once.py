"""A job plan's edits spliced at once and checked by one load (issue 30): a 150-item closure was five
loads of a 100 KB text in the composer.  The corpus (tests/cases/) holds the texts; these hold the
number of loads, that what cannot go in at once still goes in, one checked edit at a time, and (a
fuzzer) that at once writes the bytes one by one writes and folding gives the plan's data."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prereq.core import yamledit
from prereq.core.errors import PrereqError
from prereq.core.yamledit import YamlText, same_data
from prereq.core.yamlsplice import apply_spans, changed_span
from prereq.jobs import add_to_text, remove_from_text
from prereq.jobs.apply import Edit, WorkingCopy, _replay, apply_edits

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


# -- a fuzzer: small documents in many layouts, random edit runs; at once must match one by one
VALUES = st.sampled_from(["w", 2, True, None, "x: y", "\U0001f600", {"p": 1}, ["q", {"r": 3}], {}])
NEW_KEYS = st.lists(st.sampled_from(["k", "n", "x y", "true", "b"]), max_size=1)
SCALARS = st.sampled_from(["v", "1", "'s p'", "\U0001f600", "~", "[]", "{}", "[1, z]", "{e: 1}"])
ITEMS = st.sampled_from(["i", "{f: 2}", "g: 3", "\U0001f601 j  # c"])


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Block mappings two deep: quoted keys, anchors (no aliases), comments, blank lines, flow and block
    collections, lists indented under their key or not, CRLF, a BOM."""
    lines: list[str] = []
    dash = draw(st.sampled_from(["- ", "  - "]))

    def mapping(pad: str, depth: int) -> None:
        for key in draw(st.lists(st.sampled_from("abcd"), min_size=1, max_size=3, unique=True)):
            lines.extend(draw(st.sampled_from([[], [""], [pad + "# note"]])))
            head = pad + draw(st.sampled_from([key, f'"{key}"', f"'{key}'"])) + ":"
            head += draw(st.sampled_from(["", f" &{key}{len(lines)}"]))
            kind = draw(st.sampled_from(["scalar", "map", "list"][: 3 if depth < 2 else 1]))
            lines.append(head + (" " + draw(SCALARS) if kind == "scalar" else ""))
            if kind == "map":
                mapping(pad + "  ", depth + 1)
            elif kind == "list":
                lines.extend(pad + dash + draw(ITEMS) for _ in range(draw(st.integers(1, 3))))

    mapping("", 0)
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return draw(st.sampled_from(["", "\ufeff"])) + newline.join(lines) + newline


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    for key, child in value.items() if isinstance(value, dict) else enumerate(value):
        if isinstance(child, (dict, list)):
            yield from _places(child, (*path, key))


def random_edits(draw: st.DrawFn, data: Any) -> list[Edit]:
    """Sets of keys old and new (before/after, under keys new in the run), inserts and deletes, anywhere."""
    plan, added = WorkingCopy(data), []
    for _ in range(draw(st.integers(1, 6))):
        made = [(p, plan.get(p)) for p in added if isinstance(plan.get(p), (dict, list))]
        path, box = draw(st.sampled_from([*_places(plan.data), *made]))
        if isinstance(box, list):
            at = draw(st.integers(0, len(box)))
            how = draw(st.sampled_from(["insert", "delete", "set"] if at < len(box) else ["insert"]))
            getattr(plan, how)((*path, at), *([draw(VALUES)] if how != "delete" else []))
            continue
        key = draw(st.sampled_from([*box, *draw(NEW_KEYS)] or ["k"]))
        if key in box and draw(st.booleans()):
            plan.delete((*path, key))
        else:
            near = st.lists(st.sampled_from([*box, "zz"]), max_size=1).map(tuple)
            deeper = draw(NEW_KEYS) if key not in box else []  # a parent made by the set too
            plan.set((*path, key, *deeper), draw(VALUES), before=draw(near), after=draw(near))
            added.append((*path, key))
    return plan.edits


def _outcome(text: str, make: Callable[[YamlText], object]) -> tuple[str, Any]:
    doc = YamlText(text)
    try:
        make(doc)
    except PrereqError as exc:  # an anchored value cannot go, nor be written anew
        return str(exc), None
    return doc.text, doc.data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_at_once_gives_what_one_by_one_gives(data: st.DataObject) -> None:
    text = data.draw(documents())
    edits = random_edits(data.draw, YamlText(text).data)
    wanted = WorkingCopy(YamlText(text).data)
    for edit in edits:
        _replay(wanted, edit)
    one = _outcome(text, lambda doc: [_replay(doc, edit) for edit in edits])
    once = _outcome(text, lambda doc: doc.at_once(lambda: [_replay(doc, edit) for edit in edits]))
    applied = _outcome(text, lambda doc: apply_edits(doc, edits))
    # The same refusal, or the same data; the text may differ where a comment of a deleted key goes (one
    # by one, deleting every key and adding one writes the document anew; at once, the comment stays).
    assert (once[1] is None) == (one[1] is None) and (once[1] is None or same_data(once[1], wanted.data))
    assert once[1] is not None or once[0] == one[0]
    # Folding may write other bytes (an edit it drops is not made) and drop a refused edit (in what goes).
    for got in (one, applied):
        assert got[1] is None or same_data(got[1], wanted.data)
    assert one[1] is None or applied[1] is not None


@pytest.mark.parametrize(
    "edits",
    [
        [Edit("set", ("b",), {"x": 1}), Edit("delete", ("b",)), Edit("set", ("b", "c"), 2)],
        [Edit("set", ("l", 0), {"a": 2}), Edit("insert", ("l", 0), {"b": 1}), Edit("set", ("l", 0, "c"), 3)],
        [Edit("set", ("k", "k"), "w"), Edit("delete", ("k",))],
    ],
)
def test_no_fold_past_what_makes_moves_or_removes_its_value(edits: list[Edit]) -> None:
    """Found by the fuzzer: folding put c into the b deleted, or into the item moved (a wrong job), and
    dropped the set that made k before k's delete (a KeyError)."""
    text = "a: 1\nl:\n  - a: 1\n"
    one = _outcome(text, lambda doc: [_replay(doc, edit) for edit in edits])
    assert _outcome(text, lambda doc: apply_edits(doc, edits)) == one
