"""``prereq validate``: exit codes, output formats and robustness, in-process and installed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from prereq import cli

RULE_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "rules"
CLEAN = RULE_FIXTURES / "clean"

GOOD_ITEM = """\
name: good
version: 1.0.0
type: script
title: A good item
owners: [alice]
callbacks:
  - event: taskStarts
    commands:
      - echo ready
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["validate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# --- exit codes -------------------------------------------------------------------------------


def test_clean_registry_exits_0(capsys) -> None:
    code, out, err = run(capsys, str(CLEAN))
    assert code == 0
    assert out == "3 items checked: 0 errors, 0 warnings\n"
    assert err == ""


def test_problems_exit_1_and_are_printed_with_position_and_hint(capsys, monkeypatch) -> None:
    monkeypatch.chdir(RULE_FIXTURES)
    code, out, _ = run(capsys, "PRQ142-require-range-unmet")
    assert code == 1
    assert out.splitlines() == [
        "PRQ142-require-range-unmet/prerequisites/user.yaml:8:5: PRQ142 error requires tools@>=2.0 <3.0 "
        "but no published version of tools meets it (tools is 1.0.0)",
        "    hint: widen the range, or publish a version of tools it accepts (published: 1.0.0)",
        "3 items checked: 1 error, 0 warnings",
    ]


def test_paths_are_shown_from_the_current_folder(capsys, monkeypatch) -> None:
    """From the registry's repository root, inside it or elsewhere, a path a terminal or an editor opens."""
    fixture = RULE_FIXTURES / "PRQ142-require-range-unmet"
    monkeypatch.chdir(fixture / "prerequisites")
    assert run(capsys, str(fixture))[1].startswith("user.yaml:8:5: PRQ142 ")
    monkeypatch.chdir(fixture.parent.parent)
    assert run(capsys, str(fixture))[1].startswith("rules/PRQ142-require-range-unmet/prerequisites/user.yaml:8:5:")


@pytest.mark.parametrize("path", ["does-not-exist", "does/not/exist/registry"])
def test_missing_path_exits_2_with_a_clean_message(capsys, tmp_path, monkeypatch, path) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, path)
    assert code == 2
    assert out == ""
    assert err.startswith(f"prereq: error: {path} does not exist\n    hint: ")
    assert "Traceback" not in err


def test_a_folder_that_is_not_a_registry_exits_2(capsys, tmp_path) -> None:
    (tmp_path / "docs").mkdir()
    code, _, err = run(capsys, str(tmp_path / "docs"))
    assert code == 2
    assert "no registry found at" in err and "Traceback" not in err


def test_no_path_finds_the_registry_of_the_surrounding_repository(capsys, make_registry, tmp_path, monkeypatch) -> None:
    make_registry({"prerequisites/good.yaml": GOOD_ITEM}, root=tmp_path / "repo" / "registry")
    (tmp_path / "repo" / "docs").mkdir()
    monkeypatch.chdir(tmp_path / "repo" / "docs")
    code, out, _ = run(capsys, "--format", "json")
    assert code == 0
    assert json.loads(out) == {"items": 1, "problems": []}


def test_no_registry_anywhere_exits_2(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys)
    assert code == 2 and "no registry found at or above" in err


def test_warnings_fail_unless_strictness_is_off(capsys) -> None:
    """Strict is the default (this repository's prereq.yaml sets nothing); tests/test_strictness.py
    covers the setting itself."""
    warnings_only = str(RULE_FIXTURES / "PRQ134-event-synonym")
    code, out, _ = run(capsys, warnings_only)
    assert code == 1
    assert out.splitlines()[-1] == "1 item checked: 0 errors, 2 warnings"
    assert "PRQ134 warning" in out
    assert run(capsys, "--no-strict", warnings_only)[0] == 0
    assert run(capsys, "--strict", warnings_only)[0] == 1
    assert run(capsys, "--strict", str(CLEAN))[0] == 0


