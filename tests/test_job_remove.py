"""prereq job remove: it takes out what the user names and what nothing needs any more, never
what the user selected or wrote by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from job_helpers import (
    assert_clean_cli_error,
    assert_openpai_accepts,
    copy_job,
    data,
    prereq_cli,
    registry_item,
    top_names,
)
from prereq import jobs
from prereq.core.errors import PrereqError
from textdiff import line_diff


def test_remove_takes_out_only_what_nothing_needs(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    original = path.read_bytes()
    jobs.add(path, ["mnist-data", "output-dir"], index=bundled)
    added_text = path.read_text()

    result = jobs.remove(path, ["mnist-data"], index=bundled)
    described = [change.describe() for change in result.changes]
    assert any(line.startswith("removed mnist-data ") for line in described)
    assert any(line.startswith("removed base-tools ") and "no longer needed" in line for line in described)
    job_data = data(path)
    assert job_data["taskRoles"]["train"]["prerequisites"] == ["my-setup", "nfs-storage-1", "output-dir"]
    assert top_names(job_data) == ["my-image", "my-setup", "nfs-storage-1", "output-dir"]
    assert line_diff(added_text, path.read_text())[1] == []  # only deletions
    assert_openpai_accepts(job_data)

    with pytest.raises(PrereqError, match=r"required by|other items require it"):
        jobs.remove(path, ["nfs-storage-1"], index=bundled)
    with pytest.raises(PrereqError, match=r"mnist-commented.yaml:10: my-image was written by hand"):
        jobs.remove(path, ["my-image"], index=bundled)

    jobs.remove(path, ["output-dir"], index=bundled)
    assert path.read_bytes() == original  # back to the user's file, byte for byte


def test_an_item_the_user_selected_is_never_removed_as_a_requirement(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["nfs-storage-1", "mnist-data"], index=bundled)
    result = jobs.remove(path, ["nfs-storage-1"], index=bundled)
    assert [c.describe() for c in result.changes] == [
        f"kept nfs-storage-1 {registry_item('nfs-storage-1')['version']} (still required by mnist-data)"
    ]
    assert data(path)["extras"]["prereq"]["selected"] == {"train": ["mnist-data"]}
    jobs.add(path, ["nfs-storage-1"], index=bundled)
    jobs.remove(path, ["mnist-data"], index=bundled)
    job_data = data(path)
    assert job_data["taskRoles"]["train"]["prerequisites"] == ["my-setup", "nfs-storage-1"]
    assert top_names(job_data) == ["my-image", "my-setup", "nfs-storage-1"]


def test_remove_names_an_unknown_task_role(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["mnist-data"], index=bundled)
    with pytest.raises(PrereqError, match="no task role 'test'") as caught:
        jobs.remove(path, ["mnist-data"], task_role="test", index=bundled)
    assert caught.value.hint == "task roles: train"


def test_remove_unbind_from_the_command_line_keeps_the_item(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["mnist-data"], index=bundled, bind=True)
    assert data(path)["taskRoles"]["train"]["data"] == "mnist-data"
    before = path.read_text()
    run = prereq_cli("job", "remove", str(path), "mnist-data", "--unbind", "--index", str(bundled))
    assert run.returncode == 0, run.stderr
    assert "unbound mnist-data" in run.stdout and "(task role train)" in run.stdout
    job_data = data(path)
    assert "data" not in job_data["taskRoles"]["train"] and "mnist-data" in top_names(job_data)
    assert line_diff(before, path.read_text())[1] == []  # only deletions
    assert_clean_cli_error(
        ["job", "remove", str(path), "mnist-data", "--unbind", "--index", str(bundled)], "mnist-data is not bound", 2
    )
