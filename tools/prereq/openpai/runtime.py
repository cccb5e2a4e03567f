"""What the real OpenPAI runtime does with a prerequisite, in one place.

- It re-parses every plugin parameter with ``yaml.safe_load(str(parameters))``,
  so a value whose Python repr is not the same value in YAML is changed or
  breaks (``survives_round_trip``).
- Every script runs as its own bash process, so ``export`` in one prerequisite
  reaches nothing else.  prereq compiles each cmd prerequisite's callbacks so
  they load a variables file first and write what is exported back to it when
  they exit (a task's first callback defines a function for it, ``FIRST_CALLBACK_LINE``, the others
  call it, ``CALLBACK_LINE``); the job's commands load it with one marked line.  The file is the job
  user's alone (``VARS_FILE``).

Everything prereq adds to a job is written here, with one kind of quote and no
backslash, so it survives the repr round trip unchanged.
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

# The variables file: in a folder of the container's own /tmp that only the job's user can use, named by
# their uid (every script of a task runs as that user and shares the container's file system; bash's
# ``$UID`` cannot be changed by a command).  Not a file in /tmp itself, nor a folder of ``$HOME``: another
# user sharing /tmp (a host-mounted one, a sidecar) could plant a file there for the job's shell to source,
# or a link for it to write through; a home may be unwritable, or outlive the container and hand one job's
# environment to the next.  A folder another user planted at that name is neither read nor written, and
# the callback says so on stderr: the variables are not handed on, nothing of theirs runs.
VARS_DIR = "/tmp/prereq.$UID"
VARS_FILE = VARS_DIR + "/env"
ENV_MARK = "# prereq: load variables exported by prerequisites"
# The shell function that loads and saves the file, as the first callback of a task writes it for the others.
VARS_HELPER = VARS_DIR + "/load"
VARS_FUNCTION = "prereq_vars"
# Used only when the folder is the user's own, no link, and of mode 700 (``/bin/ls``: a command of that name
# earlier on PATH is not asked): one another user could write into (made so by a tool of the user's, an image
# layer) may hold what they planted, links included; the helper and the variables are loaded only from
# files of the user's own.
_OWN = f"-O {VARS_DIR} && ! -L {VARS_DIR}"
_OWN_FILE = f"-f {VARS_FILE} && -O {VARS_FILE}"

# The function: load what earlier scripts exported and, when this script exits, however it exits, write
# every exported variable back (``export -p`` in POSIX mode writes ``export NAME=...`` lines, quoted so bash
# reads each value back as it was, newlines included, and global even when read inside this function; the
# file then holds what every script so far exported, as each started from the one before): under umask
# 077 to a file of its own, renamed over the last (a rename replaces a link, never follows it).  PWD,
# OLDPWD, SHLVL and ``_`` describe this process, not the task: they lose their export first, so the next
# script keeps its own.  The folder is the function's ``$1`` (what the file exports cannot change it, as it
# could a variable); the trap's text is expanded when it is set (the folder, ``$$``: this process).
_FUNCTION = (
    f"{VARS_FUNCTION}(){{ set -- {VARS_DIR};[[ -d $1 && -O $1 && ! -L $1 && $(/bin/ls -ld $1) == drwx------* ]]"
    "||return;[[ -f $1/env && -O $1/env ]]"
    '&&. $1/env;trap "export -n PWD OLDPWD SHLVL _;umask 077;(set -o posix;export -p)>|$1/$$&&mv $1/$$ $1/env||:" '
    "EXIT;}"
)
# The line at the top of the first callback a task runs (the job engine picks it, ``jobs.loadline``): make
# the folder (mode 700), define the function, write it for the later callbacks and call it, or say on
# stderr that the folder is not the user's alone.  Every other callback's line (``CALLBACK_LINE``, which the
# index's forms carry) calls the function that one wrote.  Each script is its own process, so each must
# load on its own; a task role's first is known only in the job, which lists the prerequisites.
# Nothing here can fail a script: the checks, the sourced files and the trap stay out of ``errexit``
# (``&&`` lists, ``||``), ``>|`` writes under ``noclobber``.  One kind of quote and no backslash: the lines
# survive the runtime's repr round trip.
FIRST_CALLBACK_LINE = (
    f"{_FUNCTION};mkdir -pm700 {VARS_DIR} 2>/dev/null||:;{VARS_FUNCTION}&&declare -f {VARS_FUNCTION}>|{VARS_HELPER}"
    f"||echo prereq: {VARS_DIR} is not a folder of yours alone: variables not handed on>&2"
)
CALLBACK_LINE = f"[[ -O {VARS_HELPER} && ! -L {VARS_DIR} ]]&&. {VARS_HELPER}&&{VARS_FUNCTION}||:"
# The one line at the top of a task role's commands (and of its deployments' preCommands): load, no trap.
JOB_LOAD_LINE = f"[[ {_OWN} && {_OWN_FILE} ]]&&. {VARS_FILE}||:  {ENV_MARK}"
# What earlier versions of prereq wrote instead: ``job add``, ``remove`` and ``lock`` replace them.
REPLACED_LOAD_LINES = (
    'if [ -f "${PREREQ_ENV_FILE:-/tmp/prereq/env.sh}" ]; then . "${PREREQ_ENV_FILE:-/tmp/prereq/env.sh}"; fi  '
    + ENV_MARK,
    ". /tmp/prereq.env 2>/dev/null || :  " + ENV_MARK,
    "[[ -O ~/.prereq && ! -L ~/.prereq ]]&&[[ -f ~/.prereq/env && ! -L ~/.prereq/env && -O ~/.prereq/env ]]"
    "&&. ~/.prereq/env||:  " + ENV_MARK,
    "[[ -d /tmp/prereq.$UID && -O /tmp/prereq.$UID && ! -L /tmp/prereq.$UID ]]&&[[ -f /tmp/prereq.$UID/env && "
    "-O /tmp/prereq.$UID/env ]]&&. /tmp/prereq.$UID/env||:  " + ENV_MARK,
)
ENCODED_MARK = "# prereq: quoted so the runtime passes it intact"

# What OpenPAI defines in every process of a task, as (names, what): the rest-server's variables of the
# job and its task roles (rest-server's runtime env and kube launcher), then what the runtime's framework
# parser exports (openpai-runtime src/init.d/framework_parser.py).  <ROLE>, <INDEX> and <PORT> stand for
# a task role's name, a task's index in it and a port label.  Only these PAI_ names never warn (PRQ170),
# so a misspelt one does; the rule reference lists them from here.
PAI_VARIABLES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("PAI_JOB_NAME", "PAI_FRAMEWORK_NAME"), "the job's name, as `user~job`"),
    (("PAI_USER_NAME", "PAI_USERNAME"), "who submitted the job"),
    (("PAI_DEFAULT_FS_URI",), "the cluster's default file system URI (may be empty)"),
    (("PAI_TASK_ROLE_COUNT", "PAI_JOB_TASK_ROLE_COUNT", "PAI_TASK_ROLES_NUM"), "the number of task roles"),
    (("PAI_TASK_ROLE_LIST", "PAI_JOB_TASK_ROLE_LIST"), "the task roles' names, comma separated"),
    (("PAI_JOB_TASK_COUNT", "PAI_TASKS_NUM"), "the number of tasks of the job, over all its roles"),
    (("PAI_TASK_ROLE_TASK_COUNT_<ROLE>",), "the number of tasks of a role"),
    (("PAI_RESOURCE_<ROLE>",), "a role's `gpu,cpu,memoryMB,shmMB`"),
    (("PAI_MIN_FAILED_TASK_COUNT_<ROLE>",), "how many failed tasks of a role fail the job"),
    (("PAI_MIN_SUCCEEDED_TASK_COUNT_<ROLE>",), "how many succeeded tasks of a role end it (-1: all)"),
    (("PAI_CURRENT_TASK_ROLE_NAME",), "this task's role"),
    (("PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", "PAI_TASK_INDEX"), "this task's index in its role, from 0"),
    (("PAI_HOST_IP_<ROLE>_<INDEX>",), "the host IP of a task"),
    (("PAI_PORT_LIST_<ROLE>_<INDEX>_<PORT>", "PAI_<ROLE>_<INDEX>_<PORT>_PORT"), "a task's ports of a label"),
    (("PAI_TASK_ROLE_<ROLE>_HOST_LIST",), "a role's tasks as `ip:httpPort`, comma separated, by index"),
    (("PAI_TASK_ROLE_INSTANCES",), "every task as `role:index`, comma separated"),
    (("PAI_CURRENT_CONTAINER_IP", "PAI_CONTAINER_HOST_IP"), "this task's host IP"),
    (("PAI_CURRENT_CONTAINER_PORT", "PAI_CONTAINER_HOST_PORT"), "this task's first `http` port"),
    (("PAI_CONTAINER_SSH_PORT",), "this task's `ssh` port"),
    (("PAI_CONTAINER_HOST_PORT_LIST",), "this task's ports, as `label:port,port;label:port;`"),
    (("PAI_CONTAINER_HOST_<PORT>_PORT_LIST",), "this task's ports of a label, comma separated"),
    (("PAI_AMD_VISIBLE_DEVICES",), "the GPUs of a task on a HiveD cluster"),
)
_PAI_PART = {"<ROLE>": "[A-Za-z0-9_]+", "<PORT>": "[A-Za-z0-9_]+", "<INDEX>": "[0-9]+"}


def _pai_pattern(name: str) -> str:
    return "".join(_PAI_PART.get(part, re.escape(part)) for part in re.split(r"(<[A-Z]+>)", name) if part)


# Variables the runtime or the shell defines: using them never warns.
RUNTIME_VARIABLES = re.compile(
    "^(" + "|".join(_pai_pattern(name) for names, _ in PAI_VARIABLES for name in names) + "|"
    r"FC_[A-Z0-9_]*|HOME|PATH|PWD|OLDPWD|USER|LOGNAME|SHELL|HOSTNAME|LANG|LANGUAGE|"
    r"LC_[A-Z]+|TERM|TMPDIR|SHLVL|"
    r"RANDOM|SECONDS|LINENO|EPOCHSECONDS|EPOCHREALTIME|BASH[A-Z_]*|FUNCNAME|GROUPS|PIPESTATUS|IFS|UID|EUID|"
    r"PPID|OSTYPE|HOSTTYPE|MACHTYPE|COLUMNS|LINES|"
    r"CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES|LD_LIBRARY_PATH|PYTHONPATH|REPLY|OPTARG|OPTIND|"
    r"[0-9]+|[@*#?$!_-])$"
)


def survives_round_trip(value: Any) -> bool:
    """True when the runtime's ``yaml.safe_load(str(value))`` gives ``value`` back."""
    try:
        return yaml.safe_load(str(value)) == value
    except yaml.YAMLError:
        return False


