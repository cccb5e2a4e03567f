"""The one expected error type: the CLI turns it into a clean message and exit code."""

from __future__ import annotations


class PrereqError(Exception):
    """A problem the user can fix (bad input, missing file); never a bug in prereq.

    ``exit_code`` follows the CLI contract: 1 for problems found in the input,
    2 for usage errors and missing inputs.
    """

    def __init__(self, message: str, *, hint: str = "", exit_code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.exit_code = exit_code
