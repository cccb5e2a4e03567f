"""Reading untrusted data (parsed YAML or JSON) by shape: a list or a mapping, else an empty one.

May import: the standard library only.
"""

from __future__ import annotations

from typing import Any


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a list, else an empty list."""
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict[Any, Any]:
    """``value`` when it is a mapping, else an empty mapping."""
    return value if isinstance(value, dict) else {}
