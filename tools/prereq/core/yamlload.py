"""YAML behind one small module: strict loading with source positions.

PyYAML's own constructors keep the last of duplicate keys and turn ``yes``
into True and unquoted dates into ``date`` objects.  We compose the node tree
with the C loader (fast, with marks) and build plain JSON-like data ourselves,
resolving plain scalars with the YAML 1.2 core schema, which is what a JSON
Schema expects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

try:  # libyaml is present on every machine we ship to, but keep a fallback.
    _BaseLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _BaseLoader = yaml.SafeLoader

# The tag of an untagged plain scalar.  PyYAML's resolver would give "5" and
# "!!str 5" the same tag (and YAML 1.1 ones at that), so mark plain scalars
# ourselves and resolve them below with the YAML 1.2 core schema.
_PLAIN_TAG = "tag:prereq,2024:plain"


class _Loader(_BaseLoader):
    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode and implicit[0]:
            return _PLAIN_TAG
        return super().resolve(kind, value, implicit)


PathKey = tuple[Any, ...]

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"^[-+]?[0-9]+$")
_OCT = re.compile(r"^0o[0-7]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")


def format_path(path: PathKey, *, empty: str = "") -> str:
    """``('callbacks', 0, 'commands')`` as ``callbacks[0].commands``; ``empty`` for the root."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or empty


@dataclass(frozen=True)
class YamlIssue:
    """Why a text is not acceptable YAML, with a 1-based position."""

    kind: str  # "syntax" | "encoding" | "documents" | "duplicate-key"
    message: str
    line: int | None
    column: int | None


@dataclass
class LoadedYaml:
    """Data plus the 1-based (line, column) of every value and mapping key."""

    data: Any
    value_positions: dict[PathKey, tuple[int, int]] = field(default_factory=dict)
    key_positions: dict[PathKey, tuple[int, int]] = field(default_factory=dict)

    def position(self, path: PathKey, *, key: bool = False) -> tuple[int, int]:
        """Position of ``path``'s value (or key), else of its nearest ancestor."""
        table = self.key_positions if key else self.value_positions
        for cut in range(len(path), -1, -1):
            found = table.get(tuple(path[:cut])) or self.value_positions.get(tuple(path[:cut]))
            if found:
                return found
        return (1, 1)


class Reloaded(LoadedYaml):
    """The data of an earlier ``load_yaml(raw)``, kept: positions come from loading ``raw`` again, only
    when one is asked for (most files never need one)."""

    def __init__(self, data: Any, raw: bytes | str) -> None:
        super().__init__(data=data)
        self._raw: bytes | str | None = raw

    def position(self, path: PathKey, *, key: bool = False) -> tuple[int, int]:
        if self._raw is not None:
            fresh = load_yaml(self._raw)
            self.value_positions, self.key_positions, self._raw = fresh.value_positions, fresh.key_positions, None
        return super().position(path, key=key)


# Limits that keep hostile input from exhausting the stack or memory: libyaml
# stops at 1000 levels, which is already past Python's recursion limit, and
# aliases can expand a few lines into billions of values ("billion laughs").
MAX_DEPTH = 100
MAX_VALUES = 100_000
MAX_INT_DIGITS = 4300  # Python's own limit for decimal integer strings (int() refuses longer ones)


class YamlLoadError(Exception):
    def __init__(self, issues: list[YamlIssue]) -> None:
        super().__init__(issues[0].message)
        self.issues = issues

    def explained(self, raw: bytes | str) -> list[tuple[YamlIssue, str | None]]:
        """The issues as ``explain`` words them for the text ``raw`` that was loaded, with their fixes."""
        return [explain(issue, raw) for issue in self.issues]


def plain_value(text: str) -> Any:
    """What the YAML 1.2 core schema reads the plain scalar ``text`` as."""
    return _scalar(yaml.ScalarNode(_PLAIN_TAG, text))


