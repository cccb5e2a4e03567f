"""Reading bash for variables: a small reader of words, quotes, expansions, substitutions and
here-documents that never fails, whatever the input.  ``shellvars`` says what each simple
command does with variables (``Scanner.command``); this module only finds the commands.

May import: the standard library and prereq.openpai.shellwords.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from dataclasses import dataclass

from prereq.openpai.shellwords import _METACHARS, NAME, Word, WordReader

ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=")
_FD_VARIABLE = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
_KEYWORDS = frozenset(
    "if then else elif fi do done while until in function time ! { } [[ coproc esac case for select".split()
)


@dataclass(frozen=True)
class Event:
    kind: str  # "use", "def", "export", "guard" (a reference that needs no value: ${X:-default})
    offset: int
    name: str


class Scanner(WordReader):
    """A small recursive reader of bash: words, quotes, expansions,
    substitutions, here-documents; it never fails, whatever the input."""

    def __init__(self, text: str, base: int = 0) -> None:
        self.s = text
        self.n = len(text)
        self.base = base
        self.events: list[Event] = []
        self.guard: list[str] = []
        self.heredocs: list[tuple[str, bool, bool]] = []
        self.case_depth = 0
        self.nesting = 0  # substitutions, subshells and expansions being read, one inside the other

    # events ---------------------------------------------------------------------------------

    def use(self, offset: int, name: str) -> None:
        if name not in self.guard:
            self.events.append(Event("use", self.base + offset, name))

    def define(self, offset: int, name: str, exported: bool = False) -> None:
        self.events.append(Event("def", self.base + offset, name))
        if exported:
            self.events.append(Event("export", self.base + offset, name))

    def guarded(self, offset: int, name: str) -> None:
        self.events.append(Event("guard", self.base + offset, name))

    def reader(self, text: str, base: int) -> Scanner:
        return type(self)(text, base)

    def merge(self, other: Scanner) -> None:
        self.events.extend(other.events)

    # command lists ----------------------------------------------------------------------------

    def parse_list(self, i: int, stop: str | None = None) -> int:
        """``_parse_list``, unless the nesting is deeper than any real command (then the rest is not read)."""
        with self.nested() as deep:
            return self.n if deep else self._parse_list(i, stop)

    def _parse_list(self, i: int, stop: str | None = None) -> int:
        """Commands from ``i`` up to the unmatched ``stop`` (``)`` or `` ` ``); returns the index after it.

        Longer than usual: one loop over the characters with the state of the command being read
        (its words, whether a command or a ``for`` starts here, the ``case`` depth) kept local,
        which splitting would have to pass around at every step."""
        words: list[Word] = []
        assigned: list[tuple[int, str]] = []  # the command's leading NAME=value words
        state = {"start": True, "for": False}
        case_entry = self.case_depth
        s, n = self.s, self.n

        def finish() -> None:
            if words:
                self.command(words)  # `X=1 cmd`: X is cmd's environment, not the shell's afterwards
            else:
                for offset, name in assigned:
                    self.define(offset, name)
            words.clear()
            assigned.clear()
            state["start"], state["for"] = True, False

        while i < n:
            c = s[i]
            if stop is not None and c == stop and not (stop == ")" and self.case_depth > case_entry):
                finish()
                return i + 1
            if c in " \t":
                i += 1
            elif c == "\\" and s.startswith("\\\n", i):
                i += 2
            elif c == "\n":
                finish()
                i = self.read_heredocs(i + 1)
            elif c == "#":
                while i < n and s[i] != "\n":
                    i += 1
            elif c == "&" and s.startswith("&>", i):
                i = self.redirect(i + (3 if s.startswith("&>>", i) else 2))
            elif c in ";&|":
                finish()
                i += 1
            elif c == "(":
                if state["start"] and s.startswith("((", i):
                    finish()
                    i = self.parse_arith(i + 2)
                elif len(words) == 1 and s[i + 1 :].lstrip(" \t").startswith(")"):
                    words.clear()  # name() { ...; }: a function definition
                    i = s.index(")", i) + 1
                    state["start"] = True
                else:
                    finish()
                    i = self.parse_list(i + 1, ")")
            elif c == ")":
                finish()  # a case pattern, or a stray parenthesis
                i += 1
            elif c in "<>":
                if words and words[-1].end == i and words[-1].raw.isdigit():
                    words.pop()  # 2>&1: the digit is a file descriptor
                elif words and words[-1].end == i and _FD_VARIABLE.fullmatch(words[-1].raw):
                    self.define(i, words.pop().raw[1:-1])  # exec {fd}>file: bash puts the descriptor in fd
                if s.startswith("<(", i) or s.startswith(">(", i):
                    i = self.parse_list(i + 2, ")")
                    words.append(Word("<()", None, i, i))
                    state["start"] = False
                elif s.startswith("<<<", i):
                    i = self.redirect(i + 3)
                elif s.startswith("<<", i):
                    i = self.heredoc(i + 2)
                else:
                    i += 1
                    while i < n and s[i] in "<>&|":
                        i += 1
                    i = self.redirect(i)
            else:
                word, i = self.parse_word(i)
                if state["for"]:
                    state["for"] = False
                    if word.value and NAME.fullmatch(word.value):
                        self.define(word.end, word.value)
                    state["start"] = False
                    continue
                if state["start"]:
                    assignment = ASSIGNMENT.match(word.raw)
                    if assignment:
                        if word.raw.endswith("=") and i < n and s[i] == "(":
                            i = self.parse_list(i + 1, ")")  # X=(a b c)
                        assigned.append((i, assignment[1]))
                        continue
                    if word.value in _KEYWORDS:
                        if word.value in ("for", "select"):
                            state["for"] = True
                        elif word.value == "case":
                            self.case_depth += 1
                            state["start"] = False
                            words.append(Word("case", "case", word.start, word.end))
                        elif word.value == "esac":
                            self.case_depth = max(self.case_depth - 1, 0)
                        continue
                words.append(word)
                state["start"] = False
                if word.value == "in" and words and words[0].value == "case":
                    finish()  # the case's patterns and commands follow
        finish()
        return n

    def redirect(self, i: int) -> int:
        """The target word of a redirection (its expansions count, it is no argument)."""
        while i < self.n and self.s[i] in " \t":
            i += 1
        if i < self.n and self.s[i] not in _METACHARS:
            _, i = self.parse_word(i)
        return i

    def heredoc(self, i: int) -> int:
        strip = i < self.n and self.s[i] == "-"
        i += 1 if strip else 0
        while i < self.n and self.s[i] in " \t":
            i += 1
        start = i
        word, i = self.parse_word(i)
        quoted = any(ch in word.raw for ch in "'\"\\")
        delimiter = word.value if word.value is not None else re.sub(r"['\"\\]", "", self.s[start:i])
        self.heredocs.append((delimiter, quoted, strip))
        return i

    def read_heredocs(self, i: int) -> int:
        """The bodies of the here-documents started on the line that just ended."""
        pending, self.heredocs = self.heredocs, []
        for delimiter, quoted, strip in pending:
            body_start = i
            while i < self.n:
                end = self.s.find("\n", i)
                end = self.n if end < 0 else end
                line = self.s[i:end]
                if (line.lstrip("\t") if strip else line) == delimiter:
                    if not quoted:
                        self.expansions(body_start, i)
                    i = min(end + 1, self.n)
                    break
                i = end + 1
            else:
                if not quoted:
                    self.expansions(body_start, self.n)
                i = self.n
        return i

    def expansions(self, start: int, end: int) -> None:
        """``$`` and `` ` `` expansions in text that is otherwise literal (a here-document body)."""
        i = start
        while i < end:
            c = self.s[i]
            if c == "\\":
                i += 2
            elif c == "$":
                i = self.parse_dollar(i, quoted=True)
            elif c == "`":
                i = self.parse_backtick(i + 1)
            else:
                i += 1

    @abstractmethod
    def command(self, words: list[Word]) -> None:
        """What one simple command (its words, name first) does with variables."""
