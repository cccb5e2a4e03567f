"""What validation keeps across runs (``registry.validate.cache_for``): a warm run reports exactly what a
run without the cache reports (every rule fixture, the bundled registry, the history), a changed file
or another prereq misses, a damaged cache is ignored, a cache git tracks is not read, and the cache is
written only where it should be (the work tree's ``.prereq-cache``, or ``$PREREQ_CACHE``)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import prereq
from check_helpers import FIXTURE_DIRS, item
from conftest import REPO
from gitrepo import GitRepo, item_yaml
from prereq import cli
from prereq.core.gitrepo import Repository
from prereq.openpai import shelllint
from prereq.registry import loader, schemas
from prereq.registry import validate as validation
from prereq.registry.validate import validate

TOKEN = "".join(("gh", "p_", "R7tLq2Vx9Kd4Mw8Ns1Pz6Bc3Hf5Jg0Ya2Eu7"))  # put together: no scanner's food
CLONE = f"git clone https://{TOKEN}@github.com/team/tools.git /opt/tools"
FETCH = "wget -q https://anonymous:anonymous@ftp.gnu.org/gnu/hello/hello-2.12.tar.gz -P /tmp"


def _counted(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[Any]:
    """The arguments of each call of ``owner.name`` from now on, the real function still run."""
    calls: list[Any] = []
    real = getattr(owner, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


def _seen(root: Path, *, history: bool = False) -> list[tuple[Any, ...]]:
    result = validate(root, history=history)
    return [tuple(p.as_dict().values()) for p in result.problems] + [
        ("suppressed", *s.problem.as_dict().values()) for s in result.suppressed
    ]


def _cold_and_warm(root: Path, folder: Path, monkeypatch: pytest.MonkeyPatch, **options: Any) -> list[Any]:
    """Problems without a cache, then with a new one twice: all three the same; the last parses no file
    and checks no schema the first run of the cache saw (but those with problems the loader reports)."""
    monkeypatch.setenv("PREREQ_CACHE", "off")
    plain = _seen(root, **options)
    monkeypatch.setenv("PREREQ_CACHE", str(folder))
    assert _seen(root, **options) == plain
    parsed = _counted(monkeypatch, loader, "_mapping")
    schema_checked = _counted(monkeypatch, schemas, "check_item")
    assert _seen(root, **options) == plain
    loader_rules = {problem[0] for problem in plain} & set(loader.LOADER_RULES)
    files = [rel for _, rel, _ in parsed if rel != loader.OWNERS_FILE]  # the owners file is always read
    assert schema_checked == [] and (files == [] or loader_rules), (files, loader_rules)
    return plain


@pytest.mark.parametrize(
    "fixture", [*FIXTURE_DIRS, REPO / "registry"], ids=[*(p.name for p in FIXTURE_DIRS), "bundled"]
)
def test_a_warm_run_reports_what_a_run_without_the_cache_reports(
    fixture: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = _cold_and_warm(fixture, tmp_path / "cache", monkeypatch)
    assert plain or fixture.name in ("registry", "PRQ000-clean")


def _tools(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    path = "registry/prerequisites/tools.yaml"
    repo.write(path, item_yaml("tools", "1.0.0", commands=[FETCH]))
    repo.commit("tools", date="2026-01-01T00:00:00+00:00")
    repo.write(path, item_yaml("tools", "1.1.0", commands=[FETCH, CLONE]))
    repo.commit("private tools", date="2026-01-02T00:00:00+00:00")
    repo.write(path, item_yaml("tools", "1.2.0", commands=[FETCH + "  # prereq: disable=PRQ190 -- anonymous FTP"]))
    repo.commit("no token", date="2026-01-03T00:00:00+00:00")
    return repo


def test_the_history_reads_each_blob_once_and_today_s_never(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _tools(tmp_path)
    registry = repo.root / "registry"
    read = _counted(monkeypatch, Repository, "blobs")
    plain = _cold_and_warm(registry, tmp_path / "cache", monkeypatch, history=True)
    assert [(p[0], p[2]) for p in plain if p[0] != "suppressed"] == [("PRQ192", "prerequisites/tools.yaml")]
    assert "tools 1.1.0 held a GitHub token" in plain[0][5]  # 1.0.0's only finding is what today's file clears
    today = repo.git("rev-parse", "HEAD:registry/prerequisites/tools.yaml").strip()
    asked = [list(ids) for _, ids in read]
    assert len(read) == 3  # no cache, the cold run of the cache, then nothing to read: each call once
    assert today not in repr(asked)
    # What today's file suppresses applies to what the cache kept: without the comment, no line is cleared
    # (and the committed 1.2.0 is no longer the working tree's).
    path = registry / "prerequisites" / "tools.yaml"
    path.write_text(item_yaml("tools", "1.2.0", commands=[FETCH]), encoding="utf-8")
    found = _seen(registry, history=True)
    assert {p[5].split(" held")[0] for p in found if p[0] == "PRQ192"} == {f"tools 1.{n}.0" for n in range(3)}


def test_a_changed_file_and_another_prereq_miss(make_registry: Callable[..., Path], monkeypatch) -> None:
    root = make_registry({f"prerequisites/{n}.yaml": item(n) for n in ("one", "two", "three")})
    monkeypatch.setenv("PREREQ_CACHE", str(root.parent / "cache"))
    assert validate(root).problems == []
    parsed = _counted(monkeypatch, loader, "_mapping")
    (root / "prerequisites" / "two.yaml").write_text(
        item("two", head="description: TODO say what it is\n"), encoding="utf-8"
    )
    assert [p.rule for p in validate(root).problems] == ["PRQ114"]
    assert [rel for _, rel, _ in parsed] == ["owners.yaml", "prerequisites/two.yaml"]  # only what changed
    monkeypatch.setattr(prereq, "__version__", prereq.__version__ + ".next")
    validation.identity.cache_clear()
    try:
        assert [p.rule for p in validate(root).problems] == ["PRQ114"]
    finally:
        validation.identity.cache_clear()
    assert len(parsed) == 2 + 4  # another prereq reads every file again


def test_a_damaged_cache_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = _tools(tmp_path).root / "registry"
    folder = tmp_path / "cache"
    monkeypatch.setenv("PREREQ_CACHE", str(folder))
    first = _seen(registry, history=True)
    assert [p[0] for p in first] == ["PRQ192", "suppressed"]
    shelves = sorted(folder.glob("*.json"))
    assert {p.stem for p in shelves} >= {"files", "file-checks", "history-secrets", "shell-uses", "shell-hints"}
    for shelf in shelves:  # what prereq wrote, every entry replaced by something else
        kept = json.loads(shelf.read_text(encoding="utf-8"))
        kept["entries"] = {key: [42, "x"] for key in kept["entries"]}
        shelf.write_text(json.dumps(kept), encoding="utf-8")
    assert _seen(registry, history=True) == first
    for shelf in shelves:
        shelf.write_bytes(b"\x00 not json")
    assert _seen(registry, history=True) == first


def test_a_cache_git_tracks_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pull request could carry a cache saying a file with a credential is clean: a tracked one is ignored."""
    monkeypatch.delenv("PREREQ_CACHE")
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/tools.yaml", item_yaml("tools", "1.0.0", commands=[CLONE]))
    repo.commit("tools")
    registry = repo.root / "registry"
    assert [p.rule for p in validate(registry).problems] == ["PRQ190"]
    shelf = repo.root / ".prereq-cache" / "file-checks.json"
    kept = json.loads(shelf.read_text(encoding="utf-8"))
    kept["entries"] = {key: {"problems": [], "valid": True} for key in kept["entries"]}
    shelf.write_text(json.dumps(kept), encoding="utf-8")
    assert validate(registry).problems == []  # what a cache says is believed: hence the rule below
    repo.git("add", "-f", ".prereq-cache")
    repo.git("commit", "-q", "-m", "a cache that hides the token")
    assert [p.rule for p in validate(registry).problems] == ["PRQ190"]


