"""Edit YAML text in place: splice new text at positions taken from the parsed YAML.

Round-trip libraries re-emit the whole document and so change what they were
not asked to change (indentation, quotes, line width, comments after a removed
item, CRLF).  ``YamlText`` instead finds the exact characters of the value an
edit touches (PyYAML's node marks) and replaces, inserts or deletes only those
lines, as pre-commit's config migration does.  Everything else stays byte for
byte: comments, blank lines, quoting, key order, CRLF line ends, a BOM.

New values are written in block style, indented like the rest of the file
(its indentation step and whether it indents lists under their key).  Flow
collections (``[a, b]``) stay flow collections.

Every edit checks itself: the edited text is parsed again and must give exactly
the old data with the one change applied.  When a splice cannot guarantee that
(an unusual layout), the enclosing collection is written anew instead; when even
that fails, the edit is refused with a PrereqError and the text is unchanged.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterable
from typing import Any

import yaml

from prereq.core.errors import PrereqError
from prereq.core.yamlload import LoadedYaml, YamlLoadError, format_path, load_yaml
from prereq.core.yamlsplice import NotHere, Path_, Splices, compose


def load_error(
    source: str, exc: YamlLoadError, *, what: str = "", hint: str = "fix the YAML first", exit_code: int = 1
) -> PrereqError:
    """The PrereqError for text that ``yamlload.load_yaml`` refused: ``source:line:column: [what: ]why``."""
    issue = exc.issues[0]
    where = f"{source}:{issue.line}:{issue.column}" if issue.line else source
    return PrereqError(f"{where}: {what + ': ' if what else ''}{issue.message}", hint=hint, exit_code=exit_code)


def _load(text: str, source: str) -> LoadedYaml:
    try:
        return load_yaml(text)
    except YamlLoadError as exc:
        raise load_error(source, exc) from None


class YamlText(Splices):
    """A YAML document as text, edited in place.

    Paths are tuples of mapping keys and sequence indexes, as in
    ``yamlload.LoadedYaml``: ``("taskRoles", "train", "commands", 0)``."""

    def __init__(self, text: str, *, source: str = "<yaml>") -> None:
        self.source = source
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self._bom = "\ufeff" if text.startswith("\ufeff") else ""
        self._set_text(text[len(self._bom) :])
        self.renderer = self._detect_style()

    @property
    def text(self) -> str:
        """The whole current text."""
        return self._bom + self._t

    # -- reading ---------------------------------------------------------
    def _set_text(self, text: str, loaded: LoadedYaml | None = None) -> None:
        """Take ``text`` (without BOM) as the current body; ``loaded`` is its strict load when known.

        Each text is loaded once: the data and positions are kept, and the node
        tree that splices need is composed only when an edit first asks for it."""
        self._t = text
        self._loaded = loaded if loaded is not None else _load(text, self.source)
        self.data = self._loaded.data
        self._nodes: tuple[yaml.Node | None] | None = None

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
        try:
            _get(self.data, path)
            return True
        except (KeyError, IndexError, TypeError):
            return False

    def get(self, path: Path_, default: Any = None) -> Any:
        try:
            return _get(self.data, path)
        except (KeyError, IndexError, TypeError):
            return default

    # -- editing -----------------------------------------------------------
    def set(self, path: Path_, value: Any, *, before: Iterable[Any] = (), after: Iterable[Any] = ()) -> None:
        """Set a mapping key (replace its value, or add the key) or a sequence item.

        A new key goes after the last of ``after`` that the mapping has, else
        before the first of ``before``, else at the end; missing parent
        mappings are created."""
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

        self._edit(parent_path, apply, lambda: self._splice_insert_key(parent_path, position, key, value))

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
        """``insert`` of each of ``values`` at ``path[-1]``, ``path[-1] + 1``...: the same text, read and
        checked once rather than once an item (a job's closure of a hundred items is a hundred inserts).
        When the one splice cannot be made or checked, each item is inserted as ``insert`` does."""
        path = tuple(path)
        parent_path, index = path[:-1], path[-1]
        parent = self.get(parent_path)
        if len(values) > 1 and isinstance(parent, list) and 0 <= index <= len(parent):
            expected = copy.deepcopy(self.data)
            _get(expected, parent_path)[index:index] = copy.deepcopy(values)
            try:
                new_text = self._splice_insert_items(parent_path, index, values)
                loaded = load_yaml(new_text)
            except (NotHere, YamlLoadError):
                loaded = None
            if loaded is not None and _equal(loaded.data, expected):
                self._set_text(new_text, loaded)
                return
        for offset, value in enumerate(values):
            self.insert(path[:-1] + (index + offset,), value)

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
                loaded = load_yaml(new_text)
            except YamlLoadError:
                continue
            if _equal(loaded.data, expected):
                self._set_text(new_text, loaded)
                return
        raise PrereqError(
            f"{self.source}: cannot edit {format_path(parent_path, empty='the document')} "
            "without changing other values",
            hint="simplify the YAML layout there (anchors, complex keys), or edit it by hand",
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


def _get(data: Any, path: Path_) -> Any:
    for part in path:
        if isinstance(data, dict) or (isinstance(data, list) and isinstance(part, int)):
            data = data[part]
        else:
            raise TypeError(part)
    return data


def _assign(container: Any, key: Any, value: Any) -> None:
    container[key] = copy.deepcopy(value)


def _equal(a: Any, b: Any) -> bool:
    """Equal data, with mapping key order and value types compared too."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, float) and a != a:
        return b != b
    return a == b
