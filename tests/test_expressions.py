"""The user's stored expression values: private files, atomic writes, the CLI."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

import pytest

from prereq.cli import main
from prereq.core.errors import PrereqError
from prereq.jobs import expressions
from prereq.openpai import shellwords


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "prereq"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_values_are_stored_privately_and_read_back(config: Path) -> None:
    assert expressions.load_expressions() == {}
    path = expressions.set_expression("smbUser", "erin")
    expressions.set_expression("team", 'vision: "core" it\'s')
    expressions.set_expression("multi", "line one\nline two\n")
    expressions.set_expression("number", "0123")
    assert path == config / "expressions.yaml"
    assert mode(config) == 0o700 and mode(path) == 0o600
    assert expressions.load_expressions() == {
        "smbUser": "erin",
        "team": 'vision: "core" it\'s',
        "multi": "line one\nline two\n",
        "number": "0123",
    }
    assert expressions.get_expression("number") == "0123"
    assert [p.name for p in config.iterdir()] == ["expressions.yaml"]  # no temporary files left behind
    expressions.delete_expression("team")
    assert "team" not in expressions.load_expressions()


def test_a_too_open_folder_is_closed(config: Path) -> None:
    config.mkdir(parents=True, mode=0o755)
    config.chmod(0o755)
    expressions.set_expression("a", "1")
    assert mode(config) == 0o700


def test_a_json_store_is_used_when_the_user_keeps_one(config: Path) -> None:
    config.mkdir(parents=True)
    (config / "expressions.json").write_text(json.dumps({"userName": "bob"}))
    assert expressions.load_expressions() == {"userName": "bob"}
    expressions.set_expression("team", "data")
    assert json.loads((config / "expressions.json").read_text()) == {"team": "data", "userName": "bob"}
    assert mode(config / "expressions.json") == 0o600 and not (config / "expressions.yaml").exists()


def test_default_location_without_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert expressions.config_dir() == tmp_path / ".config" / "prereq"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/path")  # ignored, as the XDG spec says
    assert expressions.config_dir() == tmp_path / ".config" / "prereq"


def test_bad_keys_and_missing_values_are_clean_errors(config: Path) -> None:
    with pytest.raises(PrereqError, match="not a valid expression key"):
        expressions.set_expression("a.b", "x")
    with pytest.raises(PrereqError, match="no stored expression named 'nope'") as caught:
        expressions.get_expression("nope")
    assert "prereq expression set nope VALUE" in caught.value.hint
    config.mkdir(parents=True)
    (config / "expressions.yaml").write_text("- not a mapping\n")
    with pytest.raises(PrereqError, match="must hold a mapping"):
        expressions.load_expressions()


def test_cli(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["expression", "set", "userName", "erin"]) == 0
    assert main(["expression", "set", "team", "vision"]) == 0
    capsys.readouterr()
    assert main(["expression", "get", "userName"]) == 0
    assert capsys.readouterr().out == "erin\n"
    assert main(["expression", "list"]) == 0
    assert capsys.readouterr().out == "team=vision\nuserName=erin\n"
    assert main(["expression", "list", "--keys"]) == 0
    assert capsys.readouterr().out == "team\nuserName\n"
    assert main(["expression", "delete", "team"]) == 0
    assert main(["expression", "get", "team"]) == 2
    assert "no stored expression named 'team'" in capsys.readouterr().err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, where no folder can be made")
def test_a_store_folder_that_cannot_be_made_is_a_clean_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", "/proc/nonexist")
    with pytest.raises(PrereqError, match=r"cannot write /proc/nonexist/prereq: No such file or directory") as caught:
        expressions.set_expression("a", "b")
    assert "XDG_CONFIG_HOME" in caught.value.hint
    assert main(["expression", "set", "a", "b"]) == 2
    err = capsys.readouterr().err
    assert "cannot write /proc/nonexist/prereq" in err and "internal error" not in err


def test_a_store_file_that_cannot_be_written_is_a_clean_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("a file where a folder should be\n")
    with pytest.raises(PrereqError, match=rf"cannot write {blocker / 'prereq'}: Not a directory"):
        expressions.save_expressions({"a": "b"}, blocker / "prereq" / "expressions.yaml")
    folder = tmp_path / "config"
    folder.mkdir()
    (folder / "expressions.yaml").mkdir()  # a folder where the file should be: os.replace fails
    with pytest.raises(PrereqError, match=rf"{folder / 'expressions.yaml'} is a folder, not a regular file"):
        expressions.save_expressions({"a": "b"}, folder / "expressions.yaml")
    assert [p.name for p in folder.iterdir()] == ["expressions.yaml"]  # no temporary file left behind


def test_a_broken_store_is_named_with_line_and_column(config: Path) -> None:
    config.mkdir(parents=True)
    (config / "expressions.yaml").write_text("a: 1\nb: [\n")
    with pytest.raises(PrereqError, match=r"expressions.yaml:3:1: not valid YAML: ") as caught:
        expressions.load_expressions()
    assert "fix or delete the file" in caught.value.hint
    (config / "expressions.yaml").write_text("a: 1\na: 2\n")
    with pytest.raises(PrereqError, match=r"expressions.yaml:2:1: not valid YAML: duplicate key 'a'"):
        expressions.load_expressions()
    (config / "expressions.yaml").unlink()
    (config / "expressions.json").write_text('{"a": "1",\n  }\n')
    with pytest.raises(PrereqError, match=r"expressions.json:2:3: not valid JSON: "):
        expressions.load_expressions()


# Values filled into commands: quoted for bash where they stand ------------------------------------

HOSTILE = [
    "bob; touch PWNED #",
    "$(touch PWNED)",
    "`touch PWNED`",
    'it\'s "quoted"',
    "two\nlines",
    "#hash",
    "with  spaces",
    "",
    "back\\slash \\$HOME",
    "plain.name-1",
    "zoë",
]
# (a command around <% expression.v %>, what it prints for a value v)
SHAPES = [
    ("printf %s <% expression.v %>", lambda v: v),
    ("printf %s x=<% expression.v %>", lambda v: "x=" + v),
    ('printf %s "<% expression.v %> and <% expression.v %>"', lambda v: f"{v} and {v}"),
    ('printf %s "$(printf %s "<% expression.v %>")"', lambda v: v.rstrip("\n")),
    ("printf %s <% expression.v %> # a comment", lambda v: v),
]


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize(("command", "printed"), SHAPES)
def test_filled_values_reach_the_command_as_written(tmp_path: Path, command: str, printed, value: str) -> None:
    filled, unquoted = expressions.fill_command(command, {"v": value})
    run = subprocess.run(["bash", "-c", filled], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert (run.returncode, run.stdout, unquoted) == (0, printed(value), [])
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize(
    ("command", "context"),
    [
        ("echo '<% expression.v %>'", shellwords.SINGLE),
        ("echo `echo <% expression.v %>`", shellwords.OTHER),
        ("echo $'<% expression.v %>'", shellwords.OTHER),
        ("echo x # <% expression.v %>", shellwords.OTHER),
        ("echo \\<% expression.v %>", shellwords.OTHER),
        ("cat <<EOF\n<% expression.v %>\nEOF", shellwords.OTHER),
    ],
)
def test_values_that_cannot_be_quoted_are_filled_as_written_and_named(command: str, context: str) -> None:
    value = "it's; touch PWNED"
    filled, unquoted = expressions.fill_command(command, {"v": value})
    assert value in filled and unquoted == [expressions.Unquoted("v", context)]
    assert expressions.fill_command(command, {"v": "alice"}) == (command.replace("<% expression.v %>", "alice"), [])
    message = unquoted[0].describe("job.yaml:3")
    assert message.startswith("job.yaml:3: <% expression.v %> stands")


def test_only_commands_are_quoted_and_other_templates_stay() -> None:
    values = {"v": "a b"}
    assert expressions.fill("<% expression.v %>", ("prerequisites", 0, "uri"), values) == ("a b", [])
    assert expressions.fill("echo <% expression.v %> <% $secrets.x %> <% expression.w %>", ("commands", 0), values) == (
        "echo 'a b' <% $secrets.x %> <% expression.w %>",
        [],
    )
    assert shellwords.quoting_contexts(f"a {shellwords.MARK} \"{shellwords.MARK}\" '{shellwords.MARK}'") == [
        shellwords.WORD,
        shellwords.DOUBLE,
        shellwords.SINGLE,
    ]
