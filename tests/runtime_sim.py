"""A simulator of the OpenPAI runtime, for tests (not a test file itself).

It runs one task role of a job the way ``microsoft/openpai-runtime`` does
(see ../shared/openpai/README.md, "What the rest-server and runtime do"):

1. For each prerequisite the task role lists, in list order: skip it unless
   ``plugin`` starts with ``com.microsoft.pai.runtimeplugin.``; lift
   ``plugin``, ``failurePolicy`` and ``type`` out; render ``<% $... %>``
   references in ``str(parameters)``; parse that with ``yaml.safe_load`` (a
   YAML error is the init container dying: the run stops there).
2. For the ``cmd`` plugin: all ``taskStarts`` commands of the plugin (or its
   ``preCommands``) go to ``plugin_pre<i>.sh``, all ``taskSucceeds`` (or
   ``postCommands``) to ``plugin_post<i>.sh``, one command a line, headed by
   ``set -o errexit`` — or ``set +o errexit`` and closed by
   ``set -o errexit`` under ``failurePolicy: ignore``.
3. Each ``plugin_pre<i>.sh`` runs as ``/bin/bash plugin_pre<i>.sh``, its own
   process; the first that fails ends the run.  Then ``user.sh`` (the task
   role's commands joined by newlines, under
   ``set -o errexit -o nounset -o pipefail``), its own process.  If it exits
   0, each ``plugin_post<i>.sh`` in reverse order, each its own process.

Everything runs in a sandbox folder: a clean environment (``PATH`` kept, with
the sandbox's ``bin/`` first for fakes), ``HOME`` and the working directory
inside it, a few ``PAI_*`` variables.  prereq's variables folder in the container's own ``/tmp``
(``/tmp/prereq.$UID``) is the sandbox's ``tmp/prereq.$UID``, unless the run is given a ``/tmp`` of
its own (a private mount namespace: tests/test_variables_file.py).
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from prereq.jobs.apply import WorkingCopy
from prereq.jobs.loadline import CallbackLines, plan_callback_lines
from prereq.openpai import runtime

PLUGIN_PREFIX = "com.microsoft.pai.runtimeplugin."
USER_HEADER = "set -o errexit -o nounset -o pipefail"


@dataclass
class Step:
    """One process the runtime started (or the init stage that failed)."""

    kind: str  # "init", "start", "job", "succeed"
    name: str  # the prerequisite's name, or "job"
    returncode: int
    stdout: str = ""
    stderr: str = ""
    script: str = ""  # what the process ran


@dataclass
class RunResult:
    sandbox: Path
    env_file: Path
    steps: list[Step] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """The container succeeded: every step ran and exited 0."""
        return (
            bool(self.steps)
            and all(step.returncode == 0 for step in self.steps)
            and any(step.kind == "job" for step in self.steps)
        )

    @property
    def job(self) -> Step | None:
        return next((step for step in self.steps if step.kind == "job"), None)

    def step(self, kind: str, name: str | None = None) -> Step | None:
        return next((s for s in self.steps if s.kind == kind and (name is None or s.name == name)), None)

    @property
    def failed(self) -> Step | None:
        return next((step for step in self.steps if step.returncode != 0), None)

    def env_names(self) -> set[str]:
        """The variables the environment file sets (its ``export -p`` lines, as bash in POSIX mode writes them)."""
        return set(re.findall(r"^export ([A-Za-z_][A-Za-z0-9_]*)", self.env_text(), re.M))

    def env_text(self) -> str:
        return self.env_file.read_text(encoding="utf-8") if self.env_file.exists() else ""

    def describe(self) -> str:
        """Everything, for assertion messages."""
        lines = []
        for step in self.steps:
            lines.append(f"--- {step.kind} {step.name}: exit {step.returncode}")
            if step.stdout:
                lines.append("stdout: " + step.stdout.rstrip())
            if step.stderr:
                lines.append("stderr: " + step.stderr.rstrip())
        lines.append("--- env file:\n" + self.env_text())
        return "\n".join(lines)


def _replace_refs(text: str, job: dict[str, Any], secrets: dict[str, Any] | None, role: str) -> str:
    """``<% $parameters.x %>``, ``$secrets``, ``$data/$script/$output`` as the runtime renders them, failing
    as it fails: KeyError for a key the job lacks, TypeError when it has no secrets (``None``) at all,
    StopIteration when the task role binds no prerequisite of that type."""
    config = copy.deepcopy(job)
    config["secrets"] = secrets

    def find(match: re.Match[str]) -> str:
        ref = re.sub(r"(\s*)%>", "", re.sub(r"<%(\s*)\$", "", match.group(0))).split(".")
        if ref[0] in ("parameters", "secrets"):
            current: Any = config[ref[0]]
        else:
            current = next(
                p
                for p in config["prerequisites"]
                if p["type"] == ref[0] and p["name"] == config["taskRoles"][role][ref[0]]
            )
        for part in ref[1:]:
            indexes = re.findall(r"([\s\S]*?)\[(\s*)([0-9]+)(\s*)\]", part)
            if not indexes:
                current = current[part]
            for name, _, index, _ in indexes:
                if name:
                    current = current[name]
                current = current[int(index)]
        return str(current)

    return re.sub(r"<%(\s*)\$([\s\S]*?)(\s*)%>", find, text)


def in_container(text: str, tmp: Path) -> str:
    """A script's text with prereq's folder in the container's ``/tmp`` under ``tmp`` (only that path: the
    tests' own folders live under the host's /tmp)."""
    return text.replace(runtime.VARS_DIR, f"{tmp}/{PurePosixPath(runtime.VARS_DIR).name}")


def vars_file(tmp: Path) -> Path:
    """Where prereq's variables file is, ``tmp`` standing for the container's ``/tmp``."""
    return tmp / PurePosixPath(runtime.VARS_FILE.replace("$UID", str(os.getuid()))).relative_to("/tmp")


def _script(commands: list[str], policy: str) -> str:
    lines = [command + "\n" for command in commands]
    if policy.lower() == "ignore":
        return "set +o errexit\n" + "".join(lines) + "set -o errexit\n"
    return "set -o errexit\n" + "".join(lines)


def _cmd_scripts(parameters: dict[str, Any], policy: str) -> tuple[str | None, str | None]:
    """plugin_pre / plugin_post text of the cmd plugin, as its init.py writes them."""
    pre: list[str] = []
    post: list[str] = []
    if "callbacks" in parameters:
        assert "preCommands" not in parameters and "postCommands" not in parameters
        for callback in parameters["callbacks"]:
            if callback["event"] == "taskStarts":
                pre.extend(callback["commands"])
            elif callback["event"] == "taskSucceeds":
                post.extend(callback["commands"])
    else:
        pre = list(parameters.get("preCommands") or [])
        post = list(parameters.get("postCommands") or [])
    return (_script(pre, policy) if pre else None, _script(post, policy) if post else None)


def sandbox_env(sandbox: Path, job: dict[str, Any], role: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {
        "PATH": f"{sandbox / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(sandbox / "home"),
        "LANG": "C.UTF-8",
        "PAI_JOB_NAME": str(job.get("name", "job")),
        "PAI_USER_NAME": "tester",
        "PAI_CURRENT_TASK_ROLE_NAME": role,
        "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX": "0",
        "PAI_TASK_ROLE_COUNT": str(len(job.get("taskRoles") or {})),
        "PAI_TASK_ROLE_LIST": ",".join(job.get("taskRoles") or {}),
    }
    env.update(extra or {})
    return env


def inherited_names(sandbox: Path) -> set[str]:
    """What every script of a task inherits, less what describes one process only (not handed on)."""
    return set(sandbox_env(sandbox, {"name": "x", "taskRoles": {"main": {}}}, "main")) - {"PWD", "OLDPWD", "SHLVL", "_"}


def _prepare_sandbox(sandbox: Path, fakes: dict[str, str]) -> None:
    """The sandbox's folders, and each fake command as an executable script in its ``bin/``."""
    for folder in ("bin", "home", "work", "runtime", "tmp"):
        (sandbox / folder).mkdir(parents=True, exist_ok=True)
    for name, body in fakes.items():
        fake = sandbox / "bin" / name
        fake.write_text("#!/bin/bash\n" + body + "\n", encoding="utf-8")
        fake.chmod(0o755)


