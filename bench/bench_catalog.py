"""The catalog page at 10,000 and 100,000 items in headless Chromium: first render and each keystroke.

The bundled registry's site is built once (about 3 s); for each size its root index is widened to
N entries (``catalog_index.py``: renamed copies of the real ones, checked against the index
schema) in a copy of the site, served on loopback.  Each run opens the catalog in a fresh browser
context (an empty cache) and types the queries key by key, waiting for each key's result to be
painted; sizes are interleaved (10k, 100k, 10k, 100k, ...) and every figure is the median of the
runs.  Times are the page's own clock (``catalog_probe.js``):

  first render   navigation start to the end of the frame painting the first cards and the count
  index fetched  when the response of api/v1/index.json had arrived (resource timing)
  JSON.parse     the floor: parsing the same index text in the same page
  a key          its keydown's time stamp to the end of the frame that paints its result
  scan floor     one bare indexOf of a word over every entry's lower-cased text, in the same page

Nothing asserts a time; the targets (the performance issue's) are printed beside the figures.

    .venv/bin/python bench/bench_catalog.py --items 10000,100000 --repeat 3
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import shutil
import statistics
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from catalog_index import widen_index

from prereq.index.builder import dump_json
from prereq.marketplace.publish import build

REPO = Path(__file__).resolve().parents[1]
PROBE = Path(__file__).resolve().parent / "catalog_probe.js"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
QUERIES = ["mnist", "image classification", "mnsit"]  # a name, two words, a typo
CLEAR = "(clear)"  # the key that empties the box again: every item comes back
FIRST_RENDER_TARGET_MS = 1500
KEY_TARGET_MS = 100
FLOOR_REPEAT = 5
WIDTH = 42  # of the printed table's first column


@dataclass
class Run:
    """One page load at one size: milliseconds from the page's clock."""

    first_render: float
    index_fetched: float
    parse_floor: float
    scan_floor: float
    index_bytes: int
    keys: dict[str, float] = field(default_factory=dict)  # "mnist: mn" -> key to painted result
    results: dict[str, str] = field(default_factory=dict)  # query -> what its last key showed
    long_tasks_typing: int = 0
    longest_task_typing: float = 0.0


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a context closed while the page still loaded something resets its connection


