"""The text-splicing YAML editor: each edit changes only the lines it must."""

from __future__ import annotations

import textwrap

import pytest
import yaml

from prereq.core.errors import PrereqError
from prereq.core.yamledit import YamlText
from prereq.core.yamlload import YamlLoadError, load_yaml
from prereq.core.yamlrender import Renderer
from textdiff import line_diff

JOB = textwrap.dedent("""\
    # A job with comments
    protocolVersion: 2
    name: demo   # the name
    description: 'single quoted'

    taskRoles:
      train:   # the role
        dockerImage: img
        prerequisites:   # mine
          - a   # first
          - b
        # about the commands
        commands:
          - echo "hi"
          - >-
            python x.py
            --flag
    extras:
      other: 1   # keep
    """)


def test_insert_into_a_block_list_adds_only_that_line() -> None:
    doc = YamlText(JOB)
    doc.insert(("taskRoles", "train", "prerequisites", 1), "new")
    doc.insert(("taskRoles", "train", "prerequisites", 3), "last")
    assert doc.data["taskRoles"]["train"]["prerequisites"] == ["a", "new", "b", "last"]
    removed, added = line_diff(JOB, doc.text)
    assert removed == [] and added == ["      - new\n", "      - last\n"]
    assert doc.text.index("- last") < doc.text.index("# about the commands")


def test_insert_before_an_item_goes_above_the_comments_that_describe_it() -> None:
    text = "commands:\n  # load the data\n  - ls $DIR\n"
    doc = YamlText(text)
    doc.insert(("commands", 0), "source env")
    assert doc.text == "commands:\n  - source env\n  # load the data\n  - ls $DIR\n"


def test_delete_removes_the_item_lines_and_nothing_else() -> None:
    doc = YamlText(JOB)
    doc.delete(("taskRoles", "train", "prerequisites", 0))
    removed, added = line_diff(JOB, doc.text)
    assert removed == ["      - a   # first\n"] and added == []
    doc.delete(("extras", "other"))  # the last key of a mapping: the mapping becomes {}
    assert doc.data["extras"] == {}


def test_replacing_a_scalar_keeps_the_comment_after_it() -> None:
    doc = YamlText(JOB)
    doc.set(("name",), "demo-2")
    assert line_diff(JOB, doc.text) == (["name: demo   # the name\n"], ["name: demo-2   # the name\n"])


def test_new_keys_go_where_asked_in_the_file_style() -> None:
    doc = YamlText(JOB)
    doc.set(
        ("prerequisites",),
        [
            {
                "name": "x",
                "type": "script",
                "callbacks": [{"event": "taskStarts", "commands": ["a: b", "it's", 'say "hi"']}],
            }
        ],
        before=("taskRoles",),
    )
    doc.set(("taskRoles", "train", "data"), "d", after=("dockerImage",))
    doc.set(("extras", "prereq", "lock"), {"x": {"version": "1.0.0", "digest": "sha256:00"}})
    removed, _ = line_diff(JOB, doc.text)
    assert removed == []
    assert doc.data["prerequisites"][0]["callbacks"][0]["commands"] == ["a: b", "it's", 'say "hi"']
    assert list(doc.data) == ["protocolVersion", "name", "description", "prerequisites", "taskRoles", "extras"]
    assert list(doc.data["taskRoles"]["train"])[:2] == ["dockerImage", "data"]
    assert "    data: d\n" in doc.text and "      x:\n        version: 1.0.0\n" in doc.text


def test_indentation_and_list_style_follow_the_file() -> None:
    text = "a:\n    b:\n    - x\n    c: 1\n"
    doc = YamlText(text)
    doc.set(("a", "d"), {"e": ["p", "q"]})
    assert doc.text == text + "    d:\n        e:\n        - p\n        - q\n"


def test_flow_collections_stay_flow() -> None:
    text = "roles: {train: 1}\nnames: [a, b]   # flow\n"
    doc = YamlText(text)
    doc.insert(("names", 1), "c")
    doc.set(("roles", "test"), 2)
    assert doc.text == "roles: {train: 1, test: 2}\nnames: [a, c, b]   # flow\n"


def test_an_empty_list_becomes_a_block_list() -> None:
    doc = YamlText("names: []\nafter: 1\n")
    doc.insert(("names", 0), "a")
    assert doc.text == "names:\n  - a\nafter: 1\n"
    doc.delete(("names", 0))
    assert doc.data == {"names": [], "after": 1}


