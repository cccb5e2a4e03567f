"""Static reading of shell commands: what they export, define and use."""

from __future__ import annotations

import pytest

from prereq.openpai.shellvars import (
    Use,
    defined_variables,
    exported_variables,
    is_runtime_variable,
    undefined_uses,
    used_variables,
)

# --- exported_variables -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "commands, expected",
    [
        (["export A=1"], ["A"]),
        (["export B"], ["B"]),
        (["B=1", "export B"], ["B"]),
        (["declare -x C=2"], ["C"]),
        (["declare -gx D"], ["D"]),
        (["typeset -x E=1"], ["E"]),
        (["export F=1 G=2 H"], ["F", "G", "H"]),
        (['export PATH="$HOME/bin:$PATH"'], ["PATH"]),
        (["export I=$(date)"], ["I"]),
        (['export "J=quoted value"'], ["J"]),
        (["export K+=more"], ["K"]),
        (["export -n L", "export -f myfunc", "declare M=1", "local N=1", "readonly O=1"], []),
        (["echo 'export NOT_IN_QUOTES=1'", "# export NOT_IN_COMMENT=1", 'echo "export NOT_IN_DQ=1"'], []),
        (["export A=1", "export B=2", "export A=3"], ["A", "B"]),
        (
            ["test -d /x || export FALLBACK=1", "if true; then export IN_IF=1; fi", "( export IN_SUB=1 )"],
            ["FALLBACK", "IN_IF", "IN_SUB"],
        ),
        (["export MNIST_DIR=<% this.mountPoint %>/mnist"], ["MNIST_DIR"]),
        ("export AS_ONE_STRING=1\nexport SECOND=2", ["AS_ONE_STRING", "SECOND"]),
    ],
)
def test_exported_variables(commands, expected) -> None:
    assert exported_variables(commands) == expected


# --- used_variables ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command, expected",
    [
        ("echo $X", ["X"]),
        ("echo ${X}", ["X"]),
        ('echo "$X and ${Y}"', ["X", "Y"]),
        ("echo ${X:-default}", []),
        ("echo ${X-default}", []),
        ("echo ${X:=default} $X", []),
        ("echo ${X=default}", []),
        ("echo ${X:+set} ${Y+set}", []),
        ("echo ${X:+$X/sub}", []),
        ("echo ${X:-$FALLBACK}", ["FALLBACK"]),
        ("echo ${X:-${Y:-z}}", []),
        ("echo ${X:?must be set} ${Y?} $X $Y", []),  # a guard: it fails on purpose, and X is set after it
        ("echo ${#X}", ["X"]),
        ("echo ${X%/*} ${Y##*/} ${Z/a/b} ${W:0:2} ${V^^}", ["X", "Y", "Z", "W", "V"]),
        ("echo ${ARR[@]} ${#ARR[@]} ${ARR[$I]}", ["ARR", "I"]),
        ("echo ${!REF} ${!PREFIX*}", ["REF"]),
        ("echo '$SINGLE' \"'$INSIDE_DOUBLE'\"", ["INSIDE_DOUBLE"]),
        ("echo $'ansi $NOT' $\"locale $YES\"", ["YES"]),
        ('echo \\$ESCAPED "\\$ALSO"', []),
        ("echo $1 $@ $# $? $$ $! $0 ${10} $* $-", []),
        ("echo $PAI_JOB_NAME $PAI_TASK_ROLE_LIST $HOME $PATH $USER $RANDOM $HOSTNAME", []),
        ("echo cost is $ 5", []),
        ("echo $X # but not $IN_COMMENT", ["X"]),
        ("echo a#$NOT_A_COMMENT", ["NOT_A_COMMENT"]),
        ("echo $(echo $IN_SUBST) `echo $IN_BACKTICKS` $((COUNT + $ADDED))", ["IN_SUBST", "IN_BACKTICKS", "ADDED"]),
        ('echo "$(echo "$NESTED")"', ["NESTED"]),
        ("diff <(ls $A) >(cat $B)", ["A", "B"]),
        ("cat <<EOF\nhome $BODY 'it''s' \"$QUOTED\"\nEOF\necho $AFTER", ["BODY", "QUOTED", "AFTER"]),
        ("cat <<'EOF'\n$NOT_EXPANDED\nEOF", []),
        ('cat <<-"EOF"\n\t$NOT_EXPANDED\n\tEOF\necho $AFTER', ["AFTER"]),
        ("echo <% $secrets.token %> <% this.mountPoint %>", []),
        ("case $MODE in\n  a|b) echo $IN_CASE;;\n  *) echo ${OTHER:-x};;\nesac", ["MODE", "IN_CASE"]),
        ("x=$(case y in a) echo $IN_NESTED_CASE;; esac); echo $x", ["IN_NESTED_CASE"]),
        ("echo $lower_case", ["lower_case"]),
        ('test -n "$X" && echo "$X"', ["X"]),
        ("ls 2>&1 $DIR > $OUT", ["DIR", "OUT"]),
        ("ls &> $LOG", ["LOG"]),
    ],
)
def test_used_variables(command: str, expected: list[str]) -> None:
    assert used_variables([command]) == expected


