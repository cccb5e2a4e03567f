"""Rewrite each share case's ``expect`` from the Python engine; ``--check`` only reports."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[2] / "tools"), str(HERE), str(HERE.parent)]

from corpus import rewrite_expectations  # noqa: E402
from share_corpus import case_files, outcome  # noqa: E402

if __name__ == "__main__":
    sys.exit(rewrite_expectations(case_files(), outcome, check="--check" in sys.argv[1:]))
