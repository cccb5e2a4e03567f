"""Bad job files are clean errors at their line, from the API and the command line alike:
names that are not strings, malformed extras.prereq, files that are not UTF-8 or cannot be written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from job_helpers import SMALL_JOB, assert_clean_cli_error, copy_job, prereq_cli, write_job
from prereq import jobs
from prereq.core.errors import PrereqError
from prereq.jobs.document import JobDocument


def test_a_file_that_cannot_be_written_is_a_clean_error(tmp_path: Path, bundled: Path) -> None:
    from prereq.core.files import write_atomic

    target = tmp_path / "no-such-folder" / "x.yaml"
    with pytest.raises(PrereqError, match=rf"cannot write {target}: No such file or directory") as caught:
        write_atomic(target, "text\n")
    assert "no-such-folder" in caught.value.hint and not target.parent.exists()

    path = copy_job(tmp_path, "story.yaml")
    with pytest.raises(PrereqError, match="cannot write"):
        jobs.prepare(path, index=bundled, output=target)
    assert_clean_cli_error(
        ["job", "resolve", str(path), "--index", str(bundled), "-o", str(target)], f"cannot write {target}", code=2
    )


def test_a_read_only_job_is_left_as_it_is(tmp_path: Path, bundled: Path) -> None:
    """Made read-only by its owner (chmod 444: what editors and git respect), a job is not rewritten,
    though replacing it by a rename would work (only its folder's permissions would matter)."""
    path = copy_job(tmp_path, "story.yaml")
    before = path.read_bytes()
    path.chmod(0o444)
    for args in (["add", str(path), "mnist-data"], ["resolve", str(path), "-o", str(path)]):
        assert_clean_cli_error(["job", *args, "--index", str(bundled)], f"{path} is read-only", code=2)
        assert path.read_bytes() == before
    assert path.stat().st_mode & 0o777 == 0o444
    path.chmod(0o644)
    assert prereq_cli("job", "add", str(path), "mnist-data", "--index", str(bundled)).returncode == 0
    assert path.read_bytes() != before


@pytest.mark.parametrize("name, shown, line", [("1", "1", 5), ("null", "null", 5), ("true", "true", 5)])
def test_task_role_names_must_be_strings(tmp_path: Path, bundled: Path, name: str, shown: str, line: int) -> None:
    path = write_job(tmp_path, SMALL_JOB.replace("  train:\n", f"  {name}:\n"))
    before = path.read_bytes()
    with pytest.raises(PrereqError, match=rf"job.yaml:{line}: task role name {shown} is not a string") as caught:
        jobs.add(path, ["mnist-data"], index=bundled)
    assert caught.value.exit_code == 1 and "quote" in caught.value.hint
    assert path.read_bytes() == before
    assert_clean_cli_error(
        ["job", "add", str(path), "mnist-data", "--index", str(bundled)],
        f"job.yaml:{line}: task role name {shown} is not a string",
    )
    with pytest.raises(PrereqError, match=rf"job.yaml:{line}: task role name"):
        jobs.prepare(path, index=bundled)


def test_prerequisite_names_must_be_strings(tmp_path: Path, bundled: Path) -> None:
    text = SMALL_JOB.replace(
        "taskRoles:\n",
        "prerequisites:\n  - name: mine\n    type: script\n"
        "  - {name: [1], type: script}\n  - name: 5\n    type: data\ntaskRoles:\n",
    )
    path = write_job(tmp_path, text)
    for run in (
        lambda: jobs.add(path, ["mnist-data"], index=bundled),
        lambda: jobs.prepare(path, index=bundled),
        lambda: jobs.remove(path, ["mnist-data"], index=bundled),
    ):
        with pytest.raises(PrereqError, match=r"job.yaml:7: prerequisite name \[1\] is not a string") as caught:
            run()
        assert caught.value.exit_code == 1
    assert_clean_cli_error(
        ["job", "add", str(path), "mnist-data", "--index", str(bundled)],
        "job.yaml:7: prerequisite name [1] is not a string",
    )
    path.write_text(text.replace("  - {name: [1], type: script}\n", ""))
    with pytest.raises(PrereqError, match=r"job.yaml:7: prerequisite name 5 is not a string"):
        jobs.prepare(path, index=bundled)
    # Entries without a name are left to the OpenPAI schema, as before.
    assert JobDocument(
        SMALL_JOB.replace("taskRoles:\n", "prerequisites:\n  - type: script\ntaskRoles:\n"), "job.yaml"
    ).top_names() == [None]


STATE = """\
extras:
  prereq:
    index: {index}
    selected:
      train: [mnist-data, output-dir@^1.0]
    lock: {{}}
"""


@pytest.mark.parametrize(
    "extras, message",
    [
        (
            STATE.format(index="x").replace("output-dir@^1.0", "output-dir@bad!"),
            r"job.yaml:14: output-dir@bad! in extras.prereq.selected.train has an invalid version range",
        ),
        (
            STATE.format(index="x").replace("output-dir@^1.0", "'@^1.0'"),
            r"job.yaml:14: '@\^1.0' in extras.prereq.selected.train is not NAME or NAME@RANGE",
        ),
        ("extras: 5\n", r"job.yaml:10: extras must be a mapping"),
        ("extras:\n  - prereq\n", r"job.yaml:11: extras must be a mapping"),
        (STATE.format(index="5"), r"job.yaml:12: extras.prereq.index must be a string"),
        (STATE.format(index="[build/site]"), r"job.yaml:12: extras.prereq.index must be a string"),
        (
            STATE.format(index="x").replace("lock: {}", "lock:\n      7: {version: 1.0.0, digest: 'sha256:0'}"),
            r"job.yaml:16: extras.prereq.lock names 7, which is not a string",
        ),
    ],
)
def test_malformed_extras_prereq_is_an_error_at_its_line(
    tmp_path: Path, bundled: Path, extras: str, message: str
) -> None:
    path = write_job(tmp_path, SMALL_JOB + extras)
    before = path.read_bytes()
    for run in (
        lambda: jobs.add(path, ["base-tools"], index=bundled),
        lambda: jobs.prepare(path, index=bundled),
        lambda: jobs.lock(path, index=bundled),
    ):
        with pytest.raises(PrereqError, match=message) as caught:
            run()
        assert caught.value.exit_code == 1
    assert path.read_bytes() == before
    cli = prereq_cli("job", "add", str(path), "base-tools", "--index", str(bundled))
    assert cli.returncode == 1 and "internal error" not in cli.stderr, cli.stderr


def test_a_job_that_is_not_utf8_is_named_with_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_bytes(SMALL_JOB.replace("name: small", "name: sm\xe4ll").encode("latin-1"))
    with pytest.raises(PrereqError, match=r"job.yaml:2:9: not valid UTF-8 \(byte 0xe4\)") as caught:
        jobs.prepare(path)
    assert caught.value.exit_code == 1


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        ("- a\n", "not an OpenPAI job (the file is not a YAML mapping)", "'protocolVersion: 2'"),
        (SMALL_JOB.replace("taskRoles:", "taskRoles:\n  a: 1\n  b:", 1), "task role a is not a mapping", "instances"),
        (SMALL_JOB + "prerequisites: x\n", "'prerequisites' must be a list", "'- name: ...'"),
    ],
)
def test_a_job_of_the_wrong_shape_says_how_to_write_it(tmp_path: Path, bundled: Path, text, message, hint) -> None:
    path = write_job(tmp_path, text)
    cli = prereq_cli("job", "add", str(path), "mnist-data", "--index", str(bundled))
    assert cli.returncode == 1 and message in cli.stderr and "hint:" in cli.stderr and hint in cli.stderr, cli.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_root_editing_a_users_job_leaves_it_theirs(tmp_path: Path, bundled: Path) -> None:
    """Root in a container over a bind-mounted checkout: the job is edited and stays its owner's;
    one that is read-only for everyone is left as it is."""
    path = copy_job(tmp_path, "story.yaml")
    os.chown(path, 4242, 4343)
    assert prereq_cli("job", "add", str(path), "mnist-data", "--index", str(bundled)).returncode == 0
    assert "mnist-data" in path.read_text() and (path.stat().st_uid, path.stat().st_gid) == (4242, 4343)
    path.chmod(0o444)
    before = path.read_bytes()
    assert_clean_cli_error(["job", "remove", str(path), "mnist-data", "--index", str(bundled)], "is read-only", code=2)
    assert path.read_bytes() == before


