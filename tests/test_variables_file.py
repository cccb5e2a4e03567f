"""Issue 29: the variables file prerequisites hand on is the job user's alone.  The compiled callbacks and
the task role's commands run with real bash, as the runtime runs them (tests/runtime_sim.py), in a private
``/tmp`` (a mount namespace of its own, a fresh tmpfs there) where another user, ``nobody``, planted files
and links first at the places a naive implementation would use.  The job must not source what was
planted, must not write through a link, and its file must be mode 600 in a folder of mode 700; the
variables still reach the later callbacks and the job's commands.  Then the load lines an earlier prereq
wrote are replaced by the next edit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from prereq.jobs.apply import WorkingCopy
from prereq.jobs.document import JobDocument
from prereq.jobs.loadline import CallbackLines, LoadLines, plan_callback_lines, plan_load_line
from prereq.openpai import forms, runtime
from runtime_sim import make_job, run_job

REPO = Path(__file__).resolve().parent.parent
ATTACKER = "nobody"

# What nobody plants before the job starts, in the shared /tmp: a file that runs a command when sourced
# where prereq used to keep its file, and a folder of its own holding one; then, per test, what stands at
# the job user's folder (root's: /tmp/prereq.0): nothing, a link to nobody's folder, or nobody's folder.
PLANT = """
set -e
printf 'touch /tmp/pwned-by-env\\n' > /tmp/prereq.env
mkdir -p /tmp/evil && printf 'touch /tmp/pwned-by-folder\\nexport LEAK=1\\n' > /tmp/evil/env
printf 'touch /tmp/pwned-by-helper\\nprereq_vars(){ touch /tmp/pwned-by-helper; }\\n' > /tmp/evil/load
chmod -R a+rwx /tmp/evil
"""
AT_THE_FOLDER = {
    "nothing": "",
    "a link": "ln -s /tmp/evil /tmp/prereq.0",
    "a folder of nobody's": "mkdir -m 777 /tmp/prereq.0 && cp /tmp/evil/env /tmp/evil/load /tmp/prereq.0/",
    "a folder of root's anyone may write": "cp /tmp/evil/env /tmp/evil/load /tmp/prereq.0/",
}

# Run inside the namespace, as root: the job of three callbacks and the task role's commands, through
# the runtime simulation, with HOME as given; prints what the test checks, as JSON.
DRIVER = """
import json, os, stat, sys
from pathlib import Path
from prereq.openpai import forms, runtime
from runtime_sim import make_job, run_job

def item(name, starts, succeeds=()):
    callbacks = [{"event": "taskStarts", "commands": list(starts)}]
    if succeeds:
        callbacks.append({"event": "taskSucceeds", "commands": list(succeeds)})
    data = {"name": name, "version": "1.0.0", "type": "script", "plugin": runtime.DEFAULT_PLUGIN}
    data["callbacks"] = callbacks
    return forms.compile_item(data, lookup=lambda key: None)

home = sys.argv[1]
Path("/tmp/victim").write_text("root's own\\n")
items = [
    item("token", ["export HF_TOKEN=hf_secret"]),
    item("data", ['export DATA_DIR="/data/$HF_TOKEN"'], ['echo "after: $DATA_DIR $OUT"']),
    item("out", ['export OUT="$DATA_DIR/out"']),
]
commands = [runtime.JOB_LOAD_LINE, 'echo "job: ${HF_TOKEN-unset} ${OUT-unset} ${LEAK-none}"']
result = run_job(make_job(items, commands), sandbox=Path("/tmp/box"), env={"HOME": home}, tmp=Path("/tmp"))
folder = Path(f"/tmp/prereq.{os.getuid()}")
def mode(path):
    return oct(stat.S_IMODE(path.lstat().st_mode)) if os.path.lexists(path) else None
print(json.dumps({
    "steps": [[s.kind, s.name, s.returncode, s.stdout, s.stderr] for s in result.steps],
    "pwned": sorted(p.name for p in Path("/tmp").glob("pwned*")),
    "victim": Path("/tmp/victim").read_text(),
    "evil": sorted(p.name for p in Path("/tmp/evil").iterdir()),
    "folder_owner": folder.lstat().st_uid if os.path.lexists(folder) else None,
    "folder": mode(folder) if not folder.is_symlink() else "link",
    "file": mode(folder / "env") if not folder.is_symlink() else None,
    "owner": (folder / "env").lstat().st_uid if not folder.is_symlink() and (folder / "env").exists() else None,
}))
"""


def _can_unshare() -> str | None:
    """Why the namespace cannot be made here, or None."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("runuser"):
        return "needs root, unshare and runuser"
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "--", "mount", "-t", "tmpfs", "tmpfs", "/tmp"],
        capture_output=True,
        text=True,
    )
    return None if probe.returncode == 0 else f"unshare is not permitted here: {probe.stderr.strip()}"


