"""Causes, not cascades: an item that is missing, refused or broken is reported once, at its cause,
with the items it breaks named and their problems counted; JSON and GitHub keep every problem,
marked as a consequence; what fails validation, and the exit code, never changes."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from prereq import cli
from prereq.registry.rules import Problem, Severity
from prereq.registry.validate import validate
from review_helpers import item, make_pr

BUNDLED = Path(__file__).resolve().parents[1] / "registry"
USES = "mkdir -p <% this.mountPoint %>/data"

STORAGE = item("storage", extra="parameters:\n  mountPoint: /mnt/shared\n")
# Three items use the storage's parameter directly, one through another: what deleting it breaks.
DEPENDENTS = {
    "data-a": item("data-a", require=("storage",), command=USES),
    "data-b": item("data-b", require=("storage@^1.0.0",), command=USES),
    "cache": item("cache", require=("storage",), command=USES),
    "trainer": item("trainer", require=("data-a",), command=USES),
}
# Its own mistake, whatever happens to the storage: never counted as a consequence.
TYPO = item("typo", command="echo <% this.mountPiont %>")


def _registry(make_registry, storage: str | None = STORAGE) -> Path:
    files = {f"prerequisites/{name}.yaml": text for name, text in DEPENDENTS.items()}
    files["prerequisites/typo.yaml"] = TYPO
    if storage is not None:
        files["prerequisites/storage.yaml"] = storage
    return make_registry(files)


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(["validate", *argv])
    return code, capsys.readouterr().out


def _reported(text: str) -> list[str]:
    """The lines of a text report that report a problem (not hints, counts or the summary)."""
    return [line for line in text.splitlines() if re.search(r": PRQ\d{3} ", line)]


def _json(capsys, root: Path) -> tuple[int, list[dict]]:
    code, out = _run(capsys, str(root), "--format", "json")
    return code, json.loads(out)["problems"]


def test_a_deleted_item_is_one_line_at_its_first_dependent(make_registry, capsys) -> None:
    root = _registry(make_registry, storage=None)
    code, problems = _json(capsys, root)
    [lead] = [p for p in problems if "consequence_of" not in p and p["rule"] == "PRQ140"]
    followers = [p for p in problems if "consequence_of" in p]
    assert {p["rule"] for p in followers} == {"PRQ140", "PRQ151"}
    assert all(p["consequence_of"] == {k: lead[k] for k in ("rule", "file", "line")} for p in followers)
    # every item that needs the storage, directly or through data-a, and nothing of typo's
    assert {Path(p["file"]).stem for p in [lead, *followers]} == set(DEPENDENTS)
    text_code, text = _run(capsys, str(root))
    assert code == text_code == 1
    lines = _reported(text)
    assert len(lines) == 2  # the storage's first dependent, and typo's own mistake
    assert "PRQ140" in lines[0] and "'storage'" in lines[0] and "typo.yaml" in lines[1]
    counted = f"and {len(followers)} problems that follow from it, in {len(DEPENDENTS)} items: "
    assert f"    {counted}{', '.join(sorted(DEPENDENTS))}" in text.splitlines()
    # the summary still counts every error: a consequence fails validation as before
    assert f"{len(problems)} errors" in text.splitlines()[-1]
    assert text.splitlines()[-1].endswith(f"; {len(followers)} of them shown at their cause")


@pytest.mark.parametrize(
    ("case", "cause"),
    [
        ("yaml-syntax", "PRQ101"),
        ("link", "PRQ107"),  # a file prereq refuses to read
        ("name-mismatch", "PRQ120"),
    ],
)
def test_a_refused_file_is_the_cause_of_what_needs_it(make_registry, capsys, tmp_path, case, cause) -> None:
    root = _registry(make_registry, storage=None)
    storage = root / "prerequisites" / "storage.yaml"
    if case == "yaml-syntax":
        storage.write_text(STORAGE.replace("type: script", "type: [script"), encoding="utf-8")
    elif case == "link":
        (tmp_path / "elsewhere.yaml").write_text(STORAGE, encoding="utf-8")
        storage.symlink_to(tmp_path / "elsewhere.yaml")
    else:
        storage.write_text(STORAGE.replace("name: storage", "name: storage-x"), encoding="utf-8")
    code, problems = _json(capsys, root)
    [refusal] = [p for p in problems if p["rule"] == cause]
    assert refusal["file"] == "prerequisites/storage.yaml" and "consequence_of" not in refusal
    cascade = [p for p in problems if p["rule"] in ("PRQ140", "PRQ151") and p["file"] != "prerequisites/typo.yaml"]
    assert cascade and all(p["consequence_of"]["rule"] == cause for p in cascade)
    text_code, text = _run(capsys, str(root))
    assert code == text_code == 1
    [shown] = [line for line in _reported(text) if "typo.yaml" not in line]
    assert "storage.yaml" in shown and f": {cause} error " in shown
    assert f"and {len(cascade)} problems that follow from it" in text


def test_a_schema_error_in_parameters_is_the_cause_of_the_unresolved_ones(make_registry, capsys) -> None:
    broken = STORAGE.replace("parameters:\n  mountPoint: /mnt/shared\n", "parameters:\n  - /mnt/shared\n")
    root = _registry(make_registry, storage=broken)
    code, problems = _json(capsys, root)
    [schema] = [p for p in problems if p["rule"] == "PRQ110"]
    unresolved = [p for p in problems if p["rule"] == "PRQ151" and p["file"] != "prerequisites/typo.yaml"]
    assert {Path(p["file"]).stem for p in unresolved} == set(DEPENDENTS)
    assert all(p["consequence_of"] == {k: schema[k] for k in ("rule", "file", "line")} for p in unresolved)
    [own] = [p for p in problems if p["file"] == "prerequisites/typo.yaml"]
    assert own["rule"] == "PRQ151" and "consequence_of" not in own  # its requirements are whole
    text_code, text = _run(capsys, str(root))
    assert code == text_code == 1
    assert len(_reported(text)) == 2


def test_github_keeps_every_problem_and_says_which_follow_from_another(make_registry, capsys) -> None:
    root = _registry(make_registry, storage=None)
    code, problems = _json(capsys, root)
    github_code, out = _run(capsys, str(root), "--format", "github")
    assert code == github_code == 1
    annotations = [line for line in out.splitlines() if line.startswith("::")]
    assert len(annotations) == len(problems)
    notices = [line for line in annotations if line.startswith("::notice ")]
    assert len(notices) == sum("consequence_of" in p for p in problems)
    assert all("title=PRQ1" in n and " because PRQ140" in n and "(because PRQ140 at " in n for n in notices)
    errors = [line for line in annotations if line.startswith("::error ")]
    assert len(errors) == 2 and any("problems that follow from it" in e for e in errors)


def test_the_markdown_table_counts_consequences_in_their_cause_row(make_registry, capsys) -> None:
    root = _registry(make_registry, storage=None)
    code, out = _run(capsys, str(root), "--format", "markdown")
    assert code == 1
    rows = [line for line in out.splitlines() if line.startswith("| PRQ")]
    assert len(rows) == 2 and f"problems that follow from it, in {len(DEPENDENTS)} items" in rows[0]


def test_linking_changes_neither_equality_nor_order() -> None:
    """Problems are compared, hashed and deduplicated everywhere: the link is not part of them."""
    cause = Problem("PRQ101", Severity.ERROR, "a.yaml", 1, 1, "invalid YAML", "fix it")
    plain = Problem("PRQ140", Severity.ERROR, "b.yaml", 3, 5, "requires 'a'", "add it")
    linked = Problem("PRQ140", Severity.ERROR, "b.yaml", 3, 5, "requires 'a'", "add it", consequence_of=cause)
    assert linked == plain and hash(linked) == hash(plain) and len({linked, plain}) == 1
    assert "consequence_of" not in plain.as_dict()
    assert linked.as_dict()["consequence_of"] == {"rule": "PRQ101", "file": "a.yaml", "line": 1}


@pytest.mark.parametrize("change", ["delete", "rename"])
def test_the_bundled_registry_says_one_line_where_it_said_twenty_five(capsys, tmp_path, change) -> None:
    """The issue's case: nfs-storage-1, which eight items require, deleted or renamed."""
    root = tmp_path / "registry"
    shutil.copytree(BUNDLED, root)
    storage = root / "prerequisites" / "nfs-storage-1.yaml"
    if change == "rename":
        renamed = storage.read_text(encoding="utf-8").replace("name: nfs-storage-1\n", "name: nfs-storage-2\n")
        (root / "prerequisites" / "nfs-storage-2.yaml").write_text(renamed, encoding="utf-8")
    storage.unlink()
    code, problems = _json(capsys, root)
    assert len(problems) > 10  # what the issue counted: a PRQ140 and PRQ151s for every dependent
    text_code, text = _run(capsys, str(root))
    assert code == text_code == 1
    [line] = _reported(text)
    assert "PRQ140" in line and "'nfs-storage-1'" in line
    names = sorted({Path(p["file"]).stem for p in problems})
    assert f"and {len(problems) - 1} problems that follow from it, in {len(names)} items: " in text
    assert validate(root).failed()