def _scalar(node: yaml.ScalarNode) -> Any:
    value = node.value
    if node.style not in (None, "") or node.tag != _PLAIN_TAG:
        return value  # quoted, block or explicitly tagged: a string
    if _NULL.match(value):
        return None
    if value in _BOOL:
        return _BOOL[value]
    if _INT.match(value):
        return int(value)
    if _OCT.match(value):
        return int(value[2:], 8)
    if _HEX.match(value):
        return int(value[2:], 16)
    if _FLOAT.match(value):
        return float(value)
    if _INF.match(value):
        return float("-inf") if value.startswith("-") else float("inf")
    if _NAN.match(value):
        return float("nan")
    return value


def _mark(node: yaml.Node | yaml.Event) -> tuple[int, int]:
    mark = node.start_mark
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


class _TooLarge(Exception):
    """The values passed MAX_VALUES at ``path`` (raised from deep in the walk, to stop it)."""

    def __init__(self, path: PathKey) -> None:
        super().__init__()
        self.path = path


# The tags a value may carry: plain YAML's for its kind, written or implied (an explicit "!!str" on a
# scalar says what quoting says).  Any other ("!!int '12'", "!!binary", "!custom", "!!str" on a
# mapping) is refused: prereq would read it one way, OpenPAI's rest-server (js-yaml) another or not at all.
_YAML_TAGS = {
    yaml.ScalarNode: {_PLAIN_TAG, "tag:yaml.org,2002:str"},
    yaml.SequenceNode: {"tag:yaml.org,2002:seq"},
    yaml.MappingNode: {"tag:yaml.org,2002:map"},
}
TAG_MESSAGE = "YAML tags are not supported"  # the start of the issue's message (for hints)


def _is_merge(key_node: yaml.Node) -> bool:
    return key_node.tag == "tag:yaml.org,2002:merge" or (key_node.tag == _PLAIN_TAG and key_node.value == "<<")


def _merged_pairs(node: yaml.MappingNode, issues: list[YamlIssue]) -> list[tuple[yaml.Node, yaml.Node]]:
    """The pairs ``<<`` brings into ``node``, as js-yaml (the rest-server) and PyYAML (the runtime) merge
    them: the sources in order, a key's first source winning, each source as its own data says (its own
    keys over what it merges); ``node``'s own keys come after and win over all."""
    merged: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key_node, value_node in node.value:
        if not _is_merge(key_node):
            continue
        sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
        if not all(isinstance(source, yaml.MappingNode) for source in sources):
            message = "a merge key ('<<') takes a mapping or a list of them"
            issues.append(YamlIssue("syntax", message, *_mark(value_node)))
            continue
        for source in sources:
            effective = {pair[0].value: pair for pair in _merged_pairs(source, issues)}
            effective.update((pair[0].value, pair) for pair in source.value if not _is_merge(pair[0]))
            for key, pair in effective.items():
                merged.setdefault(key, pair)
    return list(merged.values())


def _build_mapping(
    node: yaml.MappingNode, path: PathKey, out: LoadedYaml, issues: list[YamlIssue], merges: bool
) -> dict[Any, Any]:
    result: dict[Any, Any] = {}
    inherited = _merged_pairs(node, issues) if merges else []
    own = [pair for pair in node.value if not (merges and _is_merge(pair[0]))]
    mine: set[Any] = set()
    for number, (key_node, value_node) in enumerate(inherited + own):
        if _is_merge(key_node):
            issues.append(YamlIssue("syntax", "merge keys ('<<') are not supported", *_mark(key_node)))
            continue
        key = _build(key_node, path + ("<key>",), out, issues, merges)
        if not isinstance(key, (str, int, float, bool)) and key is not None:
            issues.append(YamlIssue("syntax", "mapping keys must be plain scalars", *_mark(key_node)))
            continue
        ours = number >= len(inherited)
        if key in result and (ours and key in mine):
            first = out.key_positions[path + (key,)]
            issues.append(
                YamlIssue(
                    "duplicate-key",
                    f"duplicate key '{key_node.value}' (first defined on line {first[0]})",
                    *_mark(key_node),
                )
            )
            continue
        if ours:
            mine.add(key)
        out.key_positions[path + (key,)] = _mark(key_node)
        result[key] = _build(value_node, path + (key,), out, issues, merges)
    out.value_positions.pop(path + ("<key>",), None)
    return result