@pytest.mark.parametrize(
    "commands",
    [
        ["X=1", "echo $X"],
        ["X=1; echo $X"],
        ["X=1 Y=2; echo $X $Y"],
        ["ARR=(a b c)", "echo ${ARR[1]}"],
        ["X+=more", "echo $X"],
        ["export X=1", "echo $X"],
        ["export X", "echo $X"],
        ["declare -i N=3", "echo $N"],
        ["local L=1; echo $L"],
        ["readonly R=1", "echo $R"],
        ["for F in a b; do echo $F; done"],
        ["for F; do echo $F; done"],
        ["select S in a b; do echo $S; done"],
        ["for ((i = 0; i < 3; i++)); do echo $i; done"],
        ["(( n = 3 ))", "echo $n"],
        ["let 'n=3'", "echo $n"],
        ["read LINE", "echo $LINE"],
        ["read -r -p 'prompt: ' A B", "echo $A $B"],
        ["read -rp 'prompt: ' A", "echo $A"],
        ["read -a PARTS <<< 'a b'", "echo ${PARTS[0]}"],
        ["while IFS=: read -r K V; do echo $K=$V; done < /etc/passwd"],
        ["mapfile -t LINES < /etc/hosts", "echo ${LINES[0]}"],
        ["readarray LINES < /etc/hosts", "echo ${LINES[0]}"],
        ["printf -v P '%s' x", "echo $P"],
        ["getopts ab OPT", "echo $OPT $OPTARG"],
        ["echo ${D:=default}", "echo $D"],
        ["read; echo $REPLY"],
        ["f() { local V=1; echo $V; }", "f"],
        [". /etc/os-release && echo $ID $VERSION_ID"],
        ["exec {LOG_FD}>/tmp/log", 'echo x >&"$LOG_FD"'],
        ["wait -n -p DONE", "echo $DONE"],
        ['let "N = 1 + 2" M++', "echo $N $M"],
        ['printf -v "PARTS[0]" %s x', "echo ${PARTS[0]}"],
        [': "${GIVEN:?set GIVEN}"', "echo $GIVEN"],
    ],
)
def test_names_defined_before_are_not_reported(commands: list[str]) -> None:
    assert used_variables(commands) == []


def test_a_use_before_the_definition_is_reported() -> None:
    assert used_variables(["echo $LATER", "LATER=1", "echo $LATER"]) == ["LATER"]
    assert used_variables(["export X=$X:more"]) == ["X"]


def test_an_assignment_before_a_command_is_that_commands_environment_only() -> None:
    assert used_variables(["STAMP=1 make", "echo $STAMP"]) == ["STAMP"]
    assert used_variables(['LANG_X=C sort "$LANG_X"']) == ["LANG_X"]  # expanded before the assignment
    assert used_variables(["A=1 B=$A", "echo $B"]) == []  # no command: both are the shell's
    assert defined_variables(["IFS=, read -r K V"]) == ["K", "V"]


def test_each_use_is_placed_in_its_command_and_line() -> None:
    commands = ["echo ready", 'echo "${LATE:-x}"\nls "$LATE"\nls "$OTHER"', "cp <% this.a\n %> $THIRD"]
    assert undefined_uses(commands) == [Use("LATE", 1, 1), Use("OTHER", 1, 2), Use("THIRD", 2, 1)]
    assert undefined_uses("echo $ONE") == [Use("ONE", 0, 0)]


def test_known_names_are_not_reported() -> None:
    assert used_variables(["ls $MNIST_DIR $OTHER"], known=["MNIST_DIR"]) == ["OTHER"]


def test_each_name_once_in_order() -> None:
    assert used_variables(["echo $B $A $B", "echo ${A}"]) == ["B", "A"]


def test_defined_variables_in_order() -> None:
    commands = ["A=1", "export B=2", "for C in x; do :; done", "read D", "echo ${E:=1}", "declare -x B"]
    assert defined_variables(commands) == ["A", "B", "C", "D", "E"]


def test_the_runtime_list() -> None:
    for name in ("PAI_JOB_NAME", "PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", "HOME", "PATH", "1", "@", "?"):
        assert is_runtime_variable(name), name
    for name in ("MNIST_DIR", "OUTPUT_DIR", "X", "PAIX"):
        assert not is_runtime_variable(name), name


def test_the_seed_items_read_as_intended() -> None:
    assert exported_variables(
        [
            "export MNIST_DIR=<% this.mountPoint %>/mnist",
            "mkdir -p $MNIST_DIR",
            "for f in a b; do test -f $MNIST_DIR/$f.gz || wget -O $MNIST_DIR/$f.gz.part.$$ "
            "<% this.mirror %>/$f.gz; done",
        ]
    ) == ["MNIST_DIR"]
    succeed = ["cp -r $LOCAL_OUTPUT_DIR/. $OUTPUT_DIR/", "du -sh $OUTPUT_DIR"]
    assert used_variables(succeed) == ["LOCAL_OUTPUT_DIR", "OUTPUT_DIR"]
    assert used_variables(succeed, known=["OUTPUT_DIR", "LOCAL_OUTPUT_DIR"]) == []
    assert used_variables(["export OUTPUT_DIR=/mnt/outputs/${PAI_USER_NAME:-shared}/${PAI_JOB_NAME:-job}"]) == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        "'",
        '"',
        "`",
        "$",
        "${",
        "${X",
        "$(",
        "$((",
        "((",
        "<<",
        "<<EOF",
        "cat <<EOF\nno end",
        "echo \\",
        "case",
        "esac )",
        ")))",
        "((((",
        "${!}",
        "${#}",
        "for",
        "read -p",
        "export =",
        "a=(",
        "echo ${X:-'unclosed}",
        "\x00\x01",
        "$'\\",
        "f() {",
        'echo "$(echo \')"',
    ],
)
def test_broken_shell_never_raises(text: str) -> None:
    exported_variables([text])
    used_variables([text])
    defined_variables([text])


def test_prereqs_own_lines_use_and_export_nothing() -> None:
    from prereq.openpai import runtime

    lines = [runtime.JOB_LOAD_LINE, runtime.CALLBACK_LINE]
    assert used_variables(lines) == []
    assert exported_variables(lines) == []
