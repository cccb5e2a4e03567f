"""What prereq writes: only folders it may replace, the previous build kept until the new one is in
place, and only regular files (issue: nothing lost)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gitrepo import GitRepo, item_yaml
from prereq.cli import main
from prereq.core.errors import PrereqError
from prereq.marketplace.build import (
    MARKER,
    MARKER_TEXT,
    build,
    check_output_folder,
    clean_leftovers,
    files_not_written,
    publish_folder,
)


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/disk.yaml", item_yaml("disk", "1.0.0"))
    repo.write("notes.txt", "my own notes\n")
    repo.commit("items")
    (repo.root / "uncommitted.txt").write_text("not in git yet\n")
    return repo


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _build(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    prereq = Path(sys.executable).with_name("prereq")
    return subprocess.run(
        [str(prereq), "build", "--no-site", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("out", [".", "registry", "registry/prerequisites", "..", "/", "notes.txt", "docs"])
def test_an_output_that_would_replace_the_users_files_is_refused_and_nothing_changes(repo: GitRepo, out: str) -> None:
    (repo.root / "docs").mkdir()
    (repo.root / "docs" / "mine.md").write_text("a folder of the user's own\n")
    before = _tree(repo.root.parent)
    run = _build(["--out", out], cwd=repo.root)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "Traceback" not in run.stderr and "--out" in run.stderr and "hint:" in run.stderr
    assert _tree(repo.root.parent) == before  # the repository, .git and uncommitted files included
    assert not [p for p in repo.root.iterdir() if p.name.startswith((".notes", ".docs", ".registry", ".."))]


def test_an_output_reached_through_a_link_is_judged_where_it_lands(repo: GitRepo, tmp_path: Path) -> None:
    (tmp_path / "into-registry").symlink_to(repo.root / "registry")
    (tmp_path / "nowhere").symlink_to(tmp_path / "missing")
    before = _tree(repo.root)
    run = _build(["--out", str(tmp_path / "into-registry" / "site")], cwd=repo.root)
    assert run.returncode == 2 and "lies inside the registry" in run.stderr, run.stderr
    assert _tree(repo.root) == before
    run = _build(["--out", str(tmp_path / "nowhere" / "site")], cwd=repo.root)
    assert run.returncode == 2 and f"{tmp_path / 'nowhere'} is a link to nothing" in run.stderr, run.stderr
    assert not (tmp_path / "missing").exists()


def test_a_new_empty_or_earlier_build_folder_is_written(repo: GitRepo, tmp_path: Path) -> None:
    for out in (tmp_path / "new" / "site", tmp_path / "empty"):
        if out.name == "empty":
            out.mkdir()
        assert _build(["--out", str(out)], cwd=repo.root).returncode == 0
        assert (out / MARKER).is_file() and (out / "api" / "v1" / "index.json").is_file()
        assert _build(["--out", str(out)], cwd=repo.root).returncode == 0  # its own output: replaced again


def test_files_added_to_an_earlier_build_are_never_replaced(repo: GitRepo, tmp_path: Path) -> None:
    """A CNAME or a note put into build/site by hand: the next build stops, naming them, and the
    folder stays as it was; once they are moved out it builds again."""
    out = tmp_path / "site"
    assert _build(["--out", str(out)], cwd=repo.root).returncode == 0
    (out / "CNAME").write_text("prereq.example.org\n")
    (out / "api" / "notes").mkdir()
    (out / "api" / "notes" / "mine.txt").write_text("mine\n")
    before = _tree(out)
    run = _build(["--out", str(out)], cwd=repo.root)
    assert run.returncode == 2, run.stderr
    assert "holds files that build did not write: CNAME, api/notes/mine.txt" in run.stderr
    assert "hint: move them out of it" in run.stderr
    assert _tree(out) == before
    (out / "CNAME").unlink()
    shutil.rmtree(out / "api" / "notes")
    assert _build(["--out", str(out)], cwd=repo.root).returncode == 0
    # A marker from before the list of files cannot tell: its folder is replaced, as it always was.
    (out / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
    (out / "extra.txt").write_text("x\n")
    assert _build(["--out", str(out)], cwd=repo.root).returncode == 0
    assert not (out / "extra.txt").exists()


def test_a_folder_holding_an_index_but_no_marker_is_not_taken_for_a_build(repo: GitRepo, tmp_path: Path) -> None:
    """An index copied into someone's folder (public/ with their own pages) made all of it prereq's:
    the next build deleted the rest.  Only the marker says a folder is a build's."""
    out = tmp_path / "site"
    assert build(repo.root / "registry", out, with_site=False).built
    public = tmp_path / "public"
    shutil.copytree(out / "api", public / "api")
    (public / "cv.pdf").write_text("mine\n")
    before = _tree(public)
    run = _build(["--out", str(public)], cwd=repo.root)
    assert run.returncode == 2 and "holds files that 'prereq build' did not write" in run.stderr, run.stderr
    assert _tree(public) == before


