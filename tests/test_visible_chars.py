"""The characters a literal block may hold: one stated rule in both engines (issue 31).

The composer cannot ask its browser for Python's str.isprintable() (the browser's Unicode is newer),
so both engines decide by the ranges in prereq.core.yamlrender; the JS copy must be the same table,
and every character it vouches for must really be printable (the runtime's verdict relies on it).
"""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import pytest

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