def _build(node: yaml.Node, path: PathKey, out: LoadedYaml, issues: list[YamlIssue], merges: bool = False) -> Any:
    out.value_positions[path] = _mark(node)
    if len(out.value_positions) > MAX_VALUES:
        raise _TooLarge(path)
    if node.tag not in _YAML_TAGS[type(node)]:
        shown = node.tag.replace("tag:yaml.org,2002:", "!!")
        issues.append(YamlIssue("syntax", f"{TAG_MESSAGE} ({shown})", *_mark(node)))
        return None
    if isinstance(node, yaml.ScalarNode):
        if (
            _INT.match(node.value)
            and len(node.value.lstrip("+-")) > MAX_INT_DIGITS
            and node.tag == _PLAIN_TAG
            and node.style in (None, "")
        ):
            issues.append(YamlIssue("syntax", f"integers have at most {MAX_INT_DIGITS} digits", *_mark(node)))
            return None
        return _scalar(node)
    if len(path) >= MAX_DEPTH:
        issues.append(YamlIssue("syntax", f"values are nested more than {MAX_DEPTH} levels deep", *_mark(node)))
        return None
    if isinstance(node, yaml.SequenceNode):
        return [_build(child, path + (i,), out, issues, merges) for i, child in enumerate(node.value)]
    assert isinstance(node, yaml.MappingNode)  # the tags checked above leave no other kind
    return _build_mapping(node, path, out, issues, merges)


