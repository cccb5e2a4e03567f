"""What every job command shares: where it finds its index, and its --help."""

from __future__ import annotations

from pathlib import Path

import pytest

from job_helpers import copy_job, data, prereq_cli
from prereq import jobs


def test_index_source_order(tmp_path: Path, tiny: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    monkeypatch.setenv("PREREQ_INDEX", str(tiny["old"]))
    added = jobs.add(path, ["alpha"])  # from $PREREQ_INDEX
    # A local folder means nothing on another machine: not recorded, and add says so.
    assert "index" not in data(path)["extras"]["prereq"]
    assert any("is a local folder, so the job does not record it" in note for note in added.notes)
    # A job that records one (an older prereq recorded folders too) is read from there.
    recorded = path.read_text().replace("  prereq:\n", f"  prereq:\n    index: {tiny['old']}\n", 1)
    path.write_text(recorded)
    assert data(path)["extras"]["prereq"]["index"] == str(tiny["old"])
    monkeypatch.delenv("PREREQ_INDEX")
    monkeypatch.chdir(tmp_path)
    assert jobs.lock(path, upgrade_all=True).changes == []  # the recorded index: old has no newer store
    assert {c.name for c in jobs.lock(path, upgrade_all=True, index=tiny["new"]).changes} == {"store", "alpha"}


def test_index_source_is_chosen_in_one_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from prereq.index.reader import index_source

    monkeypatch.delenv("PREREQ_INDEX", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "jobs" / "site").mkdir(parents=True)
    assert index_source(None) == str(tmp_path / "build" / "site")
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "jobs").mkdir()
    monkeypatch.chdir(tmp_path / "repo" / "jobs")
    assert index_source(None) == str(tmp_path / "repo" / "build" / "site")  # the repository's, from anywhere in it
    monkeypatch.chdir(tmp_path)
    assert index_source(None, recorded="site") == "site"  # not found anywhere: as recorded
    assert index_source(None, recorded="site", base_dir=tmp_path / "jobs") == str(tmp_path / "jobs" / "site")
    (tmp_path / "site").mkdir()
    assert index_source(None, recorded="site", base_dir=tmp_path / "jobs") == "site"  # the current folder first
    assert index_source(None, recorded="https://example.org/x", base_dir=tmp_path) == "https://example.org/x"
    monkeypatch.setenv("PREREQ_INDEX", "from-env")
    assert index_source(None, recorded="site") == "from-env"
    assert index_source("given", recorded="site") == "given"
    # `prereq search` uses the same choice.
    cli = prereq_cli("search", "x", env={"PREREQ_INDEX": str(tmp_path / "from-env")})
    assert cli.returncode == 2 and f"no index found at {tmp_path / 'from-env'}" in cli.stderr


def test_help_of_every_new_command(capsys: pytest.CaptureFixture[str]) -> None:
    from prereq.cli import main

    for command in (
        ["job"],
        ["job", "add"],
        ["job", "remove"],
        ["job", "lock"],
        ["job", "resolve"],
        ["expression"],
        ["expression", "set"],
        ["--help"],
    ):
        with pytest.raises(SystemExit) as caught:
            main([*command, "--help"] if command != ["--help"] else command)
        assert caught.value.code == 0
    assert "expression" in capsys.readouterr().out


def test_add_bind_sets_the_task_roles_field(tmp_path: Path) -> None:
    cases = Path(__file__).resolve().parent / "cases"
    path = tmp_path / "job.yaml"
    path.write_bytes((cases / "jobs" / "090-bind-a-passive-data-item" / "job.yaml").read_bytes())
    cli = prereq_cli("job", "add", str(path), "cifar", "--bind", "--index", str(cases / "indexes" / "needs"))
    assert cli.returncode == 0, cli.stderr
    assert data(path)["taskRoles"]["train"]["data"] == "cifar"
    assert data(path)["extras"]["prereq"]["bound"] == {"train": ["cifar"]}
