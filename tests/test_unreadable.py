"""Folders prereq cannot look into (chmod 000): a problem with the path and a hint, never exit 3.

The commands run as a separate process without the right to bypass permissions (root has it: under
root they run through setpriv with it dropped), so the folders are really unreadable."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REGISTRY = Path(__file__).resolve().parents[1] / "registry"
PREREQ = Path(sys.executable).with_name("prereq")
DROP = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]

if os.geteuid() == 0 and shutil.which("setpriv") is None:  # pragma: no cover - Debian has it
    pytest.skip("running as root without setpriv: permissions cannot be enforced", allow_module_level=True)


def prereq(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [*(DROP if os.geteuid() == 0 else []), str(PREREQ), *argv]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


@contextmanager
def unreadable(folder: Path, mode: int = 0) -> Iterator[None]:
    folder.chmod(mode)
    try:
        yield
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize(
    "folder",
    [
        "templates",
        "prerequisites",
        "queues",
        "environments/pytorch-gpu",
        "owners.yaml",
        "prerequisites/mnist-data.yaml",
    ],
)
def test_a_registry_folder_or_file_that_cannot_be_read_is_a_problem(tmp_path: Path, folder: str) -> None:
    """A problem among the others (exit 1), as a link or a pipe is: the rest is still checked."""
    shutil.copytree(REGISTRY, tmp_path / "registry")
    with unreadable(tmp_path / "registry" / folder):
        done = prereq("validate", "registry", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert f"registry/{folder}: PRQ107 error {folder} cannot be read: Permission denied" in done.stdout
    assert "hint: check its permissions" in done.stdout
    assert "internal error" not in done.stdout + done.stderr


@pytest.mark.parametrize("folder", ["out", "out/api/v1"])
def test_an_index_folder_that_cannot_be_read_is_said_so(tmp_path: Path, folder: str) -> None:
    built = subprocess.run(
        [str(PREREQ), "build", "--registry", str(REGISTRY), "--out", "out", "--no-site", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    with unreadable(tmp_path / folder):
        done = prereq("search", "mnist", "--index", "out", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"prereq: error: cannot read {folder}: Permission denied" in done.stderr
    assert "hint: check its permissions" in done.stderr


def test_a_job_file_that_cannot_be_read_says_so(tmp_path: Path) -> None:
    job = tmp_path / "job.yaml"
    job.write_text("protocolVersion: 2\n", encoding="utf-8")
    job.chmod(0)
    try:
        done = prereq("job", "add", "job.yaml", "mnist-data", "--index", str(REGISTRY), cwd=tmp_path)
    finally:
        job.chmod(0o644)
    assert done.returncode == 2, done.stderr
    assert "prereq: error: cannot read job.yaml: Permission denied\n    hint: check its permissions" in done.stderr


def test_an_earlier_build_with_a_folder_that_cannot_be_listed_is_not_replaced(tmp_path: Path) -> None:
    """What is in it cannot be compared with the marker's list: it may be the user's."""
    args = ["build", "--registry", str(REGISTRY), "--out", "out", "--no-site", "-q"]
    assert subprocess.run([str(PREREQ), *args], cwd=tmp_path, capture_output=True, timeout=300).returncode == 0
    (tmp_path / "out" / "private").mkdir()
    (tmp_path / "out" / "private" / "notes.txt").write_text("mine\n")
    with unreadable(tmp_path / "out" / "private"):
        done = prereq(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "cannot read" in done.stderr and "private: Permission denied" in done.stderr
    assert (tmp_path / "out" / "private" / "notes.txt").read_text() == "mine\n"


def test_an_environment_folder_that_can_be_listed_but_not_searched_names_its_files(tmp_path: Path) -> None:
    """chmod 444: the names can be read, the files not even looked at."""
    shutil.copytree(REGISTRY, tmp_path / "registry")
    with unreadable(tmp_path / "registry" / "environments" / "python", 0o444):
        done = prereq("validate", "registry", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "PRQ107 error environments/python/1.0.0.yaml cannot be read: Permission denied" in done.stdout
    assert "internal error" not in done.stdout + done.stderr


@pytest.mark.parametrize("mode", [0, 0o444])
def test_a_registry_that_cannot_be_looked_into_is_said_so(tmp_path: Path, mode: int) -> None:
    shutil.copytree(REGISTRY, tmp_path / "registry")
    with unreadable(tmp_path / "registry", mode):
        done = prereq("validate", "registry", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "prereq: error: cannot read " in done.stderr and "hint: check its permissions" in done.stderr


def test_a_job_of_another_user_who_does_not_let_you_write_it_is_left_as_it_is(tmp_path: Path) -> None:
    """Replacing it by a rename needs only the folder's permissions: prereq asks the file's."""
    args = ["build", "--registry", str(REGISTRY), "--out", "out", "--no-site", "-q"]
    assert subprocess.run([str(PREREQ), *args], cwd=tmp_path, capture_output=True, timeout=300).returncode == 0
    job = tmp_path / "job.yaml"
    shutil.copy(Path(__file__).parent / "fixtures" / "jobs" / "story.yaml", job)
    job.chmod(0o644)
    if os.geteuid() == 0:
        os.chown(job, 4242, 4242)
    before = job.read_bytes()
    done = prereq("job", "add", "job.yaml", "mnist-data", "--index", "out", cwd=tmp_path)
    if os.geteuid() != 0 and job.stat().st_uid == os.geteuid():  # pragma: no cover - not another user's
        pytest.skip("the file cannot be given to another user without root")
    assert done.returncode == 2, done.stderr
    assert "belongs to another user who does not let you write it" in done.stderr
    assert job.read_bytes() == before
