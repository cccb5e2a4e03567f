"""The runtime round-trip corpus against Python: values.json is what regen.py makes from
prereq.openpai.runtime and forms today (tests/js/runtime.test.js holds the JS engine to the same file)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_the_corpus_is_what_python_gives_today() -> None:
    run = subprocess.run(
        [sys.executable, str(HERE / "regen.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=HERE.parents[2],
    )
    assert run.returncode == 0, run.stdout + run.stderr
