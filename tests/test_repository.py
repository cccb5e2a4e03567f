"""A team's registry repository: prereq init and new, its prereq.yaml, and builds that need its history."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from gitrepo import ENV, GitRepo, item_yaml
from prereq.core.errors import PrereqError
from prereq.marketplace.build import build
from prereq.registry.settings import load_settings
from prereq.registry.validate import validate
from prereq.scaffold.starter import ITEM_TYPES, init_repository, new_item


def _started(tmp_path: Path) -> Path:
    repo = tmp_path / "team"
    GitRepo(repo)
    init_repository(repo, name="Team prerequisites", owner="alice")
    return repo


def _commit(repo: Path) -> None:
    env = {**ENV, "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "start"], cwd=repo, check=True, env=env)


def test_init_writes_a_registry_that_validates_and_new_adds_valid_items_of_every_type(tmp_path: Path) -> None:
    repo = _started(tmp_path)
    for kind in ITEM_TYPES:
        written = new_item(repo / "registry", f"my-{kind}", kind=kind)
        (path,) = written.files
        text = path.read_text(encoding="utf-8")
        assert text.startswith("# yaml-language-server: $schema=../../schema/prerequisite.schema.json\n")
        assert written.todo and all("TODO" in line for _, _, line in written.todo)
        assert "owners: [alice]" in text  # the only user of owners.yaml
    result = validate(repo / "registry")
    assert len(result.items) == 1 + len(ITEM_TYPES) and result.errors == []
    # What is left to write is said: a warning for each blank the author reads first (none in init's example).
    assert {p.rule for p in result.warnings} == {"PRQ114"}
    assert {p.file for p in result.warnings} == {f"prerequisites/my-{kind}.yaml" for kind in ITEM_TYPES}


def test_new_items_name_a_schema_a_fresh_clone_has_and_new_keeps_it_current(tmp_path: Path) -> None:
    """The modeline resolves in a clone (no build/ there): init commits the schema, new rewrites a stale one."""
    from prereq.core.files import SCHEMA_DIR

    repo = _started(tmp_path)
    _commit(repo)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True, env={**ENV, "PATH": "/usr/bin:/bin"})
    item = clone / "registry" / "prerequisites" / "hello-prereq.yaml"
    modeline = item.read_text(encoding="utf-8").splitlines()[0]
    named = (item.parent / modeline.split("$schema=", 1)[1]).resolve()
    packaged = (SCHEMA_DIR / "prerequisite.schema.json").read_text(encoding="utf-8")
    assert named == clone / "schema" / "prerequisite.schema.json" and named.read_text(encoding="utf-8") == packaged
    assert json.loads(packaged)["$id"] == "prerequisite.schema.json"  # relative: no address is known
    named.write_text(packaged.replace('"title"', '"old-title"', 1), encoding="utf-8")  # an older prereq's
    written = new_item(clone / "registry", "fresh-tool", kind="script")
    assert written.files == [clone / "registry" / "prerequisites" / "fresh-tool.yaml", named]
    assert named.read_text(encoding="utf-8") == packaged
    assert new_item(clone / "registry", "other-tool", kind="data").files == [
        clone / "registry" / "prerequisites" / "other-tool.yaml"
    ]  # current: left as it is


def test_nothing_is_replaced_and_nothing_half_written(tmp_path: Path) -> None:
    """A README or .gitignore of the repository's own is merged into (tests/test_init.py); any other kit
    file that differs stops init before anything is written."""
    repo = _started(tmp_path)
    settings = (repo / "prereq.yaml").read_text(encoding="utf-8")
    (repo / "prereq.yaml").write_text("# ours\n", encoding="utf-8")
    (repo / ".gitignore").unlink()
    with pytest.raises(PrereqError, match=r"prereq\.yaml.* already exist.*nothing was written"):
        init_repository(repo, owner="alice")
    assert (repo / "prereq.yaml").read_text(encoding="utf-8") == "# ours\n" and not (repo / ".gitignore").exists()
    assert settings != "# ours\n"
    new_item(repo / "registry", "tool", kind="script")
    with pytest.raises(PrereqError, match="already exists"):
        new_item(repo / "registry", "tool", kind="data")


@pytest.mark.parametrize(
    ("name", "kind", "owner", "message"),
    [
        ("bad name", "script", None, "not a valid name"),
        ("x" * 64, "script", None, "not a valid name"),
        ("ok", "widget", None, "unknown type widget"),
        ("ok", "script", "mallory", "mallory is not a user or team"),
    ],
)
def test_new_refuses_what_would_not_validate(
    tmp_path: Path, name: str, kind: str, owner: str | None, message: str
) -> None:
    repo = _started(tmp_path)
    with pytest.raises(PrereqError, match=message):
        new_item(repo / "registry", name, kind=kind, owner=owner)
    assert sorted(p.name for p in (repo / "registry" / "prerequisites").iterdir()) == ["hello-prereq.yaml"]


def test_prereq_yaml_customises_the_site_without_copying_prereq_s_files(tmp_path: Path) -> None:
    repo = _started(tmp_path)
    (repo / "docs").mkdir()
    (repo / "docs" / "storage.md").write_text("# Our storage\n\nAsk the platform team.\n", encoding="utf-8")
    (repo / "docs" / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>\n', encoding="utf-8")
    (repo / "prereq.yaml").write_text(
        "site:\n  name: Vision prerequisites\n  url: https://vision.example/prereq/\n"
        "  pages: docs\n  logo: docs/logo.svg\n  index_url: https://cdn.example/prereq/\n"
        "  repo_url: https://github.com/vision/registry\n"
        "validate:\n  strict: false  # the new item below still holds its TODO blanks (PRQ114 warns)\n",
        encoding="utf-8",
    )
    schema_line = new_item(repo / "registry", "vision-data", kind="data").files[0].read_text().splitlines()[0]
    assert (
        schema_line
        == "# yaml-language-server: $schema=https://vision.example/prereq/reference/prerequisite.schema.json"
    )
    _commit(repo)
    out = repo / "build" / "site"
    result = build(repo / "registry", out)
    assert result.built and not result.validation.errors
    home = (out / "index.html").read_text(encoding="utf-8")
    assert "<title>Vision prerequisites</title>" in home and "assets/site-logo.svg" in home
    assert "Our storage" in home  # the page is in the navigation
    # The repository's link, but not the theme's script that asks GitHub's API for its stars.
    assert 'href="https://github.com/vision/registry"' in home and 'data-md-component="source"' not in home
    assert "Ask the platform team." in (out / "storage" / "index.html").read_text(encoding="utf-8")
    composer = (out / "composer" / "index.html").read_text(encoding="utf-8")
    assert '<meta name="prereq:index" content="https://cdn.example/prereq/">' in composer  # what jobs record
    schema = json.loads((out / "reference" / "prerequisite.schema.json").read_text(encoding="utf-8"))
    assert schema["$id"] == "https://vision.example/prereq/reference/prerequisite.schema.json"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("site:\n  nmae: x\n", r"prereq\.yaml:2:3: unknown key 'nmae'"),
        ("site:\n  pages: nowhere\n", r"prereq\.yaml:2:3: pages: nowhere does not exist"),
        ("registry: [a]\n", r"prereq\.yaml:1:1: registry must be a text"),
        ("site: [1]\n", r"prereq\.yaml:1:1: expected a mapping"),
        ("site:\n  name: a\n  name: b\n", r"prereq\.yaml:3:3: duplicate key 'name'"),
    ],
)
def test_a_wrong_prereq_yaml_is_named_with_its_line(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "prereq.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "registry" / "prerequisites").mkdir(parents=True)
    with pytest.raises(PrereqError, match=message):
        load_settings(tmp_path / "registry" / "prerequisites")  # found from anywhere in the repository


def _history(tmp_path: Path) -> GitRepo:
    origin = GitRepo(tmp_path / "origin")
    origin.write("registry/owners.yaml", "users: [alice]\n")
    origin.write("registry/prerequisites/tool.yaml", item_yaml("tool", "1.0.0"))
    origin.commit("one", date="2026-01-01T00:00:00+00:00")
    origin.write("registry/prerequisites/tool.yaml", item_yaml("tool", "1.1.0"))
    origin.commit("two", date="2026-01-02T00:00:00+00:00")
    return origin


def test_a_shallow_clone_is_refused_unless_allowed_and_then_says_what_is_missing(tmp_path: Path) -> None:
    origin = _history(tmp_path)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin.root}", str(clone)], check=True)
    with pytest.raises(PrereqError, match="is a shallow clone") as refused:
        build(clone / "registry", tmp_path / "out", with_site=False)
    assert "fetch-depth: 0" in refused.value.hint and "--allow-shallow" in refused.value.hint
    assert not (tmp_path / "out").exists()
    result = build(clone / "registry", tmp_path / "out", with_site=False, allow_shallow=True)
    assert result.built and any("shallow clone" in warning and "1 versions" in warning for warning in result.warnings)
    assert result.index is not None and [v["version"] for v in result.index.items["tool"]["versions"]] == ["1.1.0"]
    full = build(origin.root / "registry", tmp_path / "full", with_site=False)
    assert full.index is not None and [v["version"] for v in full.index.items["tool"]["versions"]] == ["1.0.0", "1.1.0"]


def test_the_packaged_pages_name_nothing_of_prereq_s_own_checkout() -> None:
    """Every registry repository publishes these pages: they must not send its contributors to prereq's
    development scripts, virtualenv or sources."""
    from prereq.core.files import DATA_DIR

    pages = sorted((DATA_DIR / "site").glob("*.md"))
    assert pages
    named = [
        f"{p.name}: {word}"
        for p in pages
        for word in (".venv/", "scripts/", "tools/prereq", "tests/")
        if word in p.read_text(encoding="utf-8")
    ]
    assert named == []


JOBS = Path(__file__).resolve().parent / "fixtures" / "jobs"


@pytest.mark.parametrize(
    ("job", "name"),
    [
        ("mnist-commented.yaml", "my-image"),
        ("mnist-commented.yaml", "my-setup"),
        ("handwritten-clash.yaml", "nfs-storage-1"),
        ("two-roles.yaml", "image"),
    ],
)
def test_a_hand_written_prerequisite_is_shared_as_an_item_that_validates(tmp_path: Path, job: str, name: str) -> None:
    from prereq.core.yamlload import load_yaml
    from prereq.scaffold.share import share

    repo = _started(tmp_path)
    shared = share(JOBS / job, name, registry=repo / "registry", as_name="shared-item")
    assert shared.validation.errors == [] and validate(repo / "registry").errors == []
    assert {p.rule for p in shared.validation.warnings} == {"PRQ114"}  # the blanks left to fill in
    (path,) = shared.written.files
    item = load_yaml(path.read_bytes()).data
    entry = next(e for e in load_yaml((JOBS / job).read_bytes()).data["prerequisites"] if e["name"] == name)
    assert item["name"] == "shared-item" and item["version"] == "1.0.0" and item["owners"] == ["alice"]
    assert all(item[key] == value for key, value in entry.items() if key != "name")  # as written in the job
    assert {line.split(":")[0].strip() for _, _, line in shared.written.todo} >= {"title"}


def test_what_a_shared_item_still_lacks_is_said_and_nothing_is_replaced(tmp_path: Path) -> None:
    from prereq.scaffold.share import share

    repo = _started(tmp_path)
    job = tmp_path / "job.yaml"
    job.write_text(
        "prerequisites:\n  - name: odd\n    type: script\n    plugin: com.microsoft.pai.runtimeplugin.cmd\n"
        "    failurePolicy: sometimes\n    callbacks:\n      - event: taskStarts\n        commands: [echo hi]\n",
        encoding="utf-8",
    )
    shared = share(job, "odd", registry=repo / "registry")
    assert [p.rule for p in shared.validation.errors] == ["PRQ110"]  # the wrong value, at its line
    assert shared.validation.errors[0].line == 14  # two header lines, then the item
    with pytest.raises(PrereqError, match="already exists"):
        share(job, "odd", registry=repo / "registry")
    with pytest.raises(PrereqError, match="has no prerequisite named nope") as missing:
        share(job, "nope", registry=repo / "registry")
    assert missing.value.hint == "its prerequisites: odd"


@pytest.mark.parametrize(
    ("site", "message"),
    [
        ("pages: ../outside", "pages: ../outside is outside the repository"),
        ("logo: docs/passwd.svg", "logo: docs/passwd.svg is outside the repository"),
        ("pages: docs/linked", "pages: docs/linked is outside the repository"),
        ("logo: docs/inner.svg", "logo: docs/inner.svg is a symbolic link"),
        ("logo: docs", "logo: docs is not a file"),
        ("pages: docs/page.md", "pages: docs/page.md is not a folder"),
        ("url: 'https://x.example/\"><script>alert(1)</script>'", "url is not an http(s) address"),
        ("repo_url: javascript:alert(1)", "repo_url is not an http(s) address"),
        ("description: 'Ours <script>alert(1)</script>'", "description holds a line break, a control character"),
        ('name: "two\\nlines"', "name holds a line break"),
    ],
)
def test_prereq_yaml_cannot_publish_what_lies_outside_or_inject_markup(tmp_path: Path, site: str, message: str) -> None:
    """A pull request may change prereq.yaml: its paths stay in the repository and reach no file through a
    link, and what reaches every page is one line of plain text or an http(s) address."""
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (repo / "docs" / "page.md").write_text("# Page\n", encoding="utf-8")
    (repo / "docs" / "passwd.svg").symlink_to("/etc/passwd")
    (repo / "docs" / "linked").symlink_to(tmp_path / "outside")
    (repo / "logo.svg").write_text("<svg/>\n", encoding="utf-8")
    (repo / "docs" / "inner.svg").symlink_to(repo / "logo.svg")  # even a link that stays inside
    (repo / "prereq.yaml").write_text(f"site:\n  {site}\n", encoding="utf-8")
    with pytest.raises(PrereqError, match=re.escape(message)):
        load_settings(repo)


def test_a_linked_page_in_the_pages_folder_is_not_published(tmp_path: Path) -> None:
    repo = _started(tmp_path)
    (repo / "docs").mkdir()
    (repo / "docs" / "ours.md").write_text("# Ours\n", encoding="utf-8")
    (repo / "docs" / "passwd.md").symlink_to("/etc/passwd")
    (repo / "prereq.yaml").write_text("site:\n  pages: docs\n", encoding="utf-8")
    _commit(repo)
    out = repo / "build" / "site"
    assert build(repo / "registry", out).built
    assert (out / "ours" / "index.html").is_file() and not (out / "passwd").exists()


def test_the_pages_folder_never_replaces_prereq_s_own_scripts(tmp_path: Path) -> None:
    """A page of the same name replaces a packaged page; a script of the same name would replace the
    composer's or the portal plugin's checks (the index's signature among them): left out, said."""
    repo = _started(tmp_path)
    ours = repo / "docs" / "assets" / "composer" / "ui"
    ours.mkdir(parents=True)
    (ours / "start.js").write_text('alert("not the composer")\n', encoding="utf-8")
    (repo / "docs" / "webportal").mkdir()
    (repo / "docs" / "webportal" / "prereq-plugin.js").write_text("steal()\n", encoding="utf-8")
    (repo / "docs" / "assets" / "team.js").write_text("// ours alone\n", encoding="utf-8")
    (repo / "prereq.yaml").write_text("site:\n  pages: docs\n", encoding="utf-8")
    _commit(repo)
    out = repo / "build" / "site"
    result = build(repo / "registry", out)
    assert result.built
    assert "not the composer" not in (out / "assets" / "composer" / "ui" / "start.js").read_text(encoding="utf-8")
    assert "steal()" not in (out / "webportal" / "prereq-plugin.js").read_text(encoding="utf-8")
    assert (out / "assets" / "team.js").is_file(), "a file of the repository's own is published"
    left_out = [w for w in result.warnings if "would replace prereq's own" in w]
    assert len(left_out) == 2, result.warnings


def test_a_shared_entry_keeps_its_plugin_parameters_and_refuses_credentials(tmp_path: Path) -> None:
    """Keys a job hands the plugin become the item's parameters (so <% this.KEY %> finds them); a
    credential in the entry is never written into the registry."""
    from prereq.core.yamlload import load_yaml
    from prereq.scaffold.share import share

    repo = _started(tmp_path)
    job = tmp_path / "job.yaml"
    job.write_text(
        "prerequisites:\n  - name: team-nfs\n    type: data\n    plugin: com.microsoft.pai.runtimeplugin.cmd\n"
        "    server: nfs.example.org\n    mountPoint: /mnt/team\n    callbacks:\n      - event: taskStarts\n"
        "        commands: ['mount <% this.server %>:/ <% this.mountPoint %>']\n"
        "  - name: leaky\n    type: script\n    callbacks:\n      - event: taskStarts\n"
        "        commands: ['export AWS_KEY=" + "AKIA" + "QWERTYUIOPASDFGH" + "']\n",
        encoding="utf-8",
    )
    shared = share(job, "team-nfs", registry=repo / "registry")
    assert shared.validation.errors == []
    item = load_yaml(shared.written.files[0].read_bytes()).data
    assert item["parameters"] == {"server": "nfs.example.org", "mountPoint": "/mnt/team"}
    assert "server" not in item
    with pytest.raises(PrereqError, match="prerequisite leaky holds an AWS"):
        share(job, "leaky", registry=repo / "registry")
    assert not (repo / "registry" / "prerequisites" / "leaky.yaml").exists()


@pytest.mark.parametrize(
    ("name", "message"),
    [("con", "cannot be a file name on Windows"), ("Hello_Prereq", "too close to the item hello-prereq")],
)
def test_new_and_share_refuse_names_validation_would(tmp_path: Path, name: str, message: str) -> None:
    repo = _started(tmp_path)
    with pytest.raises(PrereqError, match=message):
        new_item(repo / "registry", name, kind="script")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: (tmp / "file").write_text("x") and tmp / "file", "is a file, not a folder"),
        (lambda tmp: _started(tmp) / "registry" / "prerequisites", "is inside the registry repository"),
    ],
)
def test_init_refuses_a_file_and_a_folder_inside_another_registry(tmp_path: Path, make, message: str) -> None:
    with pytest.raises(PrereqError, match=message):
        init_repository(make(tmp_path), owner="alice")


@pytest.mark.parametrize("name", ["Vision: prereqs", "@team", "- list", "*", "100", "#1 team", "it's ours"])
def test_init_writes_valid_settings_whatever_the_site_s_name(tmp_path: Path, name: str) -> None:
    init_repository(tmp_path / "r", name=name, owner="alice")
    assert load_settings(tmp_path / "r").site.name == name
    hello = (tmp_path / "r" / "registry" / "prerequisites" / "hello-prereq.yaml").read_text(encoding="utf-8")
    assert hello.startswith("# yaml-language-server: $schema=../../schema/prerequisite.schema.json\n")
