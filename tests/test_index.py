"""The published index: history, resolution, closures, digests, determinism, atomicity."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from execution_helpers import environment, queue
from gitrepo import GitRepo, item_yaml
from prereq.core.errors import PrereqError
from prereq.marketplace.build import build
from prereq.openpai import forms
from prereq.registry.schemas import load_schema

OWNERS = "users: [alice]\n"


@pytest.fixture
def history(tmp_path: Path) -> GitRepo:
    """A registry whose items changed over four commits."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", OWNERS)
    reg = "registry/prerequisites/"
    repo.write(reg + "base.yaml", item_yaml("base", "1.0.0", type_="data", parameters={"mountPoint": "/mnt/one"}))
    repo.write(reg + "gone.yaml", item_yaml("gone", "0.1.0"))
    repo.write(reg + "fixed.yaml", "name: fixed\nversion: one\ntype: script\ntitle: t\nowners: [alice]\n")
    # An execution catalog, published beside the items (api/v1/execution/catalog.json)
    repo.write("registry/environments/py/1.0.0.yaml", environment(image="{uri: 'python:3.11-slim'}"))
    repo.write("registry/queues/q1.yaml", queue())
    repo.write(
        "registry/rights.yaml",
        "groups: {everyone: '*'}\nrights:\n  - {queue: q1, group: everyone, slots: 2, priority: 0}\n",
    )
    repo.commit("first", date="2026-01-01T00:00:00+00:00")
    repo.write(reg + "base.yaml", item_yaml("base", "1.1.0", type_="data", parameters={"mountPoint": "/mnt/two"}))
    repo.write(
        reg + "lib.yaml",
        item_yaml("lib", "1.0.0", require=["base@^1.0"], commands=["export LIB_DIR=<% this.mountPoint %>/lib"]),
    )
    repo.write(reg + "fixed.yaml", item_yaml("fixed", "1.0.0"))
    repo.commit("second", date="2026-02-01T00:00:00+00:00")
    repo.write(reg + "base.yaml", item_yaml("base", "2.0.0", type_="data", parameters={"mountPoint": "/mnt/three"}))
    repo.write(
        reg + "lib.yaml",
        item_yaml("lib", "1.1.0", require=["base@^2.0"], commands=["export LIB_DIR=<% this.mountPoint %>/lib"]),
    )
    repo.write(reg + "helper.yaml", item_yaml("helper", "1.0.0", require=["base@>=1.0.0 <3.0.0"]))
    repo.write(reg + "app.yaml", item_yaml("app", "1.0.0", require=["lib", "helper"]))
    repo.remove(reg + "gone.yaml")
    repo.commit("third", date="2026-03-01T00:00:00+00:00")
    return repo


def _read(out: Path, rel: str) -> dict:
    return json.loads((out / "api" / "v1" / rel).read_text(encoding="utf-8"))


def _build(repo: GitRepo, out: Path):
    result = build(repo.root / "registry", out, with_site=False)
    assert result.built, result.problems
    return result


