"""Rewrite the expectations of the YAML-editing corpus from the Python engine (the reference).

Every ``*.json`` here is one case.  An edit case runs ``ops`` on ``text`` with
``prereq.core.yamledit.YamlText``; a loader case (no ``ops``) loads ``text`` (or the
bytes ``bytes_hex``) with ``prereq.core.yamlload.load_yaml``.  This script keeps each
case's input (description, text, source, ops, queries) and rewrites its
``expect``; the JavaScript port (site/assets/composer/yaml/yamltext.js, run by
tests/js/yamltext.test.js) must give the same, byte for byte.

    .venv/bin/python tests/cases/yamledit/regen.py
    .venv/bin/python tests/cases/yamledit/regen.py --check   # change nothing; exit 1 naming the cases that would change

Cases must stay within what both engines can say alike: JSON has no float 1.0
(JavaScript reads it as the integer 1), no NaN or infinities, and JavaScript
numbers lose integers beyond 2**53, so ``check_input`` refuses such values in
``ops`` (the YAML texts themselves may hold any of them).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.yamledit import YamlText
from prereq.core.yamlload import YamlLoadError, load_yaml

HERE = Path(__file__).resolve().parent
INPUT_KEYS = {"description", "text", "bytes_hex", "source", "ops", "queries", "browser_refuses", "expect"}
OP_KEYS = {
    "set": {"op", "path", "value", "before", "after"},
    "insert": {"op", "path", "value"},
    "delete": {"op", "path"},
}
MAX_POSITIONS = 200  # the positions a loader case lists (alias expansions can be many)


class CaseError(Exception):
    """A case file that does not follow the format."""


def case_files() -> list[Path]:
    return sorted(HERE.glob("*.json"))


def read_case(path: Path) -> dict[str, Any]:
    case = json.loads(path.read_text(encoding="utf-8"))
    check_input(case, path.name)
    return case


def write_case(path: Path, case: dict[str, Any]) -> None:
    path.write_text(dump(case), encoding="utf-8")


def dump(case: dict[str, Any]) -> str:
    ordered = {
        key: case[key]
        for key in ("description", "source", "text", "bytes_hex", "ops", "queries", "browser_refuses", "expect")
        if key in case
    }
    return json.dumps(ordered, ensure_ascii=False, indent=1) + "\n"


def _check_number(value: Any, where: str) -> None:
    if isinstance(value, float) and (not math.isfinite(value) or value.is_integer()):
        raise CaseError(
            f"{where}: {value!r} reads as another number in JavaScript; use a string or a non-integral float"
        )
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53:
        raise CaseError(f"{where}: {value} is beyond JavaScript's exact integers")
    if isinstance(value, list):
        for item in value:
            _check_number(item, where)
    if isinstance(value, dict):
        for item in value.values():
            _check_number(item, where)


def check_input(case: Any, where: str) -> None:
    """Refuse a malformed case: the same rules as the JavaScript runner's."""
    if not isinstance(case, dict) or set(case) - INPUT_KEYS:
        raise CaseError(f"{where}: a case is an object with keys among {sorted(INPUT_KEYS)}")
    if not isinstance(case.get("description"), str) or not case["description"]:
        raise CaseError(f"{where}: needs a description")
    if not isinstance(case.get("browser_refuses", ""), str):
        raise CaseError(f"{where}: browser_refuses is the composer's message (a string)")
    if ("text" in case) == ("bytes_hex" in case) or not isinstance(case.get("text", case.get("bytes_hex")), str):
        raise CaseError(f"{where}: needs exactly one of text (a string) and bytes_hex")
    if "ops" in case:
        if "bytes_hex" in case or "queries" in case or not isinstance(case["ops"], list):
            raise CaseError(f"{where}: an edit case has text and a list of ops (no bytes_hex, no queries)")
        for number, op in enumerate(case["ops"]):
            here = f"{where} op {number}"
            if not isinstance(op, dict) or op.get("op") not in OP_KEYS or set(op) - OP_KEYS[op["op"]]:
                raise CaseError(f"{here}: an op is set, insert or delete with its own keys")
            if not isinstance(op.get("path"), list) or ("value" not in op and op["op"] != "delete"):
                raise CaseError(f"{here}: needs a path list (and a value for set and insert)")
            for name in ("path", "value", "before", "after"):
                _check_number(op.get(name), f"{here} {name}")
    for query in case.get("queries", []):
        if not (
            isinstance(query, list) and len(query) == 2 and isinstance(query[0], list) and isinstance(query[1], bool)
        ):
            raise CaseError(f"{where}: a query is [path, key]")


# -- the Python engine -------------------------------------------------------------------------


def describe_error(exc: BaseException, at: int, text: str | None) -> dict[str, Any]:
    """An error as the corpus records it: PrereqError's text and hint, other exceptions by type."""
    error: dict[str, Any] = {"type": type(exc).__name__, "at": at}
    if isinstance(exc, PrereqError):
        error.update(message=exc.message, hint=exc.hint, exit_code=exc.exit_code)
    if text is not None:
        error["text"] = text
    return error


def apply_op(doc: YamlText, op: dict[str, Any]) -> None:
    path = tuple(op["path"])
    if op["op"] == "set":
        doc.set(path, op["value"], before=op.get("before", ()), after=op.get("after", ()))
    elif op["op"] == "insert":
        doc.insert(path, op["value"])
    else:
        doc.delete(path)


def run_edit(case: dict[str, Any]) -> dict[str, Any]:
    try:
        doc = YamlText(case["text"], source=case.get("source", "<yaml>"))
    except Exception as exc:
        return {"error": describe_error(exc, -1, None)}
    for at, op in enumerate(case["ops"]):
        try:
            apply_op(doc, op)
        except Exception as exc:
            return {"error": describe_error(exc, at, doc.text)}
    return {"text": doc.text, "repr": repr(doc.data)}


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], bool]]:
    found = [(path, False)]
    if isinstance(value, dict):
        for key, child in value.items():
            found.append((path + (key,), True))
            found += _paths(child, path + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, path + (index,))
    return found


def _json_safe(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def run_load(case: dict[str, Any]) -> dict[str, Any]:
    raw: str | bytes = bytes.fromhex(case["bytes_hex"]) if "bytes_hex" in case else case["text"]
    try:
        loaded = load_yaml(raw)
    except YamlLoadError as exc:
        return {
            "error": {
                "issues": [
                    {"kind": issue.kind, "message": issue.message, "line": issue.line, "column": issue.column}
                    for issue in exc.issues
                ]
            }
        }
    expect: dict[str, Any] = {"repr": repr(loaded.data)}
    if _json_safe(loaded.data):
        expect["data"] = json.loads(json.dumps(loaded.data))
    asked = [(tuple(path), key) for path, key in case.get("queries", [])]
    positions = []
    for path, key in _paths(loaded.data)[:MAX_POSITIONS] + asked:
        if _json_safe(list(path)):
            positions.append([list(path), key, *loaded.position(path, key=key)])
    expect["positions"] = positions
    return expect


def expectation(case: dict[str, Any]) -> dict[str, Any]:
    return run_edit(case) if "ops" in case else run_load(case)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a case would change")
    args = parser.parse_args(argv)
    changed = []
    for path in case_files():
        case = read_case(path)
        case["expect"] = expectation(case)
        if dump(case) != path.read_text(encoding="utf-8"):
            changed.append(path.name)
            if not args.check:
                write_case(path, case)
    for name in changed:
        print(("would change: " if args.check else "rewrote: ") + name)
    print(f"{len(case_files())} cases, {len(changed)} {'to change' if args.check else 'changed'}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
