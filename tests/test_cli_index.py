"""``prereq build``, ``search`` and ``show`` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitrepo import GitRepo, item_yaml
from prereq.cli import main


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/disk.yaml", item_yaml("disk", "1.0.0", parameters={"mountPoint": "/mnt/d"}))
    repo.write(
        "registry/prerequisites/data.yaml",
        item_yaml("data", "1.2.0", require=["disk"], commands=["export D=<% this.mountPoint %>/x"]),
    )
    repo.commit("items")
    return repo


def test_build_then_search_and_show(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    assert main(["build", "--registry", str(repo.root / "registry"), "--out", str(out), "--no-site"]) == 0
    captured = capsys.readouterr()
    assert "published 2 items" in captured.out and "build: validating" in captured.err

    monkeypatch.setenv("PREREQ_INDEX", str(out))
    assert main(["search", "disk"]) == 0
    assert capsys.readouterr().out.split()[0] == "disk"
    assert main(["search", "nothing-like-this"]) == 1

    assert main(["show", "data"]) == 0
    shown = capsys.readouterr().out
    assert "data 1.2.0 (script)" in shown and "requires: disk@* -> 1.0.0" in shown
    assert shown.index("name: disk") < shown.index("name: data") and "/mnt/d/x" in shown

    assert main(["show", "data@1.2.0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["closure"][0] == {"name": "disk", "version": "1.0.0"}


def test_build_refuses_a_registry_with_errors(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.write("registry/prerequisites/data.yaml", item_yaml("data", "1.2.0", require=["disc"]))
    out = tmp_path / "site"
    assert main(["build", "--registry", str(repo.root / "registry"), "--out", str(out), "--no-site"]) == 1
    captured = capsys.readouterr()
    assert "prerequisites/data.yaml:6:" in captured.out and "PRQ140" in captured.out
    assert "nothing was published" in captured.err and not out.exists()


def test_show_without_an_index_is_a_clean_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "x", "--index", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "no index found" in err and "Traceback" not in err and "prereq build" in err


def test_an_unwritable_output_folder_is_a_clean_error(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = main(["build", "--registry", str(repo.root / "registry"), "--out", str(blocker / "site"), "--no-site"])
    err = capsys.readouterr().err
    assert (
        code == 2 and f"--out {blocker / 'site'}: {blocker} is a file, not a folder" in err and "Traceback" not in err
    )
    # A link is named as one (prereq does not build through it), not as "not a folder".
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    code = main(["build", "--registry", str(repo.root / "registry"), "--out", str(tmp_path / "link"), "--no-site"])
    assert code == 2 and "is a symbolic link: prereq does not build through one" in capsys.readouterr().err
    assert not (tmp_path / "elsewhere").exists()


def test_show_takes_a_version_and_says_so_of_a_range(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    assert main(["build", "--registry", str(repo.root / "registry"), "--out", str(out), "--no-site", "-q"]) == 0
    capsys.readouterr()
    assert main(["show", "data@^1", "--index", str(out)]) == 2
    err = capsys.readouterr().err
    assert "data@^1: a version is needed here, not a range" in err and "hint: published: 1.2.0" in err
    assert main(["show", "data@9.9.9", "--index", str(out)]) == 2
    assert "data has no published version 9.9.9" in capsys.readouterr().err