def test_a_review_of_a_rename_is_one_line_at_the_rename(tmp_path, capsys, monkeypatch) -> None:
    """The dependents' PRQ140 (and the PRQ151s below them) follow from the review's PRQ203."""
    base = {"prerequisites/storage.yaml": STORAGE} | {f"prerequisites/{n}.yaml": t for n, t in DEPENDENTS.items()}
    renamed = STORAGE.replace("name: storage", "name: storage-2")
    repo = make_pr(
        tmp_path / "repo", base, {"prerequisites/storage.yaml": None, "prerequisites/storage-2.yaml": renamed}
    )
    monkeypatch.chdir(repo.root)
    report = tmp_path / "impact.md"
    code, text = _run(capsys, "registry", "--base", "main", "--report", str(report))
    assert code == 1
    [line] = _reported(text)
    assert "storage-2.yaml" in line and ": PRQ203 error " in line
    code, out = _run(capsys, "registry", "--base", "main", "--format", "json")
    problems = json.loads(out)["problems"]
    [rename] = [p for p in problems if p["rule"] == "PRQ203"]
    followers = [p for p in problems if "consequence_of" in p]
    assert "consequence_of" not in rename and len(followers) == len(problems) - 1
    assert {p["rule"] for p in followers} == {"PRQ140", "PRQ151"}
    assert all(p["consequence_of"] == {k: rename[k] for k in ("rule", "file", "line")} for p in followers)
    assert f"and {len(followers)} problems that follow from it, in {len(DEPENDENTS)} items" in text
    rows = [line for line in report.read_text(encoding="utf-8").splitlines() if line.startswith("| PRQ")]
    assert [row.split(" | ")[0] for row in rows] == ["| PRQ203"]


def test_a_review_of_a_deletion_is_one_line_at_the_deletion(tmp_path, capsys, monkeypatch) -> None:
    base = {"prerequisites/storage.yaml": STORAGE} | {f"prerequisites/{n}.yaml": t for n, t in DEPENDENTS.items()}
    repo = make_pr(tmp_path / "repo", base, {"prerequisites/storage.yaml": None})
    monkeypatch.chdir(repo.root)
    code, out = _run(capsys, "registry", "--base", "main", "--format", "json")
    problems = json.loads(out)["problems"]
    [deletion] = [p for p in problems if p["rule"] == "PRQ202"]
    assert code == 1 and all(p["consequence_of"]["rule"] == "PRQ202" for p in problems if p is not deletion)
    code, text = _run(capsys, "registry", "--base", "main")
    [line] = _reported(text) or [""]
    assert code == 1 and "PRQ202" in line and "storage is deleted" in line
