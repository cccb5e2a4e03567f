"""Where a YAML value's text is, splices of just its lines, and what a text shares through anchors.

``yamledit.YamlText`` decides what an edit must give and checks it; this module finds the characters
(PyYAML's node marks, without the BOM) and writes lines in the file's style, or raises ``NotHere``.

Longer than usual: the four splices (replace, insert a key, insert items, delete) share the position
helpers (a value's end as written, an alias's included), which a split would make them import back.

May import: PyYAML and prereq.core.yamlload/yamlrender.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

import yaml

from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.core.yamlrender import Renderer

Path_ = tuple[Any, ...]


class NotHere(Exception):
    """A splice does not apply to this layout: fall back to rewriting the parent."""


_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def compose(text: str) -> yaml.Node | None:
    # Marks are character offsets into ``text`` with both loaders (for a text
    # without BOM: libyaml does not count one, so YamlText keeps it apart).
    return yaml.compose(text, Loader=_LOADER)


_ALIAS = re.compile(r"[ \t]*\*[^\s,\[\]{}]+")  # an alias as written: "*name"


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


def _is_merge_key(key_node: yaml.Node) -> bool:
    return isinstance(key_node, yaml.ScalarNode) and key_node.value == "<<" and key_node.style in (None, "")


def _holder(node: yaml.MappingNode, key: Any) -> yaml.MappingNode:
    """The mapping whose own text holds ``key``: ``node``, or what its merge keys (``<<``) bring in, the
    first source first, as the loaders merge."""
    if any(isinstance(k, yaml.ScalarNode) and _same_key(k, key) for k, _ in node.value if not _is_merge_key(k)):
        return node
    for key_node, value_node in node.value:
        if not _is_merge_key(key_node):
            continue
        for source in value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]:
            if isinstance(source, yaml.MappingNode):
                try:
                    return _holder(source, key)
                except KeyError:
                    continue
    raise KeyError(key)


def sharing_marks(text: str) -> list[tuple[str, str, int]]:
    """Every anchor (``&``), alias (``*``) and merge key (``<<``) of ``text``, with its name and line."""
    if not any(mark in text for mark in ("&", "*", "<<")):
        return []
    marks = []
    key = False  # the token before was a key's indicator: a plain "<<" after it is a merge key
    try:
        for token in yaml.scan(text, Loader=_LOADER):
            if isinstance(token, (yaml.AnchorToken, yaml.AliasToken)):
                kind = "&" if isinstance(token, yaml.AnchorToken) else "*"
                marks.append((kind, token.value, token.start_mark.line + 1))
            elif key and isinstance(token, yaml.ScalarToken) and token.plain and token.value == "<<":
                marks.append(("<<", "", token.start_mark.line + 1))
            key = isinstance(token, yaml.KeyToken)
    except yaml.YAMLError:
        return marks
    return marks


def changed_span(old: str, new: str) -> tuple[int, int, str]:
    """The shortest span of ``old`` that ``new`` replaces: (start, end, its replacement)."""
    limit = min(len(old), len(new))
    start = _common_length(lambda n: old[:n] == new[:n], limit)
    tail = _common_length(lambda n: old[len(old) - n :] == new[len(new) - n :], limit - start)
    return start, len(old) - tail, new[start : len(new) - tail]


def _common_length(same: Callable[[int], bool], limit: int) -> int:
    """The largest n <= limit for which the monotone same(n) holds: a binary search of slices."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if same(middle) else (low, middle - 1)
    return low


def apply_spans(text: str, spans: list[tuple[int, int, str]]) -> str | None:
    """``text`` with each span replaced, or None when two spans overlap or touch (their order would matter)."""
    ordered = sorted(spans, key=lambda span: span[0])
    if any(earlier[1] >= later[0] for earlier, later in itertools.pairwise(ordered)):
        return None
    for start, end, replacement in reversed(ordered):
        text = text[:start] + replacement + text[end:]
    return text


