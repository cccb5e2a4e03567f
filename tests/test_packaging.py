"""prereq as a cluster team installs it: the wheel, in a fresh environment, outside this checkout.

The wheel is built with the project's own backend and installed (not editable) into a new
virtual environment whose only link to this machine's packages is a path to the third-party
libraries (so no download is needed).  An audit hook in that environment reports every file
or folder opened inside the checkout, outside ``.venv``: the installed prereq must read none.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VENV = Path(sys.prefix)
MARK = "READ FROM THE CHECKOUT: "

# Reports, on stderr, every open or listing of a path in the checkout but not in its .venv.
AUDIT = f"""
import os, sys
_ROOT, _ALLOWED = {str(REPO)!r} + os.sep, {str(VENV)!r} + os.sep
def _audit(event, args):
    if event in ("open", "os.listdir", "os.scandir") and args and args[0] is not None:
        try:
            path = os.path.abspath(os.fsdecode(args[0]))
        except (TypeError, ValueError):
            return
        if path.startswith(_ROOT) and not path.startswith(_ALLOWED):
            sys.stderr.write({MARK!r} + path + "\\n")
sys.addaudithook(_audit)
"""


def _run(args: list[str], *, cwd: Path, env: dict[str, str], timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@dataclass(frozen=True)
class Installed:
    prereq: Path  # the fresh environment's command
    env: dict[str, str]  # the environment to run it in
    wheel: Path  # what it was installed from


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A fresh environment with the wheel installed: its ``prereq``, the environment to run it in, the wheel."""
    work = tmp_path_factory.mktemp("packaging")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(work), str(REPO)], check=True)
    (wheel,) = work.glob("openpai_prereq-*.whl")
    fresh = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True)
    python = fresh / "bin" / "python"
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", str(wheel)], check=True)
    site = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True
        ).strip()
    )
    (site / "third_party.pth").write_text(sysconfig.get_path("purelib") + "\n")
    (site / "sitecustomize.py").write_text(AUDIT)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "PREREQ", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join([str(fresh / "bin"), "/usr/bin", "/bin"])
    env["HOME"] = str(work / "home")
    # The fence holds: prereq comes from the wheel, and a read of the checkout is reported.
    where = _run(
        [str(python), "-c", f"import prereq; print(prereq.__file__); open({str(REPO / 'README.md')!r})"],
        cwd=work,
        env=env,
    )
    assert where.stdout.startswith(str(fresh)) and MARK + str(REPO / "README.md") in where.stderr, where
    return Installed(prereq=fresh / "bin" / "prereq", env=env, wheel=wheel)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve_briefly(prereq: Path, repo: Path, env: dict[str, str]) -> tuple[int, str]:
    """Start ``prereq serve`` on a free loopback port, fetch the home page, stop it: (HTTP status, stderr)."""
    port = _free_port()
    server = subprocess.Popen(
        [str(prereq), "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=repo,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    status = 0
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and server.poll() is None and not status:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    status = response.status
            except OSError:
                time.sleep(0.5)
    finally:
        server.terminate()
        _, err = server.communicate(timeout=60)
    return status, err


JOB = """\
# a job of our own: this comment stays
protocolVersion: 2
name: hello
type: job
taskRoles:
  main:
    instances: 1
    dockerImage: base
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands:
      - echo run
prerequisites:
  - name: base
    type: dockerimage
    uri: ubuntu:22.04
"""


def test_the_wheel_alone_starts_validates_builds_serves_and_edits_jobs(installed: Installed, tmp_path: Path) -> None:
    prereq, env = installed.prereq, installed.env
    repo = tmp_path / "team-registry"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    steps = [
        ["--version"],
        ["init", "--name", "Team prerequisites", "--owner", "alice"],
        ["new", "team-data", "--type", "data"],
        # Strict by default (prereq.yaml's validate.strict), it would fail: the new item's blanks say TODO (PRQ114).
        ["validate", "--no-strict"],
    ]
    for step in steps:
        run = _run([str(prereq), *step], cwd=repo, env=env)
        assert run.returncode == 0 and MARK not in run.stderr, (step, run.stdout, run.stderr)
    git = ["git", "-c", "user.name=Alice", "-c", "user.email=alice@example.org"]
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "start"], cwd=repo, check=True)

    built = _run([str(prereq), "build", "--no-strict"], cwd=repo / "registry" / "prerequisites", env=env)  # anywhere in
    assert built.returncode == 0 and MARK not in built.stderr, built.stdout + built.stderr
    assert f"{prereq.parent.parent}/lib/" in built.stderr and "prereq/data/mkdocs.yml" in built.stderr  # packaged
    site = repo / "build" / "site"
    assert "<title>Team prerequisites</title>" in (site / "index.html").read_text(encoding="utf-8")
    assert (site / "items" / "hello-prereq" / "index.html").is_file()
    assert (site / "assets" / "composer").is_dir() and (site / "reference" / "prerequisite.schema.json").is_file()
    assert '<symbol id="logo"' in (site / "assets" / "icons.svg").read_text(encoding="utf-8")  # .icons/ packaged

    status, err = _serve_briefly(prereq, repo, env)
    assert status == 200 and MARK not in err, err[-3000:]

    job = tmp_path / "job.yaml"
    job.write_text(JOB, encoding="utf-8")
    added = _run([str(prereq), "job", "add", str(job), "hello-prereq", "--index", str(site)], cwd=tmp_path, env=env)
    assert added.returncode == 0 and MARK not in added.stderr, added.stdout + added.stderr
    text = job.read_text(encoding="utf-8")
    assert "# a job of our own: this comment stays" in text and "- name: hello-prereq" in text