def test_every_version_in_history_is_published_in_semver_order(history: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _build(history, out)
    base = _read(out, "prerequisites/base.json")
    assert [v["version"] for v in base["versions"]] == ["1.0.0", "1.1.0", "2.0.0"]
    # Each version keeps the content of the last commit that had it.
    assert base["versions"][0]["item"]["parameters"]["mountPoint"] == "/mnt/one"
    root = _read(out, "index.json")
    entry = next(e for e in root["items"] if e["name"] == "base")
    assert entry["version"] == "2.0.0"
    assert entry["updated"] == "2026-03-01T00:00:00+00:00"


def test_ranges_resolve_to_the_highest_matching_old_version(history: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _build(history, out)
    old, new = _read(out, "prerequisites/lib.json")["versions"]
    assert old["version"] == "1.0.0"
    assert old["requires"] == [{"name": "base", "range": "^1.0", "version": "1.1.0"}]
    assert new["requires"] == [{"name": "base", "range": "^2.0", "version": "2.0.0"}]
    # <% this.mountPoint %> is rendered from the resolved version, not the latest.
    commands = json.dumps(old["openpai"]["callbacks"])
    assert "/mnt/two/lib" in commands and "this.mountPoint" not in commands
    assert "/mnt/three/lib" in json.dumps(new["openpai"]["callbacks"])


def test_closure_is_depth_first_post_order_in_written_order(history: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _build(history, out)
    app = _read(out, "prerequisites/app.json")["versions"][-1]
    assert app["closure"] == [
        {"name": "base", "version": "2.0.0"},
        {"name": "lib", "version": "1.1.0"},
        {"name": "helper", "version": "1.0.0"},
        {"name": "app", "version": "1.0.0"},
    ]


def test_deleted_items_stay_published(history: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _build(history, out)
    gone = _read(out, "prerequisites/gone.json")
    assert [v["version"] for v in gone["versions"]] == ["0.1.0"]
    assert "gone" in {e["name"] for e in _read(out, "index.json")["items"]}


def test_old_versions_failing_todays_rules_are_left_out_with_a_warning(history: GitRepo, tmp_path: Path) -> None:
    result = _build(history, tmp_path / "out")
    fixed = _read(tmp_path / "out", "prerequisites/fixed.json")
    assert [v["version"] for v in fixed["versions"]] == ["1.0.0"]
    assert any("fixed one" in w and "left out" in w for w in result.warnings)


def test_required_by_lists_items_whose_latest_version_requires_it(history: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _build(history, out)
    assert _read(out, "prerequisites/base.json")["required_by"] == ["helper", "lib"]
    assert _read(out, "prerequisites/lib.json")["required_by"] == ["app"]
    assert _read(out, "prerequisites/app.json")["required_by"] == []


def test_digest_is_sha256_of_the_canonical_openpai_form(history: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _build(history, out)
    for entry in _read(out, "index.json")["items"]:
        body = (out / "api" / "v1" / entry["path"]).read_bytes()
        assert hashlib.sha256(body).hexdigest() == entry["sha256"]
        for version in json.loads(body)["versions"]:
            canonical = json.dumps(version["openpai"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            assert version["digest"] == "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
            assert version["digest"] == forms.digest(version["openpai"])


def test_openpai_form_leaves_out_registry_fields(history: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _build(history, out)
    form = _read(out, "prerequisites/lib.json")["versions"][-1]["openpai"]
    assert form["plugin"] == "com.microsoft.pai.runtimeplugin.cmd"
    assert form["contributor"] == "alice" and form["description"] == "lib item" and form["version"] == "1.1.0"
    for key in ("require", "owners", "tags", "parameters", "title", "license"):
        assert key not in form


def test_two_builds_of_one_commit_are_byte_identical(history: GitRepo, tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    _build(history, first)
    _build(history, second)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    for rel in files:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), rel
    root = _read(first, "index.json")
    assert root["commit"] == history.git("rev-parse", "HEAD").strip() and root["dirty"] is False


def test_a_failed_build_leaves_the_previous_output_untouched(history: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _build(history, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    history.write("registry/prerequisites/app.yaml", item_yaml("app", "1.0.1", require=["nowhere"]))
    result = build(history.root / "registry", out, with_site=False)
    assert not result.built and any(p.rule == "PRQ140" for p in result.problems)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def test_an_exception_mid_build_leaves_no_partial_output(
    history: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    _build(history, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def explode(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("prereq.marketplace.build.write_index", explode)
    with pytest.raises(PrereqError, match=r"cannot write .*: disk full"):  # a clean error (exit 2), not a crash
        build(history.root / "registry", out, with_site=False)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def test_dirty_working_tree_is_flagged_and_its_version_published(history: GitRepo, tmp_path: Path) -> None:
    history.write("registry/prerequisites/app.yaml", item_yaml("app", "1.1.0", require=["lib"]))
    out = tmp_path / "out"
    _build(history, out)
    assert _read(out, "index.json")["dirty"] is True
    assert [v["version"] for v in _read(out, "prerequisites/app.json")["versions"]] == ["1.0.0", "1.1.0"]


def test_outside_git_only_current_files_are_published(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    (registry / "prerequisites").mkdir(parents=True)
    (registry / "owners.yaml").write_text(OWNERS)
    (registry / "prerequisites" / "solo.yaml").write_text(item_yaml("solo", "1.0.0"))
    result = build(registry, tmp_path / "out", with_site=False)
    assert result.built
    assert any("not in a git repository" in w for w in result.warnings)
    root = _read(tmp_path / "out", "index.json")
    assert root["commit"] is None and [e["name"] for e in root["items"]] == ["solo"]


def test_index_documents_carry_no_whitespace_and_the_schemas_people_read_are_indented(
    history: GitRepo, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    _build(history, out)
    api = out / "api" / "v1"
    documents = [api / "index.json", api / "catalog.json", *sorted((api / "prerequisites").glob("*.json"))]
    assert len(documents) == 8
    for path in documents:
        text = path.read_text(encoding="utf-8")
        compact = json.dumps(json.loads(text), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        assert text == compact + "\n", path.name
    assert (api / "index.schema.json").read_text(encoding="utf-8").startswith('{\n "')


def test_index_schema_validates_every_file_written(history: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _build(history, out)
    schema = json.loads((out / "api" / "v1" / "index.schema.json").read_text())
    assert schema == load_schema("index.schema.json")
    validator = jsonschema.Draft202012Validator(schema)
    files = [p for p in (out / "api" / "v1").rglob("*.json") if not p.name.endswith(".schema.json")]
    assert len(files) == 10  # the root, six items, the execution catalog, the catalog file and the pack map
    catalog_schema = json.loads((out / "api" / "v1" / "catalog.schema.json").read_text())
    assert catalog_schema == load_schema("catalog.schema.json")
    for path in files:
        # The catalog file (api/v1/catalog.json) has a schema of its own; the others are the index's.
        catalog_file = path == out / "api" / "v1" / "catalog.json"
        checker = jsonschema.Draft202012Validator(catalog_schema) if catalog_file else validator
        errors = list(checker.iter_errors(json.loads(path.read_text())))
        assert errors == [], (path, errors[0].message if errors else "")
    # The schema is not vacuous: a broken root fails it.
    broken = json.loads((out / "api" / "v1" / "index.json").read_text())
    broken["items"][0]["sha256"] = "nope"
    assert list(validator.iter_errors(broken))


def test_exports_are_listed_per_version_and_in_the_root(history: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _build(history, out)
    assert _read(out, "prerequisites/lib.json")["versions"][-1]["exports"] == ["LIB_DIR"]
    entries = {e["name"]: e for e in _read(out, "index.json")["items"]}
    assert entries["lib"]["exports"] == ["LIB_DIR"] and entries["base"]["exports"] == []


def test_an_old_version_the_runtime_would_mangle_is_left_out(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", OWNERS)
    clone = (
        "name: clone\nversion: {v}\ntype: script\ntitle: t\nowners: [alice]\n"
        "plugin: com.microsoft.pai.runtimeplugin.git\nrepo_uri: https://example.com/r.git\n"
        "options: [{option}]\n"
    )
    repo.write("registry/prerequisites/clone.yaml", clone.format(v="1.0.0", option="'--depth=1 \\\\'"))
    repo.commit("mangled by the runtime")
    repo.write("registry/prerequisites/clone.yaml", clone.format(v="1.1.0", option="--depth=1"))
    repo.commit("fixed")
    result = _build(repo, tmp_path / "out")
    assert [v["version"] for v in _read(tmp_path / "out", "prerequisites/clone.json")["versions"]] == ["1.1.0"]
    assert any("clone 1.0.0: options[0] would not survive" in w for w in result.warnings)


def test_job_templates_are_published_as_written_with_the_load_line(history: GitRepo, tmp_path: Path) -> None:
    from prereq.openpai.runtime import JOB_LOAD_LINE

    text = (
        "# keep this comment\nprotocolVersion: 2\nname: train\ntype: job\n"
        "description: Train with lib\ntaskRoles:\n  main:\n    instances: 1\n"
        "    dockerImage: img\n    prerequisites: [lib]\n"
        "    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n    commands: [ls $LIB_DIR]\n"
        "prerequisites:\n  - {name: img, type: dockerimage, uri: 'ubuntu:22.04'}\n"
    )
    history.write("registry/templates/train.yaml", text)
    out = tmp_path / "out"
    _build(history, out)
    root = _read(out, "index.json")
    assert root["job_load_line"] == JOB_LOAD_LINE
    published = (out / "api" / "v1" / "templates" / "train.yaml").read_bytes()
    digest = hashlib.sha256(published).hexdigest()  # the root vouches for the file, as for an item's
    assert root["templates"] == [
        {"name": "train", "title": "Train with lib", "path": "templates/train.yaml", "uses": ["lib"], "sha256": digest}
    ]
    assert published.decode("utf-8") == text


def test_an_old_version_whose_requirements_form_a_cycle_is_left_out(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", OWNERS)
    repo.write("registry/prerequisites/a.yaml", item_yaml("a", "1.0.0", require=["b"]))
    repo.write("registry/prerequisites/b.yaml", item_yaml("b", "1.0.0"))
    repo.commit("a needs b")
    repo.write("registry/prerequisites/a.yaml", item_yaml("a", "1.1.0"))
    repo.write("registry/prerequisites/b.yaml", item_yaml("b", "1.1.0", require=["a"]))
    repo.commit("now b needs a")
    result = _build(repo, tmp_path / "out")
    assert [v["version"] for v in _read(tmp_path / "out", "prerequisites/a.json")["versions"]] == ["1.1.0"]
    assert any(w.startswith("a 1.0.0: its requirements form a cycle") for w in result.warnings)
    assert _read(tmp_path / "out", "prerequisites/b.json")["versions"][-1]["closure"] == [
        {"name": "a", "version": "1.1.0"},
        {"name": "b", "version": "1.1.0"},
    ]


def test_a_closure_holds_each_item_once_with_one_version(tmp_path: Path) -> None:
    """An old version whose requirements want different versions of one item gets the one
    that meets every range, as job editing would choose, not the item twice."""
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", OWNERS)
    repo.write("registry/prerequisites/base.yaml", item_yaml("base", "1.5.0"))
    repo.write("registry/prerequisites/low.yaml", item_yaml("low", "1.0.0", require=["base@1.5.0"]))
    repo.write("registry/prerequisites/any.yaml", item_yaml("any", "1.0.0", require=["base"]))
    repo.write("registry/prerequisites/top.yaml", item_yaml("top", "1.0.0", require=["any", "low@1.0.0"]))
    repo.commit("pinned")
    repo.write("registry/prerequisites/base.yaml", item_yaml("base", "1.5.1"))
    repo.write("registry/prerequisites/low.yaml", item_yaml("low", "1.1.0", require=["base@^1.5.0"]))
    repo.write("registry/prerequisites/top.yaml", item_yaml("top", "1.1.0", require=["any", "low"]))
    repo.commit("relaxed")
    _build(repo, tmp_path / "out")
    old, new = _read(tmp_path / "out", "prerequisites/top.json")["versions"]
    assert old["closure"] == [
        {"name": "base", "version": "1.5.0"},
        {"name": "any", "version": "1.0.0"},
        {"name": "low", "version": "1.0.0"},
        {"name": "top", "version": "1.0.0"},
    ]
    assert new["closure"][0] == {"name": "base", "version": "1.5.1"}


def test_the_root_publishes_what_job_editors_in_the_browser_need(history: GitRepo, tmp_path: Path) -> None:
    """One source for both engines: the form key order, the type facets, and OpenPAI's job schema."""
    import hashlib

    from prereq.index import facets
    from prereq.openpai import forms, protocol

    out = tmp_path / "out"
    _build(history, out)
    root = _read(out, "index.json")
    assert root["key_orders"] == {part: list(keys) for part, keys in forms.KEY_ORDERS.items()}
    assert root["type_groups"] == facets.TYPE_GROUPS and root["type_labels"] == facets.TYPE_LABELS
    body = (out / "api" / "v1" / root["job_schema"]["path"]).read_bytes()
    assert hashlib.sha256(body).hexdigest() == root["job_schema"]["sha256"]
    assert json.loads(body) == protocol.resolve_schema(protocol.load_protocol())


def test_each_version_is_dated_by_its_first_commit_and_the_item_names_its_file(
    history: GitRepo, tmp_path: Path
) -> None:
    """What the item pages show: when each version was published, and where the item's file is."""
    out = tmp_path / "out"
    _build(history, out)
    base = _read(out, "prerequisites/base.json")
    assert [v["published"][:10] for v in base["versions"]] == ["2026-01-01", "2026-02-01", "2026-03-01"]
    assert base["source"] == "registry/prerequisites/base.yaml"
    gone = _read(out, "prerequisites/gone.json")  # deleted: still dated, but no file to link to
    assert gone["source"] is None and gone["versions"][0]["published"][:10] == "2026-01-01"
    # A version changed after its first commit keeps that first date; one not committed has none.
    lib = "registry/prerequisites/lib.yaml"
    history.write(lib, item_yaml("lib", "1.1.0", require=["base@^2.0"], commands=["echo changed"]))
    history.commit("fourth", date="2026-04-01T00:00:00+00:00")
    history.write("registry/prerequisites/base.yaml", item_yaml("base", "2.1.0", type_="data"))
    _build(history, tmp_path / "again")
    assert _read(tmp_path / "again", "prerequisites/lib.json")["versions"][-1]["published"][:10] == "2026-03-01"
    assert _read(tmp_path / "again", "prerequisites/base.json")["versions"][-1]["published"] is None


def test_the_root_publishes_each_items_license(history: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _build(history, out)
    licenses = {entry["name"]: entry["license"] for entry in _read(out, "index.json")["items"]}
    assert licenses["base"] == "MIT" and licenses["lib"] is None


def test_a_root_from_before_template_digests_is_still_read(tmp_path: Path) -> None:
    """Builds before templates carried a sha256 are read as before: the composer refuses their templates."""
    from prereq.index.reader import Index

    out = tmp_path / "story"
    shutil.copytree(Path(__file__).parent / "cases" / "indexes" / "story", out)
    root_file = out / "api" / "v1" / "index.json"
    root = json.loads(root_file.read_text(encoding="utf-8"))
    assert root["templates"] and all("sha256" in template for template in root["templates"])
    for template in root["templates"]:
        del template["sha256"]
    root_file.write_text(json.dumps(root), encoding="utf-8")
    assert "mnist-data" in Index.load(str(out)).entries