def test_where_the_cache_is_written(tmp_path: Path, make_registry: Callable[..., Path], monkeypatch) -> None:
    monkeypatch.delenv("PREREQ_CACHE")
    repo = GitRepo(tmp_path / "repo")
    repo.write("team/registry/owners.yaml", "users: [alice, bob]\n")
    repo.write("team/registry/prerequisites/one.yaml", item("one"))
    repo.commit("one")
    validate(repo.root / "team" / "registry")
    folder = repo.root / ".prereq-cache"
    assert (folder / "files.json").is_file() and (folder / "CACHEDIR.TAG").is_file()
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""  # it ignores itself
    outside = make_registry({"prerequisites/one.yaml": item("one")}, root=tmp_path / "plain" / "registry")
    for setting in (None, "off", "relative/cache"):
        if setting:
            monkeypatch.setenv("PREREQ_CACHE", setting)
        before = sorted(p for p in tmp_path.rglob("*") if "repo" not in p.parts)
        validate(outside)
        assert sorted(p for p in tmp_path.rglob("*") if "repo" not in p.parts) == before, setting


def test_shellcheck_installed_again_elsewhere_is_the_same_program_and_another_build_is_not(
    make_registry: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI runner restores the cache another one saved: its ShellCheck, installed at another path and
    time, reads nothing again; a different program under the same name does."""
    real = shelllint.shellcheck_binary()
    assert real, "ShellCheck is in the test extra (./scripts/setup.sh --test installs it)"
    root = make_registry({"prerequisites/one.yaml": item("one")})
    monkeypatch.setenv("PREREQ_CACHE", str(tmp_path / "cache"))
    runs = _counted(monkeypatch, shelllint, "_start_chunk")
    for stamp, (where, wrapped, expected) in enumerate([("first", False, 1), ("again", False, 1), ("other", True, 2)]):
        binary = tmp_path / where / "shellcheck"
        binary.parent.mkdir()
        if wrapped:
            binary.write_text(f'#!/bin/sh\nexec "{real}" "$@"\n', encoding="utf-8")
        else:
            shutil.copy(real, binary)
        binary.chmod(0o755)
        os.utime(binary, (1_700_000_000 + stamp, 1_700_000_000 + stamp))
        monkeypatch.setattr(shelllint, "shellcheck_binary", lambda binary=binary: str(binary))
        monkeypatch.setattr(shelllint, "_LINT", {})  # what this process read already, as a new run
        assert validate(root).problems == []
        assert len(runs) == expected, where


def _committed_link(tmp_path: Path, target: str) -> GitRepo:
    """A checkout whose commit holds ``.prereq-cache`` as a symbolic link to ``target``, as a pull request can."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/tools.yaml", item_yaml("tools", "1.0.0", commands=[CLONE]))
    (repo.root / ".prereq-cache").symlink_to(target)
    repo.commit("a cache that points elsewhere")
    assert repo.git("ls-files", "-s", ".prereq-cache").startswith("120000")  # git keeps it as a link
    return repo


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("target", ["outside", ".git", ".git/refs"])
def test_a_committed_link_is_not_used_and_the_cli_still_validates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    monkeypatch.delenv("PREREQ_CACHE")
    (tmp_path / "outside").mkdir()
    repo = _committed_link(tmp_path, str(tmp_path / target) if target == "outside" else target)
    before = {name: _tree(tmp_path / name) for name in ("outside", "repo/.git")}
    result = validate(repo.root / "registry")
    assert [p.rule for p in result.problems] == ["PRQ190"]
    assert result.notes == [
        f"the cache folder {repo.root / '.prereq-cache'} is not used: it is a symbolic link (remove it); "
        "validation reads every file"
    ]
    assert cli.main(["validate", str(repo.root / "registry"), "--format", "json"]) == 1  # not 3
    printed = capsys.readouterr()
    assert json.loads(printed.out)["problems"][0]["rule"] == "PRQ190"
    assert printed.err.count("prereq: note: the cache folder") == 1, "said once, beside the report"
    assert {name: _tree(tmp_path / name) for name in ("outside", "repo/.git")} == before


