"""Ranges resolve against every published version: a release past a dependent's ``~`` range validates,
the dependent stays on the older version the history publishes (validation's note, the index, the
item page, the impact report), a range nothing published meets is still PRQ142, and a job combining
items that need incompatible versions of one item is refused naming both ranges."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gitrepo import GitRepo, item_yaml
from prereq.marketplace.build import build
from prereq.marketplace.itempage import render_item
from prereq.marketplace.pages import SiteData
from prereq.registry.checks.published_ranges import stays
from prereq.registry.validate import validate
from prereq.review.markdown import impact_markdown
from prereq.review.review import review
from review_helpers import item, make_pr

REG = "registry/prerequisites/"
NFS = {"mountPoint": "/mnt/nfs"}


def _prereq(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real command line, in its own process (exit codes and both streams as a user sees them)."""
    code = "import sys; from prereq.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def released(tmp_path: Path) -> GitRepo:
    """nfs 1.0.2 with two dependents on ~1.0 and one on ^1.0, then its owners release 1.1.0 alone."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write(REG + "nfs.yaml", item_yaml("nfs", "1.0.1", type_="data", parameters=NFS))
    repo.commit("nfs 1.0.1", date="2026-01-01T00:00:00+00:00")
    repo.write(REG + "nfs.yaml", item_yaml("nfs", "1.0.2", type_="data", parameters=NFS))
    for name in ("squad-v2", "mnist"):
        repo.write(REG + f"{name}.yaml", item_yaml(name, "1.0.0", require=["nfs@~1.0"]))
    repo.write(REG + "loose.yaml", item_yaml("loose", "1.0.0", require=["nfs@^1.0"]))
    repo.commit("dependents", date="2026-01-02T00:00:00+00:00")
    repo.write(REG + "nfs.yaml", item_yaml("nfs", "1.1.0", type_="data", parameters=NFS))
    repo.commit("nfs 1.1.0", date="2026-01-03T00:00:00+00:00")
    return repo


def test_a_minor_release_past_tilde_ranges_validates_and_says_who_stays(released: GitRepo) -> None:
    registry = released.root / "registry"
    result = validate(registry, history=True)
    assert result.problems == []
    said = [str(stay) for stay in stays(registry, result.items.values())]
    assert said == [
        "mnist stays on nfs 1.0.2: its range ~1.0 excludes 1.1.0",
        "squad-v2 stays on nfs 1.0.2: its range ~1.0 excludes 1.1.0",
    ]
    assert result.stays == said
    run = _prereq("validate", str(registry), cwd=released.root)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 errors" in run.stdout and "Traceback" not in run.stderr
    assert [f"prereq: note: {stay}" for stay in said] == [
        line for line in run.stderr.splitlines() if "stays on" in line
    ]


def test_the_index_and_the_item_page_keep_dependents_on_the_older_version(released: GitRepo) -> None:
    out = released.root.parent / "site"
    built = build(released.root / "registry", out, with_site=False)
    assert built.built, [str(p) for p in built.problems]
    data = SiteData(out)
    resolved = {
        name: data.document(name)["versions"][-1]["requires"][0]["version"] for name in ("squad-v2", "mnist", "loose")
    }
    assert resolved == {"squad-v2": "1.0.2", "mnist": "1.0.2", "loose": "1.1.0"}
    assert [v["version"] for v in data.document("nfs")["versions"]] == ["1.0.1", "1.0.2", "1.1.0"]
    page = str(render_item(data, "nfs", lambda path: "../" + path))
    for name, version in resolved.items():
        assert f'{name}</a> <span class="prereq-required-by__version">uses {version}</span>' in page


def test_the_impact_report_says_which_dependents_stay_behind(tmp_path: Path) -> None:
    base: dict[str, str | None] = {
        "prerequisites/nfs.yaml": item("nfs", "1.0.2"),
        "prerequisites/squad-v2.yaml": item("squad-v2", require=("nfs@~1.0",)),
        "prerequisites/loose.yaml": item("loose", require=("nfs@^1.0",)),
    }
    repo = make_pr(tmp_path / "repo", base, {"prerequisites/nfs.yaml": item("nfs", "1.1.0")})
    reviewed = review(repo.root / "registry", base="main", author="alice")
    assert "PRQ142" not in {p.rule for p in reviewed.result.problems}
    report = impact_markdown(reviewed)
    stays_lines = [line for line in report.splitlines() if " stays on " in line]
    assert stays_lines == ["- squad-v2 stays on nfs 1.0.2: its range ~1.0 excludes 1.1.0"]


def test_a_range_nothing_published_meets_is_still_prq142(released: GitRepo) -> None:
    released.write(REG + "far.yaml", item_yaml("far", "1.0.0", require=["nfs@^2.0"]))
    released.commit("far", date="2026-01-04T00:00:00+00:00")
    result = validate(released.root / "registry")
    assert [(p.rule, p.file, p.line) for p in result.problems] == [("PRQ142", "prerequisites/far.yaml", 6)]
    assert result.problems[0].message == "requires nfs@^2.0 but no published version of nfs meets it (nfs is 1.1.0)"
    assert result.problems[0].hint.endswith("(published: 1.0.1, 1.0.2, 1.1.0)")


def test_outside_git_the_working_tree_is_all_that_is_published(released: GitRepo, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(released.root / "registry"), str(copy)], check=True)
    result = validate(copy)
    assert sorted((p.rule, p.file) for p in result.problems) == [
        ("PRQ142", "prerequisites/mnist.yaml"),
        ("PRQ142", "prerequisites/squad-v2.yaml"),
    ]
    assert stays(copy, result.items.values()) == []


def test_a_job_of_items_needing_incompatible_versions_names_both_ranges(released: GitRepo) -> None:
    released.write(REG + "nfs.yaml", item_yaml("nfs", "2.0.0", type_="data", parameters=NFS))
    released.write(REG + "modern.yaml", item_yaml("modern", "1.0.0", require=["nfs@^2"]))
    released.write(REG + "loose.yaml", item_yaml("loose", "1.0.0", require=["nfs@>=1.0"]))
    released.commit("nfs 2.0.0", date="2026-01-04T00:00:00+00:00")
    out = released.root.parent / "site"
    assert build(released.root / "registry", out, with_site=False).built
    job = released.root.parent / "job.yaml"
    job.write_text(
        "protocolVersion: 2\nname: j\ntype: job\ntaskRoles:\n  train:\n    instances: 1\n"
        "    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n    commands: [echo hi]\n",
        encoding="utf-8",
    )
    before = job.read_bytes()
    run = _prereq("job", "add", str(job), "squad-v2", "modern", "--index", str(out), cwd=released.root)
    assert run.returncode == 2, run.stdout + run.stderr  # a request that cannot be met, as an unknown name
    assert "Traceback" not in run.stderr and job.read_bytes() == before
    assert "no version of nfs meets both squad-v2 1.0.0 (nfs@~1.0) and modern 1.0.0 (nfs@^2)" in run.stderr
    assert "published versions of nfs: 1.0.1, 1.0.2, 1.1.0, 2.0.0" in run.stderr


def test_what_each_blob_publishes_is_kept_by_its_id(released: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second run reads the history's versions from the cache, not from git: kept entries saying the
    blobs of 1.0.1 and 1.0.2 publish nothing are believed (PRQ142), damaged ones are read again from git."""
    monkeypatch.setenv("PREREQ_CACHE", str(released.root.parent / "cache"))
    registry = released.root / "registry"
    assert validate(registry).problems == []
    shelf = released.root.parent / "cache" / "history-versions.json"
    kept = json.loads(shelf.read_text(encoding="utf-8"))
    older = {
        version: released.git("rev-parse", f"HEAD~{back}:{REG}nfs.yaml").strip()
        for back, version in ((1, "1.0.2"), (2, "1.0.1"))
    }
    for version, blob in older.items():
        assert kept["entries"][blob] == {"name": "nfs", "version": version, "valid": True}
        kept["entries"][blob] = {"name": "nfs", "version": version, "valid": False}
    shelf.write_text(json.dumps(kept), encoding="utf-8")
    assert {(p.rule, p.file) for p in validate(registry).problems} == {
        ("PRQ142", "prerequisites/mnist.yaml"),
        ("PRQ142", "prerequisites/squad-v2.yaml"),
    }
    for blob in older.values():
        kept["entries"][blob] = ["not", "what prereq writes"]
    shelf.write_text(json.dumps(kept), encoding="utf-8")
    assert validate(registry).problems == []