RENDER_ERRORS = (KeyError, TypeError, StopIteration, IndexError)  # how the runtime's rendering of a reference fails


def _write_plugin_scripts(
    job: dict[str, Any],
    role: str,
    secrets: dict[str, Any] | None,
    runtime_dir: Path,
    result: RunResult,
    tmp: Path,
) -> tuple[list[tuple[str, Path]], list[tuple[str, Path]]] | None:
    """Step 1 and 2: the ``plugin_pre<i>.sh`` scripts in run order and the ``plugin_post<i>.sh`` ones in
    reverse order, as (prerequisite name, path); None when an init container died (recorded in ``result``)."""
    by_name = {p["name"]: p for p in job.get("prerequisites") or []}
    pre_scripts: list[tuple[str, Path]] = []
    post_scripts: list[tuple[str, Path]] = []
    index = -1
    for name in job["taskRoles"][role].get("prerequisites") or []:
        config = copy.deepcopy(by_name[name])
        plugin = config.pop("plugin", None)
        if not isinstance(plugin, str) or not plugin.startswith(PLUGIN_PREFIX):
            continue  # not a runtime plugin: the runtime silently does nothing with it
        index += 1
        policy = config.pop("failurePolicy", "fail")
        config.pop("type", None)
        try:
            parameters = yaml.safe_load(_replace_refs(str(config), job, secrets, role))
        except yaml.YAMLError as error:
            result.steps.append(Step("init", name, 1, "", f"init container died: {error}"))
            return None
        except RENDER_ERRORS as error:
            result.steps.append(Step("init", name, 1, "", f"init container died: {type(error).__name__}: {error}"))
            return None
        if plugin[len(PLUGIN_PREFIX) :] != "cmd":
            continue  # ssh, git, tensorboard: not simulated
        pre, post = _cmd_scripts(parameters or {}, policy)
        if pre is not None:
            path = runtime_dir / f"plugin_pre{index}.sh"
            path.write_text(in_container(pre, tmp), encoding="utf-8")
            pre_scripts.append((name, path))
        if post is not None:
            path = runtime_dir / f"plugin_post{index}.sh"
            path.write_text(in_container(post, tmp), encoding="utf-8")
            post_scripts.insert(0, (name, path))
    return pre_scripts, post_scripts


