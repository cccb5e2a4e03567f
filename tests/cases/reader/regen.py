"""Rewrite each reader case's ``expect`` from the Python reader; ``--check`` only reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[3] / "tools"), str(Path(__file__).resolve().parent)]

from reader_corpus import case_files, outcome  # noqa: E402


def main(argv: list[str]) -> int:
    changed = []
    for path in case_files():
        case = json.loads(path.read_text(encoding="utf-8"))
        expect = outcome(case["change"])
        if case.get("expect") != expect:
            changed.append(path.name)
            if "--check" not in argv:
                path.write_text(
                    json.dumps({**case, "expect": expect}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
                )
    print(f"{len(case_files())} cases, {len(changed)} {'would change' if '--check' in argv else 'changed'}")
    return 1 if changed and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
