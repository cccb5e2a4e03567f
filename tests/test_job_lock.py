"""Versions in a job: the lock holds until upgraded, ranges that cannot meet are an error, the
state's copy is its own (against the tiny index, whose history holds several versions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from job_helpers import JOBS, assert_openpai_accepts, copy_job, data, prereq_cli
from prereq import jobs
from prereq.core.errors import PrereqError
from textdiff import line_diff


def test_conflicting_ranges_are_an_error_naming_both(tmp_path: Path, tiny: dict[str, Path]) -> None:
    path = tmp_path / "job.yaml"
    path.write_text((JOBS / "two-roles.yaml").read_text())
    jobs.add(path, ["alpha@^1.0"], task_role="ps", index=tiny["new"])
    before = path.read_bytes()
    with pytest.raises(PrereqError) as caught:
        jobs.add(path, ["beta"], task_role="worker", index=tiny["new"])
    assert caught.value.message == (
        "no version of store meets both alpha 1.0.0 (store@^1.0) and beta 1.0.0 (store@^2.0), and no other "
        "versions fit: your selection -> alpha@^1.0 -> alpha 1.0.0 -> store@^1.0; "
        "your selection -> beta@* -> beta 1.0.0 -> store@^2.0"
    )
    assert path.read_bytes() == before
    with pytest.raises(PrereqError, match="invalid version range"):
        jobs.add(path, ["gamma@^^1"], task_role="worker", index=tiny["new"])


def test_lock_keeps_versions_until_upgraded(tmp_path: Path, tiny: dict[str, Path]) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["alpha", "gamma"], index=tiny["old"])
    assert data(path)["extras"]["prereq"]["lock"]["store"]["version"] == "1.0.0"

    kept = jobs.lock(path, index=tiny["new"])  # newer versions exist; the lock holds
    assert not kept.changed

    added_gamma_again = jobs.add(path, ["gamma"], index=tiny["old"])
    assert not added_gamma_again.changed

    before = path.read_text()
    upgraded = jobs.lock(path, upgrade=["store"], index=tiny["new"])
    assert [c.describe() for c in upgraded.changes] == ["updated store 1.0.0 -> 1.1.0, required by alpha, gamma"]
    job_data = data(path)
    assert job_data["extras"]["prereq"]["lock"]["store"]["version"] == "1.1.0"  # ^1.0 from alpha: not 2.0.0
    store = next(item for item in job_data["prerequisites"] if item["name"] == "store")
    assert store["version"] == "1.1.0" and "echo v1.1" in store["callbacks"][0]["commands"]
    removed, _added = line_diff(before, path.read_text())
    assert removed and all(
        "store" in line or "1.0.0" in line or "sha256:" in line or "STORE" in line or line.strip() == ""
        for line in removed
    ), removed
    assert_openpai_accepts(job_data)

    with pytest.raises(PrereqError, match="nothing-here is not locked"):
        jobs.lock(path, upgrade=["nothing-here"], index=tiny["new"])
    cli = prereq_cli("job", "lock", str(path), "--upgrade", "--index", str(tiny["new"]))
    assert cli.returncode == 0, cli.stderr
    assert "updated alpha 1.0.0 -> 2.0.0" in cli.stdout and "updated store 1.1.0 -> 2.0.0" in cli.stdout
    assert_openpai_accepts(data(path))


def test_lock_upgrade_flags(tmp_path: Path, tiny: dict[str, Path]) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["alpha", "gamma"], index=tiny["old"])
    only_store = jobs.lock(path, upgrade=["store"], index=tiny["new"], dry_run=True)
    assert [c.name for c in only_store.changes] == ["store"]
    everything = jobs.lock(path, upgrade_all=True, index=tiny["new"], dry_run=True)
    assert {c.name for c in everything.changes} == {"store", "alpha"}
    cli = prereq_cli("job", "lock", str(path), "--upgrade", "store", "--dry-run", "--index", str(tiny["new"]))
    assert (
        cli.returncode == 0 and "would update store 1.0.0 -> 1.1.0" in cli.stderr and "update alpha" not in cli.stderr
    )


def test_job_state_copy_is_independent() -> None:
    state = jobs.JobState(index="a", selected={"train": ["x"]}, lock={"x": jobs.Locked("1.0.0", "sha256:0")})
    copy = state.copy(index="b")
    copy.selected["train"].append("y")
    copy.lock["y"] = jobs.Locked("2.0.0", "sha256:1")
    assert (copy.index, state.index) == ("b", "a")
    assert state.selected == {"train": ["x"]} and list(state.lock) == ["x"]
    assert state.copy().index == "a"