def plainly_survives(text: str) -> bool:
    """True when ``text`` survives the round trip as a list entry or mapping key for a reason seen without
    parsing, as nearly every command does.  Python's repr quotes a string in ``'`` (in ``"`` when it holds
    a ``'`` and no ``"``) and escapes only that quote, backslashes and what is not printable; YAML reads a
    quoted scalar holding neither its own quote nor a backslash character for character (every character
    Python prints is one YAML allows, and a quoted scalar is always a string, whatever it looks like).
    False means only "parse it": ``tests/test_round_trip_properties.py`` holds it to PyYAML on random strings."""
    return text.isprintable() and "\\" not in text and not ("'" in text and '"' in text)


# PyYAML reads an implicit key within 1,024 characters of where it starts: a longer key is parsed.
_PLAIN_KEY_CHARS = 1000


@lru_cache(maxsize=16384, typed=True)  # typed: 1, 1.0 and True are different values here
def _scalar_parsed(value: str | int | float | bool | None) -> bool:
    return survives_round_trip([value])


def scalar_survives(value: str | int | float | bool | None) -> bool:
    """``survives_round_trip`` for one scalar in a list, as plugin parameters hold them: seen at once for
    nearly every string (``plainly_survives``), parsed (and cached) for the others."""
    return (isinstance(value, str) and plainly_survives(value)) or _scalar_parsed(value)


@lru_cache(maxsize=4096, typed=True)
def _key_parsed(key: str | int | float | bool | None) -> bool:
    return survives_round_trip({key: 0})


def key_survives(key: str | int | float | bool | None) -> bool:
    """``survives_round_trip`` for one mapping key."""
    if isinstance(key, str) and len(key) <= _PLAIN_KEY_CHARS and plainly_survives(key):
        return True
    return _key_parsed(key)


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
