"""Rewrite cases.json from the Python engine; ``--check`` changes nothing and exits 1 when it is out of date.

.venv/bin/python tests/cases/credentials/regen.py [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[2] / "tools"), str(HERE.parents[1]), str(HERE)]

from credentials_corpus import CASES, cases  # noqa: E402


def text() -> str:
    return json.dumps({"cases": cases()}, indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    wanted = text()
    current = CASES.read_text(encoding="utf-8") if CASES.exists() else ""
    if "--check" in sys.argv[1:]:
        print("cases.json is " + ("up to date" if current == wanted else "out of date: run regen.py"))
        sys.exit(0 if current == wanted else 1)
    CASES.write_text(wanted, encoding="utf-8")
    print(f"wrote {len(json.loads(wanted)['cases'])} cases")
