"""The registry's files: what is read as an item or a template, what is refused unread (links,
pipes, huge files), and hostile sizes that must stay quick."""

from __future__ import annotations

import json

from check_helpers import item, messages
from prereq.registry.validate import validate


def test_a_folder_among_items_is_not_told_to_be_renamed(make_registry) -> None:
    root = make_registry({"prerequisites/good.yaml": item("good"), "prerequisites/extra/x.yaml": item("x")})
    [(message, hint)] = messages(validate(root), "PRQ106")
    assert message == "extra is not read as an item" and "rename" not in hint


def test_hidden_files_are_ignored(make_registry) -> None:
    root = make_registry({"prerequisites/good.yaml": item("good"), "prerequisites/.good.yaml.swp": b"\x00"})
    assert validate(root).problems == []


def test_special_files_and_links_anywhere_in_the_registry_are_problems_never_read(make_registry, tmp_path) -> None:
    import os

    secret = tmp_path / "secret.yaml"
    secret.write_text("name: secret\npassword: hunter2\n")
    root = make_registry({"prerequisites/good.yaml": item("good"), "templates/job.yaml": "taskRoles: {}\n"})
    os.mkfifo(root / "prerequisites" / "pipe.yaml")  # reading it would block forever
    os.mkfifo(root / "templates" / "pipe.yaml")
    (root / "templates" / "linked.yaml").symlink_to(secret)
    (root / "owners.yaml").unlink()
    (root / "owners.yaml").symlink_to(secret)
    result = validate(root)
    refused = {(p.file, p.message) for p in result.problems if p.rule == "PRQ107"}
    assert refused == {
        ("prerequisites/pipe.yaml", "prerequisites/pipe.yaml is a pipe, not a file"),
        ("templates/pipe.yaml", "templates/pipe.yaml is a pipe, not a file"),
        ("templates/linked.yaml", f"templates/linked.yaml is a symbolic link (to {secret})"),
        ("owners.yaml", f"owners.yaml is a symbolic link (to {secret})"),
    }
    assert "hunter2" not in json.dumps([p.as_dict() for p in result.problems])
    assert [t.rel for t in result.templates] == ["templates/job.yaml"]


def test_a_linked_folder_is_refused_as_a_whole(make_registry, tmp_path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.yaml").write_text(item("x"))
    root = make_registry({"prerequisites/good.yaml": item("good")})
    (root / "templates").symlink_to(elsewhere)
    result = validate(root)
    assert [(p.rule, p.file) for p in result.problems] == [("PRQ107", "templates")]
    assert result.templates == []


def test_templates_folder_is_checked_like_prerequisites(make_registry) -> None:
    root = make_registry(
        {
            "prerequisites/good.yaml": item("good"),
            "templates/job.yml": "taskRoles: {}\n",
            "templates/nested.yaml/inner.yaml": "taskRoles: {}\n",
        }
    )
    result = validate(root)
    problems = {(p.rule, p.file, p.message, p.hint) for p in result.problems}
    assert problems == {
        ("PRQ106", "templates/job.yml", "job.yml is not read as a job template", "rename it to job.yaml"),
        (
            "PRQ106",
            "templates/nested.yaml",
            "nested.yaml is not read as a job template",
            "move what is in it up into templates/",
        ),
    }


def test_a_parameter_used_many_times_by_itself_is_reported_at_once(make_registry) -> None:
    """300 bytes that used to grow k^8 over the rendering rounds and hang validation (how fast,
    relative to a plain registry, is measured by tests/hostile)."""
    uses = "".join(["<% this.a %>"] * 10)
    root = make_registry(
        {"prerequisites/good.yaml": item("good", head=f"parameters:\n  a: '{uses}'\n", commands=("echo <% this.a %>",))}
    )
    result = validate(root)
    assert [(p.rule, p.line) for p in result.problems] == [("PRQ154", 7)]


def test_hostile_sizes_are_clean_problems(make_registry) -> None:
    """A 9 KB range (regex backtracking; 30 KB would cross the line limit), 3,000 nested '(' and
    2,000 nested '$(' in a command (the stack), and a chain of 1,000 requirements all give clean
    problems or pass.  How fast, relative to a plain registry, is measured by tests/hostile."""
    files = {
        "prerequisites/ranged.yaml": item("ranged", head="require: ['base@" + "1.0.0 || " * 1000 + "']\n"),
        "prerequisites/base.yaml": item("base"),
        "prerequisites/nested.yaml": item("nested", commands=("echo " + "(" * 3000, "echo " + "$(" * 2000)),
    }
    for index in range(1000):
        files[f"prerequisites/c{index}.yaml"] = item(
            f"c{index}", head=f"require: [c{index + 1}]\n" if index < 999 else ""
        )
    result = validate(make_registry(files))
    # The nested parentheses are no bash either: the runtime's bash would refuse them (PRQ172).
    assert {(p.rule, p.file) for p in result.errors} == {
        ("PRQ141", "prerequisites/ranged.yaml"),
        ("PRQ172", "prerequisites/nested.yaml"),
    }


def test_two_files_claiming_one_name_are_each_checked_as_written(make_registry) -> None:
    """Found by the property tests: the valid file's form was compiled from the other (invalid) one."""
    broken = item("digits").replace("version:", "0version:")
    root = make_registry({"prerequisites/item0.yaml": broken, "prerequisites/item1.yaml": item("digits")})
    result = validate(root)
    assert {p.rule for p in result.errors} >= {"PRQ111", "PRQ112", "PRQ120"}


def test_a_file_over_a_mebibyte_is_refused_unread(make_registry) -> None:
    root = make_registry({"prerequisites/huge.yaml": item("huge") + "# " + "padding " * 140_000 + "\n"})
    result = validate(root)
    assert [(p.rule, p.line) for p in result.problems] == [("PRQ109", 1)]
    assert "bytes (at most 1048576)" in result.problems[0].message
