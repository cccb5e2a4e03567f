"""Edit YAML text in place: splice new text at positions taken from the parsed YAML.

Round-trip libraries re-emit the whole document and change what they were not asked to (indentation,
quotes, comments after a removed item, CRLF).  ``YamlText`` replaces, inserts or deletes only the lines
of the value an edit touches (PyYAML's node marks), in the file's own indentation; flow collections stay
flow.  Every edit checks itself: the edited text is loaded again and must give the old data with the one
change; else the enclosing collection is written anew, else the edit is refused and the text unchanged.
A job plan's edits are spliced at once and checked by one load (``at_once``) when they can be.
"""

from __future__ import annotations

import contextlib
import copy
import functools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import yaml

from prereq.core.errors import PrereqError
from prereq.core.yamlload import LoadedYaml, YamlLoadError, format_path, load_yaml
from prereq.core.yamlsplice import NotHere, Path_, Splices, apply_spans, changed_span, compose, sharing_marks


def load_error(
    source: str, exc: YamlLoadError, *, what: str = "", hint: str = "fix the YAML first", exit_code: int = 1
) -> PrereqError:
    """The PrereqError for text that ``yamlload.load_yaml`` refused: ``source:line:column: [what: ]why``."""
    issue = exc.issues[0]
    where = f"{source}:{issue.line}:{issue.column}" if issue.line else source
    return PrereqError(f"{where}: {what + ': ' if what else ''}{issue.message}", hint=hint, exit_code=exit_code)


def _load(text: str, source: str, merge_keys: bool) -> LoadedYaml:
    try:
        return load_yaml(text, merge_keys=merge_keys)
    except YamlLoadError as exc:
        raise load_error(source, exc) from None


