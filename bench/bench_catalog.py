"""The catalog page at 10,000 and 100,000 items in headless Chromium: first render and each keystroke.

The bundled registry's site is built once (about 3 s); for each size its root index is widened to
N entries (``catalog_index.py``: renamed copies of the real ones, checked against the index
schema), and the catalog file made from it as the builder does (checked against its schema), in a
copy of the site, served on loopback.  With ``--before REV`` each size also gets a copy whose
page scripts (site/assets/*.js) are those of the git revision REV, so that the page before a change
and after it are measured in the same run.  Each run opens the catalog in a fresh browser context
(an empty cache) and types the queries key by key, waiting for each key's result to be painted;
sites are interleaved (10k, 100k, 10k, 100k, ..., each before then now) and every figure is the
median of the runs.  Times are the page's own clock (``catalog_probe.js``):

  first render   navigation start to the end of the frame painting the first cards and the count
  file requested when the page asked for the file it loads, and
  file fetched   when the response of the file the page loads (api/v1/catalog.json, or the root
                 api/v1/index.json for a page from before it) had arrived (resource timing)
  JSON.parse     the floors: parsing the same text of each file in the same page
  a key          its keydown's time stamp to the end of the frame that paints its result; typed
                 the moment the cards are painted, and once more in another fresh context, a
                 second after (a person reads the page before typing: the idle page has
                 finished its search records by then)
  scan floor     one bare indexOf of a word over every entry's lower-cased text, in the same page

Nothing asserts a time; the targets (the performance issue's) are printed beside the figures.

    .venv/bin/python bench/bench_catalog.py --items 10000,100000 --repeat 3 [--before REV]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from catalog_index import widen_index, widened_catalog

from prereq.index.builder import dump_json
from prereq.marketplace.build import build

REPO = Path(__file__).resolve().parents[1]
PROBE = Path(__file__).resolve().parent / "catalog_probe.js"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
QUERIES = ["mnist", "image classification", "mnsit"]  # a name, two words, a typo
CLEAR = "(clear)"  # the key that empties the box again: every item comes back
FIRST_RENDER_TARGET_MS = 1500
KEY_TARGET_MS = 100
FLOOR_REPEAT = 5
PACED_WAIT_MS = 1000  # before the paced first key
WIDTH = 42  # of the printed table's first column


ROOT_FILE = "api/v1/index.json"
CATALOG_FILE = "api/v1/catalog.json"


@dataclass
class Run:
    """One page load of one site: milliseconds from the page's clock."""

    first_render: float
    index_requested: float  # the file the page loaded: asked for
    index_fetched: float  # and arrived
    loaded: str  # which one: ROOT_FILE or CATALOG_FILE
    parse_floor: float  # of the root index
    catalog_parse_floor: float
    scan_floor: float
    index_bytes: int
    catalog_bytes: int
    keys: dict[str, float] = field(default_factory=dict)  # "mnist: mn" -> key to painted result
    results: dict[str, str] = field(default_factory=dict)  # query -> what its last key showed
    long_tasks_typing: int = 0
    longest_task_typing: float = 0.0
    paced_first_key: float = 0.0  # the first key typed a second after the first render


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    # As a site's static host serves: connections kept open (HTTP/1.0, the default, opens one per
    # file) and no Nagle delay (kept open without it, each file of a page waits on delayed ACKs).
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:
        pass


