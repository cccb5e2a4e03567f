"""Strict YAML loading: YAML 1.2 scalars, one document, no duplicate keys, 1-based positions."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from prereq import cli
from prereq.core.yamlload import MAX_DEPTH, YamlLoadError, dump_yaml, load_yaml


def issues_of(text: str | bytes) -> list[tuple[str, int | None, int | None]]:
    with pytest.raises(YamlLoadError) as caught:
        load_yaml(text)
    return [(issue.kind, issue.line, issue.column) for issue in caught.value.issues]


# --- YAML 1.2 core schema scalars ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yes", "yes"),
        ("no", "no"),
        ("on", "on"),
        ("off", "off"),
        ("y", "y"),
        ("2024-01-31", "2024-01-31"),
        ("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
        ("1.0", 1.0),
        ("1", 1),
        ("-7", -7),
        ("012", 12),
        ("0o17", 15),
        ("0x1F", 31),
        ("1e3", 1000.0),
        ("1_000", "1_000"),
        ("1.2.0", "1.2.0"),
        ("true", True),
        ("False", False),
        ("null", None),
        ("~", None),
        ("", None),
        ("'1.0'", "1.0"),
        ('"true"', "true"),
        ("!!str 5", "5"),
    ],
)
def test_plain_scalars_follow_the_yaml_1_2_core_schema(text: str, expected: object) -> None:
    value = load_yaml(f"key: {text}\n").data["key"]
    assert value == expected
    assert type(value) is type(expected)


def test_special_floats() -> None:
    data = load_yaml("a: .inf\nb: -.Inf\nc: .nan\n").data
    assert data["a"] == math.inf and data["b"] == -math.inf and math.isnan(data["c"])


def test_block_scalars_stay_strings() -> None:
    assert load_yaml("a: |\n  1.0\n").data == {"a": "1.0\n"}


# --- duplicate keys -------------------------------------------------------------------------


def test_duplicate_key_points_at_the_second_occurrence_and_names_the_first() -> None:
    with pytest.raises(YamlLoadError) as caught:
        load_yaml("name: a\nversion: 1.0.0\nname: b\n")
    [issue] = caught.value.issues
    assert (issue.kind, issue.line, issue.column) == ("duplicate-key", 3, 1)
    assert issue.message == "duplicate key 'name' (first defined on line 1)"


def test_every_duplicate_key_is_reported_including_nested_ones() -> None:
    text = "a: 1\nb:\n  c: 1\n  d: 2\n  c: 3\na: 2\n"
    assert issues_of(text) == [("duplicate-key", 5, 3), ("duplicate-key", 6, 1)]


def test_same_key_in_different_mappings_is_fine() -> None:
    assert load_yaml("- name: a\n- name: b\n").data == [{"name": "a"}, {"name": "b"}]


# --- documents ------------------------------------------------------------------------------


def test_several_documents_point_at_the_second_separator() -> None:
    with pytest.raises(YamlLoadError) as caught:
        load_yaml("# item\nname: a\n---\nname: b\n---\nname: c\n")
    [issue] = caught.value.issues
    assert (issue.kind, issue.line, issue.column) == ("documents", 3, 1)
    assert issue.message == "3 YAML documents in one file"


def test_a_leading_separator_is_one_document() -> None:
    assert load_yaml("---\nname: a\n").data == {"name": "a"}


def test_empty_text_is_none() -> None:
    assert load_yaml("").data is None
    assert load_yaml(b"# only a comment\n").data is None


# --- encoding ---------------------------------------------------------------------------------


def test_non_utf8_byte_position_counts_characters() -> None:
    # line 2 is "b: éé" + byte 0xe9 (Latin-1 é): the bad byte is the 6th character.
    with pytest.raises(YamlLoadError) as caught:
        load_yaml(b"a: 1\nb: \xc3\xa9\xc3\xa9\xe9\n")
    [issue] = caught.value.issues
    assert (issue.kind, issue.line, issue.column) == ("encoding", 2, 6)
    assert "0xe9" in issue.message


def test_utf16_is_not_utf8() -> None:
    assert issues_of("name: a\n".encode("utf-16")) == [("encoding", 1, 1)]


def test_bom_is_skipped_and_positions_are_unchanged() -> None:
    loaded = load_yaml(b"\xef\xbb\xbfname: caf\xc3\xa9\nversion: 1.0.0\n")
    assert loaded.data == {"name": "café", "version": "1.0.0"}
    assert loaded.key_positions[("name",)] == (1, 1)
    assert loaded.value_positions[("version",)] == (2, 10)


def test_control_characters_are_a_positioned_syntax_issue() -> None:
    # valid UTF-8, but YAML forbids the control character; after 'é' to check columns are characters.
    [(kind, line, column)] = issues_of("a: 1\nb: é\x07\n".encode())
    assert (kind, line, column) == ("syntax", 2, 5)
    with pytest.raises(YamlLoadError) as caught:
        load_yaml(b"\x00\x01\x02 binary")
    assert "#x0000" in caught.value.issues[0].message
    assert "position" not in caught.value.issues[0].message  # no PyYAML internals


# --- syntax -------------------------------------------------------------------------------------


def test_syntax_error_has_a_position() -> None:
    [(kind, line, column)] = issues_of("name: a\ntitle: one: two\n")
    assert (kind, line, column) == ("syntax", 2, 11)


def test_merge_keys_are_rejected_with_position() -> None:
    assert issues_of("base: &b {x: 1}\nother:\n  <<: *b\n") == [("syntax", 3, 3)]


def test_complex_keys_are_rejected() -> None:
    assert issues_of("? [a, b]\n: 1\n") == [("syntax", 1, 3)]


def test_deep_nesting_is_an_issue_not_a_recursion_error() -> None:
    depth = 500
    issues = issues_of("a: " + "[" * depth + "]" * depth + "\n")
    assert issues == [("syntax", 1, 3 + MAX_DEPTH)]


def test_alias_bombs_are_refused() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    with pytest.raises(YamlLoadError) as caught:
        load_yaml("\n".join(lines) + "\n")
    assert "more than" in caught.value.issues[0].message


# --- positions ------------------------------------------------------------------------------------

NESTED = """\
name: a
callbacks:
  - event: taskStarts
    commands:
      - echo one
      - echo two