class YamlText(Splices):
    """A YAML document as text, edited in place; paths are tuples of mapping keys and sequence indexes."""

    def __init__(self, text: str, *, source: str = "<yaml>", merge_keys: bool = False) -> None:
        self.source = source
        self.merge_keys = merge_keys
        # shared_edits' final data, and the first edit that changed a value shared with another path.
        self._wanted: Any = None
        self._spread: Path_ | None = None
        self._spans: list[tuple[int, int, str]] | None = None  # the splices of ``at_once``, when in it
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self._bom = "\ufeff" if text.startswith("\ufeff") else ""
        self._set_text(text[len(self._bom) :])
        self._initial = (self._t, self._loaded)  # what refusals point at: the file as it was written
        self.renderer = self._detect_style()

    @property
    def text(self) -> str:
        return self._bom + self._t

    def _set_text(self, text: str, loaded: LoadedYaml | None = None) -> None:
        """Take ``text`` (without BOM) as the body, with its strict load when known (the node tree that
        splices need is composed when an edit first asks for it)."""
        self._t = text
        self._loaded = loaded if loaded is not None else _load(text, self.source, self.merge_keys)
        self.data = self._loaded.data
        self._nodes: tuple[yaml.Node | None] | None = None
        self._marks: list[tuple[str, str, int]] | None = None  # sharing_marks of the text, when asked

    @property
    def _root(self) -> yaml.Node | None:
        if self._nodes is None:
            self._nodes = (compose(self._t),)
        return self._nodes[0]

    @property
    def loaded(self) -> LoadedYaml:
        """The strict load of the current text, with positions."""
        return self._loaded

    def exists(self, path: Path_) -> bool:
        return self.get(path, _MISSING) is not _MISSING

    def get(self, path: Path_, default: Any = None) -> Any:
        try:
            return _get(self.data, path)
        except (KeyError, IndexError, TypeError):
            return default

    # -- editing -----------------------------------------------------------
    def set(self, path: Path_, value: Any, *, before: Iterable[Any] = (), after: Iterable[Any] = ()) -> None:
        """Set a mapping key or a sequence item; a new key goes where ``key_position`` says, and missing
        parent mappings are created."""
        path = tuple(path)
        if not path:
            raise ValueError("cannot replace the whole document")
        if self.exists(path):
            if _get(self.data, path) == value and type(_get(self.data, path)) is type(value):
                return
            self._edit(
                path[:-1], lambda parent: _assign(parent, path[-1], value), lambda: self._splice_replace(path, value)
            )
            return
        parent_path, key = path[:-1], path[-1]
        missing_parent = not self.exists(parent_path) or _get(self.data, parent_path) is None
        if missing_parent and parent_path and not isinstance(key, int):
            self.set(parent_path, {key: copy.deepcopy(value)})
            return
        parent = _get(self.data, parent_path)
        if not isinstance(parent, dict):
            raise PrereqError(
                f"{self.source}: {format_path(parent_path, empty='the document')} is not a mapping; cannot add '{key}'"
            )
        position = key_position(list(parent), before=before, after=after)

        def apply(container: Any) -> None:
            insert_key(container, position, key, copy.deepcopy(value))

        keys, at = self._own_position(parent_path, list(parent), position)
        self._edit(parent_path, apply, lambda: self._splice_insert_key(parent_path, at, key, value, keys))

    def insert(self, path: Path_, value: Any) -> None:
        """Insert ``value`` into the sequence at ``path[:-1]`` at index ``path[-1]`` (its length appends)."""
        path = tuple(path)
        parent_path, index = path[:-1], path[-1]
        parent = _get(self.data, parent_path)
        if not isinstance(parent, list):
            raise PrereqError(f"{self.source}: {format_path(parent_path, empty='the document')} is not a list")
        if not 0 <= index <= len(parent):
            raise IndexError(index)
        self._edit(
            parent_path,
            lambda container: container.insert(index, copy.deepcopy(value)),
            lambda: self._splice_insert_items(parent_path, index, [value]),
        )

    def insert_many(self, path: Path_, values: list[Any]) -> None:
        """``insert`` of each of ``values`` at ``path[-1]``, ``path[-1] + 1``...: one splice, checked once
        (a closure of a hundred items is a hundred inserts); else each as ``insert`` does."""
        path = tuple(path)
        parent_path, index = path[:-1], path[-1]
        parent = self.get(parent_path)
        if len(values) > 1 and isinstance(parent, list) and 0 <= index <= len(parent):
            expected = copy.deepcopy(self.data)
            _get(expected, parent_path)[index:index] = copy.deepcopy(values)
            if self._batch(lambda: self._splice_insert_items(parent_path, index, values), expected):
                return
        for offset, value in enumerate(values):
            self.insert(path[:-1] + (index + offset,), value)

    def delete_many(self, parent_path: Path_, positions: list[int]) -> None:
        """``delete`` of the items at ``positions`` of the list at ``parent_path``: one splice, checked once;
        else each as ``delete`` does, from the last."""
        parent_path = tuple(parent_path)
        ordered = sorted(set(positions), reverse=True)
        parent = self.get(parent_path)
        if len(ordered) > 1 and isinstance(parent, list) and all(0 <= p < len(parent) for p in ordered):
            expected = copy.deepcopy(self.data)
            for position in ordered:
                del _get(expected, parent_path)[position]
            if self._batch(lambda: self._splice_delete_items(parent_path, ordered), expected):
                return
        for position in ordered:
            self.delete(parent_path + (position,))

    def _batch(self, splice: Callable[[], str], expected: Any) -> bool:
        """One splice for several edits, taken when its text loads to ``expected`` and keeps what is shared."""
        if self._spans is not None:
            return self._defer(splice(), expected)
        try:
            new_text = splice()
            loaded = load_yaml(new_text, merge_keys=self.merge_keys)
        except (NotHere, YamlLoadError):
            return False
        if not (same_data(loaded.data, expected) and self._keeps_sharing(new_text)):
            return False
        self._set_text(new_text, loaded)
        return True

    def delete(self, path: Path_) -> None:
        """Remove a mapping key or a sequence item, with its lines."""
        path = tuple(path)
        if not self.exists(path):
            raise KeyError(path)
        parent_path, key = path[:-1], path[-1]

        def apply(container: Any) -> None:
            del container[key]

        self._edit(parent_path, apply, lambda: self._splice_delete(path))

    # -- the self-checking edit ------------------------------------------------
    def _edit(self, parent_path: Path_, apply: Callable[[Any], None], splice: Callable[[], str | None]) -> None:
        expected = copy.deepcopy(self.data)
        if parent_path:
            apply(_get(expected, parent_path))
        else:
            apply(expected)
        if self._spans is not None:
            self._defer(splice(), expected)
            return
        attempts: list[Callable[[], str | None]] = [splice]
        # Fallbacks: write the changed collection anew, then each enclosing one.
        for cut in range(len(parent_path), -1, -1):
            attempts.append(functools.partial(self._rewrite, parent_path[:cut], _get(expected, parent_path[:cut])))
        for attempt in attempts:
            try:
                new_text = attempt()
            except NotHere:
                continue
            if new_text is None:
                continue
            try:
                loaded = load_yaml(new_text, merge_keys=self.merge_keys)
            except YamlLoadError:
                continue
            if (same_data(loaded.data, expected) or self._shared_change(parent_path)) and self._keeps_sharing(new_text):
                self._set_text(new_text, loaded)
                return
        raise PrereqError(
            f"{self.source}: cannot edit {format_path(parent_path, empty='the document')} "
            "without changing other values",
            hint="simplify the YAML layout there (anchors, complex keys), or edit it by hand",
        )

    def at_once(self, run: Callable[[], None]) -> None:
        """``run``'s edits spliced against this one text and checked by one load at the end (each edit of a
        job plan has its own lines, and each check is a load of thousands of lines), else ``run`` again."""
        base, self._spans = (self._t, self._loaded), []
        try:
            run()
            if not self._spans:
                return  # no edit changed the text
            new_text = apply_spans(self._t, self._spans)
            loaded = None if new_text is None else load_yaml(new_text, merge_keys=self.merge_keys)
        except Exception:  # what cannot go in at once is made one edit at a time below
            new_text, loaded = None, None
        finally:
            self._spans = None
        if new_text and loaded and same_data(loaded.data, self.data) and self._keeps_sharing(new_text):
            self._set_text(new_text, loaded)
            return
        self._set_text(*base)
        run()

    def _own_position(self, parent_path: Path_, keys: list[Any], position: int) -> tuple[list[Any], int]:
        """In ``at_once``, ``position`` among the data's ``keys`` as one among the text's (which lack some)."""
        if self._spans is None:
            return keys, position
        own = list(_get(self._loaded.data, parent_path))
        earlier = [key for key in keys[:position] if key in own]
        return own, own.index(earlier[-1]) + 1 if earlier else 0

    def _defer(self, new_text: str | None, expected: Any) -> bool:
        """In ``at_once``: keep the splice's span of the text as it was, and its data for the next edits."""
        if new_text is None or self._spans is None:
            raise NotHere
        self._spans.append(changed_span(self._t, new_text))
        self.data = expected
        return True

    # -- values shared through anchors (aliases, merge keys) ---------------------------------------
    @property
    def shares(self) -> bool:
        """Whether the text uses an alias or a merge key: a value one edit may change in several places."""
        return any(kind in ("*", "<<") for kind, _, _ in self._text_marks())

    @contextlib.contextmanager
    def shared_edits(self, wanted: Any) -> Iterator[None]:
        """Edits of a batch whose end is ``wanted``: an edit of a shared value changes it at every path that
        shares it (the batch's edit of such a path then finds it done); at the end the text must give
        ``wanted``, else it is left as it was and the change is refused, naming the anchor."""
        saved, self._wanted, self._spread = (self._t, self._loaded), wanted, None
        try:
            yield
            wrong = next(_differences(self.data, wanted, ()), None)
            if wrong is not None:
                raise self._sharing_refusal(self._spread if self._spread is not None else wrong[0])
        except BaseException:
            self._set_text(*saved)
            raise
        finally:
            self._wanted = None

    def _shared_change(self, parent_path: Path_) -> bool:
        """In a batch an edit may change what shares its value; a refusal points at the first that did."""
        if self._wanted is None:
            return False
        if self._spread is None:
            self._spread = parent_path
        return True

    def _keeps_sharing(self, new_text: str) -> bool:
        """The edit kept every anchor, alias and merge key (a rewrite writes shared values out in full)."""
        marks = self._text_marks()
        return not marks or Counter(k[:2] for k in sharing_marks(new_text)) == Counter(k[:2] for k in marks)

    def _text_marks(self) -> list[tuple[str, str, int]]:
        """The current text's anchors, aliases and merge keys, scanned once per text."""
        if self._marks is None:
            self._marks = sharing_marks(self._t)
        return self._marks

    def _sharing_refusal(self, path: Path_) -> PrereqError:
        text, loaded = self._initial
        marks = sharing_marks(text)
        aliased = {name for kind, name, _ in marks if kind == "*"}
        anchors = [(name, line) for kind, name, line in marks if kind == "&" and name in aliased]
        at = loaded.position(tuple(path))[0] if path else 1
        before = [anchor for anchor in anchors if anchor[1] <= at] or anchors
        if not before:
            return PrereqError(
                f"{self.source}: cannot change {format_path(path)} alone: the merge key ('<<') there shares it",
                hint="write the part that differs out in full instead of merging it, or edit it by hand",
                exit_code=1,
            )
        name, line = before[-1]
        uses = ", ".join(str(where) for kind, alias, where in marks if kind == "*" and alias == name)
        return PrereqError(
            f"{self.source}: cannot change {format_path(path)} alone: it shares the YAML anchor &{name} "
            f"(line {line}) with what uses it (line {uses})",
            hint=f"make the same change wherever &{name} is used (select the same items in each task role "
            "that shares it), or write the part that differs out in full instead of aliasing or merging it",
            exit_code=1,
        )

    def _rewrite(self, path: Path_, value: Any) -> str | None:
        if not path:
            if not isinstance(value, (dict, list)) or not value:
                return self.renderer.scalar(value) + self.newline
            node = self._root
            body = self._join(self.renderer.lines(value, 0))
            if node is None:
                return body + self.newline
            start, end = self._line_start(node.start_mark.index), self._content_end(node)
            return self._t[:start] + body + self._t[end:]
        return self._splice_replace(path, value)


