"""Parameters, placeholders and cascades: what resolves, what is reported once, and what one
broken file does not drag into others."""

from __future__ import annotations

import pytest

from check_helpers import found, item
from prereq.registry.validate import validate


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
