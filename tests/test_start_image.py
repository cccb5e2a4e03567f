"""prereq.yaml's composer.image: the Docker image item new jobs start with in the composer and the
portal plugin, published as the index root's start_image; a name that is no dockerimage item of the
registry is refused, with its line, by 'prereq validate' and 'prereq build' alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitrepo import GitRepo, item_yaml
from prereq import cli
from prereq.core.errors import PrereqError
from prereq.index.reader import Index
from prereq.marketplace.build import build
from prereq.registry.settings import load_settings

IMAGE = """\
name: base-image
version: 1.0.0
type: dockerimage
title: The team's base image
owners: [alice]
uri: docker.io/library/ubuntu:24.04
"""


def _registry(tmp_path: Path, settings: str | None) -> GitRepo:
    repo = GitRepo(tmp_path / "team")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/base-image.yaml", IMAGE)
    repo.write("registry/prerequisites/tool.yaml", item_yaml("tool", "1.0.0"))
    if settings is not None:
        repo.write("prereq.yaml", settings)
    repo.commit("start")
    return repo


def test_the_image_named_in_prereq_yaml_is_published_as_start_image(tmp_path: Path) -> None:
    repo = _registry(tmp_path, "composer:\n  image: base-image   # new jobs run on it\n")
    result = build(repo.root / "registry", tmp_path / "out", with_site=False)
    assert result.built, result.problems
    root = json.loads((tmp_path / "out" / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    assert root["start_image"] == "base-image"
    # The reader checks the root against the published schema, which knows the key.
    assert Index.load(tmp_path / "out").root["start_image"] == "base-image"


def test_without_the_setting_the_root_has_no_start_image(tmp_path: Path) -> None:
    repo = _registry(tmp_path, None)
    assert build(repo.root / "registry", tmp_path / "out", with_site=False).built
    root = json.loads((tmp_path / "out" / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    assert "start_image" not in root


@pytest.mark.parametrize(
    ("image", "message"),
    [
        ("tool", r"prereq\.yaml:2:10: composer\.image: tool is a script item, not a dockerimage$"),
        ("base-imag", r"prereq\.yaml:2:10: composer\.image: base-imag is no item of the registry$"),
    ],
)
def test_a_name_that_is_no_dockerimage_item_stops_the_build_and_validate(
    tmp_path: Path, capsys, image: str, message: str
) -> None:
    repo = _registry(tmp_path, f"composer:\n  image: {image}\n")
    with pytest.raises(PrereqError, match=message) as refused:
        build(repo.root / "registry", tmp_path / "out", with_site=False)
    assert refused.value.hint == "name one of the registry's dockerimage items: base-image"
    assert not (tmp_path / "out").exists()

    code = cli.main(["validate", str(repo.root / "registry")])
    out, err = capsys.readouterr()
    assert code == 1
    assert out.endswith("2 items checked: 0 errors, 0 warnings\n")  # the report, then why it fails
    assert f"composer.image: {image} " in err and "hint: name one of the registry's dockerimage items" in err


def test_a_registry_without_images_is_told_to_add_one(tmp_path: Path) -> None:
    repo = _registry(tmp_path, "composer:\n  image: base-image\n")
    repo.remove("registry/prerequisites/base-image.yaml")
    repo.commit("no image")
    with pytest.raises(PrereqError, match="base-image is no item of the registry") as refused:
        build(repo.root / "registry", tmp_path / "out", with_site=False)
    assert refused.value.hint == "add a dockerimage item to the registry first, or remove composer.image"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("composer:\n  imag: base-image\n", r"prereq\.yaml:2:3: unknown key 'imag'"),
        ("composer:\n  image: [base-image]\n", r"prereq\.yaml:2:3: image must be a text"),
        ("composer: base-image\n", r"prereq\.yaml:1:1: expected a mapping"),
    ],
)
def test_a_wrong_composer_section_is_named_with_its_line(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "prereq.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(PrereqError, match=message):
        load_settings(tmp_path)