def key_position(keys: list[Any], *, before: Iterable[Any] = (), after: Iterable[Any] = ()) -> int:
    """Where a new key goes among ``keys``: after the last of ``after`` present, else before the first
    of ``before`` present, else at the end (``YamlText.set``'s rule, which the job planner follows)."""
    present_after = [k for k in after if k in keys]
    present_before = [k for k in before if k in keys]
    if present_after:
        return max(keys.index(k) for k in present_after) + 1
    if present_before:
        return min(keys.index(k) for k in present_before)
    return len(keys)


def insert_key(mapping: dict[Any, Any], position: int, key: Any, value: Any) -> None:
    """``mapping`` with ``key`` inserted at ``position`` (in place: Python keeps insertion order)."""
    items = list(mapping.items())
    items.insert(position, (key, value))
    mapping.clear()
    mapping.update(items)


def _differences(a: Any, b: Any, path: Path_) -> Iterator[tuple[Path_, Any]]:
    """The smallest paths where ``a`` and ``b`` differ (mapping key order aside), with ``a``'s value."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            yield from _differences(a.get(key, _MISSING), b.get(key, _MISSING), path + (key,))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from _differences(x, y, path + (index,))
    elif type(a) is not type(b) or a != b:
        yield path, a


_MISSING = object()


def _get(data: Any, path: Path_) -> Any:
    for part in path:
        if isinstance(data, dict) or (isinstance(data, list) and isinstance(part, int)):
            data = data[part]
        else:
            raise TypeError(part)
    return data


def _assign(container: Any, key: Any, value: Any) -> None:
    container[key] = copy.deepcopy(value)


def same_data(a: Any, b: Any) -> bool:
    """Equal data, with mapping key order and value types compared too."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_data(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_data(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, float) and a != a:
        return b != b
    return a == b
