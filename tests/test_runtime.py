"""Jobs run the way the OpenPAI runtime runs them (tests/runtime_sim.py):
exported variables reach what runs later, commands arrive intact."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from prereq.openpai import forms, runtime
from runtime_sim import inherited_names, make_job, run_job

REGISTRY = Path(__file__).resolve().parent.parent / "registry" / "prerequisites"


def item(name: str, starts: list[str] | None = None, succeeds: list[str] | None = None, **extra: Any) -> dict:
    callbacks = []
    if starts:
        callbacks.append({"event": "taskStarts", "commands": starts})
    if succeeds:
        callbacks.append({"event": "taskSucceeds", "commands": succeeds})
    return {
        "name": name,
        "version": "1.0.0",
        "type": "script",
        "plugin": "com.microsoft.pai.runtimeplugin.cmd",
        "callbacks": callbacks,
        **extra,
    }


def compiled(*items: dict) -> list[dict]:
    """Each item compiled, ``<% this.* %>`` from its own parameters then the earlier items'."""
    compiled_forms = []
    for index, data in enumerate(items):
        scopes = [data, *reversed(items[:index])]

        def lookup(key: str, scopes: list[dict] = scopes) -> Any:
            for scope in scopes:
                if key in (scope.get("parameters") or {}):
                    return scope["parameters"][key]
            return None

        compiled_forms.append(forms.compile_item(data, lookup=lookup))
    return compiled_forms


def job_of(items: list[dict], commands: list[str], **kw: Any) -> dict:
    return make_job(compiled(*items), [runtime.JOB_LOAD_LINE, *commands], **kw)


def run(items: list[dict], commands: list[str], tmp_path: Path, **kw: Any):
    result = run_job(job_of(items, commands), sandbox=tmp_path, **kw)
    return result


