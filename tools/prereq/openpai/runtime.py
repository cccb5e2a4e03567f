"""What the real OpenPAI runtime does with a prerequisite, in one place.

- It re-parses every plugin parameter with ``yaml.safe_load(str(parameters))``,
  so a value whose Python repr is not the same value in YAML is changed or
  breaks (``survives_round_trip``).
- Every script runs as its own bash process, so ``export`` in one prerequisite
  reaches nothing else.  prereq compiles each cmd prerequisite's callbacks so
  they load a shared environment file first and append what they exported to
  it when they exit; the job's commands load it with one marked line.

Everything prereq adds to a job is written here, and written only with double
quotes and no backslash, so it survives the repr round trip unchanged.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import yaml

from prereq.core import placeholders

PLUGIN_PREFIX = "com.microsoft.pai.runtimeplugin."
DEFAULT_PLUGIN = PLUGIN_PREFIX + "cmd"  # what an item without `plugin` uses
START, SUCCEED = "taskStarts", "taskSucceeds"
EVENT_SYNONYMS = {"containerStart": START, "containerExit": SUCCEED}
COMMAND_KEYS = {"preCommands": START, "postCommands": SUCCEED}  # an item's own commands, as callbacks of these events
# Lifted out of a prerequisite by the runtime; every other key becomes a parameter.
LIFTED_KEYS = ("type", "failurePolicy", "plugin")

# The shared environment file.  PREREQ_ENV_FILE lets tests (and admins) move it.
ENV_FILE = "${PREREQ_ENV_FILE:-/tmp/prereq/env.sh}"
ENV_MARK = "# prereq: load variables exported by prerequisites"
# Shell variables of prereq's own, never handed on.
_OWN = "PWD|OLDPWD|SHLVL|_|PREREQ_ENV|PREREQ_NAME|PREREQ_BEFORE"

# First command of every compiled callback: load what earlier scripts
# exported, then remember every exported variable's value.
LOAD_AND_TRACK = (
    f'PREREQ_ENV="{ENV_FILE}"; if [ -f "$PREREQ_ENV" ]; then . "$PREREQ_ENV"; fi; '
    "declare -A PREREQ_BEFORE=(); "
    'for PREREQ_NAME in $(compgen -e); do PREREQ_BEFORE[$PREREQ_NAME]="${!PREREQ_NAME-}"; done'
    f"  {ENV_MARK}"
)
# Second command: when the script exits, however it exits, append every
# variable that is newly exported or changed as a ``declare -p`` line (bash
# quotes it, so any value is read back as it was, newlines included).
SAVE_ON_EXIT = (
    "prereq_save_env() { local prereq_n; local -a prereq_names; "
    "mapfile -t prereq_names < <(compgen -e); "
    'mkdir -p "$(dirname "$PREREQ_ENV")" && for prereq_n in "${prereq_names[@]}"; do '
    f'case "$prereq_n" in {_OWN}) continue;; esac; '
    'if [ -z "${PREREQ_BEFORE[$prereq_n]+x}" ] || [ "${PREREQ_BEFORE[$prereq_n]}" != "${!prereq_n-}" ]; '
    'then declare -p "$prereq_n"; fi; done >> "$PREREQ_ENV" || true; }; '
    "trap prereq_save_env EXIT  # prereq: hand exported variables to what runs next"
)
# The one line at the top of a task role's commands.
JOB_LOAD_LINE = f'if [ -f "{ENV_FILE}" ]; then . "{ENV_FILE}"; fi  {ENV_MARK}'
ENCODED_MARK = "# prereq: quoted so the runtime passes it intact"

# Variables the runtime or the shell defines: using them never warns.
RUNTIME_VARIABLES = re.compile(
    r"^(PAI_[A-Za-z0-9_]*|FC_[A-Z0-9_]*|HOME|PATH|PWD|OLDPWD|USER|LOGNAME|SHELL|HOSTNAME|LANG|LANGUAGE|"
    r"LC_[A-Z]+|TERM|TMPDIR|SHLVL|"
    r"RANDOM|SECONDS|LINENO|EPOCHSECONDS|EPOCHREALTIME|BASH[A-Z_]*|FUNCNAME|GROUPS|PIPESTATUS|IFS|UID|EUID|"
    r"PPID|OSTYPE|HOSTTYPE|MACHTYPE|COLUMNS|LINES|"
    r"CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES|LD_LIBRARY_PATH|PYTHONPATH|REPLY|OPTARG|OPTIND|"
    r"PREREQ_ENV_FILE|"
    r"[0-9]+|[@*#?$!_-])$"
)


def survives_round_trip(value: Any) -> bool:
    """True when the runtime's ``yaml.safe_load(str(value))`` gives ``value`` back."""
    try:
        return yaml.safe_load(str(value)) == value
    except yaml.YAMLError:
        return False


@lru_cache(maxsize=16384, typed=True)  # typed: 1, 1.0 and True are different values here
def scalar_survives(value: str | int | float | bool | None) -> bool:
    """``survives_round_trip`` for one scalar in a list, as plugin parameters hold
    them; cached, since every compiled callback repeats prereq's own lines."""
    return survives_round_trip([value])


@lru_cache(maxsize=4096, typed=True)
def key_survives(key: str | int | float | bool | None) -> bool:
    """``survives_round_trip`` for one mapping key."""
    return survives_round_trip({key: 0})


def ansi_c_quote(text: str) -> str:
    """``text`` as a bash ``$'...'`` word.  The result holds ``'`` and never
    ``"``, so Python writes its repr in double quotes, which YAML reads back
    exactly, backslashes and all."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "'":
            out.append("\\'")
        elif ch == '"':
            out.append("\\x22")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


def _readable_template(text: str) -> bool:
    """A template that another renderer (OpenPAI, prereq's expressions) must
    still find as written, and that fits in single quotes."""
    return not any(ch in text for ch in "'\"\\") and all(ch.isprintable() for ch in text)


def encode_script(commands: list[str]) -> list[str]:
    """One command that runs ``commands`` in the same shell with the same
    effect, and that survives the round trip: ``eval`` of the block, written
    as one bash ``$'...'`` string.  Templates (``<% $secrets.x %>``...) stay
    readable, in single quotes between the pieces, for OpenPAI to render;
    their value must then hold no ``'``."""
    script = "\n".join(commands)
    words: list[str] = []
    last = 0
    for match in placeholders.TEMPLATE.finditer(script):
        if not _readable_template(match[0]):
            continue
        if match.start() > last:
            words.append(ansi_c_quote(script[last : match.start()]))
        words.append(f"'{match[0]}'")
        last = match.end()
    if last < len(script) or not words:
        words.append(ansi_c_quote(script[last:]))
    return [f"eval {''.join(words)}  {ENCODED_MARK}"]


def safe_text(text: str) -> str:
    """Prose (titles, contributor names) adjusted just enough to survive the round trip."""
    if scalar_survives(text):
        return text
    adjusted = re.sub(r"\s", " ", text)
    if scalar_survives(adjusted):
        return adjusted
    adjusted = adjusted.replace("'", "\u2019")
    if scalar_survives(adjusted):
        return adjusted
    return "".join(ch for ch in adjusted if ch.isprintable() and ch != "\\")