needs_namespace = pytest.mark.skipif(bool(_can_unshare()), reason=str(_can_unshare()))


# Inside the namespace: the host's /tmp is kept at $KEEP, a fresh tmpfs goes over /tmp, and the folders
# the run needs that lived under the host's /tmp (a checkout cloned there, its .venv) are bound back
# where they were; then nobody plants, and the job runs.
NAMESPACE_SCRIPT = """
set -e
mount --bind /tmp "$KEEP"
mount -t tmpfs tmpfs /tmp
for path in $NEEDED; do
  case "$path" in /tmp/*) mkdir -p "$path"; mount --bind "$KEEP${path#/tmp}" "$path";; esac
done
bash -c "$ROOT_FIRST"
runuser -u "$ATTACKER" -- bash -c "$PLANT"
mkdir -m 755 /tmp/box
exec "$PYTHON" -c "$DRIVER" "$HOME_FOR_JOB"
"""


# What the job's user (root) left at its folder before nobody came, per case: a folder anyone may write into.
ROOT_FIRST = {"a folder of root's anyone may write": "mkdir -m 777 /tmp/prereq.0"}


def _run_planted(home: str, *, driver: str = DRIVER, at_the_folder: str = "nothing") -> dict[str, Any]:
    """The job run after nobody's plants, in a private /tmp; what the driver saw."""
    needed = sorted({str(REPO), sys.prefix, str(Path(sys.executable).parent)})
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": f"{REPO / 'tools'}:{REPO / 'tests'}",
        "PLANT": PLANT + AT_THE_FOLDER[at_the_folder] + "\n",
        "ROOT_FIRST": ROOT_FIRST.get(at_the_folder, ":"),
        "DRIVER": driver,
        "PYTHON": sys.executable,
        "HOME_FOR_JOB": home,
        "NEEDED": " ".join(needed),
        "ATTACKER": ATTACKER,
    }
    keep = tempfile.mkdtemp(prefix="prereq-host-tmp-", dir="/var/tmp" if Path("/var/tmp").is_dir() else "/")
    try:
        proc = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "--", "bash", "-c", NAMESPACE_SCRIPT],
            capture_output=True,
            text=True,
            env={**env, "KEEP": keep},
            timeout=120,
        )
    finally:
        os.rmdir(keep)  # empty outside the namespace: the binds were its own
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@needs_namespace
@pytest.mark.parametrize("home", ["/tmp/box/home", "/", "/nonexistent"])
def test_planted_files_are_not_used_and_the_variables_still_flow(home: str) -> None:
    """The plants lie where the old file was; the job's own folder (mode 700, its file 600) is none of
    them, and every later script sees the exports, whatever HOME is (unwritable, missing)."""
    seen = _run_planted(home)
    steps = {(kind, name): (code, out, err) for kind, name, code, out, err in seen["steps"]}
    assert all(code == 0 for code, _, _ in steps.values()), seen["steps"]
    assert steps[("job", "job")][1] == "job: hf_secret /data/hf_secret/out none\n"
    assert steps[("succeed", "data")][1] == "after: /data/hf_secret /data/hf_secret/out\n"
    assert seen["pwned"] == [] and seen["evil"] == ["env", "load"]
    assert (seen["folder"], seen["file"], seen["owner"], seen["folder_owner"]) == ("0o700", "0o600", 0, 0)


@needs_namespace
@pytest.mark.parametrize("planted", ["a link", "a folder of nobody's", "a folder of root's anyone may write"])
def test_a_folder_another_user_planted_is_neither_read_nor_written(planted: str) -> None:
    """nobody made the job user's folder first, or wrote into one of the user's that anyone may write: nothing
    of theirs is sourced or written, the variables are not handed on and the first callback says so on
    stderr (the others, finding no helper of the user's, load nothing quietly), and every script still
    exits 0."""
    seen = _run_planted("/tmp/box/home", at_the_folder=planted)
    assert all(code == 0 for _, _, code, _, _ in seen["steps"]), seen["steps"]
    job = next(out for kind, _, _, out, _ in seen["steps"] if kind == "job")
    assert job == "job: unset unset none\n"
    said = [err for kind, _, _, _, err in seen["steps"] if kind == "start"]
    assert said[0] == "prereq: /tmp/prereq.0 is not a folder of yours alone: variables not handed on\n"
    assert said[1:] and all(err == "" for err in said[1:]), said
    assert seen["pwned"] == [] and seen["evil"] == ["env", "load"]


