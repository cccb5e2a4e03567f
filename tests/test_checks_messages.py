"""What the validator says: each problem's message and hint read naturally and point at the fix."""

from __future__ import annotations

from check_helpers import RULE_FIXTURES, found, item, messages
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
