"""Which shell variables a block of commands exports, defines and uses.

A static reading of bash, good enough for warnings, never a reason to reject:

- ``exported_variables``: names set by ``export NAME=...``, ``export NAME``,
  ``declare -x NAME`` (and ``typeset -x``), in order, each once.
- ``defined_variables``: every name the commands give a value: assignments
  (``X=...``, ``X+=...``, ``X=(...)``), ``export``/``declare``/``local``/
  ``readonly``, ``for X in``, ``select X``, ``read X``, ``getopts ... X``,
  ``mapfile X``, ``printf -v X``, ``${X:=...}``, arithmetic ``((X=1))``, and
  what well-known files set when sourced (``. /etc/os-release``: ``ID``...), and what activating
  an environment sets (``conda activate``, ``. venv/bin/activate``: ``CONDA_PREFIX``, ``VIRTUAL_ENV``...).
- ``used_variables``: ``$NAME`` and ``${NAME...}`` uses that need a
  definition: not the ``${X:-...}`` / ``${X-...}`` / ``${X:=...}`` /
  ``${X=...}`` / ``${X:+...}`` / ``${X+...}`` family (nor ``$X`` inside the
  ``+`` forms' alternative), nothing in single quotes, comments or quoted
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

from collections.abc import Iterable

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
            if len(args) >= 2 and args[0].value == "-v" and args[1].value and NAME.fullmatch(args[1].value):
                self.define(args[1].end, args[1].value)
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
            for arg in args:
                match = ASSIGNMENT.match(arg.value or arg.raw)
                if match:
                    self.define(arg.end, match[1])

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
        chosen = names[-1:] if names_at == "last" else names
        for word in chosen:
            if word.value and NAME.fullmatch(word.value):
                self.define(word.end, word.value)


def _text(commands: Commands) -> str:
    text = commands if isinstance(commands, str) else "\n".join(str(c) for c in commands)
    # OpenPAI's and prereq's templates are words, not shell expansions.
    return placeholders.TEMPLATE.sub("TEMPLATE", text)


def _events(commands: Commands) -> list[Event]:
    scanner = _Scanner(_text(commands))
    scanner.parse_list(0)
    return sorted(scanner.events, key=lambda event: event.offset)


def _unique(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))


def exported_variables(commands: Commands) -> list[str]:
    """Names the commands export, in order, each once."""
    return _unique(event.name for event in _events(commands) if event.kind == "export")


def defined_variables(commands: Commands) -> list[str]:
    """Names the commands give a value (exported or not), in order, each once."""
    return _unique(event.name for event in _events(commands) if event.kind == "def")


def is_runtime_variable(name: str) -> bool:
    """Defined by the runtime or the shell (``runtime.RUNTIME_VARIABLES``)."""
    return bool(runtime.RUNTIME_VARIABLES.match(name))


def used_variables(commands: Commands, known: Iterable[str] = ()) -> list[str]:
    """Names the commands expand that nothing defines: not ``known`` (what
    earlier blocks export), not the runtime's, not set earlier in the same
    commands; ``${X:-default}`` and its family never count."""
    defined = set(known)
    found: list[str] = []
    for event in _events(commands):
        if event.kind == "def":
            defined.add(event.name)
        elif event.kind == "use" and event.name not in defined and not is_runtime_variable(event.name):
            found.append(event.name)
    return _unique(found)