@needs_namespace
def test_the_previous_load_line_ran_what_was_planted() -> None:
    """The same plant against the load line prereq wrote before (kept in REPLACED_LOAD_LINES): it sources
    nobody's file, so the tests above would see it."""
    (before,) = [line for line in runtime.REPLACED_LOAD_LINES if line.startswith(". /tmp/prereq.env")]
    driver = DRIVER.replace("runtime.JOB_LOAD_LINE, 'echo", f"{before!r}, 'echo")
    seen = _run_planted("/tmp/box/home", driver=driver)
    assert seen["pwned"] == ["pwned-by-env"]


@pytest.mark.parametrize("old", runtime.REPLACED_LOAD_LINES)
def test_a_load_line_an_earlier_prereq_wrote_is_replaced_where_it_stands(old: str) -> None:
    commands = f"    commands:\n    - {json.dumps(old)}\n    - echo hi\n"
    text = f"protocolVersion: 2\nname: j\ntype: job\ntaskRoles:\n  main:\n{commands}"
    job = JobDocument(text, "job.yaml")
    work = WorkingCopy(job.data)
    warnings: list[str] = []
    lines = LoadLines(runtime.JOB_LOAD_LINE, runtime.REPLACED_LOAD_LINES)
    plan_load_line(work, job, "main", True, warnings, lines=lines)
    assert work.get(("taskRoles", "main", "commands")) == [runtime.JOB_LOAD_LINE, "echo hi"] and warnings == []


def _compiled(name: str, **events: list[str]) -> dict[str, Any]:
    callbacks = [{"event": event, "commands": commands} for event, commands in events.items()]
    data = {
        "name": name,
        "version": "1.0.0",
        "type": "script",
        "plugin": runtime.DEFAULT_PLUGIN,
        "callbacks": callbacks,
    }
    return forms.compile_item(data, lookup=lambda key: None)


def test_each_task_role_writes_the_helper_in_its_own_first_callback(tmp_path: Path) -> None:
    """Two task roles list the same items in other orders, a third runs only a succeed callback: the long
    line is on the first callback each role runs, and in every role the exports reach the later scripts
    and the job (each task is a container of its own: a fresh sandbox each)."""
    first, second = _compiled("first", taskStarts=["export ONE=1"]), _compiled("second", taskStarts=["export TWO=2"])
    after = _compiled("after", taskSucceeds=['echo "after sees ${ONE:-none} ${TWO:-none}"'])
    job = make_job([first, second, after], [runtime.JOB_LOAD_LINE, "echo job"])
    job["taskRoles"]["swapped"] = {**job["taskRoles"]["main"], "prerequisites": ["second", "first", "after"]}
    job["taskRoles"]["late"] = {**job["taskRoles"]["main"], "prerequisites": ["after"]}
    work = WorkingCopy(job)
    plan_callback_lines(work, CallbackLines.of(None))
    job = work.data
    heads = {e["name"]: [cb["commands"][0] for cb in e["callbacks"]] for e in job["prerequisites"]}
    long, short = runtime.FIRST_CALLBACK_LINE, runtime.CALLBACK_LINE
    assert heads == {"first": [long], "second": [long], "after": [long]}
    for role, seen in (("main", "1 2"), ("swapped", "1 2"), ("late", "none none")):
        result = run_job(job, role=role, sandbox=tmp_path / role)
        assert result.ok, result.describe()
        assert result.step("succeed", "after").stdout == f"after sees {seen}\n", role
    job["taskRoles"] = {"main": job["taskRoles"]["main"]}
    work = WorkingCopy(job)
    plan_callback_lines(work, CallbackLines.of(None))
    heads = {e["name"]: [cb["commands"][0] for cb in e["callbacks"]] for e in work.data["prerequisites"]}
    assert heads == {"first": [long], "second": [short], "after": [short]}
