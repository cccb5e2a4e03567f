"""What the validator says: each problem's message and hint read naturally and point at the fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from check_helpers import RULE_FIXTURES, found, item, messages
from prereq.registry import schemas
from prereq.registry.loader import load_registry
from prereq.registry.rules import Severity
from prereq.registry.validate import validate


def test_every_missing_key_is_reported(make_registry) -> None:
    root = make_registry({"prerequisites/bare.yaml": "type: script\ntitle: t\ncallbacks: []\n"})
    result = validate(root)
    assert sorted(m for m, _ in messages(result, "PRQ112")) == [
        "required key 'name' is missing",
        "required key 'owners' is missing",
        "required key 'version' is missing",
    ]
    assert ("PRQ110", "prerequisites/bare.yaml", 3) in found(result)  # callbacks: [] is empty


def test_cycle_is_reported_once_as_the_whole_path(make_registry) -> None:
    root = make_registry(
        {
            "prerequisites/c.yaml": item("c", head="require: [a]\n"),
            "prerequisites/a.yaml": item("a", head="require: [b]\n"),
            "prerequisites/b.yaml": item("b", head="require: [c, d]\n"),
            "prerequisites/d.yaml": item("d", head="require: [d]\n"),
        }
    )
    cycles = [p for p in validate(root).problems if p.rule == "PRQ143"]
    assert [p.message for p in cycles] == ["dependency cycle: a -> b -> c -> a", "dependency cycle: d -> d"]
    assert [(p.file, p.line, p.column) for p in cycles] == [
        ("prerequisites/a.yaml", 6, 11),
        ("prerequisites/d.yaml", 6, 11),
    ]


def test_event_synonyms_say_what_they_become() -> None:
    result = validate(RULE_FIXTURES / "PRQ134-event-synonym")
    start, exit_ = messages(result, "PRQ134")  # in file order: containerStart, then containerExit
    assert "'taskStarts'" in start[0] and start[1] == "write event: taskStarts"
    assert "'taskSucceeds'" in exit_[0] and "only when the task succeeded" in exit_[1]
    assert all(p.severity is Severity.WARNING for p in result.problems)


def test_short_plugin_hint_shows_the_long_form() -> None:
    [(_message, hint)] = messages(validate(RULE_FIXTURES / "PRQ130-plugin-short-name"), "PRQ130")
    assert hint == "write plugin: com.microsoft.pai.runtimeplugin.cmd"


def test_unknown_key_suggests_the_closest_key() -> None:
    [(message, hint)] = messages(validate(RULE_FIXTURES / "PRQ111-unknown-key"), "PRQ111")
    assert message.startswith("unknown key 'tag'") and hint == "did you mean 'tags'?"


def test_plugin_parameters_are_checked_per_plugin(make_registry) -> None:
    ssh = (
        "name: ssh\nversion: 1.0.0\ntype: script\ntitle: SSH\nowners: [alice]\n"
        "plugin: com.microsoft.pai.runtimeplugin.ssh\njobssh: true\nlogdir: {train: /logs}\n"
    )
    result = validate(make_registry({"prerequisites/ssh.yaml": ssh}))
    assert found(result) == {("PRQ111", "prerequisites/ssh.yaml", 8)}
    assert result.problems[0].message == "unknown key 'logdir' for plugin com.microsoft.pai.runtimeplugin.ssh"


def test_collision_names_both_items() -> None:
    [(message, _)] = messages(validate(RULE_FIXTURES / "PRQ121-name-collision"), "PRQ121")
    assert message == "name 'mnist_data' collides with 'MNIST-data' (prerequisites/MNIST-data.yaml)"


def test_ambiguous_parameter_names_both_providers() -> None:
    [(message, _)] = messages(validate(RULE_FIXTURES / "PRQ152-this-ambiguous"), "PRQ152")
    assert message == "'<% this.mountPoint %>' has different values in nfs-a and nfs-b"


def test_missing_requirement_suggests_a_near_name(make_registry) -> None:
    root = make_registry(
        {
            "prerequisites/nfs-share.yaml": item("nfs-share"),
            "prerequisites/user.yaml": item("user", head="require: [NFS_share]\n"),
        }
    )
    [(message, hint)] = messages(validate(root), "PRQ140")
    assert message == "requires 'NFS_share', which is not in the registry" and hint == "did you mean 'nfs-share'?"


def test_deprecated_requirement_names_its_replacement() -> None:
    [(message, hint)] = messages(validate(RULE_FIXTURES / "PRQ144-requires-deprecated"), "PRQ144")
    assert message == "requires deprecated item 'old-tools' (replaced by 'new-tools')"
    assert hint == "require new-tools instead"


def test_type_errors_read_naturally(make_registry) -> None:
    root = make_registry({"prerequisites/t.yaml": item("t", head="tags: vision\nrequire:\n")})
    assert sorted(m for m, _ in messages(validate(root), "PRQ110")) == [
        "require: is empty, expected a list",
        "tags: 'vision' is a string, expected a list",
    ]


def test_a_long_value_is_cut_short_in_messages(make_registry) -> None:
    """A schema problem quotes the value, but never a whole megabyte of it."""
    root = make_registry({"prerequisites/a.yaml": item("a", head="homepage: [" + "9" * 4000 + "]\n")})
    problems = validate(root).problems
    (message,) = [p.message for p in problems if p.rule == "PRQ110"] or [str(problems)]
    assert len(message) < 200 and message.count("9") < 100 and "…" in message


def _schema_issues(root: Path) -> dict[tuple[Any, ...], tuple[str, str]]:
    """Each schema issue of the registry's items, told what their files say (``SourceItem.written``)."""
    return {
        (loaded.rel, *issue.path): (issue.message, issue.hint)
        for loaded in load_registry(root).items
        for issue in schemas.check_item(loaded.data, written=loaded.written)
    }


