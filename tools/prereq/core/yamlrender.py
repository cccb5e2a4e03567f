"""New YAML values as text: block style in the file's own indentation, scalars as PyYAML would write them.

``yamledit`` splices what this writes; the composer's JS port (site/assets/composer/) makes
the same choices, held equal by the cases in tests/cases/yamledit/.

May import: PyYAML and prereq.core.yamlload.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

import yaml

from prereq.core.yamlload import plain_value

_WIDTH = 1 << 30  # never fold long lines

# The characters a literal block may hold besides printable ASCII, tab and newline: runs of at least
# 128 code points printable in Python 3.11 (Unicode 14), plus Latin-1's signs, general punctuation,
# currency signs and kana.  Code points rather than str.isprintable(), so that the composer, whose
# Unicode is the browser's, writes the same blocks (site/assets/composer/yaml/visiblechars.js).
_VISIBLE = """
  a1-ac,ae-377,3a3-52f,61d-6dc,8e3-983,1000-10c5,10d0-1248,1400-167f,1d00-1f15,2010-2027,2030-205e,
  20a0-20c0,2100-218b,2190-2426,2460-2b73,2b97-2cf3,2f00-2fd5,3001-303f,3041-3096,3099-30ff,3220-a48c,
  a4d0-a62b,a640-a6f7,a700-a7ca,ac00-d7a3,f900-fa6d,fbd3-fd8f,fe76-fefc,ff01-ffbe,10400-1049d,
  10600-10736,11fff-12399,12480-12543,13000-1342e,14400-14646,16800-16a38,17000-187f7,18800-18cd5,
  1b000-1b122,1b170-1b2fb,1d000-1d0f5,1d552-1d6a5,1d6a8-1d7cb,1d7ce-1da8b,1e800-1e8c4,1f100-1f1ad,
  1f300-1f6d7,1f900-1fa53,1fb00-1fb92,20000-2a6df,2a700-2b738,2b740-2b81d,2b820-2cea1,2ceb0-2ebe0,
  2f800-2fa1d"""
VISIBLE_RANGES = tuple(tuple(int(bound, 16) for bound in part.strip().split("-")) for part in _VISIBLE.split(","))
_VISIBLE_STARTS = [first for first, _ in VISIBLE_RANGES]


def is_visible(ch: str) -> bool:
    """True for a character a reader sees as itself: printable ASCII or in ``VISIBLE_RANGES``."""
    code = ord(ch)
    if code < 0x7F:
        return code >= 0x20
    at = bisect.bisect_right(_VISIBLE_STARTS, code) - 1
    return at >= 0 and code <= VISIBLE_RANGES[at][1]


class Renderer:
    """Block-style YAML for new values, in the file's own indentation."""

    def __init__(self, *, indent: int = 2, indent_sequences: bool = True) -> None:
        self.indent = indent
        self.indent_sequences = indent_sequences

    # -- scalars ---------------------------------------------------------
    def scalar(self, value: Any) -> str:
        """A one-line scalar, or '' when ``value`` needs a block (multi-line string)."""
        return _scalar(value)

    @staticmethod
    def _literal_ok(value: str) -> bool:
        if value[:1] in (" ", "\t", "\n") or "\r" in value:
            return False
        return all(is_visible(ch) or ch in "\n\t" for ch in value)

    def _literal(self, value: str, column: int) -> list[str]:
        body = value.removesuffix("\n")
        trailing = len(value) - len(value.rstrip("\n"))
        chomp = "-" if trailing == 0 else ("" if trailing == 1 else "+")
        if chomp == "+":
            body = value[: len(value) - trailing]
        lines = [("" if not line else " " * column + line) for line in body.split("\n")]
        if chomp == "+":
            lines += [""] * (trailing - 1)
        return ["|" + chomp, *lines]

    # -- collections -----------------------------------------------------
    def is_block(self, value: Any) -> bool:
        return isinstance(value, (dict, list)) and bool(value)

    def after_indicator(self, value: Any, column: int, *, in_sequence: bool) -> list[str]:
        """The text that follows ``key:`` (a key at ``column``) or ``-`` (a dash at ``column``).

        The first element continues the indicator's line (it starts with a space
        or is empty); the others are whole lines."""
        if not self.is_block(value):
            scalar = self.scalar(value)
            if scalar:
                return [" " + scalar]
            literal = self._literal(value, column + (2 if in_sequence else self.indent))
            return [" " + literal[0], *literal[1:]]
        if in_sequence:
            # "- key: value" / "- - item": the collection starts on the dash's line.
            lines = self.lines(value, column + 2)
            return [" " + lines[0][column + 2 :], *lines[1:]]
        child = column + (self.indent if isinstance(value, dict) or self.indent_sequences else 0)
        return ["", *self.lines(value, child)]

    def lines(self, value: Any, column: int) -> list[str]:
        """A non-empty mapping or sequence as block lines starting at ``column``."""
        pad = " " * column
        out: list[str] = []
        if isinstance(value, dict):
            for key, child in value.items():
                out += self.pair(key, child, column)
        else:
            for child in value:
                rest = self.after_indicator(child, column, in_sequence=True)
                out.append(pad + "-" + rest[0])
                out += rest[1:]
        return out

    def pair(self, key: Any, value: Any, column: int) -> list[str]:
        key_text = self.scalar(key)
        if not key_text or key_text.startswith(("[", "{")):
            key_text = quoted(str(key))
        rest = self.after_indicator(value, column, in_sequence=False)
        return [" " * column + key_text + ":" + rest[0], *rest[1:]]

    def flow(self, value: Any) -> str:
        """A flow collection on one line (for collections the file writes in flow style)."""
        if isinstance(value, dict):
            return "{" + ", ".join(f"{self._flow_scalar(k)}: {self.flow(v)}" for k, v in value.items()) + "}"
        if isinstance(value, list):
            return "[" + ", ".join(self.flow(v) for v in value) + "]"
        return self._flow_scalar(value)

    def _flow_scalar(self, value: Any) -> str:
        if isinstance(value, str):
            return value if _plain_ok(value, flow=True) else quoted(value)
        scalar = self.scalar(value)
        return scalar or quoted(str(value))


