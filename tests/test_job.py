"""Job editing: add, remove, lock and resolve on real job files, against built indexes.

Two indexes are built once per module: the bundled registry (the user story),
and a tiny registry in a temporary git repository whose history holds several
versions of an item (locks, upgrades, conflicting ranges, deprecation).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitrepo import GitRepo, item_yaml
from prereq import jobs
from prereq.core.errors import PrereqError
from prereq.core.yamlload import load_yaml
from prereq.index.reader import Index
from prereq.jobs.document import JobDocument
from prereq.marketplace.publish import build
from prereq.openpai import runtime
from prereq.openpai.protocol import validate_job
from textdiff import line_diff

REPO = Path(__file__).resolve().parents[1]
JOBS = Path(__file__).resolve().parent / "fixtures" / "jobs"
REG = "registry/prerequisites/"


# --------------------------------------------------------------------------- indexes


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundled") / "site"
    result = build(REPO / "registry", out, with_site=False)
    assert result.built, [str(p) for p in result.problems if p.severity == "error"]
    return out


def registry_item(name: str) -> dict:
    return load_yaml((REPO / "registry" / "prerequisites" / f"{name}.yaml").read_bytes()).data


def image(name: str, version: str, extra: str = "") -> str:
    return (
        f"name: {name}\nversion: {version}\ntype: dockerimage\ntitle: {name} image\nowners: [alice]\n"
        f"uri: example/{name}:{version}\n{extra}"
    )


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``old`` index: store 1.0.0 only.  ``new``: store 1.0.0, 1.1.0 and 2.0.0 (from history), alpha 1.0.0
    (store@^1.0) and 2.0.0 (store@^2.0), beta (store@^2.0), a deprecated legacy 1.1.0."""
    root = tmp_path_factory.mktemp("tiny")
    repo = GitRepo(root / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write(
        REG + "store.yaml",
        item_yaml(
            "store",
            "1.0.0",
            type_="data",
            parameters={"mountPoint": "/mnt/store"},
            commands=["export STORE=<% this.mountPoint %>"],
        ),
    )
    repo.write(
        REG + "alpha.yaml",
        item_yaml("alpha", "1.0.0", require=["store@^1.0"], commands=["export ALPHA_DIR=<% this.mountPoint %>/alpha"]),
    )
    repo.write(REG + "gamma.yaml", item_yaml("gamma", "1.0.0", require=["store"]))
    repo.write(REG + "legacy.yaml", item_yaml("legacy", "1.0.0"))
    repo.write(REG + "greet.yaml", item_yaml("greet", "1.0.0", commands=["echo hello <% expression.userName %>"]))
    repo.write(REG + "img-a.yaml", image("img-a", "1.0.0"))
    repo.write(REG + "img-b.yaml", image("img-b", "1.0.0"))
    repo.commit("first versions")
    old = root / "old"
    assert build(repo.root / "registry", old, with_site=False).built
    repo.write(
        REG + "store.yaml",
        item_yaml(
            "store",
            "1.1.0",
            type_="data",
            parameters={"mountPoint": "/mnt/store"},
            commands=["export STORE=<% this.mountPoint %>", "echo v1.1"],
        ),
    )
    repo.write(
        REG + "legacy.yaml",
        item_yaml("legacy", "1.1.0", extra="deprecated: {reason: Replaced by alpha., replacement: alpha}\n"),
    )
    repo.commit("store 1.1, legacy deprecated")
    repo.write(
        REG + "store.yaml",
        item_yaml(
            "store",
            "2.0.0",
            type_="data",
            parameters={"mountPoint": "/mnt/store2"},
            commands=["export STORE=<% this.mountPoint %>"],
        ),
    )
    repo.write(
        REG + "alpha.yaml",
        item_yaml("alpha", "2.0.0", require=["store@^2.0"], commands=["export ALPHA_DIR=<% this.mountPoint %>/alpha"]),
    )
    repo.write(REG + "beta.yaml", item_yaml("beta", "1.0.0", require=["store@^2.0"]))
    repo.commit("store 2")
    new = root / "new"
    assert build(repo.root / "registry", new, with_site=False).built
    return {"old": old, "new": new}


# --------------------------------------------------------------------------- helpers


def copy_job(tmp_path: Path, name: str, *, crlf: bool = False) -> Path:
    text = (JOBS / name).read_text(encoding="utf-8")
    path = tmp_path / name
    path.write_bytes((text.replace("\n", "\r\n") if crlf else text).encode("utf-8"))
    return path


def data(path_or_text: Path | str) -> dict:
    text = path_or_text.read_text(encoding="utf-8") if isinstance(path_or_text, Path) else path_or_text
    return load_yaml(text).data


def top_names(job_data: dict) -> list[str]:
    return [item["name"] for item in job_data.get("prerequisites") or []]


def prereq_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The real command line, in its own process (exit code, stdout and stderr as a user sees them)."""
    code = "import sys; from prereq.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )


def assert_openpai_accepts(job_data: dict) -> None:
    problems = validate_job(job_data)
    assert problems == [], [f"{p.where()}: {p.message}" for p in problems]


# --------------------------------------------------------------------------- add


def test_add_puts_the_closure_in_order_and_touches_no_written_line(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    before = path.read_text()
    result = jobs.add(path, ["mnist-data", "output-dir@^1.0"], index=bundled)
    after = path.read_text()
    assert result.written and result.after == after

    nfs = registry_item("nfs-storage-1")["version"]
    lines = [change.describe() for change in result.changes]
    assert f"added nfs-storage-1 {nfs}, required by mnist-data, output-dir" in lines
    assert any(line.startswith("added mnist-data ") and line.endswith(", selected") for line in lines)

    removed, _added = line_diff(before, after)
    assert removed == []  # only insertions: every line written before is still there, byte for byte
    assert all(line in after for line in before.splitlines())

    job_data = data(after)
    closure = ["nfs-storage-1", "apt-proxy", "base-tools", "mnist-data", "output-dir"]
    assert job_data["taskRoles"]["train"]["prerequisites"] == ["my-setup", *closure]
    assert top_names(job_data) == ["my-image", "my-setup", *closure]
    assert job_data["taskRoles"]["train"]["commands"][0] == runtime.JOB_LOAD_LINE
    state = job_data["extras"]["prereq"]
    assert state["selected"] == {"train": ["mnist-data", "output-dir@^1.0"]}
    assert sorted(state["lock"]) == sorted(closure) and state["lock"]["nfs-storage-1"]["version"] == nfs
    assert state["index"] == str(bundled) and job_data["extras"]["note"] == "keep me"
    assert_openpai_accepts(job_data)

    again = jobs.add(path, ["mnist-data"], index=bundled)
    assert not again.changed and "already selected" in again.warnings[0]


def test_remove_takes_out_only_what_nothing_needs(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    original = path.read_bytes()
    jobs.add(path, ["mnist-data", "output-dir"], index=bundled)
    added_text = path.read_text()

    result = jobs.remove(path, ["mnist-data"], index=bundled)
    described = [change.describe() for change in result.changes]
    assert any(line.startswith("removed mnist-data ") for line in described)
    assert any(line.startswith("removed base-tools ") and "no longer needed" in line for line in described)
    job_data = data(path)
    assert job_data["taskRoles"]["train"]["prerequisites"] == ["my-setup", "nfs-storage-1", "output-dir"]
    assert top_names(job_data) == ["my-image", "my-setup", "nfs-storage-1", "output-dir"]
    assert line_diff(added_text, path.read_text())[1] == []  # only deletions
    assert_openpai_accepts(job_data)

    with pytest.raises(PrereqError, match=r"required by|other items require it"):
        jobs.remove(path, ["nfs-storage-1"], index=bundled)
    with pytest.raises(PrereqError, match=r"mnist-commented.yaml:10: my-image was written by hand"):
        jobs.remove(path, ["my-image"], index=bundled)

    jobs.remove(path, ["output-dir"], index=bundled)
    assert path.read_bytes() == original  # back to the user's file, byte for byte


def test_an_item_the_user_selected_is_never_removed_as_a_requirement(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["nfs-storage-1", "mnist-data"], index=bundled)
    result = jobs.remove(path, ["nfs-storage-1"], index=bundled)
    assert [c.describe() for c in result.changes] == [
        f"kept nfs-storage-1 {registry_item('nfs-storage-1')['version']} (still required by mnist-data)"
    ]
    assert data(path)["extras"]["prereq"]["selected"] == {"train": ["mnist-data"]}
    jobs.add(path, ["nfs-storage-1"], index=bundled)
    jobs.remove(path, ["mnist-data"], index=bundled)
    job_data = data(path)
    assert job_data["taskRoles"]["train"]["prerequisites"] == ["my-setup", "nfs-storage-1"]
    assert top_names(job_data) == ["my-image", "my-setup", "nfs-storage-1"]


def test_several_task_roles(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "two-roles.yaml")
    before = path.read_text()
    with pytest.raises(PrereqError, match="2 task roles: ps, worker") as caught:
        jobs.add(path, ["mnist-data"], index=bundled)
    assert "--task-role" in caught.value.hint
    jobs.add(path, ["mnist-data"], task_role="worker", index=bundled)
    jobs.add(path, ["output-dir"], task_role="ps", index=bundled)
    after = path.read_text()
    assert line_diff(before, after)[0] == []
    job_data = data(after)
    assert top_names(job_data).count("nfs-storage-1") == 1
    assert job_data["taskRoles"]["ps"]["prerequisites"] == ["nfs-storage-1", "output-dir"]
    assert job_data["taskRoles"]["worker"]["prerequisites"][0] == "nfs-storage-1"
    # The file's style: 4-space indentation, lists not indented under their key.
    assert "        prerequisites:\n        - nfs-storage-1\n        - output-dir\n" in after
    assert "\n- name: nfs-storage-1\n  type: data\n" in after
    assert_openpai_accepts(job_data)

    jobs.remove(path, ["mnist-data"], index=bundled)
    job_data = data(path)
    assert "prerequisites" not in job_data["taskRoles"]["worker"]
    assert job_data["taskRoles"]["worker"]["commands"] == ["echo worker $PAI_TASK_INDEX"]  # load line removed
    assert "nfs-storage-1" in top_names(job_data)  # still needed by ps


def test_crlf_files_stay_crlf(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml", crlf=True)
    before = path.read_bytes().decode()
    jobs.add(path, ["mnist-data"], index=bundled)
    after = path.read_bytes().decode()
    assert "\n" not in after.replace("\r\n", "")
    assert line_diff(before, after)[0] == []
    jobs.remove(path, ["mnist-data"], index=bundled)
    assert path.read_bytes().decode() == before


def test_dry_run_prints_a_diff_and_writes_nothing(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    before = path.read_bytes()
    result = jobs.add(path, ["output-dir"], index=bundled, dry_run=True)
    assert path.read_bytes() == before and not result.written
    assert "+      - output-dir\n" in result.diff()
    cli = prereq_cli("job", "add", str(path), "output-dir", "--index", str(bundled), "--dry-run")
    assert cli.returncode == 0 and cli.stdout.startswith("--- ") and "+      - output-dir" in cli.stdout
    assert "added output-dir" in cli.stderr and path.read_bytes() == before


def test_a_hand_written_prerequisite_with_a_registry_name_is_not_overwritten(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "handwritten-clash.yaml")
    before = path.read_bytes()
    with pytest.raises(PrereqError, match=r"handwritten-clash.yaml:9: the job's own prerequisite 'nfs-storage-1'"):
        jobs.add(path, ["mnist-data"], index=bundled)
    assert path.read_bytes() == before


def test_unknown_names_and_roles_are_clean_errors(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    with pytest.raises(PrereqError, match="no prerequisite named 'mnist_data'") as caught:
        jobs.add(path, ["mnist_data"], index=bundled)
    assert "mnist-data" in caught.value.hint
    with pytest.raises(PrereqError, match="no task role 'test'"):
        jobs.add(path, ["mnist-data"], task_role="test", index=bundled)
    cli = prereq_cli("job", "add", str(path), "nope", "--index", str(bundled))
    assert cli.returncode == 2 and "Traceback" not in cli.stderr and "no prerequisite named 'nope'" in cli.stderr


def test_hand_edits_of_prereq_entries_are_kept_with_a_warning(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["mnist-data"], index=bundled)
    text = path.read_text().replace("\n          - ls -l $MNIST_DIR\n", "\n          - ls -la $MNIST_DIR\n")
    path.write_text(text)
    result = jobs.add(path, ["output-dir"], index=bundled)
    assert any("mnist-data was edited by hand" in warning for warning in result.warnings)
    assert "          - ls -la $MNIST_DIR\n" in path.read_text()
    resolved = jobs.prepare(path, index=bundled)
    assert any("differs from the locked" in warning for warning in resolved.warnings)


# --------------------------------------------------------------------------- versions


def test_conflicting_ranges_are_an_error_naming_both(tmp_path: Path, tiny: dict[str, Path]) -> None:
    path = tmp_path / "job.yaml"
    path.write_text((JOBS / "two-roles.yaml").read_text())
    jobs.add(path, ["alpha@^1.0"], task_role="ps", index=tiny["new"])
    before = path.read_bytes()
    with pytest.raises(PrereqError) as caught:
        jobs.add(path, ["beta"], task_role="worker", index=tiny["new"])
    assert caught.value.message == (
        "no version of store meets both alpha 1.0.0 (store@^1.0) and beta 1.0.0 (store@^2.0)"
    )
    assert path.read_bytes() == before
    with pytest.raises(PrereqError, match="invalid version range"):
        jobs.add(path, ["gamma@^^1"], task_role="worker", index=tiny["new"])


def test_lock_keeps_versions_until_upgraded(tmp_path: Path, tiny: dict[str, Path]) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["alpha", "gamma"], index=tiny["old"])
    assert data(path)["extras"]["prereq"]["lock"]["store"]["version"] == "1.0.0"

    kept = jobs.lock(path, index=tiny["new"])  # newer versions exist; the lock holds
    assert not kept.changed

    added_gamma_again = jobs.add(path, ["gamma"], index=tiny["old"])
    assert not added_gamma_again.changed

    before = path.read_text()
    upgraded = jobs.lock(path, upgrade=["store"], index=tiny["new"])
    assert [c.describe() for c in upgraded.changes] == ["updated store 1.0.0 -> 1.1.0, required by alpha, gamma"]
    job_data = data(path)
    assert job_data["extras"]["prereq"]["lock"]["store"]["version"] == "1.1.0"  # ^1.0 from alpha: not 2.0.0
    store = next(item for item in job_data["prerequisites"] if item["name"] == "store")
    assert store["version"] == "1.1.0" and "echo v1.1" in store["callbacks"][0]["commands"]
    removed, _added = line_diff(before, path.read_text())
    assert removed and all(
        "store" in line or "1.0.0" in line or "sha256:" in line or "STORE" in line or line.strip() == ""
        for line in removed
    ), removed
    assert_openpai_accepts(job_data)

    with pytest.raises(PrereqError, match="nothing-here is not locked"):
        jobs.lock(path, upgrade=["nothing-here"], index=tiny["new"])
    cli = prereq_cli("job", "lock", str(path), "--upgrade", "--index", str(tiny["new"]))
    assert cli.returncode == 0, cli.stderr
    assert "updated alpha 1.0.0 -> 2.0.0" in cli.stdout and "updated store 1.1.0 -> 2.0.0" in cli.stdout
    assert_openpai_accepts(data(path))


def test_resolve_warns_about_deprecated_locked_versions(tmp_path: Path, tiny: dict[str, Path]) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["legacy"], index=tiny["new"])
    resolved = jobs.prepare(path, index=tiny["new"])
    assert any("legacy 1.1.0 is deprecated: Replaced by alpha. Use alpha instead." in w for w in resolved.warnings)
    assert_openpai_accepts(resolved.data)
    cli = prereq_cli("job", "resolve", str(path), "--index", str(tiny["new"]))
    assert cli.returncode == 0 and "deprecated" in cli.stderr and load_yaml(cli.stdout).data == resolved.data


def test_dockerimage_items_set_the_task_role_image(tmp_path: Path, tiny: dict[str, Path]) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(
        "protocolVersion: 2\nname: images\ntype: job\ntaskRoles:\n  train:\n    instances: 1\n"
        "    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n    commands:\n      - echo hi\n"
    )
    jobs.add(path, ["img-a", "alpha"], index=tiny["new"])
    job_data = data(path)
    assert job_data["taskRoles"]["train"]["dockerImage"] == "img-a"
    assert list(job_data["taskRoles"]["train"])[:2] == ["instances", "dockerImage"]
    assert_openpai_accepts(job_data)
    with pytest.raises(PrereqError, match="two docker images: img-a and img-b"):
        jobs.add(path, ["img-b"], index=tiny["new"])

    other = tmp_path / "other.yaml"
    other.write_text((JOBS / "two-roles.yaml").read_text())
    with pytest.raises(PrereqError, match=r"other.yaml:\d+: task role ps already uses dockerImage 'image'"):
        jobs.add(other, ["img-a"], task_role="ps", index=tiny["new"])

    # Removing the image keeps it while dockerImage names it.
    result = jobs.remove(path, ["img-a"], index=tiny["new"])
    assert any(c.action == "kept" and "dockerImage of task role train" in c.reason for c in result.changes)
    assert "img-a" in top_names(data(path))


# --------------------------------------------------------------------------- resolve


def test_user_story_end_to_end(tmp_path: Path, bundled: Path) -> None:
    """A task role that names mnist-data and output-dir resolves to a job OpenPAI runs."""
    path = copy_job(tmp_path, "story.yaml")
    out = tmp_path / "resolved.yaml"
    result = jobs.prepare(path, index=bundled, output=out)
    assert out.read_text() == result.text
    job_data = data(out)
    assert_openpai_accepts(job_data)

    closure = ["nfs-storage-1", "apt-proxy", "base-tools", "mnist-data", "output-dir"]
    assert job_data["taskRoles"]["train"]["prerequisites"] == [*closure, "pytorch-official"]
    assert top_names(job_data) == [*closure, "pytorch-official"]
    assert job_data["taskRoles"]["train"]["commands"][0] == runtime.JOB_LOAD_LINE
    items = {item["name"]: item for item in job_data["prerequisites"]}
    mount = registry_item("nfs-storage-1")["parameters"]["mountPoint"]
    assert f"export MNIST_DIR={mount}/mnist" in items["mnist-data"]["callbacks"][0]["commands"]
    assert f"export NFS_MOUNT_POINT={mount}" in items["nfs-storage-1"]["callbacks"][0]["commands"]
    assert items["pytorch-official"]["uri"] == registry_item("pytorch-official")["uri"]
    assert "<%" not in str(items["mnist-data"])
    assert f"added nfs-storage-1 {registry_item('nfs-storage-1')['version']}, required by mnist-data, output-dir" in [
        c.describe() for c in result.changes
    ]
    assert path.read_text() == (JOBS / "story.yaml").read_text()  # the job itself is not changed
    # Of the lines the user wrote, only the task role's flow list grew (and commands got the load line).
    assert line_diff(path.read_text(), result.text)[0] == ["    prerequisites: [mnist-data, output-dir]\n"]
    assert result.text.startswith("# The user story: the task role names what it needs; prereq fills in the rest.\n")

    cli = prereq_cli("job", "resolve", str(path), "--index", str(bundled))
    assert cli.returncode == 0, cli.stderr
    assert load_yaml(cli.stdout).data == job_data


def test_every_job_template_resolves_to_a_job_openpai_accepts(bundled: Path) -> None:
    templates = sorted((REPO / "registry" / "templates").glob("*.yaml"))
    assert len(templates) >= 3
    index = Index.load(bundled)
    for template in templates:
        text = template.read_text(encoding="utf-8")
        roles = load_yaml(text).data["taskRoles"]
        assert any(spec.get("prerequisites") for spec in roles.values()), template.name
        result = jobs.prepare_text(text, index=index, expressions={}, source=template.name)
        assert_openpai_accepts(result.data)
        for spec in result.data["taskRoles"].values():
            assert spec["commands"][0] == runtime.JOB_LOAD_LINE
            assert set(spec["prerequisites"]) <= set(top_names(result.data))


def test_missing_expressions_are_named_with_the_command_to_set_them(
    tmp_path: Path, bundled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path = copy_job(tmp_path, "smb-expression.yaml")
    with pytest.raises(PrereqError, match=r"<% expression.smbUser %> has no stored value") as caught:
        jobs.prepare(path, index=bundled)
    assert "prereq expression set smbUser VALUE" in caught.value.hint
    cli = prereq_cli(
        "job", "resolve", str(path), "--index", str(bundled), env={"XDG_CONFIG_HOME": str(tmp_path / "config")}
    )
    assert cli.returncode == 1 and "smbUser" in cli.stderr and "Traceback" not in cli.stderr

    only_item = tmp_path / "only-item.yaml"
    only_item.write_text(path.read_text().replace('      - echo "run by <% expression.smbUser %>"\n', ""))
    with pytest.raises(
        PrereqError,
        match=r"only-item.yaml: prerequisite smb-storage \(from the index\): "
        r"<% expression.smbUser %> has no stored value",
    ):
        jobs.prepare(only_item, index=bundled)

    assert (
        prereq_cli(
            "expression", "set", "smbUser", "erin o'neil", env={"XDG_CONFIG_HOME": str(tmp_path / "config")}
        ).returncode
        == 0
    )
    resolved = jobs.prepare(path, index=bundled)
    items = {item["name"]: item for item in resolved.data["prerequisites"]}
    commands = items["smb-storage"]["callbacks"][0]["commands"]
    assert "echo username=erin o'neil >> /root/.smb/credentials" in commands
    assert "echo 'password=<% $secrets.SMB_PASSWORD %>' >> /root/.smb/credentials" in commands  # for OpenPAI
    assert resolved.data["taskRoles"]["train"]["commands"][-1] == 'echo "run by erin o\'neil"'
    assert runtime.survives_round_trip({k: v for k, v in items["smb-storage"].items() if k != "type"})
    assert_openpai_accepts(resolved.data)
    # Stored values that the runtime would mangle are refused.
    with pytest.raises(PrereqError, match="changed or broken"):
        jobs.prepare(path, index=bundled, expressions={"smbUser": 'it\'s "quoted"'})


def test_resolve_works_from_the_lock_alone(tmp_path: Path, bundled: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["mnist-data", "output-dir"], index=bundled)
    monkeypatch.delenv("PREREQ_INDEX", raising=False)
    text = path.read_text().replace(f"index: {bundled}", f"index: {tmp_path / 'gone'}")
    path.write_text(text)
    resolved = jobs.prepare(path)
    assert resolved.text == text and resolved.data == data(text)
    assert any("could not check" in warning for warning in resolved.warnings)


def test_resolve_reports_what_openpai_would_refuse(tmp_path: Path, bundled: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "protocolVersion: 2\nname: bad job\ntype: job\ntaskRoles:\n  Train:\n    dockerImage: cuda-base\n"
        "    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n    commands: [run]\n"
    )
    with pytest.raises(PrereqError, match="OpenPAI would refuse the job") as caught:
        jobs.prepare(path, index=bundled)
    message = caught.value.message
    assert "bad.yaml:2: name:" in message and "Train" in message and caught.value.exit_code == 1
    ghost = tmp_path / "ghost.yaml"
    ghost.write_text((JOBS / "story.yaml").read_text().replace("[mnist-data, output-dir]", "[mnist-data, ouput-dir]"))
    with pytest.raises(PrereqError, match=r"ghost.yaml:10: task role train names 'ouput-dir'") as caught:
        jobs.prepare(ghost, index=bundled)
    assert "output-dir" in caught.value.hint


def test_index_source_order(tmp_path: Path, tiny: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    monkeypatch.setenv("PREREQ_INDEX", str(tiny["old"]))
    jobs.add(path, ["alpha"])  # from $PREREQ_INDEX
    assert data(path)["extras"]["prereq"]["index"] == str(tiny["old"])
    monkeypatch.delenv("PREREQ_INDEX")
    monkeypatch.chdir(tmp_path)
    assert jobs.lock(path, upgrade_all=True).changes == []  # the recorded index: old has no newer store
    assert {c.name for c in jobs.lock(path, upgrade_all=True, index=tiny["new"]).changes} == {"store", "alpha"}


def test_help_of_every_new_command(capsys: pytest.CaptureFixture[str]) -> None:
    from prereq.cli import main

    for command in (
        ["job"],
        ["job", "add"],
        ["job", "remove"],
        ["job", "lock"],
        ["job", "resolve"],
        ["expression"],
        ["expression", "set"],
        ["--help"],
    ):
        with pytest.raises(SystemExit) as caught:
            main([*command, "--help"] if command != ["--help"] else command)
        assert caught.value.code == 0
    assert "expression" in capsys.readouterr().out


# --------------------------------------------------------------------------- bad input: clean errors


SMALL_JOB = """\
protocolVersion: 2
name: small
type: job
taskRoles:
  train:
    instances: 1
    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}
    commands:
      - echo hi
