"""The ``prereq`` command: a thin shell over the library.

Each command group lives in its own module with ``register(subparsers)``; the
command functions return an exit code.  Exit codes: 0 all well, 1 problems
found, 2 usage error or missing input, 3 internal error.  Only this package prints
and picks exit codes.

May import: every prereq package.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from prereq import __version__
from prereq.cli import (
    execution_commands,
    index_commands,
    job_commands,
    registry_commands,
    review_commands,
    scaffold_commands,
    site_commands,
)
from prereq.core.errors import PrereqError
from prereq.core.terminal import VisibleStream

# review_commands extends registry_commands' validate, so it comes after it.
COMMAND_MODULES = (
    scaffold_commands,
    registry_commands,
    review_commands,
    index_commands,
    job_commands,
    site_commands,
    execution_commands,
)

EPILOG = """\
exit codes: 0 all is well, 1 problems found, 2 usage error or missing input,
3 internal error (please report it).

Run 'prereq COMMAND --help' for the details of each command."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2 with a hint, like argparse, but cleaner
        self.print_usage(sys.stderr)
        sys.stderr.write(f"prereq: error: {message}\n")
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="prereq",
        description="Share OpenPAI prerequisites: validate a registry, publish its index and marketplace, "
        "and add prerequisites to jobs.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"prereq {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # What prereq prints holds registry text: on a terminal, its control characters are shown, not obeyed.
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream.isatty() and not isinstance(stream, VisibleStream):
            setattr(sys, name, VisibleStream(stream))
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except PrereqError as exc:
        print(f"prereq: error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"    hint: {exc.hint}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("prereq: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        print(
            f"prereq: internal error: {type(exc).__name__}: {exc}\n"
            f"    at {frame.filename}:{frame.lineno} in {frame.name}\n"
            "    this is a bug in prereq; please report it with the command you ran "
            "(set PREREQ_DEBUG=1 for the full traceback)",
            file=sys.stderr,
        )
        if _debug():
            traceback.print_exc()
        return 3


def _debug() -> bool:
    import os

    return os.environ.get("PREREQ_DEBUG") == "1"