def _run_script(
    result: RunResult, environment: dict[str, str], timeout: float, kind: str, name: str, path: Path
) -> bool:
    """One process: ``/bin/bash path`` in the sandbox's work folder, recorded as a step; True if it exited 0."""
    script = path.read_text(encoding="utf-8")
    proc = subprocess.run(
        ["/bin/bash", str(path)],
        cwd=result.sandbox / "work",
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    result.steps.append(Step(kind, name, proc.returncode, proc.stdout, proc.stderr, script))
    return proc.returncode == 0


def user_commands(job: dict[str, Any], role: str) -> list[str]:
    """What ``user.sh`` runs: the default deployment's preCommands for the task role, its commands, then
    the deployment's postCommands (the rest-server joins them so)."""
    commands = list(job["taskRoles"][role].get("commands") or [])
    default = (job.get("defaults") or {}).get("deployment")
    for deployment in job.get("deployments") or []:
        if deployment.get("name") == default:
            spec = (deployment.get("taskRoles") or {}).get(role) or {}
            return [*(spec.get("preCommands") or []), *commands, *(spec.get("postCommands") or [])]
    return commands


def run_job(
    job: dict[str, Any],
    *,
    role: str | None = None,
    sandbox: Path | None = None,
    secrets: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    fakes: dict[str, str] | None = None,
    timeout: float = 30,
    tmp: Path | None = None,
) -> RunResult:
    """Run ``role`` (the first task role by default) of ``job`` as the runtime would.

    ``fakes`` maps a command name to a bash script body put first on PATH
    (``{"mount": "exit 0"}``).  ``tmp`` stands for the container's ``/tmp`` (the sandbox's ``tmp`` by
    default; ``/tmp`` itself in a private mount namespace).  ``env`` adds variables to the clean
    environment.  ``secrets`` are the job's own ``secrets`` unless given (the rest-server hands them on;
    None when the job has none).
    """
    sandbox = Path(sandbox or tempfile.mkdtemp(prefix="prereq-runtime-"))
    role = role or next(iter(job["taskRoles"]))
    _prepare_sandbox(sandbox, fakes or {})
    environment = sandbox_env(sandbox, job, role, env)
    tmp = tmp or sandbox / "tmp"
    result = RunResult(sandbox=sandbox, env_file=vars_file(tmp))
    runtime_dir = sandbox / "runtime"

    def run(kind: str, name: str, path: Path) -> bool:
        return _run_script(result, environment, timeout, kind, name, path)

    scripts = _write_plugin_scripts(
        job, role, job.get("secrets") if secrets is None else secrets, runtime_dir, result, tmp
    )
    if scripts is None:
        return result
    pre_scripts, post_scripts = scripts
    for name, path in pre_scripts:
        if not run("start", name, path):
            return result
    user = runtime_dir / "user.sh"
    user_script = USER_HEADER + "\n" + "\n".join(user_commands(job, role)) + "\n"
    user.write_text(in_container(user_script, tmp), encoding="utf-8")
    if not run("job", "job", user):
        return result
    for name, path in post_scripts:
        if not run("succeed", name, path):
            return result
    return result


def make_job(
    forms: list[dict[str, Any]], commands: list[str], *, role: str = "main", name: str = "test-job"
) -> dict[str, Any]:
    """A job with ``forms`` as its prerequisites, all listed by one task role, in order; the first callback
    the role runs starts with the long callback line, as the job engine places it."""
    job = {
        "protocolVersion": 2,
        "name": name,
        "type": "job",
        "prerequisites": forms,
        "taskRoles": {role: {"instances": 1, "prerequisites": [form["name"] for form in forms], "commands": commands}},
    }
    work = WorkingCopy(job)
    plan_callback_lines(work, CallbackLines.of(None))
    return work.data


def init_failure(job: dict[str, Any], *, role: str, secrets: dict[str, Any] | None = None) -> Step | None:
    """The init step that would die rendering task role ``role``'s plugin parameters, or None when they
    render and parse (nothing is run)."""
    with tempfile.TemporaryDirectory(prefix="prereq-runtime-init-") as folder:
        result = RunResult(sandbox=Path(folder), env_file=Path(folder) / "env.sh")
        chosen = job.get("secrets") if secrets is None else secrets
        _write_plugin_scripts(job, role, chosen, Path(folder), result, Path(folder))
        return result.step("init")
