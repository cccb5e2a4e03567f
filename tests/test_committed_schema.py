"""The item schema a registry repository commits for editors (PRQ115): validate says when it is not
this prereq's or is missing while a modeline names it, and 'prereq schema' writes it."""

from __future__ import annotations

from pathlib import Path

from gitrepo import GitRepo
from prereq import cli
from prereq.registry.checks.schemafile import ITEM_SCHEMA, committed_schema, item_schema_text
from prereq.registry.validate import validate
from prereq.scaffold.starter import init_repository

REPO = Path(__file__).resolve().parents[1]


def _repository(tmp_path: Path) -> Path:
    repo = GitRepo(tmp_path / "team")
    init_repository(repo.root, name="Team prerequisites", owner="alice")
    repo.commit("start")
    return repo.root


def _schema_problems(root: Path) -> list:
    return [p for p in validate(root / "registry").problems if p.rule == "PRQ115"]


def test_a_stale_schema_is_a_warning_and_prereq_schema_rewrites_it(tmp_path: Path, capsys) -> None:
    root = _repository(tmp_path)
    assert _schema_problems(root) == []
    (root / ITEM_SCHEMA).write_text('{"title": "an older prereq\'s item schema"}\n', encoding="utf-8")
    [stale] = _schema_problems(root)
    assert stale.file == f"../{ITEM_SCHEMA}" and stale.line is None and stale.severity.value == "warning"
    assert "is not the item schema this prereq checks" in stale.message and "'prereq schema'" in stale.hint
    assert cli.main(["schema", "--registry", str(root / "registry")]) == 0
    assert ITEM_SCHEMA in capsys.readouterr().out
    assert (root / ITEM_SCHEMA).read_text(encoding="utf-8") == item_schema_text()
    assert _schema_problems(root) == []
    assert cli.main(["schema", "--registry", str(root / "registry")]) == 0
    assert "already" in capsys.readouterr().out


def test_a_missing_schema_is_reported_only_when_a_modeline_names_it(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    hello = root / "registry" / "prerequisites" / "hello-prereq.yaml"
    (root / ITEM_SCHEMA).unlink()
    [missing] = _schema_problems(root)
    assert (missing.file, missing.line, missing.column) == ("prerequisites/hello-prereq.yaml", 1, 1)
    assert missing.message == f"../{ITEM_SCHEMA} is missing, though the modeline of 1 item names it"
    text = hello.read_text(encoding="utf-8")
    published = text.replace("../../schema/", "https://team.example/prereq/reference/", 1)
    assert published != text
    hello.write_text(published, encoding="utf-8")
    assert _schema_problems(root) == []  # an address: not the committed file's business


def test_prereq_s_own_schema_source_is_never_reported() -> None:
    """In prereq's checkout the committed path is the packaged schema's source: the same text."""
    assert (REPO / ITEM_SCHEMA).is_file() and committed_schema(REPO) is None
    assert committed_schema(REPO / "tests") == "missing"