def test_a_value_yaml_reads_otherwise_is_shown_as_the_file_writes_it(make_registry) -> None:
    head = "tags: [1.10, true, 2]\n"
    crlf = item("w", version="1.10").replace("\n", "\r\n").encode()
    root = make_registry({"prerequisites/v.yaml": item("v", version="1.10", head=head), "prerequisites/w.yaml": crlf})
    issues = _schema_issues(root)
    quote = 'YAML reads 1.10 as the number 1.1: quote it to keep what the file says (version: "1.10")'
    for rel in ("prerequisites/v.yaml", "prerequisites/w.yaml"):
        message, hint = issues[(rel, "version")]
        assert message == "version 1.10 is not a semantic version of at most 64 characters"
        assert hint.startswith("write MAJOR.MINOR.PATCH") and hint.endswith("; " + quote)  # the schema's hint first
    tag, hint = issues[("prerequisites/v.yaml", "tags", 0)]
    assert tag.startswith("tag 1.10 is not") and hint.endswith('quote it to keep what the file says ("1.10")')
    tag, hint = issues[("prerequisites/v.yaml", "tags", 1)]
    assert tag.startswith("tag true is not") and "YAML reads true as the boolean True" in hint
    tag, hint = issues[("prerequisites/v.yaml", "tags", 2)]  # written as YAML reads it: nothing to add
    assert tag.startswith("tag 2 is not") and "YAML reads" not in hint


def test_what_a_file_writes_is_read_only_at_a_value_it_holds(make_registry) -> None:
    text = "# a comment\nname: v  # the name\nversion: {major: 1.10}\ntype: script\n"
    (loaded,) = load_registry(make_registry({"prerequisites/v.yaml": text})).items
    assert loaded.written(("version", "major")) == "1.10"
    assert loaded.written(("name",)) == "v"
    assert loaded.written(("version", "minor")) is None  # no such value: not its parent's text
    assert loaded.written(("nowhere",)) is None


def test_validate_says_a_version_as_the_file_writes_it(make_registry) -> None:
    """`version: 1.10` is the YAML number 1.1: the message quotes what the file says, and how to keep it."""
    root = make_registry({"prerequisites/tool.yaml": item("tool", version="1.10")})
    [(message, hint)] = messages(validate(root), "PRQ110")
    assert "version 1.10 is not" in message and "1.1 " not in message
    assert 'quote it to keep what the file says (version: "1.10")' in hint