STORY = Path(__file__).parent / "cases" / "indexes" / "story"  # a committed index (tests/cases/README.md)

V1_JOB = """\
jobName: mnist-v1
image: openpai/pytorch
taskRoles:
  - name: train
    taskNumber: 1
    command: python train.py
"""


@pytest.mark.parametrize("command", [["add", "mnist-data"], ["resolve"]])
def test_an_openpai_v1_job_is_called_one_with_the_way_to_v2(tmp_path: Path, command: list[str]) -> None:
    """Issue 28: a v1 job was told it "needs 'taskRoles' with at least one task role" although it had some."""
    path = write_job(tmp_path, V1_JOB)
    args = ["job", command[0], str(path), *command[1:], "--index", str(STORY)]
    assert_clean_cli_error(args, f"{path}:1: this is an OpenPAI v1 job (jobName, taskRoles as a list)")
    hint = prereq_cli(*args).stderr
    assert "'protocolVersion: 2'" in hint and "taskNumber as instances" in hint
    assert path.read_text(encoding="utf-8") == V1_JOB


def test_a_v2_job_with_a_stray_jobname_key_is_not_called_v1(tmp_path: Path) -> None:
    path = write_job(tmp_path, SMALL_JOB.replace("protocolVersion: 2\n", "protocolVersion: 2\njobName: old\n"))
    assert "jobName: old" in path.read_text(encoding="utf-8")
    cli = prereq_cli("job", "add", str(path), "mnist-data", "--index", str(STORY))
    assert "v1 job" not in cli.stderr and cli.returncode == 0, cli.stderr


def test_misspelled_names_get_the_closest_one(tmp_path: Path) -> None:
    path = write_job(tmp_path, SMALL_JOB)
    index = ["--index", str(STORY)]
    assert_clean_cli_error(["job", "add", str(path), "mnist-dat", *index], "hint: did you mean 'mnist-data'?", code=2)
    assert prereq_cli("job", "add", str(path), "mnist-data", *index).returncode == 0
    assert_clean_cli_error(
        ["job", "remove", str(path), "Mnist_Dat", *index], "hint: did you mean 'mnist-data'?", code=2
    )
