"""The quoting corpus: a stored value filled into a bash command, by each engine.

``prereq.jobs.expressions.fill_command`` (and the composer's ``fillCommand`` in
``site/assets/composer/jobs/expressions.js``) quotes each ``<% expression.KEY %>`` for bash where
``shellwords`` says it stands, and names the values it must leave as written (in a comment, a
heredoc, backticks, ``$'...'``, after a backslash; a ``'`` inside single quotes).  Each case of
``cases.json`` is a command, the values, the filled command and those left unquoted with their
context, as the Python engine gives them; ``regen.py`` writes it, ``test_quoting_cases.py`` and
``tests/js/quoting.test.js`` hold both engines to it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prereq.jobs import expressions
from prereq.openpai.runtime import ENCODED_MARK

CASES = Path(__file__).resolve().parent / "cases.json"
V = "<% expression.v %>"

# Where a value may stand in a command: each kind of quoting context shellwords knows, and the
# places that look like one but are not (a # inside a word, a here-string, nested parentheses).
COMMANDS = [
    f"printf %s {V}",
    f"printf %s x={V}y",
    f'printf %s "{V}"',
    f'printf %s "$(printf %s "{V}")"',
    f"printf %s '{V}'",
    f"printf '%s\\n' \"a'b\" {V}",
    f"echo $'{V}'",
    f"echo `echo {V}`",
    f"echo x # {V}",
    f'echo "{V}" # "{V}"',
    f"echo a#{V}",
    f"echo \\{V}",
    f"cat <<EOF\n{V}\nEOF",
    f"cat <<-EOF\n\t{V}\n\tEOF\necho {V}",
    f"cat <<< {V}",
    f"cat <<< x\necho {V}",
    f"cat <<< x\nprintf %s {V}",
    f"echo $( (echo {V}) )",
    f'printf %s "$( (echo x) ) {V}"',
    f"(cd /tmp && echo {V})",
    f"echo $(echo ')' {V})",
    f"echo $((1 + {V}))",
    f"echo ${{HOME:-{V}}}",
    f"if true; then\n  echo {V}\nfi",
    f"echo {V} <% $secrets.x %> <% expression.w %>",
    f"echo {V} {ENCODED_MARK}",
    # Where quoting cannot hold, found by a review: arithmetic, ${...}, a here-document's quotes, a
    # case's ")", comments that are none (after an escaped space, a backslash-newline, an expansion).
    f"(( x = {V} ))",
    f'echo "$(( {V} ))"',
    f"echo $[ {V} ]",
    f"echo ${{a[{V}]}}",
    f"echo ${{x:{V}}}",
    f"for ((i={V};i<1;i++)); do :; done",
    f"cat > cfg <<EOF\npassword: '{V}'\nEOF",
    f'echo "${{x:-"{V}"}}"',
    f'echo "${{HOME:+"{V}"}}"',
    f'echo "$(case x in x) echo {V};; esac)"',
    f'echo "$(echo ${{x//)/}} {V})"',
    f'echo "$(echo ${{x//(/}}){V}"',
    f"echo a\\ #'\necho {V}\n'",
    f"echo $(echo)#'\necho {V}\n'",
    f"echo ${{x:-a #'}}\necho {V}\n'}}",
    f"echo a\\\n#'\necho {V}\n'",
    f"echo ${{x:- #}} {V}",
    f'echo "$( (echo x); echo {V} )"',
    f"echo \x00 {V}",  # a NUL, as YAML's "\0" carries it
    # Placeholders spaced by what Python's \s takes and JavaScript's does not, and the other way round.
    "echo <%\x1cexpression.v %> <% expression.v\x85%> <%\ufeffexpression.v %>",
]
VALUES = [
    "plain.name-1",
    "a b",
    "it's",
    'say "hi"',
    "$(touch PWNED)",
    "`touch PWNED`",
    "two\nlines",
    "#hash",
    "",
    "back\\slash \\$HOME",
    "zoë",
    "bob; touch PWNED #",
    "x; touch PWNED",
]


def outcome(command: str, values: dict[str, str]) -> dict[str, Any]:
    filled, unquoted = expressions.fill_command(command, values)
    return {"filled": filled, "unquoted": [[u.key, u.context] for u in unquoted]}


def cases() -> list[dict[str, Any]]:
    """Every command with every value, and what the Python engine gives."""
    return [
        {"command": command, "values": {"v": value}, "expect": outcome(command, {"v": value})}
        for command in COMMANDS
        for value in VALUES
    ]