class _Link:
    """One link of ``rate`` bytes a second that every connection of a server shares (its bandwidth;
    no latency): a file leaves in 16 KiB pieces, each when the link has carried the ones before."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.free_at = 0.0
        self.lock = threading.Lock()

    def carry(self, size: int) -> None:
        with self.lock:
            self.free_at = max(time.monotonic(), self.free_at) + size / self.rate
            done = self.free_at
        time.sleep(max(0.0, done - time.monotonic()))


class _LinkedHandler(_QuietHandler):
    link: _Link

    def copyfile(self, source: Any, outputfile: Any) -> None:
        while chunk := source.read(16 * 1024):
            self.link.carry(len(chunk))
            outputfile.write(chunk)


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a context closed while the page still loaded something resets its connection


@contextmanager
def serving(folder: Path, *, link_mbit: float | None = None) -> Iterator[str]:
    """``folder`` on loopback; ``link_mbit``: through one link of that many Mbit/s."""
    handler: Any = _QuietHandler
    if link_mbit is not None:
        handler = type("_Handler", (_LinkedHandler,), {"link": _Link(link_mbit * 1e6 / 8)})
    handler = functools.partial(handler, directory=str(folder))
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def make_sites(work: Path, sizes: list[int], before: str | None) -> list[str]:
    """work/N/: the bundled registry's site with a root index (and catalog file) of N entries, for each
    size, and work/N-before/ with REV's page scripts; returns the sites' names, in the order run."""
    built = build(REPO / "registry", work / "built")
    if not built.built:
        raise SystemExit(f"the bundled registry did not build: {built.problems}")
    root = json.loads((built.out / ROOT_FILE).read_text(encoding="utf-8"))
    names = []
    for size in sizes:
        site = work / str(size)
        shutil.copytree(built.out, site)
        wide = widen_index(root, size)
        (site / ROOT_FILE).write_text(dump_json(wide), encoding="utf-8")
        (site / CATALOG_FILE).write_text(dump_json(widened_catalog(wide)), encoding="utf-8")
        if before:
            shutil.copytree(site, work / f"{size}-before")
            _use_scripts_of(before, work / f"{size}-before")
            names.append(f"{size}-before")
        names.append(str(size))
    return names


def _use_scripts_of(revision: str, site: Path) -> None:
    """Replace the site's page scripts (assets/*.js) by those of a git revision of site/assets."""
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-tree", "--name-only", revision, "site/assets/"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for path in (p for p in listed if p.endswith(".js")):
        text = subprocess.run(["git", "-C", str(REPO), "show", f"{revision}:{path}"], check=True, capture_output=True)
        (site / "assets" / Path(path).name).write_bytes(text.stdout)


def _type_query(page, query: str, typed: int) -> int:
    """Type `query` key by key into the emptied search box, each key waiting for its painted result;
    returns how many keys the probe has recorded."""
    for char in query:
        page.keyboard.type(char)
        typed += 1
        page.wait_for_function("n => window.__catalogBench.keys.length >= n", arg=typed, polling=20)
    return typed


