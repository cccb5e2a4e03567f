"""``python -m prereq``: the same command as ``prereq``, for an environment whose scripts are not on PATH.

May import: prereq.cli.
"""

from __future__ import annotations

from prereq.cli import main

if __name__ == "__main__":
    raise SystemExit(main())  # main's exit code as it is: the CLI picks it
