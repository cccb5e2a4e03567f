"""Line diffs for tests of text edits: which lines an edit took out and which it wrote."""

from __future__ import annotations

import difflib


def line_diff(before: str, after: str) -> tuple[list[str], list[str]]:
    """(lines of ``before`` that changed or went, lines of ``after`` that are new), compared byte for byte."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    removed, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += a[i1:i2]
            added += b[j1:j2]
    return removed, added
