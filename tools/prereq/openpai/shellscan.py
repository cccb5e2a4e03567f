"""Reading bash for variables: a small reader of words, quotes, expansions, substitutions and
here-documents that never fails, whatever the input.  ``shellvars`` says what each simple
command does with variables (``Scanner.command``); this module only finds the commands.

May import: the standard library.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass

_ARITH_ASSIGN = re.compile(r"\s*(?:=(?!=)|[-+*/%&|^]=|<<=|>>=|\+\+|--)")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=")
_SPECIAL = set("@*#?$!-0123456789")
_METACHARS = set(" \t\n;&|()<>")
_KEYWORDS = {
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "do",
    "done",
    "while",
    "until",
    "in",
    "function",
    "time",
    "!",
    "{",
    "}",
    "[[",
    "coproc",
    "esac",
    "case",
    "for",
    "select",
}


@dataclass(frozen=True)
class Word:
    raw: str
    value: str | None  # the word with quotes removed; None when it holds an expansion
    start: int
    end: int


@dataclass(frozen=True)
class Event:
    kind: str  # "use", "def", "export"
    offset: int
    name: str


class Scanner(ABC):
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

    # events ---------------------------------------------------------------------------------

    def use(self, offset: int, name: str) -> None:
        if name not in self.guard:
            self.events.append(Event("use", self.base + offset, name))

    def define(self, offset: int, name: str, exported: bool = False) -> None:
        self.events.append(Event("def", self.base + offset, name))
        if exported:
            self.events.append(Event("export", self.base + offset, name))

    def merge(self, other: Scanner) -> None:
        self.events.extend(other.events)

    # command lists ----------------------------------------------------------------------------

    def parse_list(self, i: int, stop: str | None = None) -> int:
        """Commands from ``i`` up to the unmatched ``stop`` (``)`` or `` ` ``); returns the index after it."""
        words: list[Word] = []
        state = {"start": True, "for": False}
        case_entry = self.case_depth
        s, n = self.s, self.n

        def finish() -> None:
            if words:
                self.command(words)
            words.clear()
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
                        self.define(i, assignment[1])
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

    # words ------------------------------------------------------------------------------------

    def parse_word(self, i: int) -> tuple[Word, int]:
        s, n = self.s, self.n
        start = i
        value: list[str] | None = []
        while i < n:
            c = s[i]
            if c in _METACHARS:
                break
            if c == "\\":
                if i + 1 < n and s[i + 1] != "\n" and value is not None:
                    value.append(s[i + 1])
                i += 2
            elif c == "'":
                end = s.find("'", i + 1)
                end = n if end < 0 else end
                if value is not None:
                    value.append(s[i + 1 : end])
                i = end + 1
            elif c == '"':
                before = len(self.events)
                i, text = self.parse_dquote(i + 1)
                if value is not None:
                    value = None if text is None or len(self.events) != before else value + [text]
            elif c == "$" and s.startswith("$'", i):
                i = self.skip_ansi_c(i + 2)
                value = None
            elif c == "$" and s.startswith('$"', i):
                i, _ = self.parse_dquote(i + 2)
                value = None
            elif c == "$":
                after = self.parse_dollar(i, quoted=False)
                if after == i + 1 and value is not None:
                    value.append("$")  # a lone dollar is literal
                else:
                    value = None
                i = after
            elif c == "`":
                i = self.parse_backtick(i + 1)
                value = None
            else:
                if value is not None:
                    value.append(c)
                i += 1
        i = min(i, n)
        return Word(s[start:i], None if value is None else "".join(value), start, i), i

    def skip_ansi_c(self, i: int) -> int:
        while i < self.n and self.s[i] != "'":
            i += 2 if self.s[i] == "\\" else 1
        return i + 1

    def parse_dquote(self, i: int) -> tuple[int, str | None]:
        """After an opening ``"``: the index after the closing one, and the literal text (None with expansions)."""
        s, n = self.s, self.n
        text: list[str] | None = []
        while i < n:
            c = s[i]
            if c == '"':
                return i + 1, None if text is None else "".join(text)
            if c == "\\":
                if i + 1 < n and text is not None:
                    text.append(s[i + 1] if s[i + 1] in '$`"\\' else s[i : i + 2])
                i += 2
            elif c == "$":
                after = self.parse_dollar(i, quoted=True)
                if after == i + 1:
                    if text is not None:
                        text.append("$")
                else:
                    text = None
                i = after
            elif c == "`":
                i = self.parse_backtick(i + 1)
                text = None
            else:
                if text is not None:
                    text.append(c)
                i += 1
        return n, None if text is None else "".join(text)

    def parse_backtick(self, i: int) -> int:
        s, n = self.s, self.n
        start = i
        inner: list[str] = []
        while i < n and s[i] != "`":
            if s[i] == "\\" and i + 1 < n and s[i + 1] in "`$\\":
                inner.append(s[i + 1])
                i += 2
            else:
                inner.append(s[i])
                i += 1
        sub = type(self)("".join(inner), self.base + start)
        sub.guard = list(self.guard)
        sub.parse_list(0)
        self.merge(sub)
        return i + 1

    # expansions -------------------------------------------------------------------------------

    def parse_dollar(self, i: int, *, quoted: bool) -> int:
        """At a ``$``: records what it expands; returns the index after the expansion
        (``i + 1`` when the ``$`` is literal)."""
        s, n = self.s, self.n
        nxt = s[i + 1] if i + 1 < n else ""
        if nxt == "{":
            return self.parse_brace(i + 2)
        if nxt == "(":
            if s.startswith("((", i + 1):
                return self.parse_arith(i + 3)
            return self.parse_list(i + 2, ")")
        if nxt and nxt in _SPECIAL:
            return i + 2
        match = NAME.match(s, i + 1)
        if match:
            self.use(i, match[0])
            return match.end()
        return i + 1

    def parse_brace(self, i: int) -> int:
        """After ``${``."""
        s, n = self.s, self.n
        start = i - 2
        prefix = ""
        if i < n and s[i] in "#!" and i + 1 < n and s[i + 1] != "}":
            prefix = s[i]
            i += 1
        match = NAME.match(s, i)
        if match:
            name = match[0]
            i = match.end()
        elif i < n and s[i] in _SPECIAL:
            name = ""
            i += 1
            while i < n and s[i - 1].isdigit() and s[i].isdigit():
                i += 1
        else:
            return self.operand(i)
        if i < n and s[i] == "[":
            end = self.matching(i, "[", "]")
            self.expansions(i + 1, end)
            i = end + 1
        if prefix == "!" and i < n and s[i] in "*@":
            return self.operand(i + 1)  # ${!prefix*}: names, not a use
        op = s[i : i + 2] if s.startswith(":", i) else s[i : i + 1]
        if op in (":-", "-", ":=", "=", ":+", "+") and prefix != "#":
            if op.endswith("+") and name:
                self.guard.append(name)
                end = self.operand(i + len(op))
                self.guard.pop()
            else:
                end = self.operand(i + len(op))
            if op.endswith("=") and name:
                self.define(end, name)
            return end
        if name:
            self.use(start, name)
        return self.operand(i)

    def operand(self, i: int) -> int:
        """The rest of a ``${...}`` up to its ``}``, reading expansions in it."""
        s, n = self.s, self.n
        while i < n:
            c = s[i]
            if c == "}":
                return i + 1
            if c == "\\":
                i += 2
            elif c == "'":
                end = s.find("'", i + 1)
                i = n if end < 0 else end + 1
            elif c == '"':
                i, _ = self.parse_dquote(i + 1)
            elif c == "$":
                i = self.parse_dollar(i, quoted=True)
            elif c == "`":
                i = self.parse_backtick(i + 1)
            else:
                i += 1
        return n

    def matching(self, i: int, open_: str, close: str) -> int:
        depth = 0
        while i < self.n:
            if self.s[i] == open_:
                depth += 1
            elif self.s[i] == close:
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        return self.n

    def parse_arith(self, i: int) -> int:
        """After ``((`` or ``$((``: up to the closing ``))``."""
        s, n = self.s, self.n
        depth = 0
        while i < n:
            c = s[i]
            if c == ")" and depth == 0:
                return i + 2 if s.startswith("))", i) else i + 1
            if c == "(":
                depth += 1
                i += 1
            elif c == ")":
                depth -= 1
                i += 1
            elif c == "$":
                i = self.parse_dollar(i, quoted=True)
            elif c == "`":
                i = self.parse_backtick(i + 1)
            elif c.isalpha() or c == "_":
                match = NAME.match(s, i)
                assert match
                before = s[max(0, i - 2) : i]
                if _ARITH_ASSIGN.match(s, match.end()) or before in ("++", "--"):
                    self.define(match.end(), match[0])
                i = match.end()
            elif c.isdigit():
                while i < n and (s[i].isalnum() or s[i] in "#_@"):
                    i += 1  # 42, 0x1f, 16#ff
            else:
                i += 1
        return n
