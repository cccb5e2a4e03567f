"""How new values are written: rules both engines state alike (issue 31).

The composer cannot ask its browser for Python's str.isprintable() (the browser's Unicode is newer),
so both engines decide literal blocks by the ranges in prereq.core.yamlrender; the JS copy must be the
same table, and every character it vouches for must really be printable (the runtime's verdict relies
on it).  A string is written plain by a rule, without loading it back: whatever it lets through must
read back as itself in every consumer, which the properties below try hard to break.
"""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from prereq.core.yamlload import load_yaml
from prereq.core.yamlrender import VISIBLE_RANGES, Renderer, is_visible

JS_TABLE = Path(__file__).parents[1] / "site" / "assets" / "composer" / "yaml" / "visiblechars.js"


def test_the_composer_holds_the_same_ranges() -> None:
    text = JS_TABLE.read_text(encoding="utf-8")
    table = re.search(r"const VISIBLE = `(.*?)`", text, re.DOTALL)
    assert table is not None
    js_ranges = tuple(tuple(int(bound, 16) for bound in part.strip().split("-")) for part in table.group(1).split(","))
    assert js_ranges == VISIBLE_RANGES


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the ranges were read from Python 3.11's Unicode 14")
def test_every_vouched_character_is_printable() -> None:
    assert all(first <= last for first, last in VISIBLE_RANGES)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(VISIBLE_RANGES)), "sorted, apart"
    vouched = (code for first, last in VISIBLE_RANGES for code in range(first, last + 1))
    unprintable = [hex(code) for code in vouched if not chr(code).isprintable()]
    assert unprintable == []


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        ("café\n✓ done", True),
        ("名前\nテスト", True),
        ("สวัสดี\nโลก", False),  # Thai: printable, but not in the stated ranges
        ("a\u200db\nc", False),  # a zero-width joiner: invisible
        ("a\u202eb\nc", False),  # a bidi override would show the text in another order
        ("shaking \U0001fae8\nface", False),  # Unicode 15: the browser knows it, Python 3.11 does not
    ],
)
def test_a_literal_block_holds_only_vouched_characters(value: str, literal: bool) -> None:
    assert all(is_visible(ch) for ch in value if ch != "\n") is literal
    assert (Renderer().scalar(value) == "") is literal


# Strings made of what trips YAML up: indicators, spaces, digits and signs, words of YAML 1.1 and 1.2,
# line breaks of every kind, controls, the BOM, a non-ASCII letter, an emoji.
_PIECES = st.sampled_from(
    [
        *"-?:,[]{}#&*!|>'\"%@`~=<. \t\n\r0123456789eExob_+",
        "yes",
        "No",
        "on",
        "null",
        "true",
        ".inf",
        ".NaN",
        "0o",
        "0x",
        "---",
        "...",
        "<<",
        "2024-01-31",
        "1:30",
        "\x85",
        "\u2028",
        "\ufeff",
        "\x7f",
        "\x00",
        "é",
        "😀",
        "a",
    ]
)
_STRINGS = st.lists(_PIECES, max_size=8).map("".join)


@settings(max_examples=3000, deadline=None)
@given(_STRINGS)
def test_a_new_string_reads_back_as_itself_for_the_runtime_and_prereq(value: str) -> None:
    renderer = Renderer()
    scalar = renderer.scalar(value)
    texts = [("k: " + renderer.flow([value]), [value])]
    if scalar:  # "" asks for a literal block, tested above
        texts.append(("k: " + scalar, value))
    for text, expected in texts:
        assert yaml.safe_load(text) == {"k": expected}, text
        assert load_yaml(text + "\n").data == {"k": expected}, text