def _scalar(value: Any) -> str:
    """``Renderer.scalar``: numbers as PyYAML writes them, a string plain when ``_plain_ok``, else quoted."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = yaml.safe_dump(value, width=_WIDTH).strip()
        return text.removesuffix("\n...").strip()
    if isinstance(value, dict) and not value:
        return "{}"
    if isinstance(value, list) and not value:
        return "[]"
    if not isinstance(value, str):
        raise TypeError(f"cannot write a {type(value).__name__} as YAML")
    if "\n" in value and Renderer._literal_ok(value):
        return ""
    return value if _plain_ok(value, flow=False) else quoted(value)


# Characters a YAML stream may not carry raw (PyYAML's reader refuses them) or reads as line breaks.
_NOT_RAW = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")


def quoted(value: str) -> str:
    """A string in quotes: single ones when each character is one YAML reads as itself (a shell command's
    double quotes stay as they are written), else JSON's, with what YAML may not carry raw escaped."""
    if _all_raw(value):
        return "'" + value.replace("'", "''") + "'"
    return _NOT_RAW.sub(lambda found: f"\\u{ord(found.group()):04x}", json.dumps(value, ensure_ascii=False))


_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER = yaml.resolver.Resolver()


def _plain_ok(value: str, *, flow: bool) -> bool:
    """Whether a string may be written plain: a rule the composer states alike (yamlstyle.js).

    Not an indicator or a document marker first, no space at either end, no ``: `` or `` #``, no flow
    indicator (nor ``?``, which ends a plain scalar there for PyYAML) inside a flow collection, only
    characters YAML streams carry as they are, and read as a string by YAML 1.1 (the runtime's PyYAML
    and the rest-server's js-yaml) and 1.2 (prereq's loader).  Anything else is JSON, which needs no check.
    """
    if not value or value[0] in _INDICATORS or value[0] == " " or value[-1] in " :" or value.startswith(("---", "...")):
        return False
    if ": " in value or " #" in value or (flow and any(ch in ",?[]{}" for ch in value)):
        return False
    if not _all_raw(value):
        return False
    return _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) == _STR_TAG and isinstance(plain_value(value), str)


def _all_raw(value: str) -> bool:
    """Every character is one YAML reads as itself: printable ASCII, or non-ASCII that is no control, line
    or paragraph separator or BOM (what a plain or single-quoted scalar may hold)."""
    return all(" " <= ch <= "~" or _stream_char(ch) for ch in value)


def _stream_char(ch: str) -> bool:
    """A non-ASCII character YAML reads as itself: no control, line or paragraph separator, BOM."""
    code = ord(ch)
    if code in (0x2028, 0x2029, 0xFEFF):
        return False
    return 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000