@contextmanager
def opened_catalog(browser, site: str) -> Iterator:
    """The catalog page of ``site`` in a fresh browser context (an empty cache), once its first cards
    are painted; the context is closed after."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        context.add_init_script(path=str(PROBE))
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(site + "catalog/")
        page.wait_for_function("() => window.__catalogBench.firstPainted !== null", polling=20)
        yield page
    finally:
        context.close()


def measure(browser, site: str) -> Run:
    """Open the catalog, type every query, then measure the floors."""
    with opened_catalog(browser, site) as page:
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
            "([u, w, r]) => window.__catalogBench.floors(u, w, r)",
            [[site + ROOT_FILE, site + CATALOG_FILE], "mnist", FLOOR_REPEAT],
        )
    return _run_of(probe, floors, labels, typing_from)


def paced_first_key(browser, site: str) -> float:
    """The first key ("m", matching nearly every entry) typed PACED_WAIT_MS after the first render,
    in a fresh context: keydown to painted result."""
    with opened_catalog(browser, site) as page:
        page.locator("#prereq-q").focus()
        page.wait_for_timeout(PACED_WAIT_MS)
        _type_query(page, QUERIES[0][0], 0)
        key = page.evaluate("window.__catalogBench.keys[0]")
    return key["painted"] - key["start"]


def _run_of(probe: dict, floors: dict, labels: list[str], typing_from: float) -> Run:
    root, catalog = (next(url for url in floors["parse"] if url.endswith(file)) for file in (ROOT_FILE, CATALOG_FILE))
    run = Run(
        first_render=probe["firstPainted"],
        index_requested=floors["indexRequested"],
        index_fetched=floors["indexFetched"],
        loaded=CATALOG_FILE if floors["loaded"] == catalog else ROOT_FILE,
        parse_floor=statistics.median(floors["parse"][root]),
        catalog_parse_floor=statistics.median(floors["parse"][catalog]),
        scan_floor=statistics.median(floors["scan"]),
        index_bytes=floors["bytes"][root],
        catalog_bytes=floors["bytes"][catalog],
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


def _heading(site: str) -> str:
    size, _, before = site.partition("-")
    return f"{int(size):,}" + (" before" if before else "")


def report(sites: list[str], runs: dict[str, list[Run]]) -> None:
    """A column per site; the last one's ratio to the first (10k to 100k), or with --before the
    largest size's now to before."""
    compared = (sites[-2], sites[-1]) if len(sites) > 1 and sites[-2].endswith("-before") else (sites[0], sites[-1])

    def row(label: str, figure, unit: str = "ms", target: str = "") -> None:
        values = {site: _median(runs[site], figure) for site in sites}
        cells = "".join(
            f"{values[site]:>15,.1f}" if unit in ("×", "MB") else f"{values[site]:>15,.0f}" for site in sites
        )
        first, last = values[compared[0]], values[compared[1]]
        ratio = f"{last / first:>9.2f}×" if len(sites) > 1 and first else ""
        print(f"{label:<{WIDTH}}{cells}{ratio}   {unit} {target}".rstrip())

    ratio_heading = "   now/before" if compared[0].endswith("-before") else "   last/first"
    print(
        f"{'':<{WIDTH}}"
        + "".join(f"{_heading(site):>15}" for site in sites)
        + (ratio_heading if len(sites) > 1 else "")
    )
    row("index.json size", lambda r: r.index_bytes / 1e6, "MB")
    row("catalog.json size", lambda r: r.catalog_bytes / 1e6, "MB")
    row("first render", lambda r: r.first_render, "ms", f"[target ≤ {FIRST_RENDER_TARGET_MS:,} ms]")
    row("  the file loaded requested at", lambda r: r.index_requested)
    row("  the file loaded fetched at", lambda r: r.index_fetched)
    row("  JSON.parse floor, index.json", lambda r: r.parse_floor)
    row("  JSON.parse floor, catalog.json", lambda r: r.catalog_parse_floor)
    row("  drawn after the file arrived", lambda r: r.first_render - r.index_fetched)
    for label in runs[sites[0]][0].keys:
        row(f"key {label}", lambda r, label=label: r.keys[label], "ms")
    row("worst key", lambda r: max(r.keys.values()), "ms", f"[target ≤ {KEY_TARGET_MS} ms]")
    row(f"the first key, {PACED_WAIT_MS / 1000:g} s after the render", lambda r: r.paced_first_key, "ms")
    row("median key", lambda r: statistics.median(r.keys.values()), "ms")
    row("scan floor (indexOf, 1 word)", lambda r: r.scan_floor)
    row("worst key / scan floor", lambda r: max(r.keys.values()) / r.scan_floor, "×")
    row("long tasks while typing", lambda r: r.long_tasks_typing, "tasks")
    row("longest task while typing", lambda r: r.longest_task_typing)
    for site in sites:
        shown = runs[site][0].results
        print(
            f"{_heading(site)} (loads {runs[site][0].loaded}): "
            + "; ".join(f"{query!r} -> {text}" for query, text in shown.items() if query in QUERIES)
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", default="10000,100000", help="sizes, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="runs per site, interleaved")
    parser.add_argument("--before", metavar="REV", help="also measure the page scripts of this git revision")
    args = parser.parse_args()
    sizes = [int(size) for size in args.items.split(",")]
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sites = make_sites(work, sizes, args.before)
        runs: dict[str, list[Run]] = {site: [] for site in sites}
        with serving(work) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            for _ in range(args.repeat):
                for site in sites:
                    run = measure(browser, f"{url}{site}/")
                    run.paced_first_key = paced_first_key(browser, f"{url}{site}/")
                    runs[site].append(run)
            browser.close()
        report(sites, runs)


if __name__ == "__main__":
    main()
