"""Rewrite values.json: Python's answers for the runtime round trip and the form digest.

Every case holds a value and what the Python reference gives for it:
``runtime.survives_round_trip`` (or the exception it raises), ``str(value)``,
``forms.canonical_json`` and ``forms.digest`` (or the exception).  The composer's
digest.js must give the same for every case, and its runtime.js rule must never prove a value the
round trip breaks (tests/js/runtime.test.js).

    .venv/bin/python tests/cases/runtime/regen.py          # rewrite values.json
    .venv/bin/python tests/cases/runtime/regen.py --check  # change nothing; exit 1 if it is out of date

Values stay in the range JavaScript reads back from JSON unchanged: ints within
2**53 and no integral floats below 2**53 (JSON.parse gives 1.0 and 1 alike).

The values come from the modules beside this one: values_strings.py (strings),
values_documents.py (YAML documents, structures, numbers) and values_random.py
(seeded random strings, mutations and trees).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from values_documents import NUMBERS, PROBES, STRUCTURES
from values_random import SAFE, mutate, random_text, random_tree
from values_strings import STRINGS

from prereq.openpai import forms, runtime

VALUES = Path(__file__).resolve().parent / "values.json"
SEED = 20240501


def printable_boundaries() -> Iterator[str]:
    """Every code point on either side of a change in str.isprintable, 64 to a string:
    their str() pins the table the JavaScript repr keeps."""
    edges = [c for c in range(1, 0x110000) if chr(c).isprintable() != chr(c - 1).isprintable()]
    chars = sorted({c + d for c in edges for d in (-1, 0)} - {ord("'"), ord('"'), ord("\\")})
    for start in range(0, len(chars), 64):
        yield "".join(chr(c) for c in chars[start : start + 64])


def values() -> Iterator[Any]:
    rng = random.Random(SEED)
    for text in STRINGS:
        yield from (text, [text], {text: 0})
    yield from PROBES
    yield from STRUCTURES
    yield from NUMBERS
    yield from ([number] for number in NUMBERS)
    yield from ([text] for text in printable_boundaries())
    for _ in range(200):
        text = mutate(rng, rng.choice(STRINGS))
        yield from (text, [text])
    for _ in range(300):
        yield random_text(rng)
    for _ in range(200):
        yield random_tree(rng)


def supported(value: Any) -> bool:
    """Within what JSON.parse gives back as the same Python value."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return True
    if isinstance(value, int):
        return abs(value) < SAFE
    if isinstance(value, float):
        return value == value and abs(value) != float("inf") and not (value.is_integer() and abs(value) < SAFE)
    if isinstance(value, list):
        return all(supported(item) for item in value)
    return all(isinstance(key, str) for key in value) and all(supported(item) for item in value.values())


def outcome(function: Any, value: Any) -> tuple[Any, str | None]:
    try:
        return function(value), None
    except Exception as error:  # the reference's exceptions are part of its answer
        return None, type(error).__name__


def case(value: Any) -> dict[str, Any]:
    survives, raises = outcome(runtime.survives_round_trip, value)
    entry: dict[str, Any] = {"value": value, "survives": survives}
    if raises:
        entry["raises"] = raises
    if not isinstance(value, str):
        entry["str"] = str(value)
    entry["canonical_json"] = forms.canonical_json(value)
    entry["digest"], digest_raises = outcome(forms.digest, value)
    if digest_raises:
        entry["digest_raises"] = digest_raises
    return entry


def cases() -> list[dict[str, Any]]:
    seen: set[str] = set()
    out = []
    for made in values():
        key = json.dumps(made)
        value = json.loads(key)  # what a reader of the file gets (adjacent lone surrogates pair up)
        if key in seen or not supported(value):
            continue
        seen.add(key)
        out.append(case(value))
    return out


ABOUT = (
    "Python's answers (prereq.openpai.runtime.survives_round_trip, str(), forms.canonical_json, "
    "forms.digest) for each value; written by regen.py, never by hand. 'raises'/'digest_raises' name the "
    "exception Python raised; 'str' is left out for a str, which is its own str()."
)


def render() -> str:
    lines = ",\n".join("  " + json.dumps(entry, ensure_ascii=True) for entry in cases())
    head = json.dumps({"about": ABOUT, "unicode": unicodedata.unidata_version})[:-1]
    return head + ', "cases": [\n' + lines + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if values.json would change")
    args = parser.parse_args(argv)
    text = render()
    current = VALUES.read_text(encoding="utf-8") if VALUES.exists() else None
    if args.check:
        if current != text:
            print(f"{VALUES} is out of date: run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    if current != text:
        VALUES.write_text(text, encoding="utf-8")
        print(f"wrote {VALUES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
