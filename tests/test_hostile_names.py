"""Names are data, never paths: no item name, version, tag or job template name makes ``prereq build``
write outside ``--out``, whatever validation lets through (issue 27).

Each registry holds every hostile name form, as an item's ``name:`` (with the suppressions that
silenced PRQ110 and PRQ120 before they became unsuppressible) and as a file name where Linux allows
one.  The file system under ``tmp_path`` (the repository, the absolute targets, the folders a climb
would land in) is listed before and after, byte content and modification time, and must not change
outside ``--out``.  Validation is then bypassed (every error dropped, as if every check had missed
them): the build must still publish the good item, leave each hostile one out with a warning naming
its file, and write nothing outside ``--out``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitrepo import GitRepo, item_yaml
from prereq.core.errors import PrereqError
from prereq.index import names
from prereq.index.builder import IndexBuild, write_index
from prereq.marketplace import build as prereq_build
from prereq.registry import validate as validation
from prereq.registry.rules import Severity

CLIMB = "../../../../../x"  # from api/v1/prerequisites/ (or items/NAME/) up past --out, into tmp_path
# Each hostile form, as an item's name, a version and a tag; {abs} is a folder under tmp_path.
NAMES = {
    "absolute": "{abs}/settings",
    "climb": CLIMB,
    "dot-dot": "..",
    "nul": "a\0b",
    "newline": "evil\n* @mallory",
    "backslash": "..\\..\\..\\..\\x",
    "fullwidth-solidus": "..／..／..／x",
    "rtl-override": "gnp\u202e.json",
    "zero-width-joiner": ".\u200d.",
    "nfkc-dot-dot": "\u2025",  # TWO DOT LEADER: NFKC makes it ".."
    "fullwidth-dots": "\uff0e\uff0e",
    "windows-device": "con",
    "windows-device-ext": "NUL.txt",
    "trailing-newline": "disk\n",
    "empty": "",
}
# The same forms as file names, where a Linux file system allows one (no "/", no NUL, not ""); ".." is "...yaml".
FILE_STEMS = [s for s in NAMES.values() if "/" not in s and "\0" not in s and s not in ("", "..")] + [".."]
VERSIONS = ["../../../../../v", "{abs}/v", "1.0.0/../../../../../v", "1.0.0\n", "1.0.\u0663", "1.0.0+a\\b"]
TEMPLATE = "defaults:\n  virtualCluster: default\ntaskRoles:\n  train:\n    commands: [echo hi]\n"


def _quoted(value: object) -> str:
    return json.dumps(value)  # JSON is YAML: every escape (\n, \u0000, \u202e) read back as written


def _hostile_item(name: str, version: str = "1.0.0", tags: str = "[demo]") -> str:
    return (
        f"name: {_quoted(name)}  # prereq: disable=PRQ110,PRQ120\n"
        f"version: {_quoted(version)}  # prereq: disable=PRQ110\n"
        f"type: script\ntitle: hostile\nowners: [alice]\ntags: {tags}\n"
        "suppress: [PRQ110, PRQ120, PRQ121, PRQ122]\n"
        "callbacks:\n  - event: taskStarts\n    commands: [echo hostile]\n"
    )


def _registry(tmp_path: Path) -> GitRepo:
    """A repository holding one good item and every hostile form (names, file names, versions, tags,
    job template names), committed, with one more hostile file only in the working tree."""
    absolute = tmp_path / "abs" / "dir"
    absolute.mkdir(parents=True)
    (absolute / "settings.json").write_text('{"mine": true}\n')  # what '/abs/dir/settings' would overwrite
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/disk.yaml", item_yaml("disk", "1.0.0", extra="tags: [storage]\n"))
    items = repo.root / "registry" / "prerequisites"
    for label, name in NAMES.items():
        (items / f"name-{label}.yaml").write_text(_hostile_item(name.format(abs=absolute)), encoding="utf-8")
    for at, stem in enumerate(FILE_STEMS):
        (items / f"{stem}.yaml").write_text(_hostile_item(stem), encoding="utf-8")
        (repo.root / "registry" / "templates").mkdir(exist_ok=True)
        (repo.root / "registry" / "templates" / f"{stem}.yaml").write_text(TEMPLATE, encoding="utf-8")
        tagged = _hostile_item(f"file-{at}", tags=_quoted(["demo", stem]))  # a good name, a hostile tag
        (items / f"file-{at}.yaml").write_text(tagged, encoding="utf-8")
    for at, version in enumerate(VERSIONS):
        hostile = _hostile_item(f"version-{at}", version.format(abs=absolute))
        (items / f"version-{at}.yaml").write_text(hostile, encoding="utf-8")
    repo.commit("hostile names")
    (items / "uncommitted.yaml").write_text(_hostile_item(CLIMB + "-uncommitted"), encoding="utf-8")
    return repo


def _walk(root: Path) -> Iterator[Path]:
    for top, folders, files in os.walk(root):
        for entry in [*folders, *files]:
            yield Path(top) / entry


def _snapshot(root: Path, out: Path) -> dict[str, tuple[str, bytes, int]]:
    """Every entry under ``root`` but ``out`` (and the build's own temporary folders beside it): its
    kind, its bytes (a link's target) and its modification time."""
    seen: dict[str, tuple[str, bytes, int]] = {}
    for path in _walk(root):
        beside = path.parent == out.parent and path.name.startswith(f".{out.name}.")
        # git's stat cache: asking whether the tree is dirty refreshes it (git's bookkeeping, not a write of ours)
        git_index = path.name == "index" and path.parent.name == ".git"
        if path == out or out in path.parents or beside or git_index:
            continue
        info = path.lstat()
        if path.is_symlink():
            seen[str(path)] = ("link", os.readlink(path).encode(), info.st_mtime_ns)
        elif path.is_dir():
            seen[str(path)] = ("folder", b"", 0)  # a folder's time changes as the build's own files come and go
        else:
            seen[str(path)] = ("file", path.read_bytes(), info.st_mtime_ns)
    return seen


def _lenient(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validation as if every check had missed the hostile names: its errors are dropped."""
    real = validation.validate

    def validate(root: Path, **options: object) -> validation.ValidationResult:
        result = real(root, **options)
        kept = [p for p in result.problems if p.severity is not Severity.ERROR]
        return dataclasses.replace(result, problems=kept)

    monkeypatch.setattr(prereq_build, "validate", validate)


@pytest.fixture
def out(tmp_path: Path) -> Path:
    folder = tmp_path / "a" / "b" / "c" / "d" / "e"  # five levels: CLIMB lands in tmp_path
    folder.mkdir(parents=True)
    return folder / "out"


def _good_names() -> list[str]:
    return sorted(["disk", *(f"file-{at}" for at in range(len(FILE_STEMS)))])


def test_prereq_build_on_hostile_names_changes_nothing_outside_out(tmp_path: Path, out: Path) -> None:
    """As a pull request would bring them, suppressions and all: ``prereq build`` refuses the registry
    (PRQ110 and PRQ120 cannot be suppressed) or publishes only the good names, and never exits 3."""
    repo = _registry(tmp_path)
    before = _snapshot(tmp_path, out)
    prereq = Path(sys.executable).with_name("prereq")
    run = subprocess.run(
        [str(prereq), "build", "--no-site", "--out", str(out)], cwd=repo.root, capture_output=True, text=True
    )
    assert run.returncode in (0, 1) and "Traceback" not in run.stderr, run.stderr
    assert _snapshot(tmp_path, out) == before
    if run.returncode == 0:  # validation let them through: only the good names were written
        assert sorted(p.stem for p in (out / "api" / "v1" / "prerequisites").iterdir()) == _good_names()
    else:
        assert not out.exists() and "nothing was published" in run.stderr


@pytest.mark.parametrize(
    ("with_site", "in_git"), [(False, True), (True, True), (False, False)], ids=["index", "site", "outside-git"]
)
def test_whatever_validation_lets_through_nothing_outside_out_changes(
    tmp_path: Path, out: Path, monkeypatch: pytest.MonkeyPatch, with_site: bool, in_git: bool
) -> None:
    registry = _registry(tmp_path).root / "registry"
    if not in_git:  # the working tree alone (no history, no git to ask): the path the issue found open
        registry = shutil.copytree(registry, tmp_path / "plain" / "registry")
    _lenient(monkeypatch)
    before = _snapshot(tmp_path, out)
    result = prereq_build.build(registry, out, with_site=with_site)
    assert result.built
    assert _snapshot(tmp_path, out) == before
    assert result.index is not None
    assert sorted(entry["name"] for entry in result.index.root["items"]) == _good_names()
    assert result.index.root["templates"] == []  # every template's name is hostile
    assert sorted(p.stem for p in (out / "api" / "v1" / "prerequisites").iterdir()) == _good_names()
    assert sorted(p.name for p in (out / "api" / "v1").iterdir()) == sorted(
        [
            "catalog.json",
            "catalog.schema.json",
            "index.json",
            "index.schema.json",
            "openpai",
            "packs",
            "packs.json",
            "prerequisites",
        ]
    )
    packed = json.loads((out / "api" / "v1" / "packs.json").read_text(encoding="utf-8"))
    assert sorted(packed["items"]) == _good_names()
    assert sorted(f"packs/{p.name}" for p in (out / "api" / "v1" / "packs").iterdir()) == sorted(packed["packs"])
    left_out = "\n".join(result.warnings)
    for name in NAMES.values():  # two files may claim one name: one of them is named
        assert f"its item name {names.shown(name.format(abs=tmp_path / 'abs' / 'dir'))} cannot" in left_out, name
    for at in range(len(VERSIONS)):
        assert f"prerequisites/version-{at}.yaml: its version " in left_out, at
    assert "prerequisites/uncommitted.yaml: its item name" in left_out
    for stem in FILE_STEMS:
        assert f"templates/{stem}.yaml: its name {names.shown(stem)} cannot be published" in left_out, stem
    if with_site:
        assert sorted(p.name for p in (out / "items").iterdir()) == _good_names()
        tags = sorted(p.name for p in (out / "tags").iterdir() if p.is_dir())
        assert tags == ["con", "demo", "storage"]  # of the hostile tags, only "con" is a valid tag


def test_a_name_is_checked_again_where_it_is_written(tmp_path: Path) -> None:
    """The builder's own check bypassed: ``write_index`` refuses the file, and writes nothing outside."""
    staging = tmp_path / "x" / "y" / "staging"
    staging.mkdir(parents=True)
    for name in [CLIMB, str(tmp_path / "abs"), "a\nb", "con", ".."]:
        build = IndexBuild(root={}, items={}, bodies={name: "{}\n"})
        with pytest.raises(PrereqError, match="refusing to write a file named after the item name"):
            write_index(build, staging)
        assert [p.name for p in tmp_path.iterdir()] == ["x"]
    build = IndexBuild(root={}, items={}, files={"templates/../../../../escape.yaml": ""})
    with pytest.raises(PrereqError, match="lies outside"):
        write_index(build, staging)
    assert not (tmp_path / "x" / "y" / "escape.yaml").exists()


def test_a_path_is_judged_where_it_lands_through_links(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "api").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (out / "api" / "prerequisites").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(PrereqError, match="lies outside"):
        names.place(out, "api/prerequisites", "disk", kind=names.ITEM_NAME, suffix=".json")
    assert names.place(out, "api", "disk", kind=names.ITEM_NAME, suffix=".json") == out / "api" / "disk.json"


@pytest.mark.parametrize(
    ("value", "kind"),
    [(name, names.ITEM_NAME) for name in NAMES.values()]
    + [(version, names.VERSION) for version in VERSIONS]
    + [(name, names.TAG) for name in NAMES.values() if name != "con"]  # a tag "con" is valid (no PRQ122)
    + [(stem, names.FILE_NAME) for stem in FILE_STEMS],
)
def test_every_hostile_form_is_refused_with_a_reason(value: str, kind: names.NameKind) -> None:
    reason = names.refusal(value, kind)
    assert reason is not None and (kind.form in reason or "Windows" in reason), reason
    assert "\n" not in names.shown(value) and "\0" not in names.shown(value)


@pytest.mark.parametrize(
    ("value", "kind"),
    [("disk", names.ITEM_NAME), ("nfs_storage-1", names.ITEM_NAME), ("1.0.0-rc.1+build.5", names.VERSION)]
    + [("image-classification", names.TAG), ("con", names.TAG)]
    + [("pytorch-ddp", names.FILE_NAME), ("job.schema.json", names.FILE_NAME)],
)
def test_good_names_pass(value: str, kind: names.NameKind) -> None:
    assert names.refusal(value, kind) is None