def test_usage_error_exits_2(capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        cli.main(["validate", "--format", "xml", str(CLEAN)])
    assert caught.value.code == 2
    assert "invalid choice: 'xml'" in capsys.readouterr().err


def test_internal_error_exits_3_with_a_short_report(capsys, monkeypatch) -> None:
    def explode(root, **options):
        raise RuntimeError("boom")

    monkeypatch.delenv("PREREQ_DEBUG", raising=False)
    monkeypatch.setattr("prereq.cli.registry_commands.validate", explode)
    code, out, err = run(capsys, str(CLEAN))
    assert code == 3
    assert out == ""
    assert err.startswith("prereq: internal error: RuntimeError: boom\n")
    assert "in explode" in err and "please report it" in err
    assert "Traceback" not in err and len(err.splitlines()) <= 4


def test_help_explains_formats_and_exit_codes(capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        cli.main(["validate", "--help"])
    assert caught.value.code == 0
    out = capsys.readouterr().out
    for word in ("text", "json", "github", "--strict", "exit codes:"):
        assert word in out
    for code, meaning in (("0", "no errors"), ("1", "problems found"), ("2", "usage error"), ("3", "internal error")):
        assert f"  {code}  {meaning}" in out


# --- formats ----------------------------------------------------------------------------------


def test_json_output_shape(capsys) -> None:
    code, out, _ = run(capsys, "--format", "json", str(RULE_FIXTURES / "PRQ143-require-cycle"))
    assert code == 1
    assert json.loads(out) == {
        "items": 3,
        "problems": [
            {
                "rule": "PRQ143",
                "severity": "error",
                "file": "prerequisites/a.yaml",
                "line": 6,
                "column": 11,
                "message": "dependency cycle: a -> b -> c -> a",
                "hint": "remove one of these requirements, such as this one (a -> b)",
            }
        ],
    }


def test_json_positions_are_1_based_and_relative_to_the_registry(capsys, make_registry) -> None:
    root = make_registry({"prerequisites/good.yaml": GOOD_ITEM + "tag: [x]\n", "prerequisites/empty.yaml": ""})
    code, out, _ = run(capsys, "--format", "json", str(root))
    assert code == 1
    report = json.loads(out)
    assert report["items"] == 1
    assert [tuple(p[k] for k in ("rule", "file", "line", "column")) for p in report["problems"]] == [
        ("PRQ105", "prerequisites/empty.yaml", 1, 1),
        ("PRQ111", "prerequisites/good.yaml", 10, 1),
    ]
    for p in report["problems"]:
        assert list(p) == ["rule", "severity", "file", "line", "column", "message", "hint"]
        assert p["severity"] == "error" and p["message"] and p["hint"]


def test_github_annotations_use_paths_relative_to_the_repository(capsys, make_registry, tmp_path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    user = (
        GOOD_ITEM.replace("good", "user")
        .replace("callbacks:", "require: [a, gone]\ncallbacks:")
        .replace("taskStarts", "containerStart")
    )
    make_registry(
        {
            "prerequisites/user.yaml": user,
            "prerequisites/a.yaml": GOOD_ITEM.replace("good", "a").replace("callbacks:", "require: [b]\ncallbacks:"),
            "prerequisites/b.yaml": GOOD_ITEM.replace("good", "b").replace("callbacks:", "require: [a]\ncallbacks:"),
        },
        root=repo / "registry",
    )
    monkeypatch.chdir(repo / "registry" / "prerequisites")
    code, out, _ = run(capsys, "--format", "github")
    assert code == 1
    lines = out.splitlines()
    assert lines[:3] == [
        "::error file=registry/prerequisites/a.yaml,line=6,col=11,title=PRQ143::"
        "dependency cycle: a -> b -> a (hint: remove one of these requirements, such as this one (a -> b))",
        "::error file=registry/prerequisites/user.yaml,line=6,col=14,title=PRQ140::"
        "requires 'gone', which is not in the registry (hint: add the item to the registry, or fix the name)",
        "::warning file=registry/prerequisites/user.yaml,line=8,col=12,title=PRQ134::"
        "event 'containerStart' is the proposal's name for 'taskStarts' (hint: write event: taskStarts)",
    ]
    assert lines[3:] == ["3 items checked: 2 errors, 1 warning"]
    # the same from outside the repository, with an explicit path
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "--format", "github", str(repo / "registry"))[1] == out


def test_github_escapes_newlines_and_separators(capsys, make_registry) -> None:
    root = make_registry({"prerequisites/bad,name.yml": "x"})
    _, out, _ = run(capsys, "--format", "github", str(root))
    [annotation] = [line for line in out.splitlines() if line.startswith("::")]
    assert "file=" in annotation and "bad%2Cname.yml" in annotation


# --- broken input never crashes ---------------------------------------------------------------


def test_garbage_files_are_problems_not_tracebacks(capsys, make_registry) -> None:
    root = make_registry(
        {
            "owners.yaml": b"\xff\xfe\x00garbage",
            "prerequisites/binary.yaml": bytes(range(256)),
            "prerequisites/png.yaml": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            "prerequisites/nul.yaml": b"name: nul\x00\x01\n",
            "prerequisites/list.yaml": "- name: list\n- version: 1.0.0\n",
            "prerequisites/scalar.yaml": "just some words\n",
            "prerequisites/empty.yaml": "",
            "prerequisites/tabs.yaml": "name: tabs\n\tversion: 1\n",
            "prerequisites/deep.yaml": "a: " + "[" * 300 + "]" * 300 + "\n",
            "prerequisites/good.yaml": GOOD_ITEM,
        }
    )
    code, out, err = run(capsys, "--format", "json", str(root))
    assert code == 1
    assert err == ""
    report = json.loads(out)
    assert report["items"] == 1
    assert {(p["rule"], p["file"], p["line"]) for p in report["problems"]} == {
        ("PRQ102", "owners.yaml", 1),
        ("PRQ102", "prerequisites/binary.yaml", 2),  # 0x80 comes after the byte 0x0a
        ("PRQ102", "prerequisites/png.yaml", 1),
        ("PRQ101", "prerequisites/nul.yaml", 1),
        ("PRQ105", "prerequisites/list.yaml", 1),
        ("PRQ105", "prerequisites/scalar.yaml", 1),
        ("PRQ105", "prerequisites/empty.yaml", 1),
        ("PRQ101", "prerequisites/tabs.yaml", 2),
        ("PRQ101", "prerequisites/deep.yaml", 1),
    }


def test_rules_command_prints_the_reference(capsys) -> None:
    assert cli.main(["rules"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Rule reference\n") and "## PRQ143" in out
    # The rules a suppression cannot silence are marked, in the table and in their own sections.
    assert "| [PRQ120](#prq120) | `name-mismatch` | error | **no** |" in out
    assert "| [PRQ170](#prq170) | `variable-undefined` | warning | yes |" in out
    assert "**name-collision** (error, cannot be suppressed)" in out


# --- the installed command ------------------------------------------------------------------------


def test_installed_command_reports_broken_input_as_json(make_registry, tmp_path) -> None:
    prereq = Path(sys.executable).with_name("prereq")
    if not prereq.exists():  # pragma: no cover - the venv always has it; keep the message clear
        prereq = Path(shutil.which("prereq") or "prereq")
    root = make_registry({"prerequisites/good.yaml": GOOD_ITEM, "prerequisites/bin.yaml": b"\x00\xff"})
    done = subprocess.run(
        [str(prereq), "validate", "--format", "json", "registry"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == ""
    report = json.loads(done.stdout)
    assert report["items"] == 1
    assert [(p["rule"], p["file"], p["line"], p["column"]) for p in report["problems"]] == [
        ("PRQ102", "prerequisites/bin.yaml", 1, 2),
    ]
    assert root == tmp_path / "registry"


def test_registry_text_is_shown_not_obeyed(make_registry, capsys, monkeypatch) -> None:
    """Escape sequences and line breaks in a name reach the report as visible text, one line a problem."""
    import io
    import sys

    from prereq.core.terminal import VisibleStream, visible

    root = make_registry({"prerequisites/evil.yaml": 'name: "evil\\e[2J\\nfake: line"\nversion: 1.0.0\n'})
    monkeypatch.chdir(root)
    assert cli.main(["validate", str(root)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\u001b[2J\\u000afake: line" in out
    assert all(
        line.startswith(("prerequisites/", "    hint:", "owners.yaml", "1 item checked")) for line in out.splitlines()
    )
    assert visible("a\x9bb\u202ec", keep="") == "a\\u009bb\\u202ec"

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    stream = VisibleStream(terminal)
    stream.write("title \x1b]0;owned\x07 kept\ttab\r\n")
    assert terminal.getvalue() == "title \\u001b]0;owned\\u0007 kept\ttab\r\n"
    assert sys.stdout is not stream  # main() wraps only real terminals


def test_the_markdown_report_is_a_table_nothing_in_it_obeyed(make_registry, capsys, monkeypatch) -> None:
    """For a job summary: every problem a row, its cells escaped (no HTML, no table break, no @mention)."""
    root = make_registry({"prerequisites/evil.yaml": 'name: "<b>|@alice"\nversion: 1.0.0\n'})
    monkeypatch.chdir(root)
    assert cli.main(["validate", "--format", "markdown", str(root)]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "## prereq validate" and "| rule | severity | where | problem | fix |" in lines
    rows = [line for line in lines if line.startswith("| PRQ")]
    assert rows and all(row.count(" | ") == 4 for row in rows)  # five cells: nothing broke out of its cell
    assert "<b>" not in out and "@alice" not in out and "&lt;b&gt;\\|&#64;alice" in out
