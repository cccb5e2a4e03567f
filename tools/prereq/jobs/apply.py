"""Applying a plan: the same edits on the planner's working copy of the data and on the job's text.

The planner decides on plain data (``WorkingCopy``), so that what it reads after an
edit is what the text will hold; each edit is recorded and ``apply_plan`` replays them
on the job's ``YamlText``, which splices the text and checks itself.  The data
semantics are ``YamlText``'s: a new key goes after the last ``after`` key present,
else before the first ``before`` key, else at the end; a missing parent mapping is
created.

May import: prereq.core.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from prereq.core.yamledit import YamlText, insert_key, key_position, same_data

Path_ = tuple[Any, ...]


@dataclass(frozen=True)
class Edit:
    """One edit: ``set`` a key or item, ``insert`` into a list, ``delete`` a key or item."""

    op: str
    path: Path_
    value: Any = None
    before: tuple[Any, ...] = ()
    after: tuple[Any, ...] = ()


def _at(data: Any, path: Sequence[Any]) -> Any:
    for part in path:
        data = data[part]
    return data


class WorkingCopy:
    """Job data that edits change in place, keeping the list of edits made."""

    def __init__(self, data: Any) -> None:
        self.data = copy.deepcopy(data)
        self.edits: list[Edit] = []

    def get(self, path: Sequence[Any], default: Any = None) -> Any:
        try:
            return _at(self.data, path)
        except (KeyError, IndexError, TypeError):
            return default

    def exists(self, path: Sequence[Any]) -> bool:
        missing = object()
        return self.get(path, missing) is not missing

    def set(self, path: Path_, value: Any, *, before: Iterable[Any] = (), after: Iterable[Any] = ()) -> None:
        self.edits.append(Edit("set", path, copy.deepcopy(value), tuple(before), tuple(after)))
        self._set(path, copy.deepcopy(value), tuple(before), tuple(after))

    def _set(self, path: Path_, value: Any, before: tuple[Any, ...], after: tuple[Any, ...]) -> None:
        parent_path, key = path[:-1], path[-1]
        if self.exists(path):
            _at(self.data, parent_path)[key] = value
            return
        if (not self.exists(parent_path) or self.get(parent_path) is None) and parent_path and not isinstance(key, int):
            self._set(parent_path, {key: value}, (), ())
            return
        parent = _at(self.data, parent_path)
        insert_key(parent, key_position(list(parent), before=before, after=after), key, value)

    def insert(self, path: Path_, value: Any) -> None:
        self.edits.append(Edit("insert", path, copy.deepcopy(value)))
        _at(self.data, path[:-1]).insert(path[-1], copy.deepcopy(value))

    def delete(self, path: Path_) -> None:
        self.edits.append(Edit("delete", path))
        del _at(self.data, path[:-1])[path[-1]]


def apply_edits(doc: YamlText, edits: Iterable[Edit]) -> None:
    """Replay ``edits`` on the text; inserts into one list at consecutive positions go in at once (a new
    list's too: one set), and so do deletes from one list (``YamlText.insert_many``, ``delete_many``: the
    same text, read once); all of them are spliced at once and checked by one load when they can be
    (``YamlText.at_once``, after ``_checked_fold``).  A text that shares values through anchors (aliases,
    merge keys) takes them as one batch (``_apply_shared``)."""
    if doc.shares:
        _apply_shared(doc, list(edits))
        return
    folded = _checked_fold(doc.data, list(edits))
    doc.at_once(lambda: _apply_runs(doc, folded))


def _checked_fold(data: Any, edits: list[Edit]) -> list[Edit]:
    """``_folded(edits)`` when it gives what ``edits`` give, else ``edits``: a fold moves an edit before the
    ones between, which may have made, moved or removed the value it goes into (``b.c`` made ``b``)."""
    try:
        folded = _folded(edits)
        if len(folded) == len(edits):
            return edits  # nothing folded
        ends = [WorkingCopy(data), WorkingCopy(data)]
        for end, run in zip(ends, (edits, folded), strict=True):
            for edit in run:
                _replay(end, edit)
    except (KeyError, IndexError, TypeError, AttributeError):  # a value not where the fold put it
        return edits
    return folded if same_data(ends[0].data, ends[1].data) else edits


def _folded(edits: list[Edit]) -> list[Edit]:
    """The same edits, each touching lines of the text as it is, to be spliced at once: an edit inside
    the value an earlier ``set`` writes goes into that value (the text has no lines for it yet), and a
    ``set`` or ``delete`` of a value drops the earlier edits inside it (it writes or removes them anyway)."""
    out: list[Edit] = []
    # A set that took edits -> the working copy of its value (copied once); the set is kept with it,
    # so that its id is not reused.
    copies: dict[int, tuple[Edit, WorkingCopy]] = {}
    for edit in edits:
        if edit.op in ("set", "delete"):
            out = [held for held in out if len(held.path) <= len(edit.path) or held.path[: len(edit.path)] != edit.path]
        inside = [i for i, held in enumerate(out) if held.op == "set" and edit.path[: len(held.path)] == held.path]
        at = inside[-1] if inside and len(edit.path) > len(out[inside[-1]].path) else None
        if at is None:
            out.append(edit)
            continue
        if id(out[at]) not in copies:
            working = WorkingCopy({"value": out[at].value})
            out[at] = dataclasses.replace(out[at], value=working.data["value"])
            copies[id(out[at])] = (out[at], working)
        _replay(copies[id(out[at])][1], dataclasses.replace(edit, path=("value", *edit.path[len(out[at].path) :])))
    return out


def _apply_runs(doc: YamlText, edits: list[Edit]) -> None:
    run: list[Edit] = []
    for edit in [*edits, None]:
        if edit is not None and run and _continues(run, edit):
            run.append(edit)
            continue
        if len(run) > 1 and run[0].op == "set":
            _replay(doc, dataclasses.replace(run[0], value=[*run[0].value, *(e.value for e in run[1:])]))
        elif len(run) > 1 and run[0].op == "insert":
            doc.insert_many(run[0].path, [e.value for e in run])
        elif len(run) > 1:
            doc.delete_many(run[0].path[:-1], [e.path[-1] for e in run])
        elif run:
            _replay(doc, run[0])
        run = [edit] if edit is not None else []


def _continues(run: list[Edit], edit: Edit) -> bool:
    """``edit`` inserts right after the inserts of ``run``, into the same list (or the list ``run`` set), or
    deletes the item of that list just before the one the last of ``run`` deleted (the planner deletes from
    the end)."""
    first, last = run[0], run[-1]
    if first.op == "set" and isinstance(first.value, list) and edit.op == "insert" and edit.path[:-1] == first.path:
        return bool(edit.path[-1] == len(first.value) + len(run) - 1)  # appends to the list just set
    if edit.op != first.op or edit.op not in ("insert", "delete") or edit.path[:-1] != first.path[:-1]:
        return False
    if not all(isinstance(e.path[-1], int) for e in (first, last, edit)):
        return False
    if edit.op == "insert":
        return bool(edit.path[-1] == first.path[-1] + len(run))
    return bool(edit.path[-1] == last.path[-1] - 1)


def _apply_shared(doc: YamlText, edits: list[Edit]) -> None:
    """The edits one by one, toward the data they all give: an edit of a value that an anchor shares
    changes it wherever it is used (the batch's own edit of such a place then finds it done and is left
    out); the text must give the planned data in the end, else the change is refused, naming the anchor."""
    wanted = WorkingCopy(doc.data)
    for edit in edits:
        _replay(wanted, edit)
    with doc.shared_edits(wanted.data):
        replay = WorkingCopy(doc.data)
        for edit in edits:
            _replay(replay, edit)
            if not _done(doc, replay, edit):  # else done already, where an anchor shares it
                _replay(doc, edit)


def _done(doc: YamlText, replay: WorkingCopy, edit: Edit) -> bool:
    """The text holds what ``edit`` gives already: a list as the batch has it then, a key gone or set."""
    parent = edit.path[:-1]
    if edit.op == "delete" and not doc.exists(edit.path):
        return True
    if isinstance(edit.path[-1], int):
        return doc.exists(parent) and doc.get(parent) == replay.get(parent)
    return edit.op != "delete" and doc.exists(edit.path) and doc.get(edit.path) == edit.value


def _replay(target: WorkingCopy | YamlText, edit: Edit) -> None:
    if edit.op == "set":
        target.set(edit.path, edit.value, before=edit.before, after=edit.after)
    elif edit.op == "insert":
        target.insert(edit.path, edit.value)
    else:
        target.delete(edit.path)


def path_as_written(path: Sequence[Any], edits: Sequence[Edit]) -> tuple[Any, ...]:
    """Where ``path`` of the job after ``edits`` stands in the job before them: each list insertion and
    deletion undone, from the last edit back; a path into a value an edit wrote is that value's."""
    found = tuple(path)
    for edit in reversed(edits):
        where, depth = edit.path, len(edit.path)
        if len(found) < depth or found[: depth - 1] != where[:-1]:
            continue
        at = found[depth - 1]
        if edit.op == "set" and at == where[-1]:
            found = where  # the value prereq wrote (or its key's): the user wrote nothing inside it
        elif edit.op in ("insert", "delete") and isinstance(where[-1], int) and isinstance(at, int):
            if edit.op == "insert" and at == where[-1]:
                found = where[:-1]  # an item prereq inserted: its list
            elif at > where[-1] or (edit.op == "delete" and at == where[-1]):
                found = found[: depth - 1] + (at + (-1 if edit.op == "insert" else 1),) + found[depth:]
    return found