def _decode(raw: bytes) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        # Count characters, not bytes, as editors do (a BOM takes no column).
        before = raw[line_start : exc.start].decode("utf-8", "replace").removeprefix("\ufeff")
        column = len(before) + 1
        raise YamlLoadError(
            [YamlIssue("encoding", f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", line, column)]
        ) from None
    return text.removeprefix("\ufeff")


def _second_document_start(text: str) -> tuple[int, int] | None:
    """Where the second document starts: its '---' line, not its first value."""
    starts = (event for event in yaml.parse(text, Loader=_Loader) if isinstance(event, yaml.DocumentStartEvent))
    next(starts, None)
    second = next(starts, None)
    return _mark(second) if second is not None else None


def _reader_issue(text: str, exc: yaml.reader.ReaderError) -> YamlIssue:
    # libyaml counts bytes of the UTF-8 text, PyYAML's reader counts characters.
    if _BaseLoader is yaml.SafeLoader:
        before = text[: exc.position]
    else:
        before = text.encode("utf-8")[: exc.position].decode("utf-8", "replace")
    before = before.removeprefix("\ufeff")
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    code = exc.character if isinstance(exc.character, int) else ord(exc.character)
    return YamlIssue("syntax", f"{exc.reason}: #x{code:04x}", line, column)


def load_yaml(raw: bytes | str, *, merge_keys: bool = False) -> LoadedYaml:
    """Load exactly one YAML document strictly; raise YamlLoadError listing every issue.  ``merge_keys``:
    read ``<<`` as OpenPAI's loaders do (jobs), else refuse it (items and the files of a registry)."""
    text = _decode(raw) if isinstance(raw, bytes) else raw
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (control bytes, ...)
        raise YamlLoadError([_reader_issue(text, exc)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(str(part) for part in (exc.context, exc.problem) if part)
        line, column = (mark.line + 1, mark.column + 1) if mark else (None, None)
        raise YamlLoadError([YamlIssue("syntax", message, line, column)]) from None
    except yaml.YAMLError as exc:
        raise YamlLoadError([YamlIssue("syntax", str(exc), None, None)]) from None
    if len(nodes) > 1:
        line, column = _second_document_start(text) or _mark(nodes[1])
        raise YamlLoadError([YamlIssue("documents", f"{len(nodes)} YAML documents in one file", line, column)])
    loaded = LoadedYaml(data=None)
    if not nodes:
        return loaded
    issues: list[YamlIssue] = []
    try:
        loaded.data = _build(nodes[0], (), loaded, issues, merge_keys)
    except _TooLarge as exc:
        # At the key the expansion was under when it passed the limit: the line that names the alias
        # (the values' own positions are their anchor's).
        keyed = [exc.path[:end] for end in range(len(exc.path), 0, -1) if exc.path[:end] in loaded.key_positions]
        line, column = loaded.key_positions[keyed[0]] if keyed else (1, 1)
        message = f"the document expands to more than {MAX_VALUES} values (through aliases?)"
        raise YamlLoadError([YamlIssue("syntax", message, line, column)]) from None
    if issues:
        # Once each: an anchored value is met again at every alias (a set, not a scan: files have
        # a hundred thousand values).
        raise YamlLoadError(list(dict.fromkeys(issues)))
    return loaded


def explain(issue: YamlIssue, raw: bytes | str) -> tuple[YamlIssue, str | None]:
    """``issue`` as a person can act on it, and the fix when it is known: libyaml reports a tab where
    the token it broke ends (in words that name no tab, most often), and a quote left open where the
    scan ran out, pages below.  Only the reporting of a syntax issue changes: ``load_yaml`` keeps
    libyaml's, which the composer's loader matches (tests/cases/yamledit)."""
    if issue.kind != "syntax" or issue.line is None or issue.column is None:
        return issue, None
    text = _decode(raw) if isinstance(raw, bytes) else raw
    lines = text.split("\n")
    row = lines[issue.line - 1] if issue.line <= len(lines) else ""
    indent = row[: len(row) - len(row.lstrip(" \t"))]
    tab = indent.find("\t") + 1 or (issue.column if row[issue.column - 1 : issue.column] == "\t" else 0)
    if tab:
        message = f"a tab character at line {issue.line} column {tab}: YAML indents with spaces, never tabs"
        fix = "indent with spaces: YAML does not allow a tab in indentation"
        return YamlIssue("syntax", message, issue.line, tab), fix
    quote = _open_quote(text, issue.line)
    if quote is None:
        return issue, None
    (line, column), mark, closed = quote
    where = f"the quote {mark} opened at line {line} column {column}"
    message = f"{where} closes only at line {closed}" if closed else f"{where} is never closed"
    fix = f"close the quote on its own line (inside {mark}...{mark}, write {_QUOTE_ESCAPES[mark]})"
    return YamlIssue("syntax", f"{message} ({issue.message})", line, column), fix


_QUOTE_ESCAPES = {'"': 'a quote as \\"', "'": "a quote as ''"}  # the escapes as they are written


def _open_quote(text: str, error_line: int) -> tuple[tuple[int, int], str, int | None] | None:
    """The quoted scalar that a syntax error at ``error_line`` follows from: one the scan ran out in
    (never closed), or one that ran past its line and closed on the error's line (on another value's
    quote); its opening (line, column), its quote mark, and the line it closed on (None: never)."""
    found = None
    try:
        for token in yaml.scan(text, Loader=_Loader):
            style = getattr(token, "style", None)
            if style in ("'", '"') and token.start_mark.line < token.end_mark.line == error_line - 1:
                found = ((token.start_mark.line + 1, token.start_mark.column + 1), style, token.end_mark.line + 1)
    except yaml.MarkedYAMLError as exc:
        if exc.context == "while scanning a quoted scalar" and exc.context_mark is not None:
            mark = exc.context_mark
            return (mark.line + 1, mark.column + 1), text.split("\n")[mark.line][mark.column], None
    except yaml.YAMLError:  # a character YAML does not allow: no quote is to blame
        return None
    return found


def dump_yaml(data: Any) -> str:
    """Block-style YAML with keys in the order given (for generated files and docs)."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Block style, multi-line strings as ``|``; libyaml's emitter when present (the site dumps a lot)."""


def _str_presenter(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str_presenter)