def test_a_link_on_the_way_inside_the_checkout_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$PREREQ_CACHE inside the work tree (a CI's choice) through a folder a commit made a link."""
    repo = _committed_link(tmp_path, ".git")
    monkeypatch.setenv("PREREQ_CACHE", str(repo.root / ".prereq-cache" / "prereq"))
    result = validate(repo.root / "registry")
    assert result.notes == [
        f"the cache folder {repo.root / '.prereq-cache' / 'prereq'} is not used: {repo.root / '.prereq-cache'} "
        "is a symbolic link (remove it); validation reads every file"
    ]
    assert not (repo.root / ".git" / "prereq").exists()


def test_a_cache_folder_of_another_user_or_a_file_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = _tools(tmp_path).root / "registry"
    folder = tmp_path / "cache"
    monkeypatch.setenv("PREREQ_CACHE", str(folder))
    first = validate(registry, history=True)
    assert first.notes == [] and (folder / "files.json").is_file()
    monkeypatch.setattr(os, "getuid", lambda: os.stat(folder).st_uid + 1)
    parsed = _counted(monkeypatch, loader, "_mapping")
    other = validate(registry, history=True)
    assert other.problems == first.problems and len(parsed) == 2  # the owners file and the item, read again
    assert other.notes == [
        f"the cache folder {folder} is not used: another user owns it (set PREREQ_CACHE to a folder of yours); "
        "validation reads every file"
    ]
    monkeypatch.undo()
    monkeypatch.setenv("PREREQ_CACHE", str(tmp_path / "plain"))
    (tmp_path / "plain").write_text("not a folder\n")
    assert (
        validate(registry).notes[0].endswith("is not used: it is not a folder (remove it); validation reads every file")
    )
    assert (tmp_path / "plain").read_text() == "not a folder\n"


def test_a_shelf_file_that_is_a_link_another_user_s_or_a_pipe_is_neither_read_nor_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = _tools(tmp_path).root / "registry"
    folder = tmp_path / "cache"
    monkeypatch.setenv("PREREQ_CACHE", str(folder))
    first = validate(registry)
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    (folder / "files.json").unlink()
    (folder / "files.json").symlink_to(target)
    (folder / "file-checks.json").unlink()
    os.mkfifo(folder / "file-checks.json")  # read as it is, a pipe would block validation
    again = validate(registry)
    assert again.problems == first.problems and target.read_text() == "{}"
    assert again.notes == [
        f"the cache file {folder / 'files.json'} is a symbolic link: prereq neither reads nor writes it",
        f"the cache file {folder / 'file-checks.json'} is not a regular file: prereq neither reads nor writes it",
    ]
    (folder / "files.json").unlink()
    (folder / "file-checks.json").unlink()
    validate(registry)
    theirs = os.stat(folder / "files.json")
    real = os.fstat

    def fstat(handle: int) -> os.stat_result:  # files.json as another user's (only root could make one)
        info = real(handle)
        if info.st_ino != theirs.st_ino:
            return info
        return os.stat_result((info.st_mode, info.st_ino, info.st_dev, info.st_nlink, info.st_uid + 1, *info[5:10]))

    monkeypatch.setattr(os, "fstat", fstat)
    assert validate(registry).notes == [
        f"the cache file {folder / 'files.json'} is another user's: prereq neither reads nor writes it"
    ]
    assert os.stat(folder / "files.json").st_mtime_ns == theirs.st_mtime_ns  # not written either


# What each shelf's caller wrote, and a value of a wrong shape at each level of it: every one a miss.
WRONG = [
    "text",
    17,
    True,
    None,
    [],
    {},
    [1],
    ["x", 1, 2],
    [[1, 2]],
    [["x", 2**60, 3]],
    [[True, 1, "x"]],
    [[1.5, 2, "x"]],
    [["a", 1, [["k", 1]]]],
    [["a", 1, "details"]],
    {"problems": "none"},
    {"problems": [["PRQ190", "error", "1", 1, "m", "h"]]},
    {"problems": [["PRQ999", "error", 1, 1, "m", "h"]]},
    {"problems": [[{"rule": 1}, "error", 1, 1, "m", "h"]]},
    {"problems": [["PRQ190", "fatal", 1, 1, "m", "h"]]},
    {"problems": [["PRQ190", "error", 10**30, 1, "m", "h"]]},
    {"deep": json.loads("[" * 500 + "]" * 500)},
]


@pytest.mark.parametrize("wrong", WRONG, ids=[json.dumps(w)[:30] for w in WRONG])
def test_an_entry_of_the_wrong_shape_in_any_shelf_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wrong: Any
) -> None:
    registry = _tools(tmp_path).root / "registry"
    folder = tmp_path / "cache"
    monkeypatch.setenv("PREREQ_CACHE", str(folder))
    first = _seen(registry)
    for shelf in sorted(folder.glob("*.json")):
        kept = json.loads(shelf.read_text(encoding="utf-8"))
        # history.py's shelf is tested with it; any mapping within YAML's nesting is some file's data
        mapping = isinstance(wrong, dict) and "deep" not in wrong
        if shelf.stem != "history-secrets" and not (shelf.stem == "files" and mapping):
            kept["entries"] = dict.fromkeys(kept["entries"], wrong)
        shelf.write_text(json.dumps(kept), encoding="utf-8")
    monkeypatch.setattr(shelllint, "_LINT", {})  # what this process read already, as a new run
    assert _seen(registry) == first


def test_a_cache_file_nested_past_the_parser_s_limit_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = _tools(tmp_path).root / "registry"
    folder = tmp_path / "cache"
    monkeypatch.setenv("PREREQ_CACHE", str(folder))
    first = _seen(registry)
    (folder / "files.json").write_text('{"identity": "x", "entries": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert _seen(registry) == first