parameters: {mountPoint: /mnt, size: 3}
"""


def test_positions_of_nested_values_and_keys() -> None:
    loaded = load_yaml(NESTED)
    assert loaded.value_positions[()] == (1, 1)
    assert loaded.value_positions[("name",)] == (1, 7)
    assert loaded.value_positions[("callbacks", 0)] == (3, 5)
    assert loaded.value_positions[("callbacks", 0, "event")] == (3, 12)
    assert loaded.value_positions[("callbacks", 0, "commands", 1)] == (6, 9)
    assert loaded.value_positions[("parameters", "size")] == (7, 38)
    assert loaded.key_positions[("callbacks", 0, "commands")] == (4, 5)
    assert loaded.key_positions[("parameters", "mountPoint")] == (7, 14)


def test_position_falls_back_to_the_nearest_ancestor() -> None:
    loaded = load_yaml(NESTED)
    assert loaded.position(("callbacks", 0, "commands", 1)) == (6, 9)
    assert loaded.position(("callbacks", 0, "missing", 3)) == (3, 5)
    assert loaded.position(("callbacks",), key=True) == (2, 1)
    # a key position falls back to the value when the key itself is unknown (list index)
    assert loaded.position(("callbacks", 0), key=True) == (3, 5)
    assert loaded.position(("nope",)) == (1, 1)


def test_dump_keeps_order_and_round_trips() -> None:
    data = {"name": "b", "version": "1.0.0", "description": "line one\nline two\n", "tags": ["x"]}
    text = dump_yaml(data)
    assert text.splitlines()[0] == "name: b"
    assert "description: |" in text
    assert load_yaml(text).data == data


# --- what a person reads of a syntax error (issue 28) --------------------------------------


def explained(text: str) -> tuple[tuple[str, int | None, int | None], str | None]:
    with pytest.raises(YamlLoadError) as caught:
        load_yaml(text)
    ((issue, fix),) = caught.value.explained(text.encode("utf-8"))
    return (issue.message, issue.line, issue.column), fix


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("a:\n\tb: 1\n", 2, 1),  # libyaml: "found character that cannot start any token"
        ("a: |\n\tx\n", 2, 1),  # in a block scalar's indentation
        ("a: b\n\tc\n", 2, 1),  # breaking a plain scalar
        ("a:\n  \t b: 1\n", 2, 3),  # after spaces
        ("-\tb\n", 1, 2),  # after a dash
        ("a:\n  - x\n  - é\n\t- y\n", 4, 1),  # columns count characters
    ],
)
def test_a_tab_is_named_where_it_is(text: str, line: int, column: int) -> None:
    (message, at_line, at_column), fix = explained(text)
    assert message == f"a tab character at line {line} column {column}: YAML indents with spaces, never tabs"
    assert (at_line, at_column) == (line, column)
    assert fix is not None and "spaces" in fix and "tab" in fix
    assert text.split("\n")[line - 1][column - 1] == "\t"


def test_a_quote_never_closed_is_reported_where_it_opens() -> None:
    text = "name: x\ntitle: 'unclosed\nversion: 1.0.0\n"
    assert issues_of(text) == [("syntax", 4, 1)]  # libyaml's own: where the scan ran out
    (message, line, column), fix = explained(text)
    assert (line, column) == (2, 8) and text.split("\n")[1][7] == "'"
    assert message.startswith("the quote ' opened at line 2 column 8 is never closed (while scanning a quoted")
    assert fix is not None and "''" in fix


def test_a_quote_closed_by_another_values_quote_is_reported_where_it_opens() -> None:
    """`title: "unclosed` runs on to the next double quote, in a command further down, and libyaml
    stops there: the error is at the opening quote, naming the line the string ran to."""
    text = 'title: "unclosed\ncommands:\n  - echo "hi" there\n'
    assert issues_of(text)[0][1] == 3
    (message, line, column), fix = explained(text)
    assert (line, column) == (1, 8) and message.startswith(
        'the quote " opened at line 1 column 8 closes only at line 3'
    )
    assert fix is not None and '\\"' in fix


def test_a_quoted_string_over_several_lines_is_not_blamed_for_an_error_elsewhere() -> None:
    text = 'a: "one\n  two"\nb: [\n'
    (message, line, column), fix = explained(text)
    assert "quote" not in message and fix is None and (line, column) == issues_of(text)[0][1:]


def test_other_issues_are_left_as_they_are() -> None:
    text = "a: 1\na: 2\n"
    with pytest.raises(YamlLoadError) as caught:
        load_yaml(text)
    assert caught.value.explained(text) == [(issue, None) for issue in caught.value.issues]


@pytest.mark.parametrize(
    ("find", "replace", "expected"),
    [
        ("title: ", 'title: "unclosed\n#', ':4:8: PRQ101 error invalid YAML: the quote " opened at line 4 column 8'),
        ("  proxyPort", "\tproxyPort", ":15:1: PRQ101 error invalid YAML: a tab character at line 15 column 1"),
    ],
)
def test_validate_reports_them_with_file_line_and_fix(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    find: str,
    replace: str,
    expected: str,
) -> None:
    bundled = Path(__file__).resolve().parents[1] / "registry"
    (tmp_path / "registry" / "prerequisites").mkdir(parents=True)
    (tmp_path / "registry" / "owners.yaml").write_bytes((bundled / "owners.yaml").read_bytes())
    text = (bundled / "prerequisites" / "apt-proxy.yaml").read_text(encoding="utf-8").replace(find, replace, 1)
    (tmp_path / "registry" / "prerequisites" / "apt-proxy.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["validate", "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "registry/prerequisites/apt-proxy.yaml" + expected in out, out
    assert "hint: fix the YAML syntax at this position" not in out
