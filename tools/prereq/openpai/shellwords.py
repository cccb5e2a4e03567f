"""Reading bash words: quotes, ``$`` expansions, substitutions, braces and arithmetic.

The statement-level reader (``shellscan.Scanner``) asks for one word at a time; expansions
report the variables they use or set through ``use``/``define``; a command substitution is
read as a command list again (``parse_list``).  Never fails, whatever the input.
``quoting_contexts`` says how each value to be filled into a command is quoted where it stands.

May import: the standard library.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

_ARITH_ASSIGN = re.compile(r"\s*(?:=(?!=)|[-+*/%&|^]=|<<=|>>=|\+\+|--)")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = set("@*#?$!-0123456789")
_METACHARS = set(" \t\n;&|()<>")


@dataclass(frozen=True)
class Word:
    raw: str
    value: str | None  # the word with quotes removed; None when it holds an expansion
    start: int
    end: int


MAX_NESTING = 100  # substitutions and expansions one inside the other; real commands use a handful


class WordReader(ABC):
    """The word-level half of the reader; ``Scanner`` holds the text and the events."""

    s: str
    n: int
    base: int
    guard: list[str]
    nesting: int
    events: list[Any]

    @abstractmethod
    def use(self, offset: int, name: str) -> None: ...

    @abstractmethod
    def define(self, offset: int, name: str, exported: bool = False) -> None: ...

    @abstractmethod
    def guarded(self, offset: int, name: str) -> None:
        """A reference that needs no value: ``${X:-...}``, ``${X+...}``, ``${X:?...}`` and their kin."""

    @abstractmethod
    def merge(self, other: Any) -> None: ...

    @abstractmethod
    def parse_list(self, i: int, stop: str | None = None) -> int: ...

    @abstractmethod
    def expansions(self, start: int, end: int) -> None: ...

    @abstractmethod
    def reader(self, text: str, base: int) -> WordReader:
        """A reader of the same kind for a substitution's text, starting at ``base`` in the whole."""

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
        sub = self.reader("".join(inner), self.base + start)
        sub.guard = list(self.guard)
        sub.nesting = self.nesting
        sub.parse_list(0)
        self.merge(sub)
        return i + 1

    # expansions -------------------------------------------------------------------------------

    @contextmanager
    def nested(self) -> Iterator[bool]:
        """One level deeper; yields True past ``MAX_NESTING`` (the reader then skips the rest, so that
        3,000 nested ``(`` or ``$(`` cost neither the stack nor time)."""
        self.nesting += 1
        try:
            yield self.nesting > MAX_NESTING
        finally:
            self.nesting -= 1

    def parse_dollar(self, i: int, *, quoted: bool) -> int:
        """``_parse_dollar``, unless nested too deep (the rest is then not read)."""
        with self.nested() as deep:
            return self.n if deep else self._parse_dollar(i, quoted=quoted)

    def _parse_dollar(self, i: int, *, quoted: bool) -> int:
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
        # ${X:?message} fails on purpose when X is unset (ShellCheck's SC2154 calls it guarded): not a use,
        # and X is set after it
        if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?") and prefix != "#":
            if name and not op.endswith("="):
                self.guarded(start, name)
            if op.endswith("+") and name:
                self.guard.append(name)
                end = self.operand(i + len(op))
                self.guard.pop()
            else:
                end = self.operand(i + len(op))
            if op[-1] in "=?" and name:
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


# Where a value stands in a command ---------------------------------------------------------------

MARK = "\x00"  # stands for a value to be filled in; no command holds it (YAML cannot carry it)
WORD, DOUBLE, SINGLE, OTHER = "word", "double", "single", "other"
SAFE_WORD = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")  # a word bash reads as it is, in any context


