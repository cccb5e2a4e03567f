"""The marketplace site: MkDocs behind one small module."""

from __future__ import annotations

from pathlib import Path
from typing import Callable


def build_site(*, index_dir: Path, registry: Path, out: Path, progress: Callable[[str], None]) -> None:
    """Build the MkDocs site into ``out`` from the index already written in ``index_dir``."""
    # The full site arrives with the marketplace issue; the index stands alone meanwhile.
    return None
