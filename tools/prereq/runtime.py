"""What the real OpenPAI runtime does with a prerequisite, in one place.

- It re-parses every plugin parameter with ``yaml.safe_load(str(parameters))``,
  so a value whose Python repr is not the same value in YAML is changed or
  breaks (``survives_round_trip``).
- Every script runs as its own bash process, so ``export`` in one prerequisite
  reaches nothing else.  prereq compiles each cmd prerequisite's callbacks so
  they load a shared environment file first and append what they exported to
  it when they exit; the job's commands load it with one marked line.
"""

from __future__ import annotations

import base64
import re
from typing import Any

import yaml

PLUGIN_PREFIX = "com.microsoft.pai.runtimeplugin."
START, SUCCEED = "taskStarts", "taskSucceeds"
EVENT_SYNONYMS = {"containerStart": START, "containerExit": SUCCEED}
LIFTED_KEYS = ("type", "failurePolicy")  # not passed to the plugin

# The shared environment file.  PREREQ_ENV_FILE lets tests (and admins) move it.
ENV_FILE = "${PREREQ_ENV_FILE:-/tmp/prereq/env.sh}"
ENV_MARK = "# prereq: load variables exported by prerequisites"
# Written only with double quotes and no backslash, so they survive the
# runtime's repr round trip unchanged.
LOAD_AND_TRACK = (
    f'PREREQ_ENV="{ENV_FILE}"; if [ -f "$PREREQ_ENV" ]; then . "$PREREQ_ENV"; fi; '
    f'PREREQ_ENV_BEFORE="$(export -p)"  {ENV_MARK}'
)
SAVE_ON_EXIT = (
    'prereq_save_env() { mkdir -p "$(dirname "$PREREQ_ENV")"; '
    'export -p | grep -Fxv -f <(echo "$PREREQ_ENV_BEFORE") '
    '| grep -Ev "^declare -x (PWD|OLDPWD|SHLVL|_|PREREQ_ENV|PREREQ_ENV_BEFORE)=" >> "$PREREQ_ENV" || true; }; '
    "trap prereq_save_env EXIT  # prereq: hand exported variables to what runs next"
)
JOB_LOAD_LINE = f'if [ -f "{ENV_FILE}" ]; then . "{ENV_FILE}"; fi  {ENV_MARK}'

# Variables the runtime or the shell defines: using them never warns.
RUNTIME_VARIABLES = re.compile(
    r"^(PAI_[A-Z0-9_]*|HOME|PATH|PWD|OLDPWD|USER|LOGNAME|SHELL|HOSTNAME|LANG|LC_[A-Z]+|TERM|TMPDIR|"
    r"RANDOM|SECONDS|LINENO|BASH[A-Z_]*|IFS|UID|EUID|PPID|OSTYPE|HOSTTYPE|MACHTYPE|"
    r"CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES|LD_LIBRARY_PATH|PYTHONPATH|REPLY|OPTARG|OPTIND|"
    r"[0-9]+|[@*#?$!-])$"
)


def survives_round_trip(value: Any) -> bool:
    """True when the runtime's ``yaml.safe_load(str(value))`` gives ``value`` back."""
    try:
        return yaml.safe_load(str(value)) == value
    except yaml.YAMLError:
        return False


def encode_script(commands: list[str]) -> list[str]:
    """One command that runs ``commands`` with the same shell, built only of
    characters that survive the round trip (base64 and plain text)."""
    payload = base64.b64encode("\n".join(commands).encode("utf-8")).decode("ascii")
    return [f'eval "$(echo {payload} | base64 -d)"  # prereq: encoded so the runtime passes it intact']


def safe_text(text: str) -> str:
    """Prose (titles, contributor names) adjusted just enough to survive the round trip."""
    if survives_round_trip([text]):
        return text
    adjusted = text.replace("'", "\u2019")
    if survives_round_trip([adjusted]):
        return adjusted
    return "".join(ch for ch in adjusted if ch.isprintable() and ch != "\\")