def _skip_quoted(text: str, i: int, found: list[str], context: str, *, ansi: bool) -> int:
    """At a ``'`` (of ``$'`` when ``ansi``): past its closing quote, each mark inside found in ``context``."""
    j = i + 1
    while j < len(text) and text[j] != "'":
        if text[j] == MARK:
            found.append(context)
        j += 2 if ansi and text[j] == "\\" and text[j + 1 : j + 2] != MARK else 1
    return j + 1


_UNSURE_FRAMES = ("`", "))", "}", "]")  # backticks, arithmetic, ${...}, $[...]: no quoting is sure there


def quoting_contexts(text: str) -> list[str]:
    """The quoting context of each ``MARK`` in ``text``: ``WORD`` (unquoted), ``DOUBLE`` (in ``"..."``),
    ``SINGLE`` (in ``'...'``) or ``OTHER`` (where no quoting is sure to hold: backticks, ``$'...'``,
    arithmetic, ``${...}``, a comment, after a backslash, from a here-document or a ``case`` on).
    Longer than usual: one pass, each branch one of bash's constructs."""
    found: list[str] = []
    frames: list[list[Any]] = [["", 0]]  # each open frame: its closer ("", ")", "))", "}", "]", "`", '"') and ( depth
    unsure_from = len(text) + 1  # past a here-document's first line, or a case: every mark is OTHER
    i, n, escaped, closed = 0, len(text), -1, -1  # closed: the last ) or } ending an expansion
    while i < n:
        if i > unsure_from:
            found.extend(OTHER for _ in range(text.count(MARK, i)))
            break
        c, frame, closer = text[i], frames[-1], frames[-1][0]
        if c == MARK:
            found.append(OTHER if any(f[0] in _UNSURE_FRAMES for f in frames) else DOUBLE if closer == '"' else WORD)
        elif c == "\\":
            if text[i + 1 : i + 2] == MARK:
                found.append(OTHER)
            escaped = i + 1
            i += 1
        elif closer == "))" and text.startswith("))", i) and not frame[1]:
            frames.pop()
            closed = i = i + 1
        elif c == closer and not (c == ")" and frame[1]):
            frames.pop()
            if c in ")}":
                closed = i
        elif text.startswith(("$((", "$[", "${"), i) or (text.startswith("((", i) and closer != '"'):
            opener = "$((" if text.startswith("$((", i) else text[i : i + 2]
            frames.append([{"$((": "))", "((": "))", "$[": "]", "${": "}"}[opener], 0])
            i += len(opener) - 1
        elif text.startswith("$(", i):
            frames.append([")", 0])
            i += 1
        elif c in '`"':
            frames.append([c, 0])
        elif closer == '"':
            pass  # the rest is literal inside double quotes
        elif c == "'" or text.startswith("$'", i):
            ansi = c == "$"
            inside = OTHER if ansi or any(f[0] in _UNSURE_FRAMES for f in frames) else SINGLE
            i = _skip_quoted(text, i + ansi, found, inside, ansi=ansi)
            continue
        elif c in "()":
            frame[1] += 1 if c == "(" else -1
        elif c == "#" and closer in ("", ")") and _word_starts(text, i, escaped, closed):
            end = text.find("\n", i)
            end = n if end < 0 else end
            found.extend(OTHER for _ in range(text.count(MARK, i, end)))
            i = end
            continue
        elif text.startswith("<<<", i):  # a here-string: a word follows, no here-document
            i += 2
        elif text.startswith("<<", i) and unsure_from > n:
            end = text.find("\n", i)
            unsure_from = n if end < 0 else end
        elif text.startswith(("case ", "case\t"), i) and _word_starts(text, i, escaped, closed):
            unsure_from = i  # its patterns end in ")": the scanner cannot tell them from $( )'s end
        i += 1
    return found


def _word_starts(text: str, i: int, escaped: int, closed: int) -> bool:
    """Whether a word starts at ``i``: after a metacharacter neither escaped nor ending ``$(...)``/``${...}``."""
    return i == 0 or (text[i - 1] in _METACHARS and i - 1 not in (escaped, closed))
