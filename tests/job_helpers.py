"""Helpers for the job-editing tests (tests/test_job_*.py): job files, the real command line, the
tiny registry whose git history holds several versions of an item.

The indexes they run against are the ``bundled`` and ``tiny`` fixtures of tests/conftest.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from gitrepo import GitRepo, item_yaml
from prereq.core.yamlload import load_yaml
from prereq.openpai.protocol import validate_job

REPO = Path(__file__).resolve().parents[1]
JOBS = Path(__file__).resolve().parent / "fixtures" / "jobs"
REG = "registry/prerequisites/"

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


# --------------------------------------------------------------------------- job files


def registry_item(name: str) -> dict:
    return load_yaml((REPO / "registry" / "prerequisites" / f"{name}.yaml").read_bytes()).data


def copy_job(tmp_path: Path, name: str, *, crlf: bool = False) -> Path:
    text = (JOBS / name).read_text(encoding="utf-8")
    path = tmp_path / name
    path.write_bytes((text.replace("\n", "\r\n") if crlf else text).encode("utf-8"))
    return path


def write_job(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "job.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def data(path_or_text: Path | str) -> dict:
    text = path_or_text.read_text(encoding="utf-8") if isinstance(path_or_text, Path) else path_or_text
    return load_yaml(text, merge_keys=True).data  # as OpenPAI reads a job


def top_names(job_data: dict) -> list[str]:
    return [item["name"] for item in job_data.get("prerequisites") or []]


# --------------------------------------------------------------------------- what a user sees


def prereq_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The real command line, in its own process (exit code, stdout and stderr as a user sees them)."""
    code = "import sys; from prereq.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )


def assert_clean_cli_error(args: list[str], message: str, code: int = 1) -> None:
    cli = prereq_cli(*args)
    assert cli.returncode == code, cli.stderr
    assert "internal error" not in cli.stderr and "Traceback" not in cli.stderr
    assert message in cli.stderr, cli.stderr


def assert_openpai_accepts(job_data: dict) -> None:
    problems = validate_job(job_data)
    assert problems == [], [f"{p.where()}: {p.message}" for p in problems]


# --------------------------------------------------------------------------- the tiny registry


def image(name: str, version: str, extra: str = "") -> str:
    return (
        f"name: {name}\nversion: {version}\ntype: dockerimage\ntitle: {name} image\nowners: [alice]\n"
        f"uri: example/{name}:{version}\n{extra}"
    )


def store(version: str, mount: str, *commands: str) -> str:
    return item_yaml(
        "store",
        version,
        type_="data",
        parameters={"mountPoint": mount},
        commands=["export STORE=<% this.mountPoint %>", *commands],
    )


def alpha(version: str, store_range: str) -> str:
    return item_yaml(
        "alpha", version, require=[f"store@{store_range}"], commands=["export ALPHA_DIR=<% this.mountPoint %>/alpha"]
    )


def _first_versions(repo: GitRepo) -> None:
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write(REG + "store.yaml", store("1.0.0", "/mnt/store"))
    repo.write(REG + "alpha.yaml", alpha("1.0.0", "^1.0"))
    repo.write(REG + "gamma.yaml", item_yaml("gamma", "1.0.0", require=["store"]))
    repo.write(REG + "legacy.yaml", item_yaml("legacy", "1.0.0"))
    repo.write(REG + "greet.yaml", item_yaml("greet", "1.0.0", commands=["echo hello <% expression.userName %>"]))
    repo.write(REG + "img-a.yaml", image("img-a", "1.0.0"))
    repo.write(REG + "img-b.yaml", image("img-b", "1.0.0"))
    repo.commit("first versions")


def _later_versions(repo: GitRepo) -> None:
    repo.write(REG + "store.yaml", store("1.1.0", "/mnt/store", "echo v1.1"))
    repo.write(
        REG + "legacy.yaml",
        item_yaml("legacy", "1.1.0", extra="deprecated: {reason: Replaced by alpha., replacement: alpha}\n"),
    )
    repo.commit("store 1.1, legacy deprecated")
    repo.write(REG + "store.yaml", store("2.0.0", "/mnt/store2"))
    repo.write(REG + "alpha.yaml", alpha("2.0.0", "^2.0"))
    repo.write(REG + "beta.yaml", item_yaml("beta", "1.0.0", require=["store@^2.0"]))
    repo.commit("store 2")


def tiny_indexes(root: Path) -> dict[str, Path]:
    """``old`` index: store 1.0.0 only.  ``new``: store 1.0.0, 1.1.0 and 2.0.0 (from history), alpha 1.0.0
    (store@^1.0) and 2.0.0 (store@^2.0), beta (store@^2.0), a deprecated legacy 1.1.0."""
    from prereq.marketplace.build import build

    repo = GitRepo(root / "repo")
    _first_versions(repo)
    old = root / "old"
    assert build(repo.root / "registry", old, with_site=False).built
    _later_versions(repo)
    new = root / "new"
    assert build(repo.root / "registry", new, with_site=False).built
    return {"old": old, "new": new}