def test_crlf_and_bom_survive() -> None:
    text = "\ufeffa: 1\r\nlist:\r\n  - x\r\n"
    doc = YamlText(text)
    doc.insert(("list", 1), "y")
    doc.set(("b",), {"c": "multi\nline\n"})
    assert doc.text.startswith("\ufeffa: 1\r\nlist:\r\n  - x\r\n  - y\r\n")
    assert "\n" not in doc.text.replace("\r\n", "")
    assert load_yaml(doc.text.encode("utf-8")).data["b"] == {"c": "multi\nline\n"}


def test_a_file_without_final_newline() -> None:
    doc = YamlText("a:\n  - x")
    doc.insert(("a", 1), "y")
    doc.set(("b",), 1)
    assert doc.text == "a:\n  - x\n  - y\nb: 1\n"


def test_missing_parents_are_created() -> None:
    doc = YamlText("name: x\nextras:\n")
    doc.set(("extras", "prereq", "index"), "build/site")
    assert doc.data == {"name": "x", "extras": {"prereq": {"index": "build/site"}}}


def test_deleting_the_first_key_of_a_list_item_rewrites_only_that_item() -> None:
    text = "items:\n  - name: a   # the a\n    type: script\n  - name: b\n"
    doc = YamlText(text)
    doc.delete(("items", 0, "name"))
    assert doc.data == {"items": [{"type": "script"}, {"name": "b"}]}
    assert doc.text.endswith("  - name: b\n")


def test_strings_that_look_like_other_types_are_quoted() -> None:
    doc = YamlText("a: 1\n")
    values = [
        "1.0",
        "true",
        "yes",
        "0o17",
        "null",
        "",
        " lead",
        "a: b",
        "#x",
        "- y",
        'it\'s "both"',
        "tab\there",
        "trailing\n\n",
        "\u00e9t\u00e9",
        "x" * 300,
    ]
    for position, value in enumerate(values):
        doc.set((f"k{position}",), value)
    for position, value in enumerate(values):
        assert doc.data[f"k{position}"] == value
    assert "\n" not in doc.text.split("k14: ")[1].rstrip("\n")  # long lines are never folded


def test_renderer_writes_block_yaml_that_reads_back() -> None:
    value = {
        "callbacks": [{"event": "taskStarts", "commands": ["echo 'x'", "multi\nline"]}],
        "empty": [],
        "nested": [["a", "b"], {"c": None}],
        "n": 1.5,
        "flag": False,
    }
    text = "\n".join(Renderer(indent=2).lines(value, 0)) + "\n"
    assert load_yaml(text).data == value == yaml.safe_load(text)


def test_an_edit_that_would_change_other_values_is_refused() -> None:
    text = "base: &b\n  x: 1\ncopy: *b\n"
    doc = YamlText(text)
    with pytest.raises(PrereqError, match="cannot edit"):
        doc.set(("copy", "x"), 2)
    assert doc.text == text


def test_invalid_yaml_is_a_clean_error_with_a_line() -> None:
    with pytest.raises(PrereqError, match=r"job.yaml:2:1: duplicate key 'a'"):
        YamlText("a: 1\na: 2\n", source="job.yaml")


def _lists(value, path=()):
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _lists(child, path + (key,))
    elif isinstance(value, list):
        yield path, value
        for position, child in enumerate(value):
            yield from _lists(child, path + (position,))


def test_every_insert_and_delete_in_real_jobs_changes_only_its_own_lines() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = sorted((root / "tests" / "fixtures" / "jobs").glob("*.yaml")) + sorted(
        (root / "registry" / "templates").glob("*.yaml")
    )
    checked = 0
    for file in files:
        for newline in ("\n", "\r\n"):
            text = file.read_text(encoding="utf-8").replace("\n", newline)
            lines = text.splitlines(keepends=True)
            original = YamlText(text)
            for path, items in _lists(original.data):
                flow = (
                    any(
                        line.rstrip().endswith("]") and "[" in line
                        for line in lines
                        if line.strip().startswith(f"{path[-1]}:")
                    )
                    if path and isinstance(path[-1], str)
                    else False
                )
                for position in range(len(items) + 1):
                    doc = YamlText(text)
                    doc.insert(path + (position,), {"name": "new", "list": ["a", "b"]})
                    removed, added = line_diff(text, doc.text)
                    assert flow or removed == [], (file.name, path, position, removed)
                    assert all(line.endswith(newline) for line in added)
                    checked += 1
                if len(items) > 1:
                    for position in range(len(items)):
                        doc = YamlText(text)
                        doc.delete(path + (position,))
                        removed, added = line_diff(text, doc.text)
                        assert flow or added == [], (file.name, path, position, added)
                        checked += 1
    assert checked > 100