def test_job_editing_needs_no_mkdocs(installed: Installed, tmp_path: Path) -> None:
    """The light install: with MkDocs and Jinja absent, jobs are edited and indexes built; a site build says
    which extra to install."""
    prereq, env = installed.prereq, installed.env
    python = prereq.with_name("python")
    blocked = "import sys; sys.modules.update(dict.fromkeys(['mkdocs', 'jinja2', 'material', 'pymdownx']))\n"
    run_cli = blocked + "from prereq.cli import main; sys.exit(main(sys.argv[1:]))"
    repo = tmp_path / "r"
    repo.mkdir()
    assert _run([str(python), "-c", run_cli, "init", "--owner", "bo"], cwd=repo, env=env).returncode == 0
    index = _run([str(python), "-c", run_cli, "build", "--no-site", "--out", "idx"], cwd=repo, env=env)
    assert index.returncode == 0, index.stderr
    site = _run([str(python), "-c", run_cli, "build", "--out", "site"], cwd=repo, env=env)
    assert site.returncode == 2 and "pip install 'openpai-prereq[site]'" in site.stderr, site.stderr
    job = tmp_path / "job.yaml"
    job.write_text(JOB, encoding="utf-8")
    added = _run(
        [str(python), "-c", run_cli, "job", "add", str(job), "hello-prereq", "--index", "r/idx"], cwd=tmp_path, env=env
    )
    assert added.returncode == 0, added.stderr


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=Alice", "-c", "user.email=alice@example.org", *args], cwd=repo, check=True)


def test_the_kit_installs_prereq_from_the_requirement_and_its_pre_commit_hook_runs(
    installed: Installed, tmp_path: Path
) -> None:
    """A repository made on GitHub and cloned (a README, a .gitignore, the branch master) gets the kit
    merged in, with prereq's requirement pointed at the wheel; pre-commit then builds the hook's own
    environment from that requirement, with pip as configured here, and runs it."""
    prereq, env = installed.prereq, installed.env
    repo = tmp_path / "team-registry"
    subprocess.run(["git", "init", "-q", "-b", "master", str(repo)], check=True)
    (repo / "README.md").write_text("# team-registry\n\nOur team's prerequisites.\n", encoding="utf-8")
    (repo / ".gitignore").write_text("__pycache__/\n", encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Initial commit")
    init = [str(prereq), "init", "--owner", "alice", "--prereq-requirement", str(installed.wheel)]
    run = _run(init, cwd=repo, env=env)
    assert run.returncode == 0 and MARK not in run.stderr, run.stdout + run.stderr
    assert (repo / "README.md").read_text(encoding="utf-8").startswith("# team-registry\n\nOur team's prerequisites.\n")
    assert (repo / ".gitignore").read_text(encoding="utf-8").startswith("__pycache__/\n")
    assert 'branches: ["master"]' in (repo / ".github" / "workflows" / "publish.yml").read_text(encoding="utf-8")

    python = prereq.with_name("python")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", "--python", str(python)]
    added = subprocess.run([*pip, "install", "pre-commit"], capture_output=True, text=True, timeout=300)
    assert added.returncode == 0, added.stdout + added.stderr
    hook_env = {**env, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit")}
    _git(repo, "add", "-A")  # pre-commit --all-files runs on the files git tracks
    hook = [str(python), "-m", "pre_commit", "run", "--all-files", "--color", "never"]
    passed = _run(hook, cwd=repo, env=hook_env, timeout=600)
    assert passed.returncode == 0 and "prereq validate" in passed.stdout, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout and "Skipped" not in passed.stdout, passed.stdout
    assert MARK not in passed.stderr, passed.stderr
    # The hook's prereq is the wheel's, and it really validates: a broken item fails the commit.
    item = repo / "registry" / "prerequisites" / "hello-prereq.yaml"
    item.write_text(item.read_text(encoding="utf-8").replace("version: 1.0.0", "version: one"), encoding="utf-8")
    failed = _run(hook, cwd=repo, env=hook_env, timeout=600)
    assert failed.returncode == 1 and "hello-prereq.yaml" in failed.stdout, failed.stdout + failed.stderr
    (venv,) = (tmp_path / "pre-commit").glob("repo*/py_env-*")
    version = _run([str(venv / "bin" / "prereq"), "--version"], cwd=tmp_path, env=env)
    assert version.stdout.split() == ["prereq", installed.wheel.name.split("-")[1]], version
