"""The composer page's start in headless Chromium, with the page scripts of now and of a git revision.

The 2,000- and 10,000-item sites of ``composer_check.py`` (the same registries and builds, kept in
--work) are served on loopback, each twice: as built, and with its ``assets/`` folder's own files
replaced by the revision's ``site/assets/`` (the same built pages and index; only the scripts and
styles differ, as ``bench_catalog.py --before`` does for the catalog).  Each run opens the composer
in a fresh browser context (an empty cache and no draft: the composer's empty job) and times, with
the page's own clock (``composer_start_probe.js``), from navigation start to the end of the first
frame painted after

  root index      the page asked for api/v1/index.json, and its response had arrived (resource
                  timing, not frames: the scripts' loading comes before the request)
  editor          the editor first held the starting job
  list            the prerequisites' list first held a row
  ready           the composer said it was ready (data-state, after the first analysis)

and, per run, the ready frame less the index's arrival (the page's work once its data is in).

Runs are interleaved (each round: each size, the revision's scripts then now's) and every figure is
the median of the rounds.  Nothing asserts a time.

    .venv/bin/python bench/composer_start.py --before c3b73b4 [--items 2000,10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_catalog import CHROMIUM, CHROMIUM_ARGS, serving
from composer_check import CLOSURES, SIZES, WORK, built_site, with_assets_of

if TYPE_CHECKING:
    from playwright.sync_api import Browser

REPO = Path(__file__).resolve().parents[1]
PROBE = Path(__file__).resolve().parent / "composer_start_probe.js"
FIGURES = ("requested", "index", "editor", "list", "ready", "after")
LABELS = {
    "requested": "root index requested",
    "index": "root index arrived",
    "editor": "editor holds the starting job",
    "list": "list drawn",
    "ready": "ready (data-state)",
    "after": "  ready less index arrived",
}
TIMEOUT_MS = 120_000
READ = """() => {
  const p = window.__composerStart, root = document.getElementById("prereq-composer");
  const state = root && root.getAttribute("data-state");
  if (state === "failed") return { failed: document.getElementById("prereq-composer-error").textContent };
  if (p.editor === null || p.list === null || p.ready === null) return null;
  const index = performance.getEntriesByType("resource").find((e) => e.name.endsWith("api/v1/index.json"));
  return { ...p, requested: index ? index.startTime : NaN, index: index ? index.responseEnd : NaN };
}"""


def measure(browser: Browser, url: str) -> dict[str, float]:
    """One start of the composer at ``url`` in a fresh context: FIGURES in ms, and the editor's text length."""
    context = browser.new_context(viewport={"width": 1366, "height": 850})
    try:
        context.add_init_script(path=str(PROBE))
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url + "composer/")
        found = page.wait_for_function(READ, polling=20).json_value()
    finally:
        context.close()
    if "failed" in found:
        raise SystemExit(f"the composer at {url} did not start: {found['failed']}")
    return {**{key: found[key] for key in (*FIGURES[:-1], "editorText")}, "after": found["ready"] - found["index"]}


def report(runs: dict[str, list[dict[str, float]]], columns: list[tuple[str, str]], revision: str) -> None:
    """A column per site, each size's now beside its revision's, and now/before."""
    median = {name: {key: statistics.median(r[key] for r in rows) for key in rows[0]} for name, rows in runs.items()}
    heading = "".join(f"{title:>16}" + ("     now/before" if title.endswith("now") else "") for _, title in columns)
    print(f"\nms from navigation start, medians of {len(next(iter(runs.values())))} fresh contexts; before: {revision}")
    print(f"{'':<32}{heading}")
    for key in (*FIGURES, "editorText"):
        cells = ""
        for name, title in columns:
            cells += f"{median[name][key]:>16,.0f}"
            if title.endswith("now"):
                before = median[name.removesuffix("-now") + "-before"][key]
                cells += f"{median[name][key] / before:>14.2f}×" if before else f"{'':>15}"
        print(f"{LABELS.get(key, 'editor text (characters)'):<32}{cells}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", metavar="REV", required=True, help="the git revision whose site/assets/ to compare")
    parser.add_argument("--items", default=SIZES, help=f"sizes, comma-separated (default {SIZES})")
    parser.add_argument("--repeat", type=int, default=5, help="fresh contexts per site, interleaved (medians)")
    parser.add_argument(
        "--work",
        type=Path,
        default=WORK,
        help="where composer_check.py's registries and builds are kept",
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.items.split(",")]
    args.work.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(dir=args.work, prefix="start-") as tmp:
        sites: dict[str, str] = {}
        columns: list[tuple[str, str]] = []
        for size in sizes:
            built = built_site(args.work, size, [int(n) for n in CLOSURES.split(",")])
            before = with_assets_of(args.before, built, Path(tmp) / str(size))
            sites |= {f"{size}-before": before.relative_to(args.work).as_posix(), f"{size}-now": built.name}
            columns += [(f"{size}-before", f"{size:,} before"), (f"{size}-now", f"{size:,} now")]
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in sites}
        with serving(args.work) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                for round_ in range(args.repeat):
                    for name, path in sites.items():
                        runs[name].append(measure(browser, f"{url}{path}/"))
                        shown = ", ".join(f"{key} {ms:,.0f}" for key, ms in runs[name][-1].items())
                        print(f"  run {round_ + 1}, {name}: {shown}", flush=True)
            finally:
                browser.close()
    report(runs, columns, args.before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
