"""Build the marketplace site for a generated registry, side by side with the index alone.

Prints the site's share of a full build, the peak memory of each step and the bytes
per item (all of the output, the item pages alone, the index alone), so a change that
makes the site grow faster than the registry shows up as a ratio.

Usage: .venv/bin/python bench/bench_site.py [--items N]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_registry import make_registry

from prereq.marketplace.build import build

PARTS = {"all": "**/*", "pages": "items/*/index.html", "index": "api/**/*"}  # what bytes per item count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    args = parser.parse_args()
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_registry(Path(tmp) / "repo", args.items)
        registry = repo.root / "registry"
        start = time.perf_counter()
        assert build(registry, Path(tmp) / "index-only", with_site=False).built
        index_time = time.perf_counter() - start
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        assert build(registry, Path(tmp) / "full").built
        full_time = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        full = Path(tmp) / "full"
        pages = sum(1 for _ in (full / "items").iterdir())
        per_item = {part: _size(full, pattern) / pages / 1024 for part, pattern in PARTS.items()}
        print(
            f"{pages} item pages: full build {full_time:.1f} s, {full_time / index_time:.2f}x the index-only "
            f"build; the site adds {(full_time - index_time) / pages * 1000:.1f} ms a page; "
            f"peak memory {peak / 1024:.0f} MB ({max(peak - before, 0) / 1024:.0f} MB more than the index); "
            f"{per_item['all']:.1f} KB per item (item pages {per_item['pages']:.1f} KB, "
            f"index {per_item['index']:.1f} KB)"
        )


def _size(folder: Path, pattern: str = "**/*") -> int:
    return sum(path.stat().st_size for path in folder.glob(pattern) if path.is_file())


if __name__ == "__main__":
    main()