def test_each_text_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import collections

    import prereq.core.yamledit as yamledit

    loads: collections.Counter[str] = collections.Counter()
    composes: collections.Counter[str] = collections.Counter()
    real_load, real_compose = yamledit.load_yaml, yamledit.compose

    def counting_load(text, **options):
        loads[text] += 1
        return real_load(text, **options)

    def counting_compose(text):
        composes[text] += 1
        return real_compose(text)

    monkeypatch.setattr(yamledit, "load_yaml", counting_load)
    monkeypatch.setattr(yamledit, "compose", counting_compose)
    doc = YamlText(JOB)
    assert doc.loaded is doc.loaded and doc.loaded.data == doc.data
    doc.insert(("taskRoles", "train", "prerequisites", 1), "new")
    middle = doc.text
    doc.insert(("taskRoles", "train", "prerequisites", 3), "last")
    assert doc.loaded is doc.loaded and doc.loaded.data == doc.data == load_yaml(doc.text).data
    assert doc.loaded.position(("taskRoles", "train", "prerequisites", 3)) == (13, 9)
    documents = {text: count for text, count in loads.items() if text.startswith("# A job")}
    assert documents == {JOB: 1, middle: 1, doc.text: 1}  # the edit's own check is the load that is kept
    assert composes == {JOB: 1, middle: 1}  # nodes only for texts that a splice worked on


def test_invalid_utf8_and_yaml_errors_share_one_format() -> None:
    from prereq.core.yamledit import load_error
    from prereq.core.yamlload import YamlLoadError

    with pytest.raises(YamlLoadError) as caught:
        load_yaml(b"a: 1\nb: \xff\n")
    error = load_error("f.yaml", caught.value, what="not valid YAML", hint="h", exit_code=2)
    assert (error.message, error.hint, error.exit_code) == (
        "f.yaml:2:4: not valid YAML: not valid UTF-8 (byte 0xff)",
        "h",
        2,
    )


MERGED = """\
base: &base {x: 1, y: 2}
other: &other {y: 3, z: 4}
both:
  <<: [*base, *other]
  x: 9
"""


def test_merge_keys_load_as_openpais_loaders_read_them() -> None:
    """A job's ``<<`` (only where asked: items and registry files keep refusing it) gives PyYAML's data:
    the first source wins, the mapping's own keys over all."""
    assert load_yaml(MERGED, merge_keys=True).data == yaml.safe_load(MERGED)
    with pytest.raises(YamlLoadError, match="merge keys"):
        load_yaml(MERGED)
    with pytest.raises(YamlLoadError, match="takes a mapping or a list of them"):
        load_yaml("a: {<<: [1, 2]}\n", merge_keys=True)


def test_an_edit_never_writes_a_shared_value_out_in_full() -> None:
    """A rewrite of the enclosing collection would give the same data with the alias expanded: refused,
    so the sharing stays or the edit is refused."""
    doc = YamlText("a: &a [1, 2]\nb: {c: *a, d: 1}\n", merge_keys=True)
    with pytest.raises(PrereqError):
        doc.set(("b", "e"), 2)  # a flow mapping holding an alias: only a rewrite could add the key
    assert doc.text == "a: &a [1, 2]\nb: {c: *a, d: 1}\n"


def test_a_shared_change_is_refused_naming_the_anchor_where_the_file_has_it() -> None:
    text = "x: 1\nroles:\n  one: &role\n    n: 1\n  two: *role\n"
    doc = YamlText(text, source="job.yaml", merge_keys=True)
    wanted = {"x": 1, "roles": {"one": {"n": 1, "m": 2}, "two": {"n": 1}}}
    with pytest.raises(PrereqError) as refused, doc.shared_edits(wanted):
        doc.set(("roles", "one", "m"), 2)
    assert refused.value.message == (
        "job.yaml: cannot change roles.one alone: it shares the YAML anchor &role (line 3) with what uses it (line 5)"
    )
    assert refused.value.exit_code == 1 and doc.text == text
    with doc.shared_edits({"x": 1, "roles": {"one": {"n": 1, "m": 2}, "two": {"n": 1, "m": 2}}}):
        doc.set(("roles", "one", "m"), 2)
    assert doc.text == "x: 1\nroles:\n  one: &role\n    n: 1\n    m: 2\n  two: *role\n"
