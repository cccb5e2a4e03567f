"""The build's switch (issue #29): at every instant the output holds a whole build, the old one or
the new.  A build is killed (SIGKILL) before each step of the switch, on each layout: a folder
swapped by renameat2, a link flipped where the file system cannot swap, the one change of a folder
into a link, and first builds; the output then holds a whole build, and the next build cleans up."""

from __future__ import annotations

import ctypes
import errno
import json
import os
import signal
from pathlib import Path

import pytest

from gitrepo import GitRepo, item_yaml
from prereq.core import files
from prereq.core.errors import PrereqError
from prereq.marketplace import build as prereq_build
from prereq.marketplace.build import build

# layout: (renameat2 swaps at the first build, at the second); None: no first build
LAYOUTS = {
    "folder": (True, True),
    "link": (False, False),
    "folder to link": (True, False),
    "first folder": (None, True),
    "first link": (None, False),
}


def _no_exchange(monkeypatch: pytest.MonkeyPatch) -> None:
    """The file system says it cannot swap (EINVAL), through libc's own error path."""

    def refusing(*args: object) -> int:
        ctypes.set_errno(errno.EINVAL)
        return -1

    monkeypatch.setattr(files, "_renameat2", lambda: refusing)


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/disk.yaml", item_yaml("disk", "1.0.0"))
    repo.commit("items")
    return repo


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _whole(out: Path) -> str:
    """The commit of the build ``out`` holds, after checking it holds every file its marker lists and no other."""
    text = (out / prereq_build.MARKER).read_text(encoding="utf-8")
    listed = {json.loads(line) for line in text.splitlines()[2:] if line}
    assert set(_tree(out)) - {prereq_build.MARKER} == listed
    commit: str = json.loads((out / "api" / "v1" / "index.json").read_text(encoding="utf-8"))["commit"]
    return commit


def _leftovers(out: Path) -> list[str]:
    """What lies beside ``out`` but the version it links to."""
    live = os.readlink(out) if out.is_symlink() else None
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.") and p.name != live)


