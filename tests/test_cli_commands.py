"""The command line loads only what a command needs: prereq.cli's table of which module registers which
command is what each module registers, and ``prereq job add`` imports neither the site's, the review's,
the execution catalog's libraries nor jsonschema (its compiled twin, jsonschema_rs, checks the index).
Issue 17: job add against its floor.  Issue 28: `python -m prereq`, and the hints a new user needs
(the closest name to a misspelled one, `prereq init` where no registry is found)."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from prereq import cli


def test_the_command_table_is_what_each_module_registers() -> None:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers()
    seen: set[str] = set()
    for name, listed in cli.COMMAND_MODULES.items():
        before = set(commands.choices)
        importlib.import_module(f"prereq.cli.{name}").register(commands)
        added = set(commands.choices) - before
        # review_commands adds no command of its own but codeowners: it extends registry_commands' validate
        assert added | (set(listed) & seen) == set(listed), name
        seen |= added
    assert seen == {command for listed in cli.COMMAND_MODULES.values() for command in listed}


def test_job_add_loads_no_site_review_catalog_or_jsonschema() -> None:
    code = (
        "import sys; from prereq.cli import build_parser; build_parser(['job', 'add', 'x.yaml', 'a']);"
        "print(sorted(m for m in sys.modules if m.startswith(('prereq.marketplace', 'prereq.review', "
        "'prereq.execution.catalog_validation', 'prereq.jobs.queue', 'jsonschema.', 'mkdocs', 'git')) "
        "or m == 'jsonschema'))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_help_still_lists_every_command() -> None:
    shown = subprocess.run(
        [sys.executable, "-c", "from prereq.cli import main; main(['--help'])"], capture_output=True, text=True
    ).stdout
    for commands in cli.COMMAND_MODULES.values():
        for command in commands:
            assert command in shown


def test_python_dash_m_prereq_is_the_command_with_its_exit_codes(tmp_path: Path) -> None:
    """Issue 28: `python -m prereq` for an environment whose scripts are not on PATH."""
    version = subprocess.run([sys.executable, "-m", "prereq", "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("prereq ")
    usage = subprocess.run([sys.executable, "-m", "prereq", "no-such-command"], capture_output=True, text=True)
    assert usage.returncode == 2 and "prereq: error:" in usage.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "prereq", "validate"], cwd=tmp_path, capture_output=True, text=True
    )  # no registry here: 2, with the hint
    assert missing.returncode == 2 and "no registry found" in missing.stderr and "Traceback" not in missing.stderr


def test_the_wheel_and_the_sdist_carry_dunder_main() -> None:
    from hatchling.builders.sdist import SdistBuilder
    from hatchling.builders.wheel import WheelBuilder

    repo = str(Path(__file__).resolve().parents[1])
    wheel = {f.distribution_path for f in WheelBuilder(repo).recurse_included_files()}
    sdist = {f.distribution_path for f in SdistBuilder(repo).recurse_included_files()}
    assert "prereq/__main__.py" in wheel and "prereq/cli/__init__.py" in wheel
    assert "tools/prereq/__main__.py" in sdist


def test_no_registry_found_suggests_prereq_init(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(["validate"]) == 2
    err = capsys.readouterr().err
    assert "no registry found at or above" in err and "hint: start a registry with 'prereq init'" in err


STORY = Path(__file__).parent / "cases" / "indexes" / "story"  # a committed index (tests/cases/README.md)


@pytest.mark.parametrize(
    ("typed", "meant"), [("mnist-dta", "mnist-data"), ("MNIST_Data", "mnist-data"), ("ouput-dir", "output-dir")]
)
def test_show_suggests_the_closest_name(typed: str, meant: str, capsys) -> None:
    assert cli.main(["show", typed, "--index", str(STORY)]) == 2
    err = capsys.readouterr().err
    assert f"no prerequisite named '{typed}' in the index" in err and f"hint: did you mean '{meant}'?" in err
    assert cli.main(["show", meant, "--index", str(STORY)]) == 0


def test_show_without_a_close_name_says_to_search(capsys) -> None:
    assert cli.main(["show", "tensorboard", "--index", str(STORY)]) == 2
    assert "hint: search with 'prereq search WORD'" in capsys.readouterr().err
