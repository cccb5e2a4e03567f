"""Which shell variables a block of commands exports, defines and uses.

A static reading of bash, good enough for warnings, never a reason to reject:

- ``exported_variables``: names set by ``export NAME=...``, ``export NAME``,
  ``declare -x NAME`` (and ``typeset -x``), in order, each once.
- ``defined_variables``: every name the commands give a value: assignments
  (``X=...``, ``X+=...``, ``X=(...)``; not ``X=1 cmd``, which is cmd's environment),
  ``export``/``declare``/``local``/``readonly``, ``for X in``, ``select X``, ``read X``,
  ``getopts ... X``, ``mapfile X``, ``printf -v X``, ``wait -p X``, ``exec {X}>file``,
  ``${X:=...}``, arithmetic (``((X=1))``, ``let "X = 1"``), and
  what well-known files set when sourced (``. /etc/os-release``: ``ID``...), and what activating
  an environment sets (``conda activate``, ``. venv/bin/activate``: ``CONDA_PREFIX``, ``VIRTUAL_ENV``...).
- ``used_variables`` (``undefined_uses``: with where each is first used): ``$NAME`` and
  ``${NAME...}`` uses that need a definition: not the ``${X:-...}`` / ``${X-...}`` / ``${X:=...}`` /
  ``${X=...}`` / ``${X:+...}`` / ``${X+...}`` family (nor ``$X`` inside the ``+`` forms'
  alternative), nor the guard ``${X:?...}`` / ``${X?...}`` (it fails with its message on purpose;
  ShellCheck's SC2154 agrees), nothing in single quotes, comments or quoted
  here-documents, no name defined earlier in the same commands, none of
  ``runtime.RUNTIME_VARIABLES`` (``PAI_*``, ``HOME``, ``$1``, ``$?`` ...).

Each block of commands that OpenPAI runs is its own process: a plain ``X=1``
in a start callback is not seen by the job or the succeed callbacks, only
what is exported is (through prereq's environment file).  So pass one block
at a time (one event's commands, or a task role's commands), and give
``used_variables`` what earlier blocks export as ``known``.

``<% ... %>`` templates are read as plain words (their ``$`` is OpenPAI's, not the shell's).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from prereq.core import placeholders
from prereq.openpai import runtime
from prereq.openpai.shellscan import ASSIGNMENT, NAME, Event, Scanner, Word

_DECLARERS = {"export", "declare", "typeset", "readonly", "local"}
_READ_ARG_OPTIONS = set("adinNptu")
# Files commonly sourced for the variables they set (other sourced files are unknown).
SOURCED_FILES = {
    "/etc/os-release": (
        "ID",
        "ID_LIKE",
        "NAME",
        "VERSION",
        "VERSION_ID",
        "VERSION_CODENAME",
        "PRETTY_NAME",
        "UBUNTU_CODENAME",
    ),
    "/etc/lsb-release": ("DISTRIB_ID", "DISTRIB_RELEASE", "DISTRIB_CODENAME", "DISTRIB_DESCRIPTION"),
}
_MAPFILE_ARG_OPTIONS = set("dnOsuCc")
_ELEMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[.*\])?")  # printf -v NAME or NAME[index]
# What activating an environment sets: ``conda activate ENV`` (and conda's own ``source activate``),
# a virtualenv's ``. bin/activate``.
ACTIVATED = ("CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_PROMPT_MODIFIER", "CONDA_SHLVL", "CONDA_EXE", "VIRTUAL_ENV")

Commands = str | Iterable[str]


class _Scanner(Scanner):
    """The reader, with what each simple command does with variables."""

    def command(self, words: list[Word]) -> None:
        name = words[0].value
        args = words[1:]
        if name in _DECLARERS:
            self.declaration(name, args)
        elif name == "read":
            self.with_options(args, _READ_ARG_OPTIONS, names_at="all", array_option="a")
        elif name in ("mapfile", "readarray"):
            self.with_options(args, _MAPFILE_ARG_OPTIONS, names_at="last")
        elif name == "printf":
            target = _ELEMENT.fullmatch(args[1].value or "") if len(args) >= 2 and args[0].value == "-v" else None
            if target:
                self.define(args[1].end, target[1])
        elif name == "wait":
            self.with_options(args, set("p"), names_at="none", array_option="p")  # wait -n -p ID
        elif name == "getopts":
            if len(args) >= 2 and args[1].value and NAME.fullmatch(args[1].value):
                self.define(args[1].end, args[1].value)
        elif name in (".", "source"):
            if args and args[0].value in SOURCED_FILES:
                for variable in SOURCED_FILES[args[0].value]:
                    self.define(args[0].end, variable)
            elif args and (args[0].raw == "activate" or args[0].raw.endswith("/activate")):
                self.activated(args[0].end)
        elif words[0].raw.rsplit("/", 1)[-1] in ("conda", "mamba", "micromamba"):
            if args and args[0].value == "activate":
                self.activated(args[0].end)
        elif name == "let":
            for arg in args:  # each an arithmetic expression: `let "n = n + 1" m++`
                expression = self.reader(arg.value or arg.raw, 0)
                expression.parse_arith(0)
                for event in expression.events:
                    if event.kind == "def":
                        self.define(arg.end, event.name)

    def activated(self, offset: int) -> None:
        for variable in ACTIVATED:
            self.define(offset, variable)

    def declaration(self, command: str, args: list[Word]) -> None:
        flags: set[str] = set()
        for arg in args:
            text = arg.value if arg.value is not None else arg.raw
            if text.startswith(("-", "+")) and len(text) > 1 and not ASSIGNMENT.match(text):
                if text.startswith("-"):
                    flags.update(text[1:])
                continue
            match = ASSIGNMENT.match(text) or ASSIGNMENT.match(arg.raw) or NAME.fullmatch(text)
            if not match:
                continue
            if "f" in flags or "F" in flags:
                continue  # functions, not variables
            exported = (command == "export" and "n" not in flags) or (
                command in ("declare", "typeset") and "x" in flags
            )
            self.define(arg.end, match[1] if match.re is ASSIGNMENT else match[0], exported)

    def with_options(
        self, args: list[Word], takes_argument: set[str], *, names_at: str, array_option: str = ""
    ) -> None:
        names: list[Word] = []
        index = 0
        while index < len(args):
            text = args[index].value or ""
            if text.startswith("-") and len(text) > 1 and not names:
                for position, option in enumerate(text[1:], start=1):
                    if option in takes_argument:
                        argument = text[position + 1 :]
                        if not argument and index + 1 < len(args):
                            index += 1
                            argument = args[index].value or ""
                        if option == array_option and NAME.fullmatch(argument):
                            self.define(args[index].end, argument)
                        break
            else:
                names.append(args[index])
            index += 1
        chosen = {"last": names[-1:], "all": names}.get(names_at, [])
        for word in chosen:
            if word.value and NAME.fullmatch(word.value):
                self.define(word.end, word.value)


def _commands(commands: Commands) -> list[str]:
    """Each command with its templates as one word (OpenPAI's and prereq's, not shell expansions), its
    lines kept (a template over several lines becomes a word continued over as many) for ``Use.line``."""
    texts = [commands] if isinstance(commands, str) else [str(c) for c in commands]
    return [placeholders.TEMPLATE.sub(lambda m: "TEMPLATE" + "\\\n" * m[0].count("\n"), t) for t in texts]


def _events(texts: list[str]) -> list[Event]:
    """What the commands (from ``_commands``), joined by newlines, do with variables, in order."""
    scanner = _Scanner("\n".join(texts))
    scanner.parse_list(0)
    return sorted(scanner.events, key=lambda event: event.offset)


def _unique(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))


def exported_variables(commands: Commands) -> list[str]:
    """Names the commands export, in order, each once."""
    return _unique(event.name for event in _events(_commands(commands)) if event.kind == "export")


def defined_variables(commands: Commands) -> list[str]:
    """Names the commands give a value (exported or not), in order, each once."""
    return _unique(event.name for event in _events(_commands(commands)) if event.kind == "def")


def is_runtime_variable(name: str) -> bool:
    """Defined by the runtime or the shell (``runtime.RUNTIME_VARIABLES``)."""
    return bool(runtime.RUNTIME_VARIABLES.match(name))


@dataclass(frozen=True)
class Use:
    """The first use of a variable that nothing defines before it, in the commands given."""

    name: str
    command: int  # which command (0 for one text)
    line: int  # the line within that command, from 0


def undefined_uses(
    commands: Commands, known: Iterable[str] = (), *, unassigned: Collection[str] | None = None
) -> list[Use]:
    """Names the commands expand that nothing defines, each at its first such use: not ``known`` (what
    earlier blocks export), not the runtime's, not set earlier in the same commands; ``${X:-default}``
    and its family, and the guard ``${X:?message}``, never count.  ``unassigned``: the names ShellCheck's
    SC2154 reports in the same commands (None: ShellCheck did not read them); a name it does not report
    is assigned somewhere in them (by a builtin this reader does not follow, or after a test), or
    marked ``# shellcheck disable=SC2154``, and is left out, unless its first reference is a guarded
    one (``${X:-default}``), after which ShellCheck says nothing of the name."""
    texts = _commands(commands)
    text = "\n".join(texts)
    starts = [0]
    for command in texts[:-1]:
        starts.append(starts[-1] + len(command) + 1)
    defined = set(known)
    found: dict[str, Use] = {}
    guarded_first: set[str] = set()  # ShellCheck judges a name by its first reference, silent when guarded
    referenced: set[str] = set()
    for event in _events(texts):
        if event.kind in ("use", "guard") and event.name not in referenced:
            referenced.add(event.name)
            if event.kind == "guard":
                guarded_first.add(event.name)
        if event.kind == "def":
            defined.add(event.name)
        elif event.kind == "use" and not (
            event.name in defined
            or event.name in found
            or is_runtime_variable(event.name)
            or (unassigned is not None and event.name not in unassigned and event.name not in guarded_first)
        ):
            index = bisect.bisect_right(starts, event.offset) - 1
            found[event.name] = Use(event.name, index, text.count("\n", starts[index], event.offset))
    return list(found.values())


def used_variables(commands: Commands, known: Iterable[str] = ()) -> list[str]:
    """The names of ``undefined_uses``, in order."""
    return [use.name for use in undefined_uses(commands, known)]
