"""prereq job add on real job files, against the bundled index and the tiny one: the closure in
order, several task roles, the file's style kept, dry runs, clean errors, docker images."""

from __future__ import annotations

from pathlib import Path

import pytest

from job_helpers import JOBS, assert_openpai_accepts, copy_job, data, prereq_cli, registry_item, top_names
from prereq import jobs
from prereq.core.errors import PrereqError
from prereq.openpai import runtime
from textdiff import line_diff


def test_add_puts_the_closure_in_order_and_touches_no_written_line(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    before = path.read_text()
    result = jobs.add(path, ["mnist-data", "output-dir@^1.0"], index=bundled)
    after = path.read_text()
    assert result.written and result.after == after

    nfs = registry_item("nfs-storage-1")["version"]
    lines = [change.describe() for change in result.changes]
    assert f"added nfs-storage-1 {nfs}, required by mnist-data, output-dir" in lines
    assert any(line.startswith("added mnist-data ") and line.endswith(", selected") for line in lines)

    removed, _added = line_diff(before, after)
    assert removed == []  # only insertions: every line written before is still there, byte for byte
    assert all(line in after for line in before.splitlines())

    job_data = data(after)
    closure = ["nfs-storage-1", "apt-proxy", "base-tools", "mnist-data", "output-dir"]
    assert job_data["taskRoles"]["train"]["prerequisites"] == ["my-setup", *closure]
    assert top_names(job_data) == ["my-image", "my-setup", *closure]
    assert job_data["taskRoles"]["train"]["commands"][0] == runtime.JOB_LOAD_LINE
    state = job_data["extras"]["prereq"]
    assert state["selected"] == {"train": ["mnist-data", "output-dir@^1.0"]}
    assert sorted(state["lock"]) == sorted(closure) and state["lock"]["nfs-storage-1"]["version"] == nfs
    assert "index" not in state and job_data["extras"]["note"] == "keep me"  # a local folder is not recorded
    assert_openpai_accepts(job_data)

    again = jobs.add(path, ["mnist-data"], index=bundled)
    assert not again.changed and "already selected" in again.warnings[0]


def test_several_task_roles(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "two-roles.yaml")
    before = path.read_text()
    with pytest.raises(PrereqError, match="2 task roles: ps, worker") as caught:
        jobs.add(path, ["mnist-data"], index=bundled)
    assert "--task-role" in caught.value.hint
    jobs.add(path, ["mnist-data"], task_role="worker", index=bundled)
    jobs.add(path, ["output-dir"], task_role="ps", index=bundled)
    after = path.read_text()
    assert line_diff(before, after)[0] == []
    job_data = data(after)
    assert top_names(job_data).count("nfs-storage-1") == 1
    assert job_data["taskRoles"]["ps"]["prerequisites"] == ["nfs-storage-1", "output-dir"]
    assert job_data["taskRoles"]["worker"]["prerequisites"][0] == "nfs-storage-1"
    # The file's style: 4-space indentation, lists not indented under their key.
    assert "        prerequisites:\n        - nfs-storage-1\n        - output-dir\n" in after
    assert "\n- name: nfs-storage-1\n  type: data\n" in after
    assert_openpai_accepts(job_data)

    jobs.remove(path, ["mnist-data"], index=bundled)
    job_data = data(path)
    assert "prerequisites" not in job_data["taskRoles"]["worker"]
    assert job_data["taskRoles"]["worker"]["commands"] == ["echo worker $PAI_TASK_INDEX"]  # load line removed
    assert "nfs-storage-1" in top_names(job_data)  # still needed by ps


def test_crlf_files_stay_crlf(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml", crlf=True)
    before = path.read_bytes().decode()
    jobs.add(path, ["mnist-data"], index=bundled)
    after = path.read_bytes().decode()
    assert "\n" not in after.replace("\r\n", "")
    assert line_diff(before, after)[0] == []
    jobs.remove(path, ["mnist-data"], index=bundled)
    assert path.read_bytes().decode() == before


def test_dry_run_prints_a_diff_and_writes_nothing(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    before = path.read_bytes()
    result = jobs.add(path, ["output-dir"], index=bundled, dry_run=True)
    assert path.read_bytes() == before and not result.written
    assert "+      - output-dir\n" in result.diff()
    cli = prereq_cli("job", "add", str(path), "output-dir", "--index", str(bundled), "--dry-run")
    assert cli.returncode == 0 and cli.stdout.startswith("--- ") and "+      - output-dir" in cli.stdout
    assert "would add output-dir" in cli.stderr and "added" not in cli.stderr and path.read_bytes() == before


def test_a_hand_written_prerequisite_with_a_registry_name_is_not_overwritten(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "handwritten-clash.yaml")
    before = path.read_bytes()
    with pytest.raises(PrereqError, match=r"handwritten-clash.yaml:9: the job's own prerequisite 'nfs-storage-1'"):
        jobs.add(path, ["mnist-data"], index=bundled)
    assert path.read_bytes() == before


def test_unknown_names_and_roles_are_clean_errors(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    with pytest.raises(PrereqError, match="no prerequisite named 'mnist_data'") as caught:
        jobs.add(path, ["mnist_data"], index=bundled)
    assert "mnist-data" in caught.value.hint
    with pytest.raises(PrereqError, match="no task role 'test'"):
        jobs.add(path, ["mnist-data"], task_role="test", index=bundled)
    cli = prereq_cli("job", "add", str(path), "nope", "--index", str(bundled))
    assert cli.returncode == 2 and "Traceback" not in cli.stderr and "no prerequisite named 'nope'" in cli.stderr


def test_hand_edits_of_prereq_entries_are_kept_with_a_warning(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["mnist-data"], index=bundled)
    text = path.read_text().replace("\n          - ls -l $MNIST_DIR\n", "\n          - ls -la $MNIST_DIR\n")
    path.write_text(text)
    result = jobs.add(path, ["output-dir"], index=bundled)
    assert any("mnist-data was edited by hand" in warning for warning in result.warnings)
    assert "          - ls -la $MNIST_DIR\n" in path.read_text()
    resolved = jobs.prepare(path, index=bundled)
    assert any("differs from the locked" in warning for warning in resolved.warnings)


def test_dockerimage_items_set_the_task_role_image(tmp_path: Path, tiny: dict[str, Path]) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(
        "protocolVersion: 2\nname: images\ntype: job\ntaskRoles:\n  train:\n    instances: 1\n"
        "    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n    commands:\n      - echo hi\n"
    )
    jobs.add(path, ["img-a", "alpha"], index=tiny["new"])
    job_data = data(path)
    assert job_data["taskRoles"]["train"]["dockerImage"] == "img-a"
    assert list(job_data["taskRoles"]["train"])[:2] == ["instances", "dockerImage"]
    assert_openpai_accepts(job_data)
    with pytest.raises(PrereqError, match="two docker images: img-a and img-b"):
        jobs.add(path, ["img-b"], index=tiny["new"])

    other = tmp_path / "other.yaml"
    other.write_text((JOBS / "two-roles.yaml").read_text())
    with pytest.raises(PrereqError, match=r"other.yaml:\d+: task role ps already uses dockerImage 'image'"):
        jobs.add(other, ["img-a"], task_role="ps", index=tiny["new"])

    # Removing the image keeps it while dockerImage names it.
    result = jobs.remove(path, ["img-a"], index=tiny["new"])
    assert any(c.action == "kept" and "dockerImage of task role train" in c.reason for c in result.changes)
    assert "img-a" in top_names(data(path))


def test_the_load_line_is_the_index_s_own(tmp_path: Path, bundled: Path) -> None:
    """The planner writes and recognises the load line the index publishes, as the composer does, so
    a job edited against an index built by another prereq gets that index's line."""
    import json
    import shutil

    index = tmp_path / "index"
    shutil.copytree(bundled, index)
    root_file = index / "api" / "v1" / "index.json"
    root = json.loads(root_file.read_text(encoding="utf-8"))
    root["job_load_line"] = 'if [ -f "$HOME/.env" ]; then . "$HOME/.env"; fi  # prereq: load them'
    root_file.write_text(json.dumps(root), encoding="utf-8")

    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["mnist-data"], index=index)
    commands = data(path.read_text())["taskRoles"]["train"]["commands"]
    assert commands[0] == root["job_load_line"] and runtime.JOB_LOAD_LINE not in commands
    jobs.remove(path, ["mnist-data"], index=index)
    assert root["job_load_line"] not in data(path.read_text())["taskRoles"]["train"]["commands"]


def test_task_roles_sharing_a_mapping_take_an_item_together_on_the_command_line(tmp_path: Path, bundled: Path) -> None:
    """`--task-role` repeated: the roles that merge one mapping (``<<: *worker``) change together, in the
    anchored mapping; one of them alone is refused (exit 1) naming the anchor, the file left as it was."""
    path = tmp_path / "merged.yaml"
    path.write_text(
        "protocolVersion: 2\nname: merged\ntype: job\n"
        "prerequisites:\n  - name: my-image\n    type: dockerimage\n    uri: ubuntu:22.04\n"
        "taskRoles:\n  worker: &worker\n    instances: 2\n    dockerImage: my-image\n"
        "    resourcePerInstance: {cpu: 2, memoryMB: 4096, gpu: 0}\n    commands:\n      - python train.py\n"
        "  ps:\n    <<: *worker\n    instances: 1\n"
    )
    before = path.read_text()
    alone = prereq_cli("job", "add", "--index", str(bundled), "--task-role", "ps", str(path), "mnist-data")
    assert alone.returncode == 1 and "shares the YAML anchor &worker (line 9)" in alone.stderr, alone.stderr
    assert path.read_text() == before
    both = ["--task-role", "worker", "--task-role", "ps"]
    added = prereq_cli("job", "add", "--index", str(bundled), *both, str(path), "mnist-data")
    assert added.returncode == 0, added.stderr
    after = path.read_text()
    assert "  ps:\n    <<: *worker\n    instances: 1\n" in after  # the merging role is as it was
    job_data = data(after)
    assert job_data["taskRoles"]["ps"]["prerequisites"] == job_data["taskRoles"]["worker"]["prerequisites"]
    assert_openpai_accepts(job_data)
    removed = prereq_cli("job", "remove", "--index", str(bundled), *both, str(path), "mnist-data")
    assert removed.returncode == 0 and path.read_text() == before, removed.stderr


def test_a_conflict_check_pairs_an_item_only_with_what_can_clash(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two runners that declare no conflicts cannot clash: a 150-item closure was checked pair by pair
    (44,700 calls in a 'job add').  The conflict found first, and its message, are as before."""
    from prereq.core.errors import PrereqError as Refused
    from prereq.jobs import conflicts
    from prereq.jobs.document import JobDocument

    calls: list[int] = []
    real = conflicts.Runner.clashes
    monkeypatch.setattr(conflicts.Runner, "clashes", lambda self, other: (calls.append(1), real(self, other))[1])
    cmd = "com.microsoft.pai.runtimeplugin.cmd"
    items = [conflicts.Runner(f"i{k}", f"i{k}", cmd) for k in range(150)]
    items.append(conflicts.Runner("ssh", "ssh", "com.microsoft.pai.runtimeplugin.ssh", ("i7", "i3")))
    job = JobDocument("taskRoles:\n  r:\n    commands: [run]\n", "job.yaml")
    with pytest.raises(Refused, match=r"^task role r cannot run both i3 and ssh: ssh conflicts with i3$"):
        conflicts.refuse_conflicts(job, "r", items, {item.name for item in items if item.name}, [])
    assert len(calls) <= 2 * 4 * 2