def bash(commands: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["/bin/bash", "-c", "\n".join(commands)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
    )


# --- variables flow ---------------------------------------------------------------------------


def test_an_export_reaches_the_job(tmp_path: Path) -> None:
    result = run([item("data", ["export DATA_DIR=/data/x"])], ['echo "job sees $DATA_DIR"'], tmp_path)
    assert result.ok, result.describe()
    assert result.job.stdout == "job sees /data/x\n"


def test_exports_flow_through_several_levels_of_require(tmp_path: Path) -> None:
    storage = item("storage", ["export STORAGE_ROOT=/mnt/share"])
    cache = item("cache", ['export CACHE_DIR="$STORAGE_ROOT/cache"'], require=["storage"])
    data = item(
        "data",
        ['test -n "$CACHE_DIR"', 'export DATA_DIR="$CACHE_DIR/data"'],
        require=["cache"],
        succeeds=['echo "data exit: $STORAGE_ROOT $CACHE_DIR $DATA_DIR"'],
    )
    # the first item's exit callback runs last and sees all of them
    storage["callbacks"].append({"event": "taskSucceeds", "commands": ['echo "storage exit: $DATA_DIR"']})
    result = run([storage, cache, data], ['echo "$STORAGE_ROOT|$CACHE_DIR|$DATA_DIR"'], tmp_path)
    assert result.ok, result.describe()
    assert result.job.stdout == "/mnt/share|/mnt/share/cache|/mnt/share/cache/data\n"
    succeeds = [step for step in result.steps if step.kind == "succeed"]
    assert [step.name for step in succeeds] == ["data", "storage"]  # reverse order
    assert succeeds[0].stdout == "data exit: /mnt/share /mnt/share/cache /mnt/share/cache/data\n"
    assert succeeds[1].stdout == "storage exit: /mnt/share/cache/data\n"


VALUES = {
    "WITH_SPACES": "a  b   c",
    "SINGLE_QUOTE": "it's here",
    "DOUBLE_QUOTE": 'say "hi"',
    "BOTH_QUOTES": """it's "both" """,
    "DOLLAR": "costs $5 and ${HOME} and $(date) and `date`",
    "BACKSLASH": r"C:\new\table \\ end\\",
    "NEWLINES": "line one\nline two\n",
    "TAB": "a\tb",
    "UNICODE": "naïve café ✓",
    "EMPTY": "",
    "GLOB": "* ? [abc]",
}


def _single_quoted(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def test_values_with_spaces_quotes_dollars_and_newlines_survive(tmp_path: Path) -> None:
    starts = [f"export {name}={_single_quoted(value)}" for name, value in VALUES.items()]
    show = [f'printf "%s<END>" "${name}"' for name in VALUES]
    result = run([item("values", starts, succeeds=show)], show, tmp_path)
    assert result.ok, result.describe()
    expected = "".join(value + "<END>" for value in VALUES.values())
    assert result.job.stdout == expected
    assert result.step("succeed").stdout == expected


def test_a_variable_changed_by_a_later_item_keeps_the_latest_value(tmp_path: Path) -> None:
    first = item("first", ["export LEVEL=one", 'export LIST="a"'])
    second = item("second", ["export LEVEL=two", 'export LIST="$LIST:b"', 'export PATH="$HOME/tools:$PATH"'])
    third = item("third", ['echo "third sees $LEVEL $LIST"'])
    result = run([first, second, third], ['echo "$LEVEL $LIST"', 'echo "${PATH%%:*}"'], tmp_path)
    assert result.ok, result.describe()
    assert result.step("start", "third").stdout == "third sees two a:b\n"
    assert result.job.stdout == f"two a:b\n{tmp_path / 'home' / 'tools'}\n"


def test_a_multi_line_value_changed_later_is_read_back_whole(tmp_path: Path) -> None:
    first = item("first", ["export ML=$'a\\nb\\nsame'", "export KEEP=$'x\\ny'"])
    second = item("second", ["export ML=$'c\\nb\\nsame'"])
    result = run([first, second], ['printf "%s|%s" "$ML" "$KEEP"'], tmp_path)
    assert result.ok, result.describe()
    assert result.job.stdout == "c\nb\nsame|x\ny"


def test_the_load_line_is_harmless_when_nothing_was_exported(tmp_path: Path) -> None:
    result = run([item("quiet", ["true"])], ["echo ok"], tmp_path)
    assert result.ok, result.describe()
    assert result.env_names() == inherited_names(tmp_path)  # what it inherited, nothing more
    alone = run_job(make_job([], [runtime.JOB_LOAD_LINE, "echo alone"]), sandbox=tmp_path / "alone")
    assert alone.ok and alone.job.stdout == "alone\n"


def test_a_variable_no_prerequisite_exports_is_not_invented(tmp_path: Path) -> None:
    starts = ["LOCAL_ONLY=1", "export SHARED=yes", "cd /", "unexported_lower=2", 'export PATH="$PATH"']
    result = run([item("one", starts)], ['echo "${LOCAL_ONLY:-unset} ${unexported_lower:-unset} $SHARED"'], tmp_path)
    assert result.ok, result.describe()
    assert result.job.stdout == "unset unset yes\n"
    # The file holds the exported environment as the script left it, less what describes one process.
    assert result.env_names() == inherited_names(tmp_path) | {"SHARED"}


def test_the_job_without_the_load_line_sees_nothing(tmp_path: Path) -> None:
    job = make_job(compiled(item("data", ["export DATA_DIR=/data"])), ['echo "${DATA_DIR:-none}"'])
    result = run_job(job, sandbox=tmp_path)
    assert result.ok, result.describe()
    assert result.job.stdout == "none\n"


def test_the_succeed_callback_sees_output_dir(tmp_path: Path) -> None:
    out = tmp_path / "outputs"
    output = item(
        "output",
        [f"export OUTPUT_DIR={out}/run1", 'mkdir -p "$OUTPUT_DIR"'],
        succeeds=['date -u > "$OUTPUT_DIR/_SUCCESS"', 'echo "saved to $OUTPUT_DIR"'],
    )
    result = run([output], ['echo result > "$OUTPUT_DIR/model.txt"'], tmp_path)
    assert result.ok, result.describe()
    assert (out / "run1" / "model.txt").read_text() == "result\n"
    assert (out / "run1" / "_SUCCESS").exists()
    assert result.step("succeed", "output").stdout == f"saved to {out}/run1\n"


def test_no_succeed_callback_after_a_failed_job(tmp_path: Path) -> None:
    result = run([item("output", ["export OUTPUT_DIR=/o"], succeeds=["echo ran"])], ["false"], tmp_path)
    assert not result.ok
    assert result.job.returncode != 0
    assert result.step("succeed") is None


# --- failurePolicy ----------------------------------------------------------------------------


def test_failure_policy_ignore_runs_on_and_saves_exports(tmp_path: Path) -> None:
    flaky = item("flaky", ["export BEFORE=1", "false", "export AFTER=2", "ls /no/such/dir"], failurePolicy="ignore")
    later = item("later", ['echo "later sees $BEFORE $AFTER"'])
    result = run([flaky, later], ['echo "job sees $BEFORE $AFTER"'], tmp_path)
    assert result.ok, result.describe()
    assert result.step("start", "flaky").returncode == 0
    assert result.step("start", "later").stdout == "later sees 1 2\n"
    assert result.job.stdout == "job sees 1 2\n"


def test_failure_policy_fail_stops_at_the_first_failing_command(tmp_path: Path) -> None:
    strict = item("strict", ["export BEFORE=1", "false", "export AFTER=2"], failurePolicy="fail")
    result = run([strict, item("later", ["echo later"])], ["echo job"], tmp_path)
    assert not result.ok
    assert result.step("start", "strict").returncode == 1
    assert result.step("start", "later") is None and result.job is None
    assert "AFTER" not in result.env_text()


def test_an_explicit_exit_keeps_its_status_and_still_saves(tmp_path: Path) -> None:
    result = run([item("quits", ["export SEEN=1", "exit 3"])], ["true"], tmp_path)
    assert result.step("start", "quits").returncode == 3
    assert "SEEN" in result.env_text()


# --- commands arrive intact -------------------------------------------------------------------

INTACT = [
    'printf "a\\tb\\n"',
    "printf 'x\\ny\\n' | tr -d '\\n'",
    "echo",
    'echo "it\'s"',
    """echo 'say "hi"' "it's" """,
    'echo "back\\\\slash \\$HOME"',
    "echo café ✓ — ok",
    'x="tab\there"; echo "$x"',
    "cat <<'EOF'\nheredoc with 'quotes' \"both\" and \\backslash\nEOF",
    'for i in 1 2; do\n  echo "line $i"\ndone',
    'if [ "a" = "a" ]; then',
    "  echo 'in if'",
    "fi",
    "echo $'ansi\\tc'",
    "echo 'percent <% not a template'",
]


def test_commands_with_backslashes_and_both_quotes_run_as_written(tmp_path: Path) -> None:
    expected = bash(INTACT, tmp_path)
    assert expected.returncode == 0, expected.stderr
    form = compiled(item("intact", INTACT, succeeds=INTACT))[0]
    assert forms.check_round_trip(form) == []
    result = run_job(make_job([form], [runtime.JOB_LOAD_LINE]), sandbox=tmp_path / "box")
    assert result.ok, result.describe()
    assert result.step("start").stdout == expected.stdout
    assert result.step("succeed").stdout == expected.stdout


@pytest.mark.parametrize(
    "command",
    [
        "echo plain",
        "echo 'single'",
        'echo "double"',
        'echo "it\'s"',
        "tr -d '\\n' </dev/null",
    ],
)
def test_each_kind_of_command_alone(tmp_path: Path, command: str) -> None:
    expected = bash([command], tmp_path)
    result = run_job(make_job(compiled(item("one", [command])), ["true"]), sandbox=tmp_path / "box")
    assert result.ok, result.describe()
    assert result.step("start").stdout == expected.stdout


def test_openpai_templates_stay_readable_in_an_encoded_block(tmp_path: Path) -> None:
    commands = ['echo "it\'s <% $parameters.greeting %>"', "echo '<% $secrets.token %>'"]
    form = compiled(item("templated", commands))[0]
    text = "\n".join(form["callbacks"][0]["commands"])
    assert "<% $parameters.greeting %>" in text and "<% $secrets.token %>" in text
    assert forms.check_round_trip(form) == []
    job = make_job([form], ["true"])
    job["parameters"] = {"greeting": "hello world"}
    result = run_job(job, sandbox=tmp_path, secrets={"token": "s3cr3t"})
    assert result.ok, result.describe()
    assert result.step("start").stdout == "it's hello world\ns3cr3t\n"


# --- the problem prereq solves ----------------------------------------------------------------


def raw_form(name: str, commands: list[str]) -> dict:
    """A prerequisite as an author would paste it into a job without prereq."""
    return {
        "name": name,
        "type": "data",
        "version": "1.0.0",
        "plugin": "com.microsoft.pai.runtimeplugin.cmd",
        "callbacks": [{"event": "taskStarts", "commands": commands}],
    }


def test_without_prereq_the_export_does_not_reach_the_job(tmp_path: Path) -> None:
    job = make_job([raw_form("mnist-data", ["export MNIST_DIR=/tmp/mnist", "mkdir -p $MNIST_DIR"])], ["ls $MNIST_DIR"])
    result = run_job(job, sandbox=tmp_path)
    assert not result.ok
    assert result.step("start").returncode == 0
    assert "MNIST_DIR: unbound variable" in result.job.stderr


def test_without_prereq_a_backslash_is_doubled(tmp_path: Path) -> None:
    command = "printf %s/ a n b | tr -d \\n"  # bash: tr -d n
    assert bash([command], tmp_path).stdout == "a//b/"
    raw = make_job([raw_form("tr", [command])], ["true"])
    assert forms.check_round_trip(raw["prerequisites"][0]) == ["callbacks[0].commands[0]"]
    result = run_job(raw, sandbox=tmp_path / "raw")
    assert result.ok, result.describe()
    assert "tr -d \\\\n" in result.step("start").script  # what runs is tr -d \\n
    assert result.step("start").stdout == "a/n/b/"
    fixed = run_job(make_job(compiled(item("tr", [command])), ["true"]), sandbox=tmp_path / "fixed")
    assert fixed.step("start").stdout == "a//b/"


def test_without_prereq_both_quote_kinds_kill_the_init_container(tmp_path: Path) -> None:
    job = make_job([raw_form("quotes", ['echo "it\'s"'])], ["true"])
    result = run_job(job, sandbox=tmp_path)
    assert result.steps[0].kind == "init" and result.steps[0].returncode != 0
    assert result.job is None
    fixed = run_job(make_job(compiled(item("quotes", ['echo "it\'s"'])), ["true"]), sandbox=tmp_path / "fixed")
    assert fixed.ok and fixed.step("start").stdout == "it's\n"


# --- the bundled seed chain ---------------------------------------------------------------------

SEED = ("nfs-storage-1", "mnist-data", "output-dir")

FAKES = {
    "mount": 'echo "fake mount $*"',
    "mount.nfs": "exit 0",
    "umount": "exit 0",
    "mountpoint": "exit 1",
    "apt-get": 'echo "fake apt-get $*"',
    "curl": "exit 0",
    # wget -q -O FILE URL: write a small file where asked
    "wget": 'out=; while [ $# -gt 0 ]; do case "$1" in -O) out="$2"; shift;; esac; shift; done\n'
    '[ -n "$out" ] && echo fake > "$out"',
}


def test_the_bundled_seed_chain_runs(tmp_path: Path) -> None:
    missing = [name for name in SEED if not (REGISTRY / f"{name}.yaml").exists()]
    if missing:
        pytest.skip(f"seed items not in the registry yet: {missing}")
    items = {name: yaml.safe_load((REGISTRY / f"{name}.yaml").read_text(encoding="utf-8")) for name in SEED}
    mount = tmp_path / "mnt" / "nfs-storage-1"
    items["nfs-storage-1"]["parameters"]["mountPoint"] = str(mount)
    local_out = tmp_path / "local-output"
    items["output-dir"].setdefault("parameters", {})["localOutputDir"] = str(local_out)
    seed_forms = compiled(*(items[name] for name in SEED))
    for form in seed_forms:
        assert forms.check_round_trip(form) == [], form["name"]
        assert "<% this." not in str(form)
    commands = [
        'ls "$MNIST_DIR"',
        'test -d "$OUTPUT_DIR"',
        'echo trained > "$LOCAL_OUTPUT_DIR/model.txt"',
        'echo "$NFS_MOUNT_POINT"',
    ]
    result = run_job(
        make_job(seed_forms, [runtime.JOB_LOAD_LINE, *commands], name="mnist-job"),
        sandbox=tmp_path / "box",
        fakes=FAKES,
    )
    assert result.ok, result.describe()
    assert [s.kind + ":" + s.name for s in result.steps] == [
        "start:nfs-storage-1",
        "start:mnist-data",
        "start:output-dir",
        "job:job",
        "succeed:output-dir",
    ]
    listing = result.job.stdout.split()
    assert "train-images-idx3-ubyte.gz" in listing and "t10k-labels-idx1-ubyte.gz" in listing
    assert result.job.stdout.rstrip().endswith(str(mount))
    output_dir = mount / "outputs" / "tester" / "mnist-job"
    assert (output_dir / "_SUCCESS").exists()
    assert (output_dir / "model.txt").read_text() == "trained\n"
    assert str(output_dir) in result.step("succeed", "output-dir").stdout  # du -sh $OUTPUT_DIR
    assert (mount / "mnist" / "train-labels-idx1-ubyte.gz").exists()


def test_the_seed_chain_without_prereq_fails(tmp_path: Path) -> None:
    path = REGISTRY / "mnist-data.yaml"
    if not path.exists():
        pytest.skip("mnist-data not in the registry yet")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    mount = tmp_path / "mnt"
    commands = [
        c.replace("<% this.mountPoint %>", str(mount)).replace("<% this.mirror %>", data["parameters"]["mirror"])
        for c in data["callbacks"][0]["commands"]
    ]
    job = make_job([raw_form("mnist-data", commands)], ['ls "$MNIST_DIR"'])
    result = run_job(job, sandbox=tmp_path / "box", fakes=FAKES)
    assert not result.ok
    assert "MNIST_DIR: unbound variable" in result.job.stderr
