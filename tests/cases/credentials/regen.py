"""Rewrite cases.json from the Python engine; ``--check`` changes nothing and exits 1 when it is out of date.

.venv/bin/python tests/cases/credentials/regen.py [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[2] / "tools"), str(HERE.parents[1]), str(HERE.parent), str(HERE)]

from corpus import rewrite_file  # noqa: E402
from credentials_corpus import CASES, cases  # noqa: E402

if __name__ == "__main__":
    text = json.dumps({"cases": cases()}, indent=1, ensure_ascii=False) + "\n"
    sys.exit(rewrite_file(CASES, text, check="--check" in sys.argv[1:]))
