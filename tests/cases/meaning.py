"""What a job text means to the programs that load it: the data, as JSON, in a case's meaning files.

OpenPAI's runtime loads a job with PyYAML's ``yaml.safe_load`` and its rest-server with js-yaml
3.13.1's ``safeLoad``.  Beside each job text a step yields (``step-N.yaml``, or ``job.yaml`` when a
step leaves the text as it was) a case holds ``step-N.json`` (``job.json``): the data both loaders
must load from it.  This module is the PyYAML side; tests/js/corpus_meaning.test.js is js-yaml's.

The data is written as JSON, except a timestamp, which both loaders read as an instant (PyYAML a
``date`` or ``datetime``, js-yaml a ``Date``): ``{"!!timestamp": "2020-01-04T00:00:00.000Z"}``, in
UTC to the millisecond as JavaScript's ``Date.toISOString`` writes it.  What JSON cannot hold alike
for both (a key that is not a string, a set, binary, NaN, an infinity) is refused: the two loaders
disagree on it, so no expected job text should hold it.
"""

from __future__ import annotations

import datetime
import json
import math
from typing import Any

import yaml

TIMESTAMP = "!!timestamp"


class MeaningError(Exception):
    """A text whose data the meaning files cannot hold alike for both loaders."""


def _where(path: tuple[Any, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".") or "the top"


def _instant(value: datetime.date) -> str:
    if not isinstance(value, datetime.datetime):  # a date is its midnight, in UTC as js-yaml reads it
        value = datetime.datetime(value.year, value.month, value.day)
    if value.tzinfo is None:  # js-yaml reads a timestamp without a zone as UTC
        value = value.replace(tzinfo=datetime.timezone.utc)
    value = value.astimezone(datetime.timezone.utc)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def as_json(data: Any, path: tuple[Any, ...] = ()) -> Any:
    """``data`` as PyYAML loaded it, in the meaning files' JSON form."""
    if isinstance(data, datetime.date):
        return {TIMESTAMP: _instant(data)}
    if data is None or isinstance(data, str | bool | int) or (isinstance(data, float) and math.isfinite(data)):
        return data
    if isinstance(data, list):
        return [as_json(value, path + (position,)) for position, value in enumerate(data)]
    if isinstance(data, dict):
        for key in data:
            if not isinstance(key, str):
                raise MeaningError(f"{_where(path)}: the key {key!r} is not a string (js-yaml makes it '{key}')")
        return {key: as_json(value, path + (key,)) for key, value in data.items()}
    raise MeaningError(f"{_where(path)}: {data!r} is not data the meaning files hold alike for both loaders")


def meaning(text: str) -> Any:
    """What PyYAML's ``safe_load`` (OpenPAI's runtime) loads from ``text``, as JSON data."""
    try:
        return as_json(yaml.safe_load(text))
    except yaml.YAMLError as exc:
        raise MeaningError(f"PyYAML cannot load it: {exc}") from exc


def dump(data: Any) -> str:
    """A meaning file's text (what regen.py writes; a hand-written file may lay it out otherwise)."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def same(data: Any, other: Any) -> bool:
    """Whether two JSON values are equal, key order and number types included (Python's ``==`` takes
    ``True == 1 == 1.0``)."""
    return json.dumps(data, ensure_ascii=False) == json.dumps(other, ensure_ascii=False)
