"""Rewrite values.json: Python's answers for the runtime round trip and the form digest.

Every case holds a value and what the Python reference gives for it:
``runtime.survives_round_trip`` (or the exception it raises), ``str(value)``,
``forms.canonical_json`` and ``forms.digest`` (or the exception).  The composer's
JavaScript (digest.js, roundtrip.js) must give the same for every case.

    .venv/bin/python tests/cases/runtime/regen.py          # rewrite values.json
    .venv/bin/python tests/cases/runtime/regen.py --check  # change nothing; exit 1 if it is out of date

Values stay in the range JavaScript reads back from JSON unchanged: ints within
2**53 and no integral floats below 2**53 (JSON.parse gives 1.0 and 1 alike).
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

from prereq.openpai import forms, runtime

VALUES = Path(__file__).resolve().parent / "values.json"
SAFE = 2**53
SEED = 20240501

# Strings the runtime may meet, and ones that probe PyYAML: quotes, escapes, YAML words and numbers.
STRINGS = [
    "",
    " ",
    "  ",
    "a",
    "abc",
    "hello world",
    " lead",
    "trail ",
    "a  b",
    "x" * 80,
    "it's",
    'say "hi"',
    "both ' and \"",
    "''",
    '""',
    "'",
    '"',
    "'quoted'",
    '"quoted"',
    "a'b\"c'd",
    "\\",
    "\\\\",
    "a\\b",
    "C:\\path\\to",
    "\\n",
    "\\x41",
    "\\u00e9",
    "end\\",
    "'\\'",
    '"\\"',
    "\n",
    "a\nb",
    "a\n",
    "\nlead",
    "a\n\nb",
    "\r",
    "a\r\nb",
    "\t",
    "a\tb",
    "tab\t",
    "\ttab",
    "a \tb",
    "\x00",
    "\x01",
    "\x07",
    "\x08",
    "\x0b",
    "\x0c",
    "\x1b[31m",
    "\x1f",
    "\x7f",
    "\x80",
    "\x85",
    "a\x85b",
    "\x9f",
    "\xa0",
    "a\xa0b",
    "\xad",
    "\xff",
    "é",
    "café",
    "naïve",
    "日本語",
    "Ωmega",
    "\u2028",
    "a\u2028b",
    "a\u2029b",
    "a\u2028 b",
    "a \u2028b",
    "\u200b",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\ufeffa",
    "a\ufeffb",
    "\ue000",
    "\uf8ff",
    "\ufffd",
    "\ufffe",
    "\uffff",
    "\u0378",
    "\u0600",
    "\u061c",
    "\u3000",
    "a\u3000b",
    "😀",
    "a😀b",
    "👩\u200d💻",
    "𝔘𝔫𝔦",
    "\U0001f1fa\U0001f1f8",
    "\U000e0001",
    "\U000e0020",
    "\U000f0000",
    "\U0010ffff",
    "\U0002fa1d",
    "\U00031350",
    "\ud800",
    "\udfff",
    "a\udc80b",
    "\u0300",
    "a\u0301",
    "yes",
    "Yes",
    "YES",
    "no",
    "No",
    "on",
    "On",
    "off",
    "OFF",
    "y",
    "n",
    "Y",
    "true",
    "True",
    "false",
    "FALSE",
    "tRUE",
    "null",
    "Null",
    "NULL",
    "~",
    "None",
    "none",
    "nil",
    "=",
    "<<",
    "<",
    "!",
    "&",
    "*",
    "0",
    "1",
    "-1",
    "+1",
    "12",
    "012",
    "0777",
    "0o17",
    "0b101",
    "0b",
    "0b_",
    "0x1F",
    "0xff",
    "0x",
    "0x_",
    "08",
    "09",
    "1_000",
    "1__0",
    "_1",
    "1_",
    "0_",
    "1:30",
    "1:30:45",
    "190:20:30",
    "1:60",
    "-1:30",
    "1.0",
    "1.",
    ".5",
    "-.5",
    "+.5",
    "1.5",
    "1e5",
    "1e-05",
    "1.0e+5",
    "1.5e-07",
    "1E3",
    "1.e5",
    "6.8523015e+5",
    "1_000.5",
    "1:30.5",
    "._5",
    "1:0._",
    ".inf",
    "-.inf",
    "+.Inf",
    ".INF",
    ".nan",
    ".NaN",
    "inf",
    "nan",
    "NaN",
    "Infinity",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10 -5",
    "2001-12-15T02:59:43.1Z",
    "2002-12-14",
    "2001-02-30",
    "2000-02-29",
    "1900-02-29",
    "0000-01-01",
    "2001-13-01",
    "2001-1-1 1:00:00",
    "2001-01-01 24:00:00",
    "2001-01-01 23:60:00",
    "2001-01-01 00:00:60",
    "2001-01-01 00:00:00 +24",
    "2001-01-01 00:00:00 +23:59",
    "2001-01-01\t00:00:00",
    "2001-1-1",
    "a: b",
    "a:b",
    "a:",
    ":a",
    ":",
    "::",
    "a :b",
    "http://example.com:8080/x?y=1#z",
    "key: value: x",
    "# comment",
    "a #b",
    "a#b",
    "#",
    "a # b",
    "- item",
    "-item",
    "-",
    "--",
    "---",
    "--- x",
    "---x",
    "...",
    "... x",
    "...x",
    "? q",
    "?q",
    "?",
    "[a, b]",
    "[]",
    "{}",
    "{a: 1}",
    "{a",
    "]",
    "a, b",
    "a,b",
    "&anchor x",
    "*alias",
    "!tag x",
    "!!str x",
    "!!int x",
    "!!int 5",
    "!!float x",
    "!!bool x",
    "!!bool yes",
    "!!timestamp x",
    "!!null x",
    "!!binary aGk=",
    "!!binary a",
    "!!binary é",
    "!!set {a}",
    "!!omap [a: 1]",
    "!!str",
    "!!int",
    "! 5",
    "! '5'",
    "!<tag:yaml.org,2002:int> 5",
    "%YAML 1.1",
    "%TAG ! x",
    "@at",
    "`tick",
    "|",
    "|\n  block",
    ">\n  folded",
    "| x",
    "a | b",
    "a > b",
    "50%",
    "100",
    "<% $secrets.token %>",
    "<% this.x %>",
    "$HOME",
    "${VAR:-default}",
    "$'a\\nb'",
    "echo 'hi'",
    'echo "$X"',
    "ls -la | grep x > out",
    "a && b || c",
    "cd /tmp; ls",
    "x=1",
    "a=b=c",
    "key=value",
    "{{ template }}",
    "%",
    "^caret",
    "a\u00a0: b",
    "ÿes",
    "ﬀ",
    "ǅ",
]

# Whole documents where PyYAML and a YAML 1.2 parser part ways: what they load to (or the
# exception Python's survives_round_trip lets through for a top-level string) must match.
PROBES = [
    "!!int :",
    "!!int : 0x",
    "&a : 0x_",
    "? a\n- b",
    "? a\n- ",
    "'a ''",
    "!!timestamp '&b ''",
    '"x"#c',
    "!!int x'#c",
    '!!float "a"#c',
    "[a]#c",
    "[0x_]#c",
    "b:\n|\n  x",
    "b: !!float\n|\n  x",
    "- \n>\n x",
    "a:\n  b:\n  |\n   x",
    "! |\n  yes",
    "|\n  yes",
    "|\nx",
    "|\n# c",
    "|+\n a",
    "|0\n a",
    "|-+\n a",
    "| x",
    "|\t\n  a",
    ">#c\n a",
    "!!int >#c\n 5",
    "!!int x\n...\n...\n",
    "a\n...\n...",
    "a\n---",
    "a\n--- b",
    "%YAML 1.1\n--- a",
    "%YAML 1.1 # c\n--- 0x_",
    "%YAML 2.0\n--- 0x_",
    "%YAML 1.1\n%YAML 1.1\n--- 0x_",
    "%TAG !a! x\n%TAG !a! y\n--- 0x_",
    "%FOO\tbar\n--- 0x_",
    "%FOO bar\n--- 0x_",
    "%!!set\n--- 0x_",
    "\ufeff%YAML 2.0\n--- 0x_",
    "0x_\n...\n%x",
    "%YAML 1.1\n0x_",
    "&a a: &a 0x_",
    "&a& 0x_",
    "&é 0x_",
    "*a",
    "&a [*a]",
    "&a [*a, 0x_]",
    "{&a [*a]: 0x_}",
    "[a?b, 0x_]",
    "{a\n b: 0x_}",
    "{" + "k" * 1025 + ": 0x_}",
    "{'" + "k" * 1022 + "': 0x_}",
    ": 0x_",
    "{: 0x_}",
    "[: 0x_]",
    "[? : 0x_]",
    "{? : 0x_}",
    "? : 0x_",
    "? !!bool 'a' !!map",
    "'a'\t# c",
    "a\t# c",
    "a #\tc",
    "0x_ #\tc",
    "[a,\t0x_]",
    "a:\t0x_",
    "a: 0x_\t",
    "a\u2028b: 0x_",
    "0x_ # c",
    "0x_\u2028",
    "0x_\x85",
    "- 0x_\n- [a, {[b]: c}]",
    "{[a]: 1, b: 0x_}",
    "[a, b]: c",
    "<<: {a: 1}",
    "<<: 5",
    "<<: [{a: 1}, 2]",
    "{<<: {a: 0x_}}",
    "a: =",
    "{=: 1}",
    "!!str {=: a}",
    "!!int {=: 5}",
    "!!int {=: x}",
    "!!timestamp {=: 2001-01-01}",
    "!!set {a, b}",
    "!!set [a]",
    "!!omap [a: 1]",
    "!!omap [a, b]",
    "!!pairs {a: 1}",
    "!!omap [a: 0x_]",
    "!!binary aGk",
    "!!binary a===",
    "!!binary YQ==",
    "!!binary a",
    "!!int 0o17",
    "!!int 0x0x5",
    "!!int ' 12 '",
    "!!int '\u0661\u0662'",
    "!!float ' 1.5 '",
    "!!float infinity",
    "!!float 1:x",
    "!!float 1:30.5",
    "!!int 1:x",
    "!!int -",
    "!!int 0b",
    "!!bool YES",
    "!!bool 1",
    "!!null x",
    "! 5",
    "! '5'",
    "! '*'",
    "! |\n  x",
    "!<tag:yaml.org,2002:int> x",
    "!z!foo x",
    "%TAG !e! tag:yaml.org,2002:\n--- !e!int x",
    '"\\ud800"',
    "'\\x41'",
    "a\n- b",
    "a\n#c",
    "a\n ---",
    "a\n...x",
    "- a\nb",
    "a\n b: c",
    "a\u2028 b",
    "\ra",
    "a\rb",
    "1\r...",
    "\x85\ufeff!!int ",
    "a\n\ufeffb",
    "[\ufeff0x_]",
    "- !!int\n- 2001-13-01",
    "a: !!int\nb: 0x_",
    "? |\n  a\n: 0x_",
]

# Structures the runtime sees as plugin parameters, and ones that probe keys and nesting.
STRUCTURES: list[Any] = [
    [],
    {},
    [[]],
    [{}],
    {"a": []},
    {"a": {}},
    [1, 2, 3],
    ["a", 1, 1.5, True, False],
    [None],
    {"k": None},
    {"a": 1, "b": "two", "c": [3, "four"]},
    [[["deep"]]],
    {"a": {"b": {"c": "d"}}},
    [["it's", 'say "x"']],
    {"commands": ["echo hi", "ls -la"], "event": "taskStarts"},
    {"": ""},
    {"": 0},
    {" ": 1},
    {"0": 1},
    {"1": "x", "b": 2, "10": 3},
    {"yes": 1},
    {"null": 0},
    {"=": 1},
    {"<<": {"a": 1}},
    {"<<": 1},
    {"a: b": 1},
    {"#": 1},
    {"k" * 1022: 0},
    {"k" * 1023: 0},
    {"k" * 1021 + "'": 0},
    {"k" * 1012 + "é" * 10: 0},
    # PyYAML counts a key's 1024 characters in code points, not UTF-16 units.
    {"k" * 1000 + "😀" * 22: 0},
    {"k" * 1000 + "😀" * 23: 0},
    ["v" * 2000],
    {"a\nb": 1},
    {"it's": 1},
    {"\\": 1},
    {"\t": 1},
    {"a": 1, "A": 2},
    {"\ue000": 1, "😀": 2, "\uffff": 3, "a": 4},
    {"\ud800": 1, "\U00010000": 2},
    [True, 1, 1.5],
    [0.1, 0.2, 0.30000000000000004],
    [1e-05],
    [1.5e-07],
    [1e16],
    [1.5e16],
    [2.0**53],
    [123456789.125],
    [-0.5],
    [5e-324],
    [1.7976931348623157e308],
    [9007199254740991],
    [-9007199254740991],
    [0],
    [-1],
    [10**15],
    {"nested": [{"x": "y"}, ["z", None]]},
    [[1, [2, [3, [4]]]]],
    ["a", ["b", {"c": "it's"}]],
]
NUMBERS = [
    0,
    1,
    -1,
    42,
    9007199254740991,
    -9007199254740991,
    0.5,
    -2.5,
    1e-05,
    1.5e-07,
    0.0001,
    1e16,
    1.5e16,
    2.0**53,
    1.7976931348623157e308,
    5e-324,
    3.14159,
    True,
    False,
    None,
]

PIECES = [
    "a",
    "Z",
    "0",
    "1",
    "9",
    " ",
    "  ",
    "\t",
    "\n",
    "\r",
    "'",
    '"',
    "\\",
    ":",
    "#",
    "-",
    "?",
    ",",
    "[",
    "]",
    "{",
    "}",
    "&",
    "*",
    "!",
    "|",
    ">",
    "%",
    "@",
    "`",
    "=",
    "<",
    "~",
    ".",
    "_",
    "+",
    "e",
    "x",
    "b",
    "\x00",
    "\x07",
    "\x1b",
    "\x7f",
    "\x85",
    "\xa0",
    "\xad",
    "é",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\u200b",
    "\ue000",
    "\ufffd",
    "\uffff",
    "😀",
    "\U000e0001",
    "---",
    "...",
    "yes",
    "null",
    "1.5",
    "0x",
    "0b",
    "2001-01-01",
    ": ",
    " #",
    "True",
    "None",
    "!!int ",
    "- ",
    "? ",
    "12",
    "1e5",
    ":30",
    "'s",
]


def random_text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6)))


def random_scalar(rng: random.Random) -> Any:
    kind = rng.randrange(6)
    if kind == 0:
        return rng.randint(-SAFE + 1, SAFE - 1) if rng.random() < 0.5 else rng.randint(-1000, 1000)
    if kind == 1:
        return rng.choice([-1, 1]) * rng.random() * 10.0 ** rng.randint(-12, 25)
    if kind == 2:
        return rng.choice([True, False, None])
    return random_text(rng)


def random_tree(rng: random.Random, depth: int = 0) -> Any:
    if depth >= 3 or rng.random() < 0.4:
        return random_scalar(rng)
    items = range(rng.randint(0, 3))
    if rng.random() < 0.5:
        return [random_tree(rng, depth + 1) for _ in items]
    return {random_text(rng): random_tree(rng, depth + 1) for _ in items}


def mutate(rng: random.Random, text: str) -> str:
    at = rng.randint(0, len(text))
    piece = rng.choice(PIECES)
    edit = rng.randrange(3)
    if edit == 0 or not text:
        return text[:at] + piece + text[at:]
    if edit == 1:
        return text[:at] + text[at + 1 :]
    return text[:at] + piece + text[at + 1 :]


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
