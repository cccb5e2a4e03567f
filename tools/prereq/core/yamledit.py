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
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import yaml

from prereq.core.errors import PrereqError
from prereq.core.yamlload import LoadedYaml, YamlLoadError, format_path, load_yaml
from prereq.core.yamlrender import Renderer

Path_ = tuple[Any, ...]


class _NotHere(Exception):
    """A splice does not apply to this layout: fall back to rewriting the parent."""


def load_error(
    source: str, exc: YamlLoadError, *, what: str = "", hint: str = "fix the YAML first", exit_code: int = 1
) -> PrereqError:
    """The PrereqError for text that ``yamlload.load_yaml`` refused: ``source:line:column: [what: ]why``."""
    issue = exc.issues[0]
    where = f"{source}:{issue.line}:{issue.column}" if issue.line else source
    return PrereqError(f"{where}: {what + ': ' if what else ''}{issue.message}", hint=hint, exit_code=exit_code)


def _compose(text: str) -> yaml.Node | None:
    # Marks are character offsets into ``text`` with both loaders (for a text
    # without BOM: libyaml does not count one, so YamlText keeps it apart).
    return yaml.compose(text, Loader=_LOADER)


_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load(text: str, source: str) -> LoadedYaml:
    try:
        return load_yaml(text)
    except YamlLoadError as exc:
        raise load_error(source, exc) from None


