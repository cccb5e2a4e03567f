"""Rewrite the OpenPAI protocol cases from the Python checks (the reference).

Writes ``schema.json`` (the resolved protocol schema the composer is given) and, in every case
file ``NNN-slug.json``, the ``expect`` list: what ``prereq.openpai.protocol.validate_job`` gives
for the case's job.  Each case file is rewritten in one canonical form (the job indented, one
problem a line).  Prints the files that changed.

    python tests/cases/protocol/regen.py            # every case
    python tests/cases/protocol/regen.py 012 040    # cases whose file name starts with these
    python tests/cases/protocol/regen.py --check    # change nothing; exit 1 when a file would change

A case is ``{"description": ..., "job": ..., "expect": [{"path": [...], "message": ..., "source": ...}]}``;
a new case may leave ``expect`` out.  Its job must read the same in JavaScript: no NaN or
infinities, no duplicate keys, no integers beyond 2**53, and no integer-like keys ("0", "12")
where a JS object would list them in another order.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from prereq.openpai.protocol import load_protocol, resolve_schema, validate_job

HERE = Path(__file__).resolve().parent
SCHEMA_FILE = HERE / "schema.json"
CASE_NAME = re.compile(r"^[0-9]{3}-[a-z0-9]+(?:-[a-z0-9]+)*\.json$")
CASE_KEYS = ("description", "job", "expect")
PROBLEM_KEYS = ("path", "message", "source")
SOURCES = ("schema", "rest-server", "runtime", "webportal")
_ARRAY_INDEX = re.compile(r"^(?:0|[1-9][0-9]*)$")  # a key JS objects list first (below 2**32 - 1)


class CaseError(ValueError):
    """A case file that is not a well-formed case."""


def schema_text() -> str:
    return json.dumps(resolve_schema(load_protocol()), indent=2, ensure_ascii=False) + "\n"


def case_files() -> list[Path]:
    return sorted(path for path in HERE.glob("*.json") if path != SCHEMA_FILE)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    duplicate = next((key for key in keys if keys.count(key) > 1), None)
    if duplicate is not None:
        raise CaseError(f"duplicate key {json.dumps(duplicate)}")
    indexes = [key for key in keys if _ARRAY_INDEX.match(key) and int(key) < 2**32 - 1]
    if keys[: len(indexes)] != sorted(indexes, key=int):
        raise CaseError(f"keys {keys} are listed in another order by a JavaScript object")
    return dict(pairs)


def _constant(name: str) -> Any:
    raise CaseError(f"{name} is not JSON")


def _integer(text: str) -> int:
    if abs(int(text)) > 2**53:
        raise CaseError(f"the integer {text} is beyond what JavaScript holds exactly")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise CaseError(f"{text} is an infinity in JavaScript")
    return value


def load_case(path: Path) -> dict[str, Any]:
    """A case file's content, checked to be a case (``expect`` may be missing)."""
    if not CASE_NAME.match(path.name):
        raise CaseError(f"{path.name}: a case file is named NNN-slug.json")
    try:
        case = json.loads(
            path.read_text(encoding="utf-8"),
            object_pairs_hook=_no_duplicates,
            parse_constant=_constant,
            parse_int=_integer,
            parse_float=_float,
        )
    except (CaseError, ValueError) as exc:
        raise CaseError(f"{path.name}: {exc}") from None
    if not isinstance(case, dict) or not set(case) <= set(CASE_KEYS) or not {"description", "job"} <= set(case):
        raise CaseError(f"{path.name}: a case has the keys {', '.join(CASE_KEYS)}")
    if not isinstance(case["description"], str) or not case["description"].strip():
        raise CaseError(f"{path.name}: the description is a non-empty string")
    for problem in case.get("expect", []) if isinstance(case.get("expect", []), list) else [None]:
        if (
            not isinstance(problem, dict)
            or tuple(problem) != PROBLEM_KEYS
            or not isinstance(problem["path"], list)
            or not all(isinstance(p, str) or (isinstance(p, int) and p >= 0) for p in problem["path"])
            or not isinstance(problem["message"], str)
            or problem["source"] not in SOURCES
        ):
            raise CaseError(f"{path.name}: expect is a list of {{path, message, source}}: {problem}")
    return case


def expectations(job: Any) -> list[dict[str, Any]]:
    return [
        {"path": list(problem.path), "message": problem.message, "source": problem.source}
        for problem in validate_job(job)
    ]


def render(case: dict[str, Any]) -> str:
    """A case in its canonical form."""
    job = json.dumps(case["job"], indent=2, ensure_ascii=False).replace("\n", "\n  ")
    lines = ["{", f'  "description": {json.dumps(case["description"], ensure_ascii=False)},', f'  "job": {job},']
    expect = [json.dumps(problem, ensure_ascii=False) for problem in case.get("expect", [])]
    if expect:
        lines += ['  "expect": [', *[f"    {line}," for line in expect[:-1]], f"    {expect[-1]}", "  ]"]
    else:
        lines.append('  "expect": []')
    return "\n".join([*lines, "}"]) + "\n"


def regenerate(path: Path) -> str:
    case = load_case(path)
    return render({"description": case["description"], "job": case["job"], "expect": expectations(case["job"])})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("prefixes", nargs="*", help="only the cases whose file name starts with one of these")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file would change")
    args = parser.parse_args(argv)
    wanted: list[tuple[Path, str]] = [] if args.prefixes else [(SCHEMA_FILE, schema_text())]
    try:
        for path in case_files():
            if not args.prefixes or path.name.startswith(tuple(args.prefixes)):
                wanted.append((path, regenerate(path)))
    except CaseError as exc:
        print(f"not a case: {exc}", file=sys.stderr)
        return 1
    changed = [path for path, text in wanted if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if not args.check:
        for path, text in wanted:
            if path in changed:
                path.write_text(text, encoding="utf-8")
    verb = "would change" if args.check else "changed"
    for path in changed:
        print(f"{verb}: {path.name}")
    print(f"{len(case_files())} cases, {len(changed)} files {verb}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
