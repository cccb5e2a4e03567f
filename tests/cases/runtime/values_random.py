"""The random part of values.json (see regen.py): strings pieced together from YAML's awkward
characters and words, mutations of the fixed strings, and nested trees of scalars, all from one
seeded generator so that regen.py writes the same file every time."""

from __future__ import annotations

import random
from typing import Any

SAFE = 2**53  # ints JavaScript reads back from JSON unchanged lie strictly within this

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
