#!/usr/bin/env python3
"""The commit-msg hook of .pre-commit-config.yaml: a commit's subject is at most 72 characters, so that
``git log --oneline`` can be read (CONTRIBUTING.md, "Commits").

The subject is what git shows as one: the message's first paragraph, its lines joined by spaces, so a
subject wrapped onto a second line without a blank line after it counts whole.  Git's comment lines
(and a verbose commit's diff under the scissors line) are not part of the message, and the prefixes
``git commit --fixup``/``--squash`` add are not counted, since ``git rebase --autosquash`` drops them.

Usage: commit_msg.py MESSAGE_FILE (git and pre-commit pass .git/COMMIT_EDITMSG).
"""

from __future__ import annotations

import sys
from pathlib import Path

LIMIT = 72
SCISSORS = "# ------------------------ >8 ------------------------"
AUTOSQUASH = ("fixup! ", "squash! ", "amend! ")


def subject(message: str) -> tuple[int, list[str]]:
    """The subject's first line number and its lines, which ``git log --oneline`` shows joined."""
    start, lines = 0, []
    for number, line in enumerate(message.splitlines(), start=1):
        if line.startswith(SCISSORS):
            break
        if line.startswith("#"):
            continue
        if line.strip():
            start = start or number
            lines.append(line.strip())
        elif lines:
            break
    while lines and lines[0].startswith(AUTOSQUASH):
        lines[0] = lines[0].split(" ", 1)[1]
    return start, lines


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: commit_msg.py MESSAGE_FILE", file=sys.stderr)
        return 2
    path = Path(argv[1])
    try:
        message = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        print(f"{path}: cannot read the commit message: {error.strerror}", file=sys.stderr)
        return 2
    line, lines = subject(message)
    length = len(" ".join(lines))
    if length <= LIMIT:
        return 0
    print(f"{path}:{line}: the commit's subject is {length} characters; at most {LIMIT} fit `git log --oneline`")
    if len(lines) > 1:
        last = line + len(lines) - 1
        print(f"hint: git reads lines {line}-{last} as one subject: leave a blank line after the first")
    else:
        print("hint: say what it does in a few words, in the imperative; why goes in the body, after a blank line")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
