"""The OpenPAI rest-server's schema ($merge resolved) and its own checks."""

from __future__ import annotations

import copy
import json

import pytest

from prereq.openpai import jobschema
from prereq.openpai.jobschema import merge_patch
from prereq.openpai.protocol import rest_server_problems, schema_problems, validate_job

JOB = {
    "protocolVersion": 2,
    "name": "demo",
    "type": "job",
    "prerequisites": [
        {"name": "image", "type": "dockerimage", "uri": "ubuntu:22.04"},
        {
            "name": "setup",
            "type": "script",
            "plugin": "com.microsoft.pai.runtimeplugin.cmd",
            "callbacks": [{"event": "taskStarts", "commands": ["echo hi"]}],
        },
        {"name": "digits", "type": "data", "uri": ["https://example.org/a.gz"], "version": "1.0.0"},
    ],
    "taskRoles": {
        "train": {
            "instances": 1,
            "dockerImage": "image",
            "data": "digits",
            "prerequisites": ["setup", "digits"],
            "resourcePerInstance": {"cpu": 1, "memoryMB": 1024, "gpu": 0},
            "commands": ["python train.py"],
        }
    },
    "extras": {"prereq": {"selected": {"train": ["digits"]}}},
}


def messages(job: dict) -> list[str]:
    return [f"{problem.where()}: {problem.message}" for problem in validate_job(job)]


def changed(**edits) -> dict:
    job = copy.deepcopy(JOB)
    for dotted, value in edits.items():
        *parents, last = dotted.split("__")
        target = job
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return job


def test_the_repository_copy_matches_the_shared_schema() -> None:
    bundled = json.loads(jobschema.BUNDLED_SCHEMA.read_text())
    assert "Microsoft" in bundled["$comment"]
    shared_file = jobschema.SCHEMA_DIR.parents[1] / "shared" / "openpai" / "protocol-schema.json"
    if not shared_file.is_file():
        pytest.skip("no ../shared/openpai next to this clone")
    shared = json.loads(shared_file.read_text())
    assert {k: v for k, v in bundled.items() if k != "$comment"} == shared
    assert jobschema.schema_file() == jobschema.BUNDLED_SCHEMA


def test_merge_patch_follows_rfc_7386() -> None:
    # The examples of RFC 7386, appendix A.
    assert merge_patch({"a": "b"}, {"a": "c"}) == {"a": "c"}
    assert merge_patch({"a": "b"}, {"b": "c"}) == {"a": "b", "b": "c"}
    assert merge_patch({"a": "b"}, {"a": None}) == {}
    assert merge_patch({"a": "b", "b": "c"}, {"a": None}) == {"b": "c"}
    assert merge_patch({"a": ["b"]}, {"a": "c"}) == {"a": "c"}
    assert merge_patch({"a": "c"}, {"a": ["b"]}) == {"a": ["b"]}
    assert merge_patch({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}) == {"a": {"b": "d"}}
    assert merge_patch({"a": [{"b": "c"}]}, {"a": [1]}) == {"a": [1]}
    assert merge_patch(["a", "b"], ["c", "d"]) == ["c", "d"]
    assert merge_patch({"a": "b"}, ["c"]) == ["c"]
    assert merge_patch({"a": "foo"}, None) is None
    assert merge_patch({"e": None}, {"a": 1}) == {"e": None, "a": 1}
    assert merge_patch([1, 2], {"a": "b", "c": None}) == {"a": "b"}
    assert merge_patch({}, {"a": {"bb": {"ccc": None}}}) == {"a": {"bb": {}}}


def test_the_resolved_schema_is_plain_draft_7() -> None:
    schema = jobschema.resolve_schema(jobschema.load_protocol())
    text = json.dumps(schema)
    assert "$merge" not in text and "base.json" not in text
    branches = schema["properties"]["prerequisites"]["items"]["oneOf"]
    docker = next(b for b in branches if b["properties"]["type"]["enum"] == ["dockerimage"])
    assert docker["additionalProperties"] is False and docker["required"] == ["name", "type", "uri"]
    assert set(docker["properties"]) >= {"protocolVersion", "name", "version", "contributor", "description", "auth"}


def test_a_valid_job_passes() -> None:
    assert messages(JOB) == []


@pytest.mark.parametrize(
    ("edits", "expected"),
    [
        ({"type": "service"}, 'type: "service" is not one of ["job"]'),
        ({"name": "has space"}, 'name: "has space" does not match ^[a-zA-Z0-9_-]+$'),
        ({"surprise": 1}, 'Additional properties are not allowed ("surprise" was unexpected)'),
        ({"prerequisites__0__plugin": "x"}, 'prerequisites[0]: a dockerimage prerequisite allows no key "plugin"'),
        (
            {"prerequisites__2__uri": "https://example.org/a.gz"},
            'prerequisites[2]: not a valid data prerequisite: uri: "https://example.org/a.gz" is not of type "array"',
        ),
        ({"prerequisites__1__type": "plugin"}, 'prerequisites[1]: prerequisite type "plugin" is not one of'),
        ({"taskRoles__train__commands": []}, "taskRoles.train.commands: [] should be non-empty"),
        ({"taskRoles__train__gpu": 1}, '"gpu" was unexpected'),
    ],
)
def test_schema_errors(edits: dict, expected: str) -> None:
    found = messages(changed(**edits))
    assert any(expected in message for message in found), found


def test_rest_server_checks() -> None:
    job = copy.deepcopy(JOB)
    job["prerequisites"].append({"name": "setup", "type": "script", "plugin": "x"})
    job["prerequisites"].append({"name": "setup", "type": "output", "plugin": "x"})  # another type: allowed
    job["taskRoles"]["train"]["prerequisites"].append("ghost")
    job["taskRoles"]["train"]["script"] = "digits"  # a data item, not a script
    job["taskRoles"]["Worker"] = copy.deepcopy(job["taskRoles"]["train"])
    job["deployments"] = [{"name": "d", "taskRoles": {"train": {"preCommands": ["x"]}}}]
    job["defaults"] = {"deployment": "other"}
    assert schema_problems(job) == []
    found = [f"{p.where()}: {p.message} ({p.source})" for p in rest_server_problems(job)]
    assert found == [
        "prerequisites[3]: Duplicate script prerequisites setup. (rest-server)",
        "taskRoles.train.script: Prerequisite digits does not exist. (rest-server)",
        "taskRoles.train.prerequisites[2]: Prerequisite ghost does not exist. (rest-server)",
        'taskRoles.Worker: task role name "Worker" is accepted by the rest-server, but it names the task role '
        '"worker" (lower-case letters and digits only), which the runtime then does not find in the job: rename it '
        "to match ^[a-z0-9]{1,63}$ (runtime)",
        "taskRoles.Worker.script: Prerequisite digits does not exist. (rest-server)",
        "taskRoles.Worker.prerequisites[2]: Prerequisite ghost does not exist. (rest-server)",
        "defaults.deployment: Default deployment other does not exist. (rest-server)",
    ]
