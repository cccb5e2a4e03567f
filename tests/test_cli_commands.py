"""The command line loads only what a command needs: prereq.cli's table of which module registers which
command is what each module registers, and ``prereq job add`` imports neither the site's, the review's,
the execution catalog's libraries nor jsonschema (its compiled twin, jsonschema_rs, checks the index).
Issue 17: job add against its floor."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

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
        "'prereq.execution.validate', 'prereq.jobs.queue', 'jsonschema.', 'mkdocs', 'git')) or m == 'jsonschema'))"
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
