"""prereq job resolve: from the user story to a job OpenPAI accepts, job templates, expressions,
deprecated versions, the lock alone, and what OpenPAI would refuse."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from job_helpers import JOBS, REPO, assert_openpai_accepts, copy_job, data, prereq_cli, registry_item, top_names
from prereq import jobs
from prereq.core.errors import PrereqError
from prereq.core.yamlload import load_yaml
from prereq.index.reader import Index
from prereq.openpai import runtime
from textdiff import line_diff


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
    assert "echo username='erin o'\\''neil' >> /root/.smb/credentials" in commands  # quoted for the shell
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
    monkeypatch.chdir(tmp_path)  # no build/site to fall back on (a checkout where scripts/build.sh ran has one)
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
    # "Train" suits the rest-server's schema, but it runs as "train", which the runtime does not find.
    assert "bad.yaml:2: name:" in message and caught.value.exit_code == 1
    assert 'bad.yaml:6: taskRoles.Train: task role name "Train" is accepted by the rest-server' in message
    ghost = tmp_path / "ghost.yaml"
    ghost.write_text((JOBS / "story.yaml").read_text().replace("[mnist-data, output-dir]", "[mnist-data, ouput-dir]"))
    with pytest.raises(PrereqError, match=r"ghost.yaml:10: task role train names 'ouput-dir'") as caught:
        jobs.prepare(ghost, index=bundled)
    assert "output-dir" in caught.value.hint


def test_resolve_warns_about_deprecated_locked_versions(tmp_path: Path, tiny: dict[str, Path]) -> None:
    path = copy_job(tmp_path, "mnist-commented.yaml")
    jobs.add(path, ["legacy"], index=tiny["new"])
    resolved = jobs.prepare(path, index=tiny["new"])
    assert any("legacy 1.1.0 is deprecated: Replaced by alpha. Use alpha instead." in w for w in resolved.warnings)
    assert_openpai_accepts(resolved.data)
    cli = prereq_cli("job", "resolve", str(path), "--index", str(tiny["new"]))
    assert cli.returncode == 0 and "deprecated" in cli.stderr and load_yaml(cli.stdout).data == resolved.data


def test_the_issues_value_is_not_run(tmp_path: Path, bundled: Path) -> None:
    """Issue 29: smbUser 'bob; touch /tmp/PWNED #' reaches the credentials line as one word, and bash
    running the resolved command writes exactly the value and runs nothing else."""
    path = copy_job(tmp_path, "smb-expression.yaml")
    value = "bob; touch PWNED #"
    resolved = jobs.prepare(path, index=bundled, expressions={"smbUser": value})
    items = {item["name"]: item for item in resolved.data["prerequisites"]}
    line = next(c for c in items["smb-storage"]["callbacks"][0]["commands"] if c.startswith("echo username="))
    script = line.replace("/root/.smb/credentials", "credentials")
    run = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0 and (tmp_path / "credentials").read_text() == f"username={value}\n"
    assert not (tmp_path / "PWNED").exists() and resolved.warnings == []
    assert runtime.survives_round_trip({k: v for k, v in items["smb-storage"].items() if k != "type"})
