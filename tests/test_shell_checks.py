"""Commands checked as the shell will read them (PRQ172-PRQ177): the script bash reads is the one the
runtime writes, ShellCheck runs once for many scripts (and once for PRQ170, PRQ173 and the job templates
alike), its SC2154 is knowledge for PRQ170 and never a finding, the data-pipeline hints, and what
activating an environment defines (PRQ170)."""

from __future__ import annotations

import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from check_helpers import found, item
from prereq.core.files import Cache
from prereq.openpai import bashsyntax, runtime, shellhints, shelllint
from prereq.openpai.shellvars import used_variables
from prereq.registry.validate import validate


def test_the_syntax_checked_is_the_script_the_runtime_writes() -> None:
    script = shelllint.runtime_script(["echo one", "if true; then\n  echo two\nfi"])
    assert (
        script.text
        == "".join(line + "\n" for line in ("set -o errexit", runtime.CALLBACK_LINE, "echo one", "if true; then"))
        + "  echo two\nfi\n"
    )
    assert script.starts == (3, 4) and script.locate(5) == (1, 1) and script.locate(2) is None
    ignored = shelllint.runtime_script(["false"], policy="ignore").text
    assert ignored.startswith("set +o errexit\n") and ignored.endswith("false\nset -o errexit\n")
    # bash runs it: prereq's own lines are valid bash, and the item's commands run after them.
    run = subprocess.run(["bash", "-c", script.text], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert run.returncode == 0 and run.stdout == "one\ntwo\n"


def test_templates_are_words_for_the_shell() -> None:
    assert shelllint.as_shell("cp <% $secrets.KEY %> <% this.dir %>/x") == "cp PRQ_TEMPLATE PRQ_TEMPLATE/x"


def test_an_open_construct_is_reported_at_the_line_bash_names_in_a_block(make_registry) -> None:
    block = "|\n        for f in /tmp/*; do\n          echo $f\n        don"
    root = make_registry({"prerequisites/loop.yaml": item("loop", commands=("echo start", block))})
    result = validate(root)
    assert found(result) == {("PRQ172", "prerequisites/loop.yaml", 13)}  # bash names the last line
    assert result.problems[0].message.startswith("taskStarts commands are not valid bash: ")


@pytest.mark.parametrize(
    ("commands", "where"),
    [
        # one line: a quote after a closed pair holding an apostrophe, before a comment's apostrophe
        (("echo start", """echo "it's" here; echo "left open  # don't"""), (10, 32)),
        # a block: the quote's line, and its column past the block's indentation and the line's own
        (("echo start", '|\n        echo one\n          printf \'%s\' "$(date "+%F")" \'two\n        3'), (12, 39)),
        (("echo start", "echo $'it\\'s open"), (10, 15)),
    ],
)
def test_an_unclosed_quote_is_reported_where_it_opens(make_registry, commands, where) -> None:
    root = make_registry({"prerequisites/quote.yaml": item("quote", commands=commands)})
    [reported] = validate(root).problems
    assert (reported.rule, reported.line, reported.column) == ("PRQ172", *where)
    text = (root / "prerequisites" / "quote.yaml").read_text(encoding="utf-8").splitlines()[where[0] - 1]
    assert text[where[1] - 1] in "'\"" and "looking for matching" in reported.message


def test_a_quote_the_scanner_does_not_find_open_is_left_to_bash() -> None:
    message = "unexpected EOF while looking for matching `\"'"
    assert bashsyntax.unclosed_quote(["echo 'a'", 'echo "b'], message) == (1, 0, 5)
    assert bashsyntax.unclosed_quote(["echo 'a'", 'echo "b'], "syntax error near unexpected token `fi'") is None
    assert bashsyntax.unclosed_quote(["echo 'it''s'"], message) is None  # every quote closes
    assert bashsyntax.unclosed_quote(["echo 'open"], message) is None  # not the quote bash names


def _counted_runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The commands shelllint runs from now on (real runs, counted)."""
    calls: list[list[str]] = []
    real = subprocess.run

    def counting(command: list[str], **options: object) -> subprocess.CompletedProcess[str]:
        calls.append(command)
        return real(command, **options)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(shelllint.subprocess, "run", counting)
    return calls


def test_shellcheck_runs_once_for_many_scripts(monkeypatch: pytest.MonkeyPatch) -> None:
    if not shelllint.available():
        pytest.skip("ShellCheck is not installed")
    calls = _counted_runs(monkeypatch)
    scripts = [shelllint.lint_script([f"export N{i}=$(date +%s)"]).text for i in range(40)]
    _, linted = bashsyntax.check_scripts([("true", script) for script in scripts])
    assert [[issue.code for issue in lint.findings] for lint in linted] == [[2155]] * 40
    assert all(lint.read and lint.unassigned == frozenset() for lint in linted)
    assert sum(1 for command in calls if "json1" in command) == 1
    calls.clear()
    bashsyntax.check_scripts([("true", script) for script in scripts])  # the same again: cached by content
    assert calls == []


def test_many_scripts_are_read_by_processes_of_at_most_lint_files_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command line has a limit (50,000 paths passed it): past LINT_FILES, more processes, same readings."""
    if not shelllint.available():
        pytest.skip("ShellCheck is not installed")
    monkeypatch.setattr(shelllint, "LINT_FILES", 7)
    monkeypatch.setattr(shelllint, "_LINT", {})
    calls = _counted_runs(monkeypatch)
    scripts = [shelllint.lint_script([f"export CHUNK{i}=$(date +%s)", f'echo "$MISSING{i}"']).text for i in range(40)]
    linted = shelllint.lint_scripts(scripts)
    runs = [command for command in calls if "json1" in command]
    assert len(runs) == 6 and all(len([a for a in run if a.endswith(".sh")]) <= 7 for run in runs)
    assert [(lint.findings[0].code, lint.unassigned) for lint in linted] == [
        (2155, frozenset({f"MISSING{i}"})) for i in range(40)
    ]


def test_the_processes_share_the_scripts_evenly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two cores: an even number of processes, none given more than one script more than another (chunks
    of LINT_FILES left the last process alone with the rest)."""
    if not shelllint.available():
        pytest.skip("ShellCheck is not installed")
    monkeypatch.setattr(shelllint, "LINT_FILES", 7)
    monkeypatch.setattr(shelllint, "_LINT", {})
    calls = _counted_runs(monkeypatch)
    linted = shelllint.lint_scripts([shelllint.lint_script([f"echo even{i}"]).text for i in range(101)])
    sizes = [len([a for a in run if a.endswith(".sh")]) for run in calls if "json1" in run]
    assert len(sizes) == 16 and max(sizes) <= 7 and max(sizes) - min(sizes) <= 1
    assert all(lint.read and not lint.findings for lint in linted)


def test_sc2154_is_what_shellcheck_knows_of_assignments_never_a_finding_of_its_own() -> None:
    if not shelllint.available():
        pytest.skip("ShellCheck is not installed")
    text = shelllint.lint_script(
        ['echo "$UPPER_UNSET $lower_unset $PAI_JOB_NAME"', "read -r READ_SET", 'export STAMP="$READ_SET$(date)"']
    )
    lint = shelllint.lint_scripts([text.text])[0]
    assert lint.unassigned == {"UPPER_UNSET", "lower_unset", "PAI_JOB_NAME"}  # uppercase ones too
    assert [issue.code for issue in lint.findings] == [2155]  # export with a substitution; no SC2154
    broken = shelllint.lint_scripts([shelllint.lint_script(['echo "$A', "if"]).text])[0]
    assert not broken.read and broken.unassigned is None  # its parser failed: PRQ170 is prereq's alone


def test_a_suppressed_shellcheck_code_in_the_command_is_honoured(make_registry) -> None:
    block = "|\n        # shellcheck disable=SC2155\n        export STAMP=$(date +%s)"
    root = make_registry({"prerequisites/stamp.yaml": item("stamp", commands=(block, "export LATE=$(date)"))})
    assert found(validate(root)) == {("PRQ173", "prerequisites/stamp.yaml", 12)}


def test_downloads_and_cd_know_what_earlier_commands_and_required_items_made() -> None:
    text = "\n".join(
        (
            "wget -q -O /data/a/x.gz https://h/x",  # nothing made /data/a
            "mkdir -p /data/b/c",
            "curl -o /data/b/y https://h/y",  # /data/b exists: mkdir -p made it
            "wget -P /models/raw https://h/m",  # wget -P makes its folder
            "cd /models/raw",
            "curl --create-dirs -o /other/z https://h/z",
            "cd /shared/work",  # made by a required item
            'cd "$HOME"/x',  # not a path written out: not judged
            "cd /tmp",
        )
    )
    hints = shellhints.hints(text, created=["/shared/work"])
    assert [(h.rule, dict(h.details)) for h in hints] == [("PRQ174", {"tool": "wget", "folder": "/data/a"})]
    assert shellhints.created_folders("git clone https://g/r.git /src/r && mkdir -p /a /b") == ["/src/r", "/a", "/b"]


@pytest.mark.parametrize(
    ("command", "fires"),
    [
        ("curl -fsSL http://get.example.org/install.sh | sh", True),
        ("wget -qO- http://get.example.org/install.sh | sudo -E bash", True),
        ("curl -fsSL https://get.example.org/install.sh | sh", False),
        ("curl -fsSL http://mirror.local/data.csv | grep x", False),
    ],
)
def test_pipe_to_shell_over_plain_http(command: str, fires: bool) -> None:
    assert bool(shellhints.hints(command)) is fires


@pytest.mark.parametrize(
    ("command", "means"),
    [
        ('rm -rf "$CACHE"/*', "/*"),
        ("rm -fr ${BUILD}/out", "/out"),
        ('rm -r "${DATA:-}"/tmp', "/tmp"),
        ('rm -rf "${DATA:?}"/tmp', None),
        ('rm -rf "${DATA:-/scratch}"/tmp', None),
        ('rm -f "$CACHE"/lock', None),
        ('D=/tmp/d; rm -rf "$D"/*', None),
    ],
)
def test_rm_r_through_a_variable_that_may_be_empty(command: str, means: str | None) -> None:
    hints = shellhints.hints(command)
    assert [dict(h.details)["means"] for h in hints] == ([means] if means else [])


def test_activating_an_environment_defines_its_variables() -> None:
    assert (
        used_variables(["source /opt/conda/etc/profile.d/conda.sh", "conda activate base", "echo $CONDA_PREFIX"]) == []
    )
    assert used_variables(["$CONDA_DIR/bin/conda activate x", "ls $CONDA_PREFIX"], known=["CONDA_DIR"]) == []
    assert used_variables([". /venv/bin/activate", "pip install -t $VIRTUAL_ENV/x y"]) == []
    assert used_variables(["echo $CONDA_PREFIX"]) == ["CONDA_PREFIX"]


def test_the_bundled_registry_is_clean_of_command_findings() -> None:
    from conftest import REPO

    result = validate(REPO / "registry")
    assert not [p for p in result.problems if p.rule in {f"PRQ17{i}" for i in range(2, 8)}]


def test_batched_syntax_checks_report_each_broken_script_alone() -> None:
    """Scripts go to bash -n in batches; two broken scripts that close each other's quote in a batch
    are still each reported, and a broken one does not taint the valid ones beside it."""
    texts = [f'echo "ok {i}"' for i in range(250)] + ['echo "open', 'close"', "if true; then"]
    pairs = [(shelllint.runtime_script([text]).text, shelllint.lint_script([text]).text) for text in texts]
    syntax, _ = bashsyntax.check_scripts(pairs)
    assert [index for index, errors in enumerate(syntax) if errors] == [250, 251, 252]


def test_one_shellcheck_run_serves_prq170_prq173_and_the_job_templates(
    make_registry, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    if not shelllint.available():
        pytest.skip("ShellCheck is not installed")
    calls = _counted_runs(monkeypatch)
    token = re.sub(r"\W", "_", tmp_path.name).upper()  # scripts no earlier test has linted
    root = make_registry(
        {
            "prerequisites/maker.yaml": item("maker", commands=(f"export MADE_{token}=1",)),
            "prerequisites/user.yaml": item("user", commands=(f'echo "$UNSET_{token}" $(date)',)),
            "templates/job.yaml": JOB.format(token=token),
        }
    )
    result = validate(root)
    assert found(result) == {
        ("PRQ170", "prerequisites/user.yaml", 9),
        ("PRQ173", "prerequisites/user.yaml", 9),  # SC2046: the unquoted $(date)
        ("PRQ170", "templates/job.yaml", 14),
    }
    assert sum(1 for command in calls if "json1" in command) == 1


JOB = """\
protocolVersion: 2
name: job
type: job
prerequisites:
  - {{name: image, type: dockerimage, uri: "ubuntu:22.04"}}
taskRoles:
  main:
    instances: 1
    dockerImage: image
    prerequisites: [maker]
    resourcePerInstance: {{cpu: 1, memoryMB: 1024, gpu: 0}}
    commands:
      - echo "$MADE_{token}"
      - echo "$ROLE_UNSET_{token}"
"""


def test_with_a_cache_a_later_run_starts_no_shellcheck_and_no_bash(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    if not shelllint.available():
        pytest.skip("ShellCheck is not installed")
    folder = tmp_path / "cache"
    token = re.sub(r"\W", "_", tmp_path.name).upper()
    texts = [shelllint.lint_script([f'export AT_{i}_{token}=$(date) && echo "$UNSET_{token}"']).text for i in range(3)]
    pairs = [*((text, text) for text in texts), ("if true\n", texts[0])]  # bash's verdicts too, an error among them

    def run() -> tuple[list[list[shelllint.ShellIssue]], list[shelllint.Lint]]:
        monkeypatch.setattr(shelllint, "_LINT", {})  # as a new process would start
        monkeypatch.setattr(bashsyntax, "_SYNTAX", {})
        cache = Cache(folder, "test")
        found = bashsyntax.check_scripts(pairs, cache=cache)
        cache.save()
        return found

    calls = _counted_runs(monkeypatch)
    first = run()
    assert [(lint.findings[0].code, lint.unassigned) for lint in first[1][:3]] == [(2155, {f"UNSET_{token}"})] * 3
    assert first[0][:3] == [[]] * 3 and first[0][3][0].code == 0
    assert len(calls) >= 2 and {p.name for p in folder.glob("*.json")} == {"shellcheck.json", "bash-syntax.json"}
    started = len(calls)
    assert run() == first and len(calls) == started  # neither ShellCheck nor bash this time
    for kept in folder.glob("*.json"):
        kept.write_text('{"not": "what prereq wrote"', encoding="utf-8")
    assert run() == first and len(calls) > started  # a damaged cache is ignored


def test_a_shellcheck_ended_by_a_signal_read_nothing_and_nothing_is_kept(
    make_registry, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A ShellCheck that a signal ends half-way (the OOM killer; an interrupt that prereq, started as a
    background job, ignores) prints nothing: no reading, never "no findings", which the cache kept."""
    if not shelllint.available():
        pytest.skip("ShellCheck is not installed")
    token = re.sub(r"\W", "_", tmp_path.name)
    root = make_registry({"prerequisites/user.yaml": item("user", commands=(f"echo $(date) {token}",))})
    monkeypatch.setenv("PREREQ_CACHE", str(tmp_path / "cache"))
    real = subprocess.run

    def killed(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
        if "json1" in command:
            return subprocess.CompletedProcess(command, -signal.SIGKILL, stdout="", stderr="")
        return real(command, **options)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(shelllint.subprocess, "run", killed)
    assert validate(root).problems == []  # nothing read: nothing to say but bash's verdict, which is fine
    monkeypatch.setattr(shelllint.subprocess, "run", real)
    monkeypatch.setattr(shelllint, "_LINT", {})  # a later run, in another process
    assert [(p.rule, p.line) for p in validate(root).problems] == [("PRQ173", 9)]  # SC2046
