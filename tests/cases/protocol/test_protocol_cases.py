"""The OpenPAI protocol cases against the Python checks; tests/js/protocol.test.js runs them against the JS port."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from prereq.openpai import jobschema as protocol
from prereq.openpai import protocol as rest_server

HERE = Path(__file__).resolve().parent
PROTOCOL_JS = HERE.parents[2] / "site" / "assets" / "composer" / "openpai" / "protocol.js"


def _load_regen() -> Any:
    # By path, under its own name: tests/cases/ has a regen.py of its own.
    spec = importlib.util.spec_from_file_location("protocol_cases_regen", HERE / "regen.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


regen = _load_regen()
FILES = regen.case_files()


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_case(path: Path) -> None:
    case = regen.load_case(path)
    assert "expect" in case, f"{path.name} has no expect: run tests/cases/protocol/regen.py"
    assert regen.expectations(case["job"]) == case["expect"], case["description"]
    assert path.read_text(encoding="utf-8") == regen.render(case), "not in the canonical form: run regen.py"


def test_schema_json_is_the_resolved_schema() -> None:
    assert (HERE / "schema.json").read_text(encoding="utf-8") == regen.schema_text(), "run regen.py"


def test_the_corpus_has_cases() -> None:
    assert len(FILES) >= 50
    assert len({path.name[:3] for path in FILES}) == len(FILES), "two cases share a number"
    assert not [p.name for p in HERE.glob("*.json") if p.name != "schema.json" and not regen.CASE_NAME.match(p.name)]


def _errors(errors: Any) -> list[tuple[Any, ...]]:
    """Each error, and those of its context, as (path, keyword, schema path)."""
    found = []
    for error in errors:
        found.append((tuple(error.absolute_path), error.validator, tuple(error.absolute_schema_path)))
        found += [("in", *e) for e in _errors(error.context)]
    return found


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_our_messages_leave_jsonschemas_errors_as_they_are(path: Path) -> None:
    job = regen.load_case(path)["job"]
    plain = jsonschema.Draft7Validator(protocol.resolve_schema(protocol.load_protocol()))
    assert _errors(protocol._validator().iter_errors(job)) == _errors(plain.iter_errors(job))


def _all_errors(errors: Any) -> Any:
    for error in errors:
        yield error
        yield from _all_errors(error.context)


def test_the_cases_cover_every_keyword_and_check() -> None:
    jobs = [regen.load_case(path)["job"] for path in FILES]
    seen = {error.validator for job in jobs for error in _all_errors(protocol._validator().iter_errors(job))}
    used = {keyword for keyword, _ in protocol._schema_keywords(regen.resolve_schema(regen.load_protocol()))}
    assert (used & set(protocol.WORDED_KEYWORDS)) | {None} <= seen  # None: a false schema
    messages = [p["message"] for path in FILES for p in regen.load_case(path)["expect"]]
    rest_server = ("Duplicate script", "Duplicate deployments", "Prerequisite ", "task role name", "Default deployment")
    hived = ("Taskrole ", "AffinityGroup ", "HiveD task role name", "{} should name")
    for start in rest_server + hived:
        assert any(message.startswith(start) for message in messages), start
    for start in ("a dockerimage prerequisite allows", "a dockerimage prerequisite needs", "a prerequisite needs"):
        assert any(message.startswith(start) for message in messages), start
    assert any(message.startswith("prerequisite type ") for message in messages)
    assert any(message.startswith("not a valid ") for message in messages)
    assert any(
        p["path"] == [] and p["message"].endswith('is not of type "object"')
        for path in FILES
        for p in regen.load_case(path)["expect"]
    )


def test_the_schema_uses_only_worded_keywords() -> None:
    assert protocol.unsupported_keywords(protocol.resolve_schema(protocol.load_protocol())) == []
    nested = {"items": [{"maxItems": 1}], "not": {"$ref": "#"}}
    assert protocol.unsupported_keywords(nested) == ["$ref", "maxItems", "not"]
    assert protocol.unsupported_keywords({"additionalProperties": {}}) == ["additionalProperties (a schema)"]


def test_the_constants_match_protocol_js() -> None:
    text = PROTOCOL_JS.read_text(encoding="utf-8")
    types = re.search(r"export const PREREQUISITE_TYPES = Object\.freeze\((\[.*?\])\);", text)
    assert types and json.loads(types.group(1)) == list(protocol.PREREQUISITE_TYPES)
    fields = re.search(r"export const TASK_ROLE_FIELD_TYPES = Object\.freeze\(\{(.*?)\}\);", text)
    assert fields and re.findall(r'(\w+): "(\w+)"', fields.group(1)) == list(rest_server.TASK_ROLE_FIELDS.items())
    keys = re.search(r"const DOCKERIMAGE_KEYS = (\[.*?\]);", text)
    assert keys and json.loads(keys.group(1)) == list(protocol.DOCKERIMAGE_KEYS)
    pattern = re.search(r'export const TASK_ROLE_NAME_PATTERN = "(.*?)";', text)
    assert pattern and pattern.group(1) == rest_server.TASK_ROLE_NAME.pattern
    draft7 = re.search(r"const DRAFT7_KEYWORDS = new Set\(\[(.*?)\]\);", text, re.DOTALL)
    assert draft7 and set(re.findall(r'"([^"]+)"', draft7.group(1))) == set(jsonschema.Draft7Validator.VALIDATORS)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (0.1, "0.1"),
        (123.456, "123.456"),
        (1e16, "10000000000000000"),
        (1e21, "1e+21"),
        (1.5e300, "1.5e+300"),
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (-2.5e-7, "-2.5e-7"),
        (5e-324, "5e-324"),
        (2**60 + 1, "1152921504606847000"),
        (10**400, "Infinity"),
        (float("nan"), "NaN"),
        (True, "true"),
        (None, "null"),
        ("a\ud800\n\x1f\u2028", '"a\\ud800\\n\\u001f\u2028"'),
        ({"a": [1, {}], "b": []}, '{"a": [1, {}], "b": []}'),
        ({1: "x"}, '{"1": "x"}'),
    ],
)
def test_show_writes_what_javascript_writes(value: Any, shown: str) -> None:
    assert protocol.show(value) == shown


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"description": "d", "job": NaN}', "NaN is not JSON"),
        ('{"description": "d", "job": 1e400}', "infinity"),
        ('{"description": "d", "job": 9007199254740993}', "beyond"),
        ('{"description": "d", "job": {"a": 1, "a": 2}}', "duplicate key"),
        ('{"description": "d", "job": {"b": 1, "0": 2}}', "another order"),
        ('{"description": "d", "job": {}, "expect": [{"path": [], "message": "m"}]}', "expect is a list"),
        ('{"description": "", "job": {}}', "non-empty"),
        ('{"job": {}}', "a case has the keys"),
    ],
)
def test_a_malformed_case_is_refused(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "001-bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(regen.CaseError, match=error):
        regen.load_case(path)
    assert regen.load_case(_written(tmp_path / "002-fine.json", '{"description": "d", "job": {"0": 1, "b": 2}}'))


def _written(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
