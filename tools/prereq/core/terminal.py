"""Text for people's terminals: control characters made visible instead of obeyed.

A file name, title or description from a pull request can hold escape sequences that move
the cursor, clear the screen or rewrite what was printed before; printed raw, they would.
``visible`` writes each control character as ``\\uXXXX`` (which is also a valid JSON escape,
so JSON output stays JSON).  ``Progress`` is how long work (validation, the build) tells the CLI
what it is doing.

May import: the standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TextIO

# Where long work says what it is doing: a message a phase.  The library calls it; only the CLI prints.
Progress = Callable[[str], None]


def silent(_message: str) -> None:
    """The progress of a caller that shows none."""


_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def visible(text: str, *, keep: str = "\n\t") -> str:
    """``text`` with every control character except those in ``keep`` written as ``\\uXXXX``."""
    return _CONTROLS.sub(lambda m: m.group() if m.group() in keep else f"\\u{ord(m.group()):04x}", text)


class VisibleStream:
    """A text stream that makes control characters visible (line breaks, tabs and CR are kept)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(visible(text, keep="\n\t\r"))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
