"""OpenPAI forms survive the runtime's ``yaml.safe_load(str(parameters))`` by
construction, and what they run does what the author's commands do.

Property-style: a seeded generator makes hundreds of commands full of quotes,
backslashes, ``$``, tabs, newlines and unicode (hypothesis is not a
dependency of the project)."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from prereq.openpai import forms, runtime

ALPHABET = list("abcXYZ019 _-./:=,;|&()[]{}<>*?!#~^%@+") + [
    "'",
    '"',
    "\\",
    "$",
    "`",
    "\t",
    "\n",
    "\r",
    "\x01",
    "\x1b",
    "\x7f",
    "é",
    "✓",
    "—",
    "中",
    "\u00a0",
    "\u200b",
    "\u2028",
    "\ufeff",
    "😀",
    "<%",
    "%>",
    "\\n",
    "\\t",
    "''",
    '""',
    "\\'",
    '\\"',
    "$(",
    "${",
]


def random_text(rng: random.Random, size: int = 12) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, size)))


# Ways to write a value as one bash word, each independent of the code under test.
def single_quoted(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def double_quoted(value: str) -> str:
    return '"' + "".join("\\" + ch if ch in '\\"$`' else ch for ch in value) + '"'


def hex_quoted(value: str) -> str:
    return (
        "$'"
        + "".join(ch if ch.isalnum() and ch.isascii() else "".join(f"\\x{b:02x}" for b in ch.encode()) for ch in value)
        + "'"
    )


def backslashed(value: str) -> str:
    return "".join("'\n'" if ch == "\n" else "\\" + ch for ch in value) or "''"


QUOTINGS = (single_quoted, double_quoted, hex_quoted, backslashed)
FORMAT_TOKENS = ["a", "\\t", "\\n", "\\\\", "%%", " ", "\\x41", "\\101", "é", "'", '"', "%s"]


def random_command(rng: random.Random) -> str:
    def word() -> str:
        return rng.choice(QUOTINGS)(random_text(rng))

    kind = rng.randrange(7)
    if kind == 0:
        return f"printf '<%s>' {word()} {word()}"
    if kind == 1:
        fmt = "".join(rng.choice(FORMAT_TOKENS) for _ in range(rng.randint(1, 6)))
        return f"printf {rng.choice((single_quoted, double_quoted))(fmt)} {word()}"
    if kind == 2:
        return f'x={word()}; printf "[%s]" "$x"'
    if kind == 3:
        return f"printf '%s' {word()} | tr -d '\\n\\t'"
    if kind == 4:
        body = random_text(rng).replace("\r", "")
        return f"cat <<'EOF'\n{body}\nEOF"
    if kind == 5:
        return f'v={word()}; printf "%s" "${{#v}}:${{v//a/b}}"'
    return f'echo {word()} \'it\'"\'"\'s\' "say \\"hi\\"" \\\\ back'


def cases(seed: int, count: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [[random_command(rng) for _ in range(rng.randint(1, 4))] for _ in range(count)]


def item(name: str, starts: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "version": "1.0.0",
        "type": "script",
        "plugin": "com.microsoft.pai.runtimeplugin.cmd",
        "callbacks": [{"event": "taskStarts", "commands": starts}],
        **extra,
    }


def compile_plain(data: dict[str, Any]) -> dict[str, Any]:
    return forms.compile_item(data, lookup=lambda key: None)


def after_runtime(form: dict[str, Any]) -> dict[str, Any]:
    """The parameters as the plugin sees them."""
    return yaml.safe_load(str(forms.runtime_parameters(form)))


def run_blocks(blocks: list[str], cwd: Path) -> list[str]:
    """Run every block in one bash process, each after a marker; the output of each block."""
    marker = "@@prereq-case@@"
    script = "\n".join(f"printf '\\n{marker}\\n'\n{block}" for block in blocks) + "\n"
    proc = subprocess.run(
        ["/bin/bash", "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
    )
    assert proc.returncode == 0, proc.stderr
    parts = proc.stdout.split(f"\n{marker}\n")
    assert len(parts) == len(blocks) + 1, proc.stdout
    return parts[1:]


# --- the property -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_commands_survive_and_behave_the_same(seed: int, tmp_path: Path) -> None:
    blocks = cases(seed, 150)
    originals, compiled = [], []
    for index, commands in enumerate(blocks):
        form = compile_plain(item(f"case{index}", commands))
        assert forms.check_round_trip(form) == [], commands
        parameters = after_runtime(form)
        assert parameters == forms.runtime_parameters(form), commands
        callback = parameters["callbacks"][0]
        assert callback["commands"][:1] == [runtime.CALLBACK_LINE]
        originals.append("\n".join(commands))
        compiled.append("\n".join(callback["commands"][1:]))
    expected = run_blocks(originals, tmp_path)
    actual = run_blocks(compiled, tmp_path)
    for commands, want, got in zip(blocks, expected, actual, strict=False):
        assert got == want, commands


@pytest.mark.parametrize("seed", [4, 5])
def test_check_round_trip_flags_exactly_what_the_runtime_breaks(seed: int) -> None:
    flagged = 0
    for index, commands in enumerate(cases(seed, 100)):
        raw = {
            "name": f"raw{index}",
            "type": "script",
            "version": "1.0.0",
            "plugin": "com.microsoft.pai.runtimeplugin.cmd",
            "callbacks": [{"event": "taskStarts", "commands": commands}],
        }
        expected = [
            f"callbacks[0].commands[{i}]"
            for i, command in enumerate(commands)
            if not runtime.survives_round_trip([command])
        ]
        assert forms.check_round_trip(raw) == expected
        flagged += bool(expected)
    assert flagged > 20  # the generator does make breaking commands


def test_random_prose_and_uris_survive() -> None:
    rng = random.Random(7)
    for index in range(200):
        data = item(
            f"prose{index}",
            ["true"],
            title=random_text(rng, 30),
            owners=[random_text(rng, 8) or "x", "team"],
            uri=[f"https://example.org/{random_text(rng)}"],
        )
        form = compile_plain(data)
        assert forms.check_round_trip(form) == [], form


# --- explicit cases -----------------------------------------------------------------------------


def test_a_block_that_survives_is_left_readable() -> None:
    commands = ["mkdir -p /data", "export DATA_DIR=/data", 'echo "done: $DATA_DIR"', "echo 'single'"]
    form = compile_plain(item("plain", commands))
    assert form["callbacks"] == [{"event": "taskStarts", "commands": [runtime.CALLBACK_LINE, *commands]}]


@pytest.mark.parametrize(
    "command",
    [
        'echo "it\'s"',
        "tr -d \\n",
        'printf "a\\tb"',
        "echo tab\there",
        "echo multi\nline",
        "echo back\\\\slash",
        "echo \"both 'kinds'\" 'and \"these\"'",
    ],
)
def test_a_block_that_would_break_is_one_eval(command: str) -> None:
    form = compile_plain(item("broken", ["echo first", command, "echo last"]))
    commands = form["callbacks"][0]["commands"]
    assert len(commands) == 2 and commands[1].startswith("eval $'")
    assert forms.check_round_trip(form) == []


def test_start_and_succeed_blocks_are_merged_and_events_mapped() -> None:
    data = item("events", ["echo a"])
    data["callbacks"] += [
        {"event": "containerStart", "commands": ["echo b"]},
        {"event": "taskSucceeds", "commands": ["echo c"]},
        {"event": "containerExit", "commands": ["echo d"]},
        {"event": "somethingElse", "commands": ["echo never"]},
    ]
    form = compile_plain(data)
    prelude = [runtime.CALLBACK_LINE]
    assert form["callbacks"] == [
        {"event": "taskStarts", "commands": [*prelude, "echo a", "echo b"]},
        {"event": "taskSucceeds", "commands": [*prelude, "echo c", "echo d"]},
    ]


def test_pre_and_post_commands_become_callbacks() -> None:
    data = {"name": "old", "type": "script", "version": "1", "preCommands": ["echo pre"], "postCommands": ["echo post"]}
    form = compile_plain(data)
    assert [c["event"] for c in form["callbacks"]] == ["taskStarts", "taskSucceeds"]
    assert form["plugin"] == "com.microsoft.pai.runtimeplugin.cmd"


def test_this_values_are_rendered_before_the_round_trip_check() -> None:
    data = item("rendered", ["echo <% this.greeting %>"], parameters={"greeting": 'it\'s "quoted"'})
    form = forms.compile_item(data, lookup=lambda key: data["parameters"].get(key))
    assert "<% this" not in str(form)
    assert form["callbacks"][0]["commands"][1].startswith("eval $'")
    assert forms.check_round_trip(form) == []


def test_openpai_templates_stay_readable_when_encoded() -> None:
    form = compile_plain(item("templated", ['echo "it\'s" <% $parameters.x %>', "echo <% $secrets.y %>"]))
    command = form["callbacks"][0]["commands"][1]
    assert "'<% $parameters.x %>'" in command and "'<% $secrets.y %>'" in command
    assert forms.check_round_trip(form) == []


def test_check_round_trip_paths() -> None:
    form = {
        "name": "x",
        "type": "script",
        "version": "1",
        "plugin": "com.microsoft.pai.runtimeplugin.cmd",
        "description": 'it\'s "both"',
        "callbacks": [
            {"event": "taskStarts", "commands": ["ok", "tr -d \\n"]},
            {"event": "taskSucceeds", "commands": ['echo "it\'s"']},
        ],
    }
    assert forms.check_round_trip(form) == ["description", "callbacks[0].commands[1]", "callbacks[1].commands[0]"]


def test_check_round_trip_skips_what_is_not_a_runtime_plugin() -> None:
    docker = {"name": "img", "type": "dockerimage", "version": "1", "uri": "x", "auth": {"password": 'it\'s "p\\"'}}
    assert forms.check_round_trip(docker) == []
    ignored = {"name": "y", "type": "script", "version": "1", "plugin": "cmd", "description": "\\"}
    assert forms.check_round_trip(ignored) == []


def test_check_round_trip_sees_other_plugins_and_values() -> None:
    git = {
        "name": "g",
        "type": "script",
        "version": "1",
        "plugin": "com.microsoft.pai.runtimeplugin.git",
        "repo_uri": "https://x/y.git",
        "options": ["--depth=1", "--config=a=\\b"],
    }
    assert forms.check_round_trip(git) == ["options[1]"]
    odd = {
        "name": "o",
        "type": "script",
        "version": "1",
        "plugin": "com.microsoft.pai.runtimeplugin.cmd",
        "x": None,
        "y": 1e-05,
        "z": float("inf"),
        "ok": [True, 3, 1.5, "s"],
    }
    assert forms.check_round_trip(odd) == ["x", "y", "z"]


def test_the_lifted_keys_are_not_parameters() -> None:
    form = compile_plain(item("lifted", ["true"], failurePolicy="ignore"))
    assert set(forms.runtime_parameters(form)) == {"name", "version", "callbacks"}


def test_uris_are_percent_encoded_only_when_needed() -> None:
    form = compile_plain(item("u", ["true"], uri=["https://x.org/a b", "https://x.org/it's\\\"", "https://x.org/ok"]))
    assert form["uri"] == ["https://x.org/a b", "https://x.org/it%27s%5C%22", "https://x.org/ok"]


def test_prose_is_adjusted_only_when_needed() -> None:
    form = compile_plain(item("p", ["true"], title="Bob's data", owners=["it's", 'say "hi"']))
    assert form["description"] == "Bob's data"
    assert forms.check_round_trip(form) == []
    assert form["contributor"] == 'it\u2019s, say "hi"'
    multi = compile_plain(item("m", ["true"], title="two\nlines"))
    assert multi["description"] == "two lines"


def test_ssh_keys_survive() -> None:
    data = {
        "name": "ssh",
        "type": "script",
        "version": "1",
        "plugin": "com.microsoft.pai.runtimeplugin.ssh",
        "jobssh": True,
        "publicKeys": ["ssh-ed25519 AAAA one", "ssh-rsa BBBB two"],
    }
    form = compile_plain(data)
    assert forms.check_round_trip(form) == []
    assert after_runtime(form)["userssh"]["value"].splitlines()[:2] == [
        "ssh-ed25519 AAAA one",
        "ssh-rsa BBBB two prereq's",
    ]


def test_digest_is_stable() -> None:
    first = compile_plain(item("d", ['echo "it\'s"']))
    second = compile_plain(item("d", ['echo "it\'s"']))
    assert forms.digest(first) == forms.digest(second)
    assert forms.digest(first).startswith("sha256:")


@pytest.mark.parametrize("seed", [6, 7])
def test_scalar_checks_agree_with_parsing_the_whole_tree(seed: int) -> None:
    """check_round_trip checks scalars one by one; the runtime parses the whole tree."""
    rng = random.Random(seed)
    odd_keys = ["it's", 'say "hi"', "a\\b", "tab\there", "x" * 1100, "line\nbreak", "ünï", "1", "null"]
    disagreements, survived = 0, 0
    for index, commands in enumerate(cases(seed, 120)):
        if index % 2:  # half the trees hold only plain keys and values that survive on their own
            commands = [c for c in commands if runtime.survives_round_trip([c])] or ["true"]
            keys = ["train", "eval"]
        else:
            keys = ["train", *odd_keys]
        logdir = {rng.choice(keys): rng.choice(commands) for _ in range(rng.randint(1, 3))}
        form = {
            "name": f"t{index}",
            "type": "script",
            "version": "1.0.0",
            "plugin": "com.microsoft.pai.runtimeplugin.tensorboard",
            "port": rng.choice([6006, 1.5, True]),
            "logdir": logdir,
            "options": commands,
        }
        whole = runtime.survives_round_trip(forms.runtime_parameters(form))
        disagreements += (forms.check_round_trip(form) == []) != whole
        survived += whole
    assert disagreements == 0
    assert 20 < survived < 100  # both outcomes are exercised