class Splices:
    """Positions in a text (``_t``, composed lazily into ``_root``) and the splices over them."""

    _t: str
    newline: str
    renderer: Renderer

    @property
    def _root(self) -> yaml.Node | None:
        raise NotImplementedError  # the editor composes its current text

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
        return self._pair(_holder(node, key), key)[2]

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
            return self._value_end(*node.value[-1])
        if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
            return self._content_end(node.value[-1])
        end = node.end_mark.index
        if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
            while end > node.start_mark.index and self._t[end - 1] in " \t\r\n":
                end -= 1
        return end

    def _value_end(self, key_node: yaml.Node, value_node: yaml.Node) -> int:
        """Just past a mapping value as written after its key: the colon for an empty one, an alias
        (``key: *name``) where it stands, not where its anchored node (the composer's) is."""
        at = self._colon_end(key_node)
        if _is_empty_plain(value_node):
            return at
        alias = _ALIAS.match(self._t, at)
        return alias.end() if alias and value_node.start_mark.index < at else self._content_end(value_node)

    def _properties_end(self, node: yaml.Node) -> int:
        """Just past ``node``'s anchor and tag (``&a !!map``), which a replaced value keeps; 0 without them."""
        index, end = node.start_mark.index, 0
        while self._t[index : index + 1] in ("&", "!"):
            while index < len(self._t) and self._t[index] not in " \t\r\n":
                index += 1
            end = index
            while self._t[index : index + 1] in (" ", "\t"):
                index += 1
        return end

    def _first_content(self, node: yaml.Node) -> int:
        """Where a block collection's first entry starts (its key, or its first item's dash)."""
        first = node.value[0]
        return first[0].start_mark.index if isinstance(node, yaml.MappingNode) else self._dash(first)

    def _colon_end(self, key_node: yaml.Node) -> int:
        index = key_node.end_mark.index
        while index < len(self._t) and self._t[index] in " \t":
            index += 1
        if self._t[index : index + 1] != ":":
            raise NotHere
        return index + 1

    def _dash(self, item: yaml.Node) -> int:
        index = item.start_mark.index - 1
        while index >= 0 and self._t[index] in " \t":
            index -= 1
        if index < 0 or self._t[index] != "-":
            raise NotHere
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

    # -- splices -----------------------------------------------------------------
    def _splice_replace(self, path: Path_, value: Any) -> str:
        parent = self._node(path[:-1]) if path[:-1] else self._root
        node = self._node(path)
        if getattr(parent, "flow_style", False):
            raise NotHere  # rewrite the flow parent whole
        if isinstance(parent, yaml.MappingNode):
            _, key_node, _ = self._pair(_holder(parent, path[-1]), path[-1])
            start = self._colon_end(key_node)
            column = self._column(key_node.start_mark.index)
            in_sequence = False
        elif isinstance(parent, yaml.SequenceNode):
            dash = self._dash(node)
            start = dash + 1
            column = self._column(dash)
            in_sequence = True
        else:
            raise NotHere
        end = self._content_end(node) if not _is_empty_plain(node) else start
        start = max(start, self._properties_end(node))
        if getattr(node, "flow_style", False) and node.value and isinstance(value, (dict, list)) and value:
            return self._t[:start] + " " + self.renderer.flow(value) + self._t[end:]
        block_node = (
            isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and bool(node.value) and not node.flow_style
        )
        if (
            not in_sequence
            and self.renderer.is_block(value)
            and block_node
            and self._owns_line(self._first_content(node))
            and isinstance(value, dict) == isinstance(node, yaml.MappingNode)
        ):
            # Block collection for block collection: keep the lines before it
            # (an anchor or comment after "key:") and its own indentation.
            at = self._line_start(self._first_content(node))
            lines = self.renderer.lines(value, self._column(self._first_content(node)))
            return self._t[:at] + self._join(lines) + self._t[end:]
        rest = self.renderer.after_indicator(value, column, in_sequence=in_sequence)
        text = rest[0] + (self.newline + self._join(rest[1:]) if rest[1:] else "")
        return self._t[:start] + text + self._t[end:]

    def _splice_insert_key(
        self, parent_path: Path_, position: int, key: Any, value: Any, keys: Sequence[Any] = ()
    ) -> str:
        """``key`` at ``position`` of the mapping's keys (``keys``, merged ones included: a new key goes
        after the last of its own keys that comes before ``position``, or after its merge keys)."""
        node = self._node(parent_path) if parent_path else self._root
        if not isinstance(node, yaml.MappingNode) or node.flow_style or not node.value:
            raise NotHere
        if any(_is_merge_key(key_node) for key_node, _ in node.value):
            own = [i for i, (k, _) in enumerate(node.value) if not _is_merge_key(k)]
            earlier = set(keys[:position])
            after = [i for i in own if any(_same_key(node.value[i][0], k) for k in earlier)]
            merges = [i for i, (k, _) in enumerate(node.value) if _is_merge_key(k)]
            position = (after[-1] if after else merges[-1]) + 1
        if position < len(node.value):
            key_node = node.value[position][0]
            if not self._owns_line(key_node.start_mark.index):
                raise NotHere
            column = self._column(key_node.start_mark.index)
            at = self._above_comments(self._line_start(key_node.start_mark.index))
            lines = self.renderer.pair(key, value, column)
            return self._t[:at] + self._join(lines) + self.newline + self._t[at:]
        previous_key, previous_value = node.value[position - 1]
        column = self._column(node.value[0][0].start_mark.index)
        end = self._value_end(previous_key, previous_value)
        return self._insert_lines_after(end, self.renderer.pair(key, value, column))

    def _insert_lines_after(self, end: int, lines: list[str]) -> str:
        at = self._line_end(max(end - 1, 0)) if end > 0 else 0
        block = self._join(lines) + self.newline
        if at == len(self._t) and not self._t.endswith("\n"):
            block = self.newline + block
        return self._t[:at] + block + self._t[at:]

    def _splice_insert_items(self, parent_path: Path_, index: int, values: list[Any]) -> str:
        """The lines of ``values`` at ``index`` of a block sequence: the same text as inserting them one by
        one at ``index``, ``index + 1``... (each goes after the one before, above what stood there)."""
        node = self._node(parent_path)
        if not isinstance(node, yaml.SequenceNode) or node.flow_style or not node.value:
            raise NotHere  # flow or empty: the fallback rewrites the list
        if index < len(node.value):
            dash = self._dash(node.value[index])
            if not self._owns_line(dash):
                raise NotHere
            column = self._column(dash)
            at = self._above_comments(self._line_start(dash))
            lines = [line for value in values for line in self._item_lines(value, column)]
            return self._t[:at] + self._join(lines) + self.newline + self._t[at:]
        last = node.value[-1]
        dash = self._dash(last)
        if not self._owns_line(dash):
            raise NotHere
        column = self._column(dash)
        return self._insert_lines_after(
            self._content_end(last) if not _is_empty_plain(last) else dash + 1,
            [line for value in values for line in self._item_lines(value, column)],
        )

    def _item_lines(self, value: Any, column: int) -> list[str]:
        rest = self.renderer.after_indicator(value, column, in_sequence=True)
        return [" " * column + "-" + rest[0], *rest[1:]]

    def _splice_delete_items(self, parent_path: Path_, positions: list[int]) -> str:
        """The lines of the items at ``positions`` of a block sequence removed, at least one item left: the
        same text as deleting them one by one from the last."""
        parent = self._node(parent_path)
        if not isinstance(parent, yaml.SequenceNode) or parent.flow_style or len(parent.value) <= len(positions):
            raise NotHere
        text = self._t
        for position in sorted(positions, reverse=True):  # from the end: earlier offsets stay true
            item = parent.value[position]
            first = self._dash(item)
            end = self._content_end(item) if not _is_empty_plain(item) else first + 1
            if not self._owns_line(first):
                raise NotHere
            text = text[: self._line_start(first)] + text[self._line_end(max(end - 1, first)) :]
        return text

    def _splice_delete(self, path: Path_) -> str:
        parent = self._node(path[:-1]) if path[:-1] else self._root
        if isinstance(parent, yaml.MappingNode):
            parent = _holder(parent, path[-1])  # a merged key is deleted where it is written
        if not isinstance(parent, yaml.CollectionNode) or parent.flow_style or len(parent.value) < 2:
            raise NotHere  # the fallback writes the (flow or empty) parent anew
        if isinstance(parent, yaml.MappingNode):
            position, key_node, value_node = self._pair(parent, path[-1])
            first = key_node.start_mark.index
            end = self._value_end(key_node, value_node)
        else:
            position = path[-1]
            value_node = parent.value[position]
            first = self._dash(value_node)
            end = self._content_end(value_node) if not _is_empty_plain(value_node) else first + 1
        if not self._owns_line(first):
            raise NotHere
        start = self._line_start(first)
        stop = self._line_end(max(end - 1, first))
        # A trailing comment on the last line goes with the value.
        return self._t[:start] + self._t[stop:]
