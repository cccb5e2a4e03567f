"""The validator's rules: one fixture registry per rule, plus the behaviour around them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from prereq.registry.rules import RULES, Severity, rule_reference_markdown
from prereq.registry.validate import validate

RULE_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "rules"
FIXTURE_DIRS = sorted(p for p in RULE_FIXTURES.iterdir() if p.is_dir() and p.name.startswith("PRQ"))


def found(result) -> set[tuple[str, str | None, int | None]]:
    return {(p.rule, p.file, p.line) for p in result.problems}


def item(
    name: str,
    *,
    head: str = "",
    commands: tuple[str, ...] = ("echo ready",),
    type_: str = "script",
    version: str = "1.0.0",
    owners: str = "[alice]",
) -> str:
    """A valid cmd item; ``head`` is inserted before its callbacks."""
    text = f"name: {name}\nversion: {version}\ntype: {type_}\ntitle: {name} item\nowners: {owners}\n"
    if type_ == "data":
        text += "license: MIT\n"
    text += head + "callbacks:\n  - event: taskStarts\n    commands:\n"
    return text + "".join(f"      - {command}\n" for command in commands)


# --- the fixture table ------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", FIXTURE_DIRS, ids=[p.name for p in FIXTURE_DIRS])
def test_rule_fixture_reports_exactly_the_expected_problems(fixture: Path) -> None:
    rule_id = fixture.name.split("-")[0]
    expected = json.loads((fixture / "expected.json").read_text(encoding="utf-8"))
    assert expected and all(entry["rule"] == rule_id for entry in expected), "a fixture shows its own rule only"

    result = validate(fixture)

    assert found(result) == {(e["rule"], e["file"], e["line"]) for e in expected}
    columns = {(e["rule"], e["file"], e["line"], e["column"]) for e in expected if "column" in e}
    assert columns <= {(p.rule, p.file, p.line, p.column) for p in result.problems}
    for p in result.problems:
        assert p.severity is RULES[p.rule].severity
        assert p.message and p.hint, p
        assert not re.search(r"\{[a-z_]+(!r)?\}", p.message + p.hint), "templates are filled"
        assert (p.line is None) == (p.column is None)
        if p.file is not None:
            assert (fixture / p.file).exists(), "paths are relative to the registry root"


def test_every_rule_has_a_fixture() -> None:
    fixture_ids = {p.name.split("-")[0] for p in FIXTURE_DIRS}
    assert set(RULES) - fixture_ids == set()
    assert fixture_ids - set(RULES) == set(), "no fixture for a rule that no longer exists"
    for folder in FIXTURE_DIRS:
        rule = RULES[folder.name.split("-")[0]]
        assert folder.name == f"{rule.id}-{rule.name}"
        assert (folder / "owners.yaml").is_file() and (folder / "prerequisites").is_dir()


def test_clean_fixture_has_no_problems() -> None:
    result = validate(RULE_FIXTURES / "clean")
    assert result.problems == []
    assert sorted(result.items) == ["digits", "nfs-share", "upload-results"]
    assert not result.failed(strict=True)


def test_rule_table_is_well_formed() -> None:
    assert all(re.fullmatch(r"PRQ\d{3}", rule_id) for rule_id in RULES)
    assert len({rule.name for rule in RULES.values()}) == len(RULES)
    reference = rule_reference_markdown()
    for rule_id in RULES:
        assert f"## {rule_id}" in reference


# --- messages and hints -----------------------------------------------------------------------


def messages(result, rule: str) -> list[tuple[str, str]]:
    return [(p.message, p.hint) for p in result.problems if p.rule == rule]


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
    assert all(p.file is None and p.line is None and p.column is None for p in cycles)


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


# --- resolution and cascades ------------------------------------------------------------------


def test_parameters_resolve_nearest_first(make_registry) -> None:
    root = make_registry(
        {
            "prerequisites/far-a.yaml": item("far-a", head="parameters: {dir: /far-a}\n"),
            "prerequisites/far-b.yaml": item("far-b", head="parameters: {dir: /far-b, port: 1}\n"),
            "prerequisites/near.yaml": item("near", head="require: [far-a, far-b]\nparameters: {dir: /near}\n"),
            "prerequisites/same.yaml": item("same", head="parameters: {port: 1}\n"),
            # For user, dir comes from near (distance 1) although far-a and far-b disagree one level
            # further; port comes from same (distance 1) and from far-b (distance 2) alike.
            # For own, its own dir shadows the disagreeing far-a and far-b.
            "prerequisites/user.yaml": item(
                "user", head="require: [near, same]\n", commands=("ls <% this.dir %> <% this.port %>",)
            ),
            "prerequisites/own.yaml": item(
                "own", head="require: [far-a, far-b]\nparameters: {dir: /own}\n", commands=("ls <% this.dir %>",)
            ),
        }
    )
    assert validate(root).problems == []


def test_passthrough_and_expression_templates_are_accepted(make_registry) -> None:
    commands = (
        "echo <% expression.runName %>",
        "echo <% $parameters.lr %> <% $secrets.token %>",
        "echo <% $data.uri %> <% $script.x %> <% $output.y %>",
    )
    root = make_registry({"prerequisites/pass.yaml": item("pass", commands=commands)})
    assert validate(root).problems == []


@pytest.mark.parametrize("template", ["<% this.a.b %>", "<% expression %>", "<% $env.HOME %>", "<% 1 + 2 %>"])
def test_other_templates_are_unknown(make_registry, template: str) -> None:
    root = make_registry(
        {"prerequisites/t.yaml": item("t", head="parameters: {a: x}\n", commands=(f"echo '{template}'",))}
    )
    assert found(validate(root)) == {("PRQ150", "prerequisites/t.yaml", 10)}


def test_templates_in_prose_are_not_checked(make_registry) -> None:
    root = make_registry({"prerequisites/p.yaml": item("p", head="description: writes <% this.nothing %>\n")})
    assert validate(root).problems == []


def test_invalid_target_version_is_not_reported_twice(make_registry) -> None:
    root = make_registry(
        {
            "prerequisites/base.yaml": item("base", version="banana"),
            "prerequisites/user.yaml": item("user", head="require: [base@^1.0]\n"),
        }
    )
    assert found(validate(root)) == {("PRQ110", "prerequisites/base.yaml", 2)}


def test_missing_owners_file_is_one_problem_without_cascade(make_registry) -> None:
    root = make_registry({"prerequisites/a.yaml": item("a", owners="[nobody]")}, owners=None)
    assert found(validate(root)) == {("PRQ161", "owners.yaml", None)}


def test_broken_owners_file_does_not_cascade_to_items(make_registry) -> None:
    root = make_registry(
        {
            "owners.yaml": "users: alice\nteams: {data-team: [alice]}\n",
            "prerequisites/a.yaml": item("a", owners="[alice, data-team]"),
        }
    )
    assert found(validate(root)) == {("PRQ161", "owners.yaml", 1)}


def test_dockerimage_auth_takes_only_secret_templates(make_registry) -> None:
    image = (
        "name: img\nversion: 1.0.0\ntype: dockerimage\ntitle: Private image\nowners: [alice]\n"
        "uri: registry.example.org/team/image:1\nauth:\n  username: <% $secrets.user %>\n"
        "  password: hunter2\n  registryuri: registry.example.org\n"
    )
    result = validate(make_registry({"prerequisites/img.yaml": image}))
    assert found(result) == {("PRQ110", "prerequisites/img.yaml", 9)}
    assert "not a secret reference" in result.problems[0].message


def test_type_errors_read_naturally(make_registry) -> None:
    root = make_registry({"prerequisites/t.yaml": item("t", head="tags: vision\nrequire:\n")})
    assert sorted(m for m, _ in messages(validate(root), "PRQ110")) == [
        "require: is empty, expected a list",
        "tags: 'vision' is a string, expected a list",
    ]


def test_a_folder_among_items_is_not_told_to_be_renamed(make_registry) -> None:
    root = make_registry({"prerequisites/good.yaml": item("good"), "prerequisites/extra/x.yaml": item("x")})
    [(message, hint)] = messages(validate(root), "PRQ106")
    assert message == "extra is not read as an item" and "rename" not in hint


def test_hidden_files_are_ignored(make_registry) -> None:
    root = make_registry({"prerequisites/good.yaml": item("good"), "prerequisites/.good.yaml.swp": b"\x00"})
    assert validate(root).problems == []


def test_a_template_with_odd_prerequisite_names_is_reported_not_a_crash(tmp_path) -> None:
    from prereq.registry.validate import validate

    registry = tmp_path / "registry"
    (registry / "prerequisites").mkdir(parents=True)
    (registry / "templates").mkdir()
    (registry / "owners.yaml").write_text("users: [alice]\n")
    (registry / "templates" / "odd.yaml").write_text(
        "protocolVersion: 2\nname: odd\ntype: job\nprerequisites:\n  - {name: [1], type: script}\n"
        "taskRoles:\n  main:\n    instances: 1\n    dockerImage: img\n"
        "    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n    commands: [true]\n"
    )
    problems = validate(registry).problems
    assert {p.rule for p in problems} == {"PRQ180"}  # the image 'img' exists nowhere
    assert problems[0].file == "templates/odd.yaml" and problems[0].line == 9


def test_the_fast_schema_check_agrees_with_the_explaining_one() -> None:
    """schemas.check_item trusts jsonschema-rs for 'valid'; it must never call an invalid item valid."""
    import jsonschema

    from prereq.core.yamlload import YamlLoadError, load_yaml
    from prereq.registry import schemas
    from prereq.registry.loader import _non_string_keys

    explaining = jsonschema.Draft202012Validator(schemas.load_schema("prerequisite.schema.json"))
    fast = schemas._fast_validator("prerequisite.schema.json")
    repo = Path(__file__).resolve().parents[1]
    files = sorted(repo.glob("registry/prerequisites/*.yaml")) + sorted(repo.glob("tests/fixtures/**/*.yaml"))
    invalid = 0
    for path in files:
        try:
            data = load_yaml(path.read_bytes()).data
        except YamlLoadError:
            continue
        if any(_non_string_keys(data)):
            continue  # the loader refuses such a file (PRQ108) before any schema sees it
        valid = not any(True for _ in explaining.iter_errors(data))
        assert fast.is_valid(data) == valid, path
        invalid += not valid
    assert invalid >= 15  # the rule fixtures do hold invalid items


def test_every_rule_is_declared_by_exactly_one_place_and_emitted_only_there() -> None:
    from prereq.registry.checks import CHECKS
    from prereq.registry.loader import LOADER_RULES
    from prereq.registry.rules import RULES

    declared = [rule for check in CHECKS for rule in check.ids] + list(LOADER_RULES)
    assert set(declared) == set(RULES)
    # PRQ170 (unset variables) is checked in items and in job templates alike.
    assert sorted(r for r in set(declared) if declared.count(r) > 1) == ["PRQ170"]


def test_a_check_emitting_an_undeclared_rule_is_a_bug(make_registry) -> None:
    from prereq.registry.checks import _declared
    from prereq.registry.checks.items import check_name
    from prereq.registry.rules import problem

    with pytest.raises(RuntimeError, match="check_name emitted PRQ101"):
        _declared(check_name, [problem("PRQ101", file="x.yaml", line=1, detail="bad")])


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
    """300 bytes that used to grow k^8 over the rendering rounds and hang validation."""
    import time

    uses = "".join(["<% this.a %>"] * 10)
    root = make_registry(
        {"prerequisites/good.yaml": item("good", head=f"parameters:\n  a: '{uses}'\n", commands=("echo <% this.a %>",))}
    )
    started = time.monotonic()
    result = validate(root)
    assert time.monotonic() - started < 30  # generous: it takes milliseconds
    assert [(p.rule, p.line) for p in result.problems] == [("PRQ154", 7)]


def test_hostile_sizes_are_clean_problems_in_bounded_time(make_registry) -> None:
    """A 9 KB range (regex backtracking; 30 KB would cross the line limit), 3,000 nested '(' and
    2,000 nested '$(' in a command
    (the stack), and a chain of 1,000 requirements all give problems or pass, quickly."""
    import time

    files = {
        "prerequisites/ranged.yaml": item("ranged", head="require: ['base@" + "1.0.0 || " * 1000 + "']\n"),
        "prerequisites/base.yaml": item("base"),
        "prerequisites/nested.yaml": item("nested", commands=("echo " + "(" * 3000, "echo " + "$(" * 2000)),
    }
    for index in range(1000):
        files[f"prerequisites/c{index}.yaml"] = item(
            f"c{index}", head=f"require: [c{index + 1}]\n" if index < 999 else ""
        )
    started = time.monotonic()
    result = validate(make_registry(files))
    assert time.monotonic() - started < 120  # generous: a few seconds on a loaded machine
    assert {(p.rule, p.file) for p in result.errors} == {("PRQ141", "prerequisites/ranged.yaml")}


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
