"""The ``prereq`` command: a thin shell over the library.

Each command group lives in its own module with ``register(subparsers)``; the
command functions return an exit code.  Exit codes: 0 all well, 1 problems
found, 2 usage error or missing input, 3 internal error, 130 interrupted, 141 a
reader that closed the output early.  Only this package prints
and picks exit codes.

May import: every prereq package.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import traceback
from collections.abc import Iterator, Sequence
from importlib import import_module
from types import ModuleType
from typing import Any, NoReturn, TextIO

from prereq import __version__
from prereq.core.errors import PrereqError
from prereq.core.terminal import VisibleStream

# The modules of prereq.cli that register commands, in the order --help lists them (review_commands
# extends registry_commands' validate, so it comes after it), and the commands each registers: a
# command loads only its modules, so that `prereq job add` does not import the site's, the review's or
# the catalog's libraries (tests/test_cli_commands.py holds this table to what each module registers).
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "scaffold_commands": ("init", "new", "share", "schema"),
    "registry_commands": ("validate", "rules"),
    "review_commands": ("codeowners", "validate"),
    "index_commands": ("build", "search", "show"),
    "job_commands": ("job", "expression"),
    "site_commands": ("serve",),
    "execution_commands": ("rights", "queues", "request", "schedule", "place"),
}

_EXTENDS = {"review_commands": "registry_commands"}  # a module that adds to another's command needs it first


def command_modules(argv: Sequence[str]) -> list[ModuleType]:
    """The modules the command in ``argv`` needs; all of them for --help, --version or an unknown command."""
    first = next((word for word in argv if not word.startswith("-")), None)
    wanted = {name for name, commands in COMMAND_MODULES.items() if first in commands}
    wanted |= {_EXTENDS[name] for name in wanted if name in _EXTENDS}
    names = [name for name in COMMAND_MODULES if name in wanted] or list(COMMAND_MODULES)
    return [import_module(f"prereq.cli.{name}") for name in names]


EPILOG = """\
exit codes: 0 all is well, 1 problems found, 2 usage error or missing input,
3 internal error (please report it), 130 interrupted, 141 the output's reader
stopped early (a pipe to 'head').

Run 'prereq COMMAND --help' for the details of each command."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2 with a hint, like argparse, but cleaner
        self.print_usage(sys.stderr)
        _say(f"prereq: error: {message}")
        sys.exit(2)

    def _print_message(self, message: str, file: Any = None) -> None:
        # argparse's own drops write errors: '--help >/dev/full' ended with 0 and nothing written.
        if message:
            (file or sys.stderr).write(message)


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser of the commands ``argv`` needs (every command's when it names none)."""
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
    for module in command_modules(argv):
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:  # closed ('prereq validate >&-'): what would go there goes nowhere
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - for the whole run
        # What prereq prints holds registry text: on a terminal, its control characters are shown, not obeyed.
        elif stream.isatty() and not isinstance(stream, VisibleStream):
            setattr(sys, name, VisibleStream(stream))
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    printed_to, sys.stdout = sys.stdout, _Output(sys.stdout)
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit:  # --help, --version, a usage error: what they printed must reach its reader
            sys.stdout.flush()
            raise
        code = _run(args)
        sys.stdout.flush()  # here, not at exit: a pipe closed by then must change the exit code too
        return code
    except KeyboardInterrupt:  # during the last flush (the command's own is _run's)
        _say("prereq: interrupted")
        return 130
    except BrokenPipeError:
        # The reader stopped early (`prereq validate | head`): end as a command SIGPIPE ends, 128 + 13,
        # never 0, which passed a failed check in a pipeline; Python's last flush of the closed pipe
        # is sent to /dev/null so that nothing else is printed.
        _to_devnull(printed_to)
        return 141
    except _OutputUnwritable as exc:
        _to_devnull(printed_to)
        _say(f"prereq: error: cannot write the output: {exc}")
        return 2
    finally:
        sys.stdout = printed_to


class _OutputUnwritable(Exception):
    """What prereq prints could not be written (a full disk, '>/dev/full'): not a bug of prereq's."""


@contextlib.contextmanager
def _unwritable() -> Iterator[None]:
    """A write error but a broken pipe (main's 141), as _OutputUnwritable."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise _OutputUnwritable(exc.strerror or str(exc)) from None


class _Output:
    """sys.stdout for a run: its write errors, but a broken pipe (main's 141), are _OutputUnwritable."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        with _unwritable():
            return self._stream.write(text)

    def flush(self) -> None:
        with _unwritable():
            self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _run(args: argparse.Namespace) -> int:
    """The command's exit code; its errors said on stderr (a broken pipe is main's)."""
    try:
        return int(args.run(args))
    except PrereqError as exc:
        _say(f"prereq: error: {exc.message}", *([f"    hint: {exc.hint}"] if exc.hint else []))
        return exc.exit_code
    except KeyboardInterrupt:
        _say("prereq: interrupted")
        return 130
    except (BrokenPipeError, _OutputUnwritable):
        raise
    except Exception as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        _say(
            f"prereq: internal error: {type(exc).__name__}: {exc}",
            f"    at {frame.filename}:{frame.lineno} in {frame.name}",
            "    this is a bug in prereq; please report it with the command you ran "
            "(set PREREQ_DEBUG=1 for the full traceback)",
        )
        if _debug():
            traceback.print_exc()
        return 3


def _say(*lines: str) -> None:
    """Lines on stderr; a stderr that cannot take them (a full disk) changes nothing else: what it
    kept goes to /dev/null, so that Python's last flush does not fail the exit code either."""
    try:
        print("\n".join(lines), file=sys.stderr)
        sys.stderr.flush()
    except OSError:
        _to_devnull(sys.stderr)


def _to_devnull(stream: TextIO) -> None:
    # io.UnsupportedOperation is both errors: a stream without a file (a test's) is left as it is.
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def _debug() -> bool:
    return os.environ.get("PREREQ_DEBUG") == "1"