def _prepare(repo: GitRepo, out: Path, layout: str, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """The previous build the layout starts from (its commit, None for a first build), and the
    next commit to build; renameat2 refused where the layout says."""
    first, second = LAYOUTS[layout]
    old = None
    with monkeypatch.context() as first_build:
        if first is False:
            _no_exchange(first_build)
        if first is not None:
            _build_in_child(repo.root / "registry", out)
            assert out.is_symlink() == (not first)
            old = _whole(out)
    if not second:
        _no_exchange(monkeypatch)
    repo.write("registry/prerequisites/disk.yaml", item_yaml("disk", "1.1.0"))
    repo.commit("a new version")
    return old


def _steps(repo: GitRepo, tmp_path: Path, layout: str) -> list[str]:
    """The steps a build of ``layout`` takes, recorded on a build of its own."""
    out = tmp_path / "recorded" / "site"
    steps: list[str] = []
    with pytest.MonkeyPatch.context() as monkeypatch:
        _prepare(repo, out, layout, monkeypatch)
        monkeypatch.setattr(prereq_build, "swap_step", steps.append)
        assert build(repo.root / "registry", out, with_site=False).built
    assert _whole(out) == repo.git("rev-parse", "HEAD").strip() and _leftovers(out) == []
    return steps


def _build_in_child(registry: Path, out: Path, *, killed_at: str | None = None) -> None:
    """Build in a process of its own, as each build is (its leftovers are a dead process's), which
    SIGKILLs itself just before the step ``killed_at``."""
    pid = os.fork()
    if pid == 0:  # the child: never back into pytest
        code = 3
        try:

            def kill_at(name: str) -> None:
                if name == killed_at:
                    os.kill(os.getpid(), signal.SIGKILL)

            setattr(prereq_build, "swap_step", kill_at)  # noqa: B010 (the child only)
            code = 0 if build(registry, out, with_site=False).built else 4
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if killed_at is None:
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    else:
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_build_killed_at_any_step_of_the_switch_leaves_a_whole_build(
    repo: GitRepo, tmp_path: Path, layout: str
) -> None:
    steps = _steps(repo, tmp_path, layout)
    assert steps[0] == "marker" and ("exchange" in steps) == (layout in ("folder", "folder to link"))
    assert ("switch" in steps) == ("link" in layout)  # the path the layout takes
    for number, step in enumerate(steps):
        repo.git("reset", "-q", "--hard", "HEAD~1")
        with pytest.MonkeyPatch.context() as monkeypatch:
            _kill_and_rebuild(repo, tmp_path / str(number) / "site", layout, step, monkeypatch)


def _kill_and_rebuild(repo: GitRepo, out: Path, layout: str, step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    old = _prepare(repo, out, layout, monkeypatch)
    new = repo.git("rev-parse", "HEAD").strip()
    _build_in_child(repo.root / "registry", out, killed_at=step)
    left = _leftovers(out)
    assert left, step  # the killed build left something: its staging folder at least
    if (layout, step) == ("folder to link", "switch"):
        # The one gap: no rename turns a folder into a link in one step; the old build lies beside.
        assert not os.path.lexists(out) and left[0].startswith(".site.old-")
        assert _whole(out.with_name(left[0])) == old
        prereq_build.clean_leftovers(out)  # puts it back, as the next build does first
    if old is None:
        assert not os.path.lexists(out), step  # a first build killed before its switch: nothing, as before
    else:
        assert _whole(out) in (old, new), step
    assert build(repo.root / "registry", out, with_site=False).built  # the next build cleans up
    assert _whole(out) == new and _leftovers(out) == [], step


@pytest.mark.parametrize("layout", ["folder", "link", "folder to link"])
def test_a_failure_in_the_switch_leaves_the_previous_output_intact(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    out = tmp_path / "site"
    old = _prepare(repo, out, layout, monkeypatch)
    before = _tree(out)
    failing = "exchange" if layout == "folder" else "switch"

    def no_space(name: str) -> None:
        if name == failing:
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(prereq_build, "swap_step", no_space)
    with pytest.raises(PrereqError, match="No space left on device"):
        build(repo.root / "registry", out, with_site=False)
    assert _tree(out) == before and _whole(out) == old
    assert _leftovers(out) == []


def test_an_output_moved_to_a_file_system_without_the_swap_becomes_a_link_and_stays_one(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    _prepare(repo, out, "folder to link", monkeypatch)
    assert build(repo.root / "registry", out, with_site=False).built
    assert out.is_symlink() and os.readlink(out).startswith(".site.v-") and "/" not in os.readlink(out)
    monkeypatch.undo()  # renameat2 back: a link stays a link, flipped
    repo.write("registry/prerequisites/disk.yaml", item_yaml("disk", "1.2.0"))
    new = repo.commit("another version")
    assert build(repo.root / "registry", out, with_site=False).built
    assert out.is_symlink() and _whole(out) == new and _leftovers(out) == []


def test_only_the_link_a_build_made_is_built_through(repo: GitRepo, tmp_path: Path) -> None:
    """A link of the user's, even to a build's folder, is refused as before; one beside it of the
    build's own naming but leading elsewhere too."""
    built = tmp_path / "built"
    assert build(repo.root / "registry", built, with_site=False).built
    before = _tree(built)
    for name, target in (("mine", str(built)), ("site", "built"), ("site", "../elsewhere/.site.v-1-x")):
        link = tmp_path / "links" / name
        link.parent.mkdir(exist_ok=True)
        link.unlink(missing_ok=True)
        link.symlink_to(target)
        with pytest.raises(PrereqError, match="is a symbolic link"):
            prereq_build.check_output_folder(link, protected=[], registry=repo.root / "registry")
    assert _tree(built) == before


def test_exchange_swaps_two_folders_or_says_it_cannot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (first / "a").write_text("first\n")
    assert files.exchange(first, second)  # ext4 and tmpfs swap
    assert (second / "a").read_text() == "first\n" and not any(first.iterdir())
    with pytest.raises(FileNotFoundError):
        files.exchange(first, tmp_path / "missing")  # any other failure is an error
    _no_exchange(monkeypatch)
    assert not files.exchange(first, second) and (second / "a").is_file()  # nothing changed
    monkeypatch.setattr(files, "_renameat2", lambda: None)  # another platform, or a libc without it
    assert not files.exchange(first, second)
