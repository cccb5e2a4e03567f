"""``prereq validate`` and ``prereq rules``."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from prereq.cli.defaults import registry_folder
from prereq.core.gitrepo import Repository
from prereq.core.terminal import Progress
from prereq.execution.catalog_validation import with_catalog
from prereq.registry.reporters import REPORTERS, report
from prereq.registry.rules import Problem, rule_reference_markdown
from prereq.registry.settings import load_settings, start_image_problem
from prereq.registry.validate import validate
from prereq.review.codeowners import codeowners_problem
from prereq.review.rules import ALL_RULES

VALIDATE_HELP = """\
Check every item in a registry and report every problem in one run.

PATH is the registry folder (the one holding prerequisites/ and owners.yaml);
by default the one prereq.yaml names, else the registry/ of the repository
around the current directory.

output formats:
  text    file:line:col: PRQnnn severity message, then an indented hint (default);
          paths from the current directory
  json    {"items": N, "problems": [{"rule", "severity", "file", "line",
          "column", "message", "hint"}]}; paths relative to the registry,
          line and column 1-based, null where a problem has no single place
  github  workflow annotations (::error file=...), paths relative to the
          repository root, for pull-request checks
  markdown  a table for a job summary ($GITHUB_STEP_SUMMARY); with --base,
          the review's impact report

exit codes:
  0  no errors (and, while strict, no warnings)
  1  problems found
  2  usage error, or PATH is missing or not a registry
  3  internal error

strictness:
  Warnings fail like errors unless prereq.yaml says otherwise
  (validate: {strict: false}). The pull-request check (--base), its
  trivially-safe verdict, pre-commit and 'prereq build' read the same
  setting, so a change the check passes is one publish builds.
  --strict/--no-strict override it for one run.

See 'prereq rules' for every rule id, what it checks and how to fix it."""


def register(subparsers: argparse._SubParsersAction) -> None:
    validate_parser = subparsers.add_parser(
        "validate",
        help="check a registry and report every problem",
        description=VALIDATE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    validate_parser.add_argument(
        "path",
        nargs="?",
        type=Path,
        help="registry folder (default: the registry/ of the repository around the current directory)",
    )
    validate_parser.add_argument(
        "--format", choices=list(REPORTERS), default="text", help="output format (default: text)"
    )
    validate_parser.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        help="fail on warnings too, or not (default: prereq.yaml's validate.strict, else strict)",
    )
    validate_parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="say on stderr what validation is doing and how long it took (default: when stderr is a terminal; "
        "a first run over a large registry takes minutes, later runs read only what changed)",
    )
    validate_parser.set_defaults(run=run_validate)

    rules_parser = subparsers.add_parser(
        "rules",
        help="print the rule reference (Markdown)",
        description="Print the reference of every validation rule as Markdown, generated from the "
        "same table the validator uses. Rules marked 'suppressible: no' guard names, files, owners and "
        "published versions: a suppression of one is itself an error (PRQ182).",
    )
    rules_parser.set_defaults(run=run_rules)


def run_validate(args: argparse.Namespace) -> int:
    root = registry_folder(args.path)
    settings = load_settings(root)  # a broken prereq.yaml stops before the work
    strict = settings.strictness(args.strict)
    with validation_progress(args) as progress:
        result = with_catalog(validate(root, history=True, progress=progress, rules=ALL_RULES), credentials=True)
    # With GitHub handles in owners.yaml, CODEOWNERS is generated: a stale one fails here too (PRQ207).
    stale = codeowners_problem(root, result.items, result.owners)
    if stale is not None:
        result = dataclasses.replace(result, problems=sorted([*result.problems, stale], key=Problem.sort_key))
    repo = Repository.find(root) if args.format == "github" else None
    for note in [*result.notes, *result.stays]:  # stderr: the report on stdout stays what its format says
        print(f"prereq: note: {note}", file=sys.stderr)
    print(report(result, format=args.format, base=repo.root if repo else Path.cwd()))
    refusal = start_image_problem(settings, result.items)  # the build would refuse it: said here first
    if refusal is not None:
        raise refusal
    return 1 if result.failed(strict=strict) else 0


@contextmanager
def validation_progress(args: argparse.Namespace) -> Iterator[Progress]:
    """What ``--progress`` prints on stderr (by default only to a terminal): each phase, then the time
    it all took."""
    shown = sys.stderr.isatty() if args.progress is None else args.progress
    started = time.monotonic()

    def say(message: str) -> None:
        if shown:
            print(f"validate: {message}", file=sys.stderr, flush=True)

    yield say
    say(f"done in {time.monotonic() - started:.1f} s")


def run_rules(args: argparse.Namespace) -> int:
    print(rule_reference_markdown(ALL_RULES), end="")
    return 0