"""


def write_job(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "job.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def assert_clean_cli_error(args: list[str], message: str, code: int = 1) -> None:
    cli = prereq_cli(*args)
    assert cli.returncode == code, cli.stderr
    assert "internal error" not in cli.stderr and "Traceback" not in cli.stderr
    assert message in cli.stderr, cli.stderr


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


def test_index_source_is_chosen_in_one_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from prereq.index.reader import index_source

    monkeypatch.delenv("PREREQ_INDEX", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "jobs" / "site").mkdir(parents=True)
    assert index_source(None) == "build/site"
    assert index_source(None, recorded="site") == "site"  # not found anywhere: as recorded
    assert index_source(None, recorded="site", base_dir=tmp_path / "jobs") == str(tmp_path / "jobs" / "site")
    (tmp_path / "site").mkdir()
    assert index_source(None, recorded="site", base_dir=tmp_path / "jobs") == "site"  # the current folder first
    assert index_source(None, recorded="https://example.org/x", base_dir=tmp_path) == "https://example.org/x"
    monkeypatch.setenv("PREREQ_INDEX", "from-env")
    assert index_source(None, recorded="site") == "from-env"
    assert index_source("given", recorded="site") == "given"
    # `prereq search` uses the same choice.
    cli = prereq_cli("search", "x", env={"PREREQ_INDEX": str(tmp_path / "from-env")})
    assert cli.returncode == 2 and f"no index found at {tmp_path / 'from-env'}" in cli.stderr


def test_job_state_copy_is_independent() -> None:
    state = jobs.JobState(index="a", selected={"train": ["x"]}, lock={"x": jobs.Locked("1.0.0", "sha256:0")})
    copy = state.copy(index="b")
    copy.selected["train"].append("y")
    copy.lock["y"] = jobs.Locked("2.0.0", "sha256:1")
    assert (copy.index, state.index) == ("b", "a")
    assert state.selected == {"train": ["x"]} and list(state.lock) == ["x"]
    assert state.copy().index == "a"


def test_remove_names_an_unknown_task_role(tmp_path: Path, bundled: Path) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["mnist-data"], index=bundled)
    with pytest.raises(PrereqError, match="no task role 'test'") as caught:
        jobs.remove(path, ["mnist-data"], task_role="test", index=bundled)
    assert caught.value.hint == "task roles: train"


def test_lock_upgrade_flags(tmp_path: Path, tiny: dict[str, Path]) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["alpha", "gamma"], index=tiny["old"])
    only_store = jobs.lock(path, upgrade=["store"], index=tiny["new"], dry_run=True)
    assert [c.name for c in only_store.changes] == ["store"]
    everything = jobs.lock(path, upgrade_all=True, index=tiny["new"], dry_run=True)
    assert {c.name for c in everything.changes} == {"store", "alpha"}
    cli = prereq_cli("job", "lock", str(path), "--upgrade", "store", "--dry-run", "--index", str(tiny["new"]))
    assert cli.returncode == 0 and "updated store 1.0.0 -> 1.1.0" in cli.stderr and "updated alpha" not in cli.stderr