@contextmanager
def serving(folder: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def make_sites(work: Path, sizes: list[int]) -> None:
    """work/N/: the bundled registry's site with a root index of N entries, for each size."""
    built = build(REPO / "registry", work / "built")
    if not built.built:
        raise SystemExit(f"the bundled registry did not build: {built.problems}")
    root = json.loads((built.out / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    for size in sizes:
        site = work / str(size)
        shutil.copytree(built.out, site)
        (site / "api" / "v1" / "index.json").write_text(dump_json(widen_index(root, size)), encoding="utf-8")


def _type_query(page, query: str, typed: int) -> int:
    """Type `query` key by key into the emptied search box, each key waiting for its painted result;
    returns how many keys the probe has recorded."""
    for char in query:
        page.keyboard.type(char)
        typed += 1
        page.wait_for_function("n => window.__catalogBench.keys.length >= n", arg=typed, polling=20)
    return typed


def measure(browser, site: str) -> Run:
    """Open the catalog in a fresh context, type every query, then measure the floors."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        context.add_init_script(path=str(PROBE))
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(site + "catalog/")
        page.wait_for_function("() => window.__catalogBench.firstPainted !== null", polling=20)
        typing_from = page.evaluate("performance.now()")
        page.locator("#prereq-q").focus()
        typed = 0
        labels: list[str] = []
        for query in QUERIES:
            if typed:
                page.keyboard.press("Control+A")
                page.keyboard.press("Backspace")
                typed += 1
                page.wait_for_function("n => window.__catalogBench.keys.length >= n", arg=typed, polling=20)
                labels.append(CLEAR)
            typed = _type_query(page, query, typed)
            labels += [f"{query}: “{query[: i + 1]}”" for i in range(len(query))]
        probe = page.evaluate("window.__catalogBench")
        floors = page.evaluate(
            "([u, w, r]) => window.__catalogBench.floors(u, w, r)", [site + "api/v1/index.json", "mnist", FLOOR_REPEAT]
        )
    finally:
        context.close()
    return _run_of(probe, floors, labels, typing_from)


def _run_of(probe: dict, floors: dict, labels: list[str], typing_from: float) -> Run:
    run = Run(
        first_render=probe["firstPainted"],
        index_fetched=floors["indexFetched"],
        parse_floor=statistics.median(floors["parse"]),
        scan_floor=statistics.median(floors["scan"]),
        index_bytes=floors["bytes"],
    )
    clears = 0
    for label, key in zip(labels, probe["keys"], strict=True):
        if label == CLEAR:
            clears += 1
            label = f"{CLEAR} {clears}"
        typed = label.split(": ")[-1]
        if typed in run.keys:  # "m" again, in another query
            typed = f"{typed} ({label.split(': ')[0]})"
        run.keys[typed] = key["painted"] - key["start"]
        run.results[label.split(": ")[0]] = f"{key['status']} first {key['first'] or '-'}"
    typing = [task for task in probe["longTasks"] if task["start"] >= typing_from]
    run.long_tasks_typing = len(typing)
    run.longest_task_typing = max((task["duration"] for task in typing), default=0.0)
    return run


def _median(runs: list[Run], figure) -> float:
    return statistics.median(figure(run) for run in runs)


def report(sizes: list[int], runs: dict[int, list[Run]]) -> None:
    def row(label: str, figure, unit: str = "ms", target: str = "") -> None:
        values = [_median(runs[size], figure) for size in sizes]
        cells = "".join(f"{value:>12,.1f}" if unit == "×" else f"{value:>12,.0f}" for value in values)
        ratio = f"{values[-1] / values[0]:>9.1f}×" if len(values) > 1 and values[0] else ""
        print(f"{label:<{WIDTH}}{cells}{ratio}   {unit} {target}".rstrip())

    print(f"{'':<{WIDTH}}" + "".join(f"{size:>12,}" for size in sizes) + ("   last/first" if len(sizes) > 1 else ""))
    row("index.json size", lambda r: r.index_bytes / 1e6, "MB")
    row("first render", lambda r: r.first_render, "ms", f"[target ≤ {FIRST_RENDER_TARGET_MS:,} ms]")
    row("  index fetched at", lambda r: r.index_fetched)
    row("  JSON.parse floor", lambda r: r.parse_floor)
    row("  drawn after the index arrived", lambda r: r.first_render - r.index_fetched)
    row("  that / JSON.parse floor", lambda r: (r.first_render - r.index_fetched) / r.parse_floor, "×")
    for label in runs[sizes[0]][0].keys:
        row(f"key {label}", lambda r, label=label: r.keys[label], "ms")
    row("worst key", lambda r: max(r.keys.values()), "ms", f"[target ≤ {KEY_TARGET_MS} ms]")
    row("median key", lambda r: statistics.median(r.keys.values()), "ms")
    row("scan floor (indexOf, 1 word)", lambda r: r.scan_floor)
    row("worst key / scan floor", lambda r: max(r.keys.values()) / r.scan_floor, "×")
    row("long tasks while typing", lambda r: r.long_tasks_typing, "tasks")
    row("longest task while typing", lambda r: r.longest_task_typing)
    for size in sizes:
        shown = runs[size][0].results
        print(f"{size:,}: " + "; ".join(f"{query!r} -> {text}" for query, text in shown.items() if query in QUERIES))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", default="10000,100000", help="sizes, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size, interleaved")
    args = parser.parse_args()
    sizes = [int(size) for size in args.items.split(",")]
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        make_sites(work, sizes)
        runs: dict[int, list[Run]] = {size: [] for size in sizes}
        with serving(work) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            for _ in range(args.repeat):
                for size in sizes:
                    runs[size].append(measure(browser, f"{url}{size}/"))
            browser.close()
        report(sizes, runs)


if __name__ == "__main__":
    main()
