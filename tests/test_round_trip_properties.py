"""The runtime round trip's fast path (``runtime.plainly_survives``) against PyYAML itself: on random
strings, a string it passes survives ``yaml.safe_load(str([s]))`` and ``yaml.safe_load(str({s: 0}))``,
and ``scalar_survives``/``key_survives`` answer exactly what the real round trip answers."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from prereq.openpai import runtime

EXAMPLES = int(os.environ.get("PREREQ_EXAMPLES", "60")) * 20  # each example is one small parse

# What Python's repr and YAML's scanner treat specially, and characters either one does not print.
SPECIAL = list("'\"\\:-#&*!|>%@`,?[]{} \t\n\r") + ["\x00", "\x1b", "\x7f", "\x85", "\xa0", "\u2028", "\ufeff"]
ALPHABET = st.one_of(
    st.sampled_from(SPECIAL),
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.characters(),  # anything at all, non-BMP and lone surrogates included
)
TEXTS = st.one_of(
    st.text(ALPHABET, max_size=40),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40),  # mostly plain commands
    # about PyYAML's 1,024-character reach of an implicit key
    st.builds(lambda head, n: head + "x" * n, st.text(ALPHABET, max_size=4), st.integers(990, 1030)),
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(TEXTS)
def test_a_plain_string_survives_as_a_list_entry(text: str) -> None:
    real = runtime.survives_round_trip([text])
    if runtime.plainly_survives(text):
        assert real, repr(text)
    assert runtime.scalar_survives(text) is real, repr(text)


@settings(max_examples=EXAMPLES, deadline=None)
@given(TEXTS)
def test_a_plain_short_key_survives_as_a_mapping_key(text: str) -> None:
    real = runtime.survives_round_trip({text: 0})
    assert runtime.key_survives(text) is real, repr(text)


def test_the_fast_path_passes_what_commands_hold_and_leaves_the_rest_to_pyyaml() -> None:
    passed = ['mkdir -p "$DIR"', "echo 'it works'", "a: b # not a comment", "", "é", "---", "- x"]
    assert all(runtime.plainly_survives(text) for text in passed)
    parsed = ["a\\b", 'it\'s "both"', "tab\there", "line\nbreak", "\ufeff"]
    assert not any(runtime.plainly_survives(text) for text in parsed)
    # what the fast path leaves to PyYAML is still answered exactly: a backslash in double quotes survives
    assert runtime.scalar_survives("it's a\\b") and not runtime.scalar_survives("a\\b")