@pytest.mark.parametrize(
    "marker",
    [
        b"\xff" + b"x" * 10,  # not UTF-8
        b"Files it wrote (the next build stops at any other):\nmine.txt\n",  # another header
        None,  # the list, with a line edited by hand that is no JSON string
    ],
)
def test_a_marker_that_cannot_be_trusted_stops_the_build(repo: GitRepo, tmp_path: Path, marker: bytes | None) -> None:
    out = tmp_path / "site"
    assert _build(["--out", str(out)], cwd=repo.root).returncode == 0
    (out / "mine.txt").write_text("mine\n")
    written = (out / MARKER).read_bytes()
    (out / MARKER).write_bytes(marker if marker is not None else written + b"mine.txt\n")
    before = _tree(out)
    run = _build(["--out", str(out)], cwd=repo.root)
    assert run.returncode == 2 and "cannot be trusted" in run.stderr and "replaces nothing" in run.stderr, run.stderr
    assert _tree(out) == before


def test_the_marker_lists_any_file_name(tmp_path: Path) -> None:
    """Names with a line break, a line separator or bytes that are no UTF-8 (a registry's own pages)."""
    staging, out = tmp_path / "staging", tmp_path / "site"
    staging.mkdir()
    odd = ["line\nbreak.txt", "sep\u2028x.txt", os.fsdecode(b"bad\xff.txt"), "plain.txt"]
    for name in odd:
        (staging / name).write_text("x\n")
    publish_folder(staging, out)
    assert files_not_written(out) == []
    (out / "new\nfile.txt").write_text("mine\n")
    assert files_not_written(out) == ["new\nfile.txt"]
    with pytest.raises(PrereqError, match=r'holds files that build did not write: "new\\nfile.txt"'):
        check_output_folder(out, protected=[], registry=tmp_path / "registry")


def test_the_next_build_restores_or_cleans_what_a_killed_build_left(repo: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert build(repo.root / "registry", out, with_site=False).built
    dead = 2**22 + 12345  # no such process: pids stay below 2**22 on Linux
    # Killed between the two renames: no output, the old one beside it.
    out.rename(tmp_path / f".site.old-{dead}")
    (tmp_path / f".site.tmp-{dead}-abc").mkdir()  # and a half-written folder of another killed build
    (tmp_path / f".site.tmp-{dead}-abc" / "partial.json").write_text("{")
    clean_leftovers(out)
    assert (out / "api" / "v1" / "index.json").is_file()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site")] == []
    assert build(repo.root / "registry", out, with_site=False).built


def test_published_folders_follow_the_umask(repo: GitRepo, tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        out = tmp_path / "site"
        assert build(repo.root / "registry", out, with_site=False).built
    finally:
        os.umask(previous)
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    assert stat.S_IMODE((out / "api" / "v1" / "index.json").stat().st_mode) == 0o644


def test_job_outputs_replace_only_regular_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    job = tmp_path / "job.yaml"
    job.write_text(
        "protocolVersion: 2\nname: j\ntype: job\ntaskRoles:\n  main:\n    instances: 1\n"
        "    dockerImage: img\n    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n"
        "    commands: [echo hi]\nprerequisites:\n  - {name: img, type: dockerimage, uri: 'ubuntu:22.04'}\n"
    )
    for target in (fifo, Path("/dev/null"), tmp_path):
        assert main(["job", "resolve", str(job), "--index", str(tmp_path), "-o", str(target)]) == 2
        assert "not a regular file" in capsys.readouterr().err
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_pipe_as_the_job_or_the_expression_store_is_refused_without_hanging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "job.yaml"
    os.mkfifo(fifo)
    assert main(["job", "resolve", str(fifo)]) == 2
    assert "is not a regular file" in capsys.readouterr().err
    config = tmp_path / "config" / "prereq"
    config.mkdir(parents=True)
    os.mkfifo(config / "expressions.yaml")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert main(["expression", "list"]) == 2
    assert "is not a regular file" in capsys.readouterr().err


def test_a_broken_site_configuration_says_why_and_is_not_an_internal_error(tmp_path: Path) -> None:
    repo_root = Path(__file__).resolve().parents[1]
    project = tmp_path / "project"
    shutil.copytree(repo_root / "registry", project / "registry")
    shutil.copytree(repo_root / "site", project / "site")
    config = (
        (repo_root / "mkdocs.yml")
        .read_text(encoding="utf-8")
        .replace("use_directory_urls: true", "use_directory_urls: maybe")
    )
    (project / "mkdocs.yml").write_text(config, encoding="utf-8")
    run = subprocess.run(
        [str(Path(sys.executable).with_name("prereq")), "build", "--out", str(tmp_path / "out")],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 2, run.stderr
    assert "the site did not build" in run.stderr and "use_directory_urls" in run.stderr
    assert "Traceback" not in run.stderr and not (tmp_path / "out").exists()


def test_a_busy_port_is_a_clean_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        registry = Path(__file__).resolve().parents[1] / "registry"
        run = subprocess.run(
            [
                str(Path(sys.executable).with_name("prereq")),
                "serve",
                "--registry",
                str(registry),
                "--dev-addr",
                f"127.0.0.1:{port}",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert run.returncode == 2, run.stderr
    assert f"cannot serve on 127.0.0.1:{port}" in run.stderr and "Traceback" not in run.stderr