class YamlText:
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
            self._nodes = (_compose(self._t),)
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

    def _node(self, path: Path_) -> yaml.Node:
        node = self._root
        for part in path:
            if isinstance(node, yaml.MappingNode):
                node = self._value_of(node, part)
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
                node = node.value[part]
            else:
                raise KeyError(part)
        if node is None:
            raise KeyError(path)
        return node

    @staticmethod
    def _pair(node: yaml.MappingNode, key: Any) -> tuple[int, yaml.Node, yaml.Node]:
        for position, (key_node, value_node) in enumerate(node.value):
            if isinstance(key_node, yaml.ScalarNode) and _same_key(key_node, key):
                return position, key_node, value_node
        raise KeyError(key)

    def _value_of(self, node: yaml.MappingNode, key: Any) -> yaml.Node:
        return self._pair(node, key)[2]

    # -- style -----------------------------------------------------------
    def _detect_style(self) -> Renderer:
        indents: list[int] = []
        sequence_styles: list[bool] = []

        def walk(node: yaml.Node | None) -> None:
            if isinstance(node, yaml.MappingNode) and not node.flow_style:
                for key_node, value_node in node.value:
                    if isinstance(value_node, yaml.MappingNode) and not value_node.flow_style and value_node.value:
                        step = value_node.start_mark.column - key_node.start_mark.column
                        if step > 0 and value_node.start_mark.line > key_node.start_mark.line:
                            indents.append(step)
                    if (
                        isinstance(value_node, yaml.SequenceNode)
                        and not value_node.flow_style
                        and value_node.value
                        and value_node.start_mark.line > key_node.start_mark.line
                    ):
                        sequence_styles.append(value_node.start_mark.column > key_node.start_mark.column)
                    walk(value_node)
            elif isinstance(node, yaml.SequenceNode):
                for child in node.value:
                    walk(child)

        walk(self._root)
        indent = min(indents) if indents else 2
        return Renderer(indent=max(indent, 1), indent_sequences=sequence_styles[0] if sequence_styles else True)

    # -- positions ---------------------------------------------------------
    def _line_start(self, index: int) -> int:
        return self._t.rfind("\n", 0, index) + 1

    def _line_end(self, index: int) -> int:
        """The index just past the line break of the line holding ``index``."""
        found = self._t.find("\n", index)
        return len(self._t) if found < 0 else found + 1

    def _owns_line(self, index: int) -> bool:
        """Only blanks before ``index`` on its line."""
        return self._t[self._line_start(index) : index].strip(" \t") == ""

    def _content_end(self, node: yaml.Node) -> int:
        """Just past the last character that belongs to ``node`` (not trailing blank lines or comments)."""
        if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
            key_node, value_node = node.value[-1]
            return max(self._content_end(value_node), self._colon_end(key_node))
        if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
            return self._content_end(node.value[-1])
        end = node.end_mark.index
        if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
            while end > node.start_mark.index and self._t[end - 1] in " \t\r\n":
                end -= 1
        return end

    def _colon_end(self, key_node: yaml.Node) -> int:
        index = key_node.end_mark.index
        while index < len(self._t) and self._t[index] in " \t":
            index += 1
        if self._t[index : index + 1] != ":":
            raise _NotHere
        return index + 1

    def _dash(self, item: yaml.Node) -> int:
        index = item.start_mark.index - 1
        while index >= 0 and self._t[index] in " \t":
            index -= 1
        if index < 0 or self._t[index] != "-":
            raise _NotHere
        return index

    def _above_comments(self, line_start: int) -> int:
        """The start of the comment lines right above ``line_start`` (they belong to what follows)."""
        at = line_start
        while at > 0:
            previous = self._line_start(at - 1)
            if not self._t[previous:at].strip().startswith("#"):
                break
            at = previous
        return at

    def _column(self, index: int) -> int:
        return index - self._line_start(index)

    def _join(self, lines: Sequence[str]) -> str:
        return self.newline.join(lines)

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
        keys = list(parent)
        position = len(keys)
        after = [k for k in after if k in parent]
        before = [k for k in before if k in parent]
        if after:
            position = max(keys.index(k) for k in after) + 1
        elif before:
            position = min(keys.index(k) for k in before)

        def apply(container: Any) -> None:
            items = list(container.items())
            items.insert(position, (key, copy.deepcopy(value)))
            container.clear()
            container.update(items)

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
            lambda: self._splice_insert_item(parent_path, index, value),
        )

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
            except _NotHere:
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

    # -- splices -----------------------------------------------------------------
    def _splice_replace(self, path: Path_, value: Any) -> str:
        parent = self._node(path[:-1]) if path[:-1] else self._root
        node = self._node(path)
        if getattr(parent, "flow_style", False):
            raise _NotHere  # rewrite the flow parent whole
        if isinstance(parent, yaml.MappingNode):
            _, key_node, _ = self._pair(parent, path[-1])
            start = self._colon_end(key_node)
            column = self._column(key_node.start_mark.index)
            in_sequence = False
        elif isinstance(parent, yaml.SequenceNode):
            dash = self._dash(node)
            start = dash + 1
            column = self._column(dash)
            in_sequence = True
        else:
            raise _NotHere
        end = self._content_end(node) if not _is_empty_plain(node) else start
        if getattr(node, "flow_style", False) and node.value and isinstance(value, (dict, list)) and value:
            return self._t[:start] + " " + self.renderer.flow(value) + self._t[end:]
        block_node = (
            isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and bool(node.value) and not node.flow_style
        )
        if (
            not in_sequence
            and self.renderer.is_block(value)
            and block_node
            and self._owns_line(node.start_mark.index)
            and isinstance(value, dict) == isinstance(node, yaml.MappingNode)
        ):
            # Block collection for block collection: keep the lines before it
            # (a comment after "key:") and its own indentation.
            at = self._line_start(node.start_mark.index)
            lines = self.renderer.lines(value, self._column(node.start_mark.index))
            return self._t[:at] + self._join(lines) + self._t[end:]
        rest = self.renderer.after_indicator(value, column, in_sequence=in_sequence)
        text = rest[0] + (self.newline + self._join(rest[1:]) if rest[1:] else "")
        return self._t[:start] + text + self._t[end:]

    def _splice_insert_key(self, parent_path: Path_, position: int, key: Any, value: Any) -> str:
        node = self._node(parent_path) if parent_path else self._root
        if not isinstance(node, yaml.MappingNode) or node.flow_style or not node.value:
            raise _NotHere
        if position < len(node.value):
            key_node = node.value[position][0]
            if not self._owns_line(key_node.start_mark.index):
                raise _NotHere
            column = self._column(key_node.start_mark.index)
            at = self._above_comments(self._line_start(key_node.start_mark.index))
            lines = self.renderer.pair(key, value, column)
            return self._t[:at] + self._join(lines) + self.newline + self._t[at:]
        previous_key, previous_value = node.value[position - 1]
        column = self._column(node.value[0][0].start_mark.index)
        end = (
            self._content_end(previous_value) if not _is_empty_plain(previous_value) else self._colon_end(previous_key)
        )
        return self._insert_lines_after(end, self.renderer.pair(key, value, column))

    def _insert_lines_after(self, end: int, lines: list[str]) -> str:
        at = self._line_end(max(end - 1, 0)) if end > 0 else 0
        block = self._join(lines) + self.newline
        if at == len(self._t) and not self._t.endswith("\n"):
            block = self.newline + block
        return self._t[:at] + block + self._t[at:]

    def _splice_insert_item(self, parent_path: Path_, index: int, value: Any) -> str:
        node = self._node(parent_path)
        if not isinstance(node, yaml.SequenceNode) or node.flow_style or not node.value:
            raise _NotHere  # flow or empty: the fallback rewrites the list
        if index < len(node.value):
            dash = self._dash(node.value[index])
            if not self._owns_line(dash):
                raise _NotHere
            column = self._column(dash)
            at = self._above_comments(self._line_start(dash))
            lines = self._item_lines(value, column)
            return self._t[:at] + self._join(lines) + self.newline + self._t[at:]
        last = node.value[-1]
        dash = self._dash(last)
        if not self._owns_line(dash):
            raise _NotHere
        return self._insert_lines_after(
            self._content_end(last) if not _is_empty_plain(last) else dash + 1,
            self._item_lines(value, self._column(dash)),
        )

    def _item_lines(self, value: Any, column: int) -> list[str]:
        rest = self.renderer.after_indicator(value, column, in_sequence=True)
        return [" " * column + "-" + rest[0], *rest[1:]]

    def _splice_delete(self, path: Path_) -> str:
        parent = self._node(path[:-1]) if path[:-1] else self._root
        if not isinstance(parent, yaml.CollectionNode) or parent.flow_style or len(parent.value) < 2:
            raise _NotHere  # the fallback writes the (flow or empty) parent anew
        if isinstance(parent, yaml.MappingNode):
            position, key_node, value_node = self._pair(parent, path[-1])
            first = key_node.start_mark.index
            end = self._content_end(value_node) if not _is_empty_plain(value_node) else self._colon_end(key_node)
        else:
            position = path[-1]
            value_node = parent.value[position]
            first = self._dash(value_node)
            end = self._content_end(value_node) if not _is_empty_plain(value_node) else first + 1
        if not self._owns_line(first):
            raise _NotHere
        start = self._line_start(first)
        stop = self._line_end(max(end - 1, first))
        # A trailing comment on the last line goes with the value.
        return self._t[:start] + self._t[stop:]


def _is_empty_plain(node: yaml.Node) -> bool:
    return (
        isinstance(node, yaml.ScalarNode)
        and node.value == ""
        and node.style in (None, "")
        and node.start_mark.index == node.end_mark.index
    )


def _same_key(key_node: yaml.ScalarNode, key: Any) -> bool:
    if isinstance(key, str):
        return key_node.value == key
    if key_node.style not in (None, ""):
        return False
    try:
        return load_yaml(f"k: {key_node.value}\n").data["k"] == key
    except YamlLoadError:
        return False


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
