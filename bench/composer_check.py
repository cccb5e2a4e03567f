"""The job composer in headless Chromium: checking an item with a require closure of N items.

For each size (2,000 and 10,000 items) a registry from ``generate.py --closures`` holds an item
``closure-N`` whose require closure is exactly N items (itself included) for each N; it is built with
``prereq build`` (the site too: the composer is its page ``composer/``), served on loopback and the
composer opened in a fresh browser context (an empty draft: the composer's empty job).  Then, for
each N, the item's box in the list is clicked three times (check, uncheck, check again: the first
check also fetches the closure's item files, the second finds them loaded), each measured with the
page's own clock (``composer_probe.js``):

  check      the click's time stamp to the end of the first frame painted after the editor's
             YAML was replaced (what the user waits for); "engine" is to the replacement itself
  settled    to the end of the first frame after the composer is ready again (list and summary drawn)
  longest    the longest task (Long Tasks API) between the click and the settled frame
  per member check / N, and its ratio to that of the smallest N ("flat" is 1.0)

and the same edits by the Python CLI, as separate processes on the same job text and the same index:
``prereq job add JOB closure-N`` and ``prereq job remove JOB closure-N`` (wall times, start-up
included), beside ``figures.py``'s floor of ``job add`` (json-loading the root index and a YAML
round trip).  Every run checks that the job then holds exactly the closure's N entries (and none
after the uncheck).  Runs are interleaved (each size, each N, then again) and figures are medians.
Nothing asserts a time: the issue's targets are printed beside them (check at N = 150 ≤ 150 ms,
per member flat from 5 to 150, no task over 50 ms).

Registries and builds are kept in --work (default: a folder in the system's temp dir), keyed by
the size, the closures and a digest of generate.py, and a build also by a digest of what the build
reads (tools/prereq, site/, mkdocs.yml, schema/): a changed engine gets a new build.

    .venv/bin/python bench/composer_check.py                       # 2,000 and 10,000 items; N 5 to 150
    .venv/bin/python bench/composer_check.py --quick               # 2,000 items; N 5 and 40
    .venv/bin/python bench/composer_check.py --profile             # a CPU profile of one check of the largest N
    .venv/bin/python bench/composer_check.py --engines worker,page # the worker beside the page's own engine
    .venv/bin/python bench/composer_check.py --link 20             # served through one 20 Mbit/s link
    .venv/bin/python bench/composer_check.py --think 0,2           # clicked at once and 2 s after the list
    .venv/bin/python bench/composer_check.py --think 2 --point 0,0.3 # and the pointer on the box 0.3 s first
    .venv/bin/python bench/composer_check.py --press 0.1           # its button held 0.1 s, timed from the press
    .venv/bin/python bench/composer_check.py --before HEAD~1       # now's scripts beside HEAD~1's
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import io
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_catalog import CHROMIUM, CHROMIUM_ARGS, serving
from cdp_profile import report_profile
from figures import JOB_FLOOR, PREREQ, PYTHON, environment, run
from generate import generate

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

REPO = Path(__file__).resolve().parents[1]
PROBE = Path(__file__).resolve().parent / "composer_probe.js"
BUILD_INPUTS = ("tools/prereq", "site", "mkdocs.yml", "schema")
SIZES, QUICK_SIZES = "2000,10000", "2000"
CLOSURES, QUICK_CLOSURES = "5,20,40,80,150", "5,40"
WORK = Path(tempfile.gettempdir()) / "prereq-composer-bench"  # registries and builds, kept between runs
CHECK_TARGET_MS, TASK_TARGET_MS, TARGET_N = 150, 50, 150
TIMEOUT_MS = 600_000  # a check of a long closure took 8 s at 2,000 items when the issue was filed


@dataclass
class Action:
    """One click on the item's box, in ms from the click."""

    check: float  # to the frame after the YAML was replaced
    engine: float  # to the YAML replaced
    settled: float  # to the frame after the composer was ready again
    longest: float  # the longest task meanwhile
    tasks: int  # long tasks meanwhile


@dataclass
class Sample:
    """One run of one N on one site."""

    n: int
    actions: dict[str, Action] = field(default_factory=dict)  # "check", "uncheck", "re-check"
    cli: dict[str, float] = field(default_factory=dict)  # "add", "remove", "floor": ms


def _digest(paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for root in paths:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            if "__pycache__" in path.parts:
                continue
            digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def built_site(work: Path, size: int, closures: list[int]) -> Path:
    """The built site of ``size`` items with ``closures``, from work/ when it is there (older builds of the
    same registry, by other code, are removed)."""
    key = f"{size}-c{'_'.join(map(str, closures))}-g{_digest([Path(__file__).parent / 'generate.py'])}"
    repo = work / f"registry-{key}"
    if not repo.exists():
        started = time.perf_counter()
        partial = work / f"registry-{key}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        generate(size, partial, closures=closures)
        partial.rename(repo)
        print(f"  (generated {size:,} items in {time.perf_counter() - started:.0f} s)", flush=True)
    out = work / f"site-{key}-b{_digest([REPO / p for p in BUILD_INPUTS])}"
    if not (out / "api" / "v1" / "index.json").is_file():
        for old in work.glob(f"site-{key}-b*"):
            shutil.rmtree(old)
        started = time.perf_counter()
        run([*PREREQ, "build", "-q", "--registry", str(repo / "registry"), "--out", str(out)], env=environment(work))
        print(f"  (built {size:,} items with the site in {time.perf_counter() - started:.0f} s)", flush=True)
    return out


def with_assets_of(revision: str, site: Path, into: Path) -> Path:
    """``into``/``site.name``: ``site`` (its folders linked, not copied) with its ``assets/`` files
    overlaid by the revision's ``site/assets/`` (the composer's own folder replaced whole, so that no
    module of now's is left beside the revision's)."""
    out = into / site.name
    out.mkdir(parents=True)
    for child in site.iterdir():
        if child.name != "assets":
            (out / child.name).symlink_to(child)
    shutil.copytree(site / "assets", out / "assets")
    shutil.rmtree(out / "assets" / "composer")
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", revision, "site/assets/"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
        for member in members:
            member.name = member.name.removeprefix("site/")
        tar.extractall(out, members=members, filter="data")
    return out


def closure_names(n: int) -> set[str]:
    return {f"closure-{n}", *(f"closure-{n}-{k:03d}" for k in range(n - 1))}


def _check_job(text: str, expected: set[str], what: str) -> None:
    """The job holds exactly ``expected`` as its prerequisites (the run measured the edit it meant to)."""
    names = {entry.get("name") for entry in (yaml.safe_load(text).get("prerequisites") or [])}
    if names != expected:
        raise SystemExit(f"{what}: the job holds {len(names)} prerequisites, not the {len(expected)} expected")


def opened_composer(
    browser: Browser, site: str, name: str, engine: str = "worker", think: float = 0.0
) -> tuple[BrowserContext, Page]:
    """A fresh context on the composer, ready, its list filtered down to ``name``'s row, ``think``
    seconds after that row showed.  ``engine`` "page": the worker's script is refused, so the page's own
    engine edits (as in the portal plugin)."""
    context = browser.new_context(viewport={"width": 1366, "height": 850})
    if engine == "page":
        context.route("**/composer/ui/engineworker.js", lambda route: route.fulfill(status=404, body=""))
    context.add_init_script(path=str(PROBE))
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(site + "composer/")
    page.wait_for_selector('#prereq-composer[data-state="ready"]')
    page.evaluate("window.__composerBench.watch()")
    page.fill("#prereq-composer-q", name)
    page.wait_for_selector(f'li[data-name="{name}"] input.prereq-composer__check')
    page.wait_for_timeout(think * 1000)
    return context, page


def click(page: Page, name: str, point: float = 0.0, press: float = 0.0) -> Action:
    """Click ``name``'s box (the pointer resting on it ``point`` seconds first; with ``press``, the button
    held so many seconds, and the figures timed from the press, not the click) and wait until the page
    has settled; the probe's figures of that click."""
    clicks = page.evaluate("window.__composerBench.actions.length") + 1
    box = page.locator(f'li[data-name="{name}"] input.prereq-composer__check')
    if point:
        box.hover()
        page.wait_for_timeout(point * 1000)
    if press:
        box.hover()
        page.mouse.down()
        page.wait_for_timeout(press * 1000)
        page.mouse.up()
    else:
        box.click()
    page.wait_for_function(
        "n => { const a = window.__composerBench.actions; return a.length >= n && a[n - 1].settled !== null"
        " && a[n - 1].yamlPainted !== null; }",
        arg=clicks,
        polling=50,
    )
    probe = page.evaluate("window.__composerBench")
    action = probe["actions"][clicks - 1]
    if press and action["pressed"] is None:
        raise SystemExit(f"the press on {name}'s box was not seen before its click")
    start = action["pressed"] if press else action["start"]
    tasks = [t for t in probe["longTasks"] if t["start"] + t["duration"] >= start and t["start"] <= action["settled"]]
    return Action(
        check=action["yamlPainted"] - start,
        engine=action["yamlSet"] - start,
        settled=action["settled"] - start,
        longest=max((t["duration"] for t in tasks), default=0.0),
        tasks=len(tasks),
    )


def measure_browser(browser: Browser, site: str, n: int, sample: Sample, run: Run) -> str:
    """Check, uncheck and check again closure-N in the composer; returns the job's text it started from."""
    name = f"closure-{n}"
    engine = run.engine
    context, page = opened_composer(browser, site, name, engine, run.think)
    try:
        before = page.evaluate("prereqComposer.text()")
        for what, expected in (("check", closure_names(n)), ("uncheck", set()), ("re-check", closure_names(n))):
            first = what == "check"
            sample.actions[what] = click(page, name, run.point if first else 0.0, run.press if first else 0.0)
            _check_job(page.evaluate("prereqComposer.text()"), expected, f"the composer's {what} of {name}")
        where = page.evaluate("prereqComposer.engine()")
        if where != engine:
            raise SystemExit(f"the composer's engine ran in the {where}, not the {engine}")
    finally:
        context.close()
    return before


def measure_cli(site: Path, n: int, text: str, work: Path, sample: Sample) -> None:
    """``prereq job add`` and ``job remove`` of closure-N on the composer's starting job, and their floor."""
    job, env = work / "cli-job.yaml", environment(work)
    job.write_text(text, encoding="utf-8")
    name = f"closure-{n}"
    sample.cli["add"] = run([*PREREQ, "job", "add", str(job), name, "--index", str(site)], env=env).wall * 1000
    _check_job(job.read_text(encoding="utf-8"), closure_names(n), f"prereq job add {name}")
    sample.cli["remove"] = run([*PREREQ, "job", "remove", str(job), name, "--index", str(site)], env=env).wall * 1000
    _check_job(job.read_text(encoding="utf-8"), set(), f"prereq job remove {name}")
    job.write_text(text, encoding="utf-8")
    sample.cli["floor"] = run([PYTHON, "-c", JOB_FLOOR, str(site), str(job)], env=env).wall * 1000


# The table's columns: heading, the figure's key in a row (figures()), its format.
COLUMNS = [
    ("check", "check", ",.0f"),
    ("engine", "engine", ",.0f"),
    ("settled", "settled", ",.0f"),
    ("longest", "longest", ",.0f"),
    ("ms/N", "per", ".1f"),
    ("×N₀", "per_ratio", ".2f"),
    ("Δms/ΔN", "marginal", ".1f"),
    ("uncheck", "uncheck", ",.0f"),
    ("longest", "uncheck_longest", ",.0f"),
    ("re-check", "recheck", ",.0f"),
    ("ms/N", "reper", ".1f"),
    ("×N₀", "reper_ratio", ".2f"),
    ("CLI add", "add", ",.0f"),
    ("CLI rm", "remove", ",.0f"),
    ("floor", "floor", ",.0f"),
    ("check/add", "vs_cli", ".2f"),
]


def figures(samples: list[Sample]) -> dict[str, float]:
    """The medians of one N's runs, by COLUMNS' keys (the ratios to N₀ are the caller's)."""

    def median(figure: Callable[[Sample], float]) -> float:
        return statistics.median(figure(sample) for sample in samples)

    n = samples[0].n
    row = {
        "check": median(lambda s: s.actions["check"].check),
        "engine": median(lambda s: s.actions["check"].engine),
        "settled": median(lambda s: s.actions["check"].settled),
        "longest": median(lambda s: s.actions["check"].longest),
        "uncheck": median(lambda s: s.actions["uncheck"].check),
        "uncheck_longest": median(lambda s: s.actions["uncheck"].longest),
        "recheck": median(lambda s: s.actions["re-check"].check),
        **{key: statistics.median(sample.cli[key] for sample in samples) for key in ("add", "remove", "floor")},
    }
    row |= {"per": row["check"] / n, "reper": row["recheck"] / n, "vs_cli": row["check"] / row["add"]}
    row["worst_task"] = max(action.longest for sample in samples for action in sample.actions.values())
    return row


@dataclass(frozen=True)
class Run:
    """One column of the comparison: a size, where the engine runs, the user's pause before the first
    click and how long of it the pointer rests on the box, how long the first check's button is held, and
    whether the site's scripts are now's or --before's."""

    size: int
    engine: str = "worker"
    think: float = 0.0
    point: float = 0.0
    press: float = 0.0
    before: bool = False

    def label(self) -> str:
        return (
            f"{self.size:,} items"
            + ("" if self.engine == "worker" else ", the page's engine")
            + (f", clicked {self.think:g} s after the list" if self.think else "")
            + (f", pointed at {self.point:g} s before" if self.point else "")
            + (f", its button held {self.press:g} s (timed from the press)" if self.press else "")
            + (", before" if self.before else "")
        )


# Runs that differ in one field, compared: (field, numerator's value, denominator's, their names).
CONTRASTS = (("engine", "worker", "page", "worker", "page's engine"), ("before", False, True, "now", "before"))


def report(results: dict[Run, dict[int, list[Sample]]], repeat: int) -> None:
    """A table per run, a row per N; then the largest size against the smallest, the runs that differ
    in one field against each other (worker / page, now / before, each pause / none), and the targets."""
    rows = {run: {n: figures(samples) for n, samples in by_n.items()} for run, by_n in results.items()}
    print(
        f"\nms, medians of {repeat} runs.  check, uncheck, re-check: the click to the frame after the YAML changed;"
        "\nengine: to the YAML replaced; settled: to the frame after the page was ready again; longest: task;"
        "\nms/N: per closure member; ×N₀: that over the smallest N's (flat: 1.00); Δms/ΔN: check's growth from the"
        "\nN above (from 0 for the first); CLI: prereq job add / remove and their floor; check/add: the browser's"
        "\ncheck over the CLI's add"
    )
    for each, by_n in rows.items():
        first, previous = by_n[min(by_n)], (0, 0.0)
        print(f"\n{each.label()}\n{'':<14}" + "".join(f"{heading:>{_width(key)}}" for heading, key, _ in COLUMNS))
        for n, row in by_n.items():
            row |= {"per_ratio": row["per"] / first["per"], "reper_ratio": row["reper"] / first["reper"]}
            row["marginal"] = (row["check"] - previous[1]) / (n - previous[0])
            previous = (n, row["check"])
            print(f"{f'  N = {n}':<14}" + "".join(f"{row[key]:>{_width(key)}{fmt}}" for _, key, fmt in COLUMNS))
    smallest = min(each.size for each in rows)
    for each in rows:
        small = dataclasses.replace(each, size=smallest)
        if each.size != smallest and small in rows:
            ratios = ", ".join(
                f"N = {n}: {row['check'] / rows[small][n]['check']:.2f}×" for n, row in rows[each].items()
            )
            print(f"\ncheck at {each.label()} / at {smallest:,}: {ratios}")
    pauses = sorted({each.think for each in rows} - {0.0})
    points = sorted({each.point for each in rows} - {0.0})
    contrasts = (
        *CONTRASTS,
        *(("think", t, 0.0, f"{t:g} s pause", "none") for t in pauses),
        *(("point", t, 0.0, f"{t:g} s pointed", "not") for t in points),
    )
    for field_name, value, other_value, name, other_name in contrasts:
        for each in rows:
            changed: dict[str, Any] = {field_name: other_value}
            other = dataclasses.replace(each, **changed)
            if getattr(each, field_name) != value or other not in rows:
                continue
            ratios = ", ".join(
                f"N = {n}: check {row['check'] / rows[other][n]['check']:.2f}×, "
                f"re-check {row['recheck'] / rows[other][n]['recheck']:.2f}×"
                for n, row in rows[each].items()
            )
            where = dataclasses.replace(each, **{field_name: getattr(Run(each.size), field_name)}).label()
            print(f"{name} / {other_name} at {where}: {ratios}")
    for each, by_n in rows.items():
        if TARGET_N in by_n:
            row = by_n[TARGET_N]
            print(
                f"targets at {each.label()}, N = {TARGET_N}: check {row['check']:,.0f} ms [≤ {CHECK_TARGET_MS} ms]; "
                f"longest task of any run {row['worst_task']:,.0f} ms [≤ {TASK_TARGET_MS} ms]"
            )


def _width(key: str) -> int:
    return 7 if key.endswith("ratio") else 10


# Where a check's time goes, by the composer's functions (each name's total time, however nested):
# the engine's edit (its plan, then its application to the text, each edit checked by loading the
# whole new text again and composing its node tree for the next splice), then the page's refresh.
PHASES = (
    "addToText",
    "removeFromText",
    "ensure",
    "planEdit",
    "transitiveRequirements",
    "entryDigest",
    "applyEdits",
    "_edit",
    "loadYamlOrNull",
    "get _root",
    "deepCopy",
    "strictEqual",
    "insertItem",
    "refresh",
    "analyse",
    "renderList",
    "renderClosure",
    "update",
    "summarise",
    "(garbage collector)",
)


def profile(browser: Browser, site: str, n: int, top: int) -> None:
    """A check and then an uncheck of closure-N, each under the Chrome DevTools Protocol's sampling
    profiler (the page's JS, 100 µs samples), summarised by function, by module and by PHASES."""
    name = f"closure-{n}"
    context, page = opened_composer(browser, site, name)
    try:
        cdp = context.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 100})
        for what in ("check", "uncheck"):
            cdp.send("Profiler.start")
            action = click(page, name)
            recorded = cdp.send("Profiler.stop")["profile"]
            print(
                f"\n{what} of {name} under the profiler: {action.check:,.0f} ms to the YAML painted, "
                f"{action.settled:,.0f} ms settled, longest task {action.longest:,.0f} ms; "
                f"the job's YAML then {len(page.evaluate('prereqComposer.text()')):,} characters"
            )
            report_profile(recorded, top=top, phases=PHASES)
    finally:
        context.close()


def _seconds(parser: argparse.ArgumentParser, option: str, text: str) -> list[float]:
    """``text``'s comma-separated seconds, each once; a usage error unless all are numbers of 0 or more."""
    try:
        seconds = list(dict.fromkeys(float(t) for t in text.split(",")))
    except ValueError:
        seconds = []
    if not seconds or min(seconds) < 0:
        parser.error(f"{option}: seconds of 0 or more, comma-separated, not {text!r}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", help=f"sizes, comma-separated (default {SIZES})")
    parser.add_argument("--closures", help=f"closure sizes N, comma-separated (default {CLOSURES})")
    parser.add_argument("--quick", action="store_true", help=f"items {QUICK_SIZES}, closures {QUICK_CLOSURES}")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each N, interleaved (medians)")
    parser.add_argument(
        "--work",
        type=Path,
        default=WORK,
        help="where registries and builds are kept between runs",
    )
    parser.add_argument("--profile", action="store_true", help="profile one check of the largest N at the first size")
    parser.add_argument("--top", type=int, default=25, help="rows of each profile table")
    parser.add_argument(
        "--engines",
        default="worker",
        help="where the composer's engine runs, comma-separated: worker (the site's page), page (its own "
        "thread, as in the portal plugin: the worker's script is refused); both: interleaved, compared",
    )
    parser.add_argument(
        "--think",
        default="0",
        metavar="SECONDS",
        help="the pause between the item's row showing and the first click (a user reading the list), "
        "comma-separated: each is a run, compared with none (default 0: at once)",
    )
    parser.add_argument(
        "--point",
        default="0",
        metavar="SECONDS",
        help="how long the pointer rests on the item's box before the first click, after --think's pause (the "
        "page may read the item's files meanwhile), comma-separated: each is a run, compared with none",
    )
    parser.add_argument(
        "--press",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="hold the first check's button so long (a tap or a click is a press some 0.1 s before it), and time "
        "that check from the press, not the click (default 0: a click, timed from it)",
    )
    parser.add_argument(
        "--before", metavar="REV", help="also run the site with the git revision REV's site/assets/ (compared)"
    )
    parser.add_argument(
        "--link", type=float, metavar="MBIT", help="serve the sites through one link of MBIT Mbit/s (no latency)"
    )
    args = parser.parse_args()
    engines = list(dict.fromkeys(args.engines.split(",")))  # a value named twice is one run, not two
    if not engines or not set(engines) <= {"worker", "page"}:
        parser.error("--engines: worker, page or worker,page")
    sizes = list(dict.fromkeys(int(s) for s in (args.items or (QUICK_SIZES if args.quick else SIZES)).split(",")))
    closures = sorted({int(n) for n in (args.closures or (QUICK_CLOSURES if args.quick else CLOSURES)).split(",")})
    thinks, points = (
        _seconds(parser, option, text) for option, text in (("--think", args.think), ("--point", args.point))
    )
    if args.before:
        found = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet", f"{args.before}^{{commit}}"],
            capture_output=True,
            text=True,
        )
        if found.returncode:
            parser.error(f"--before: {args.before!r} is not a commit of {REPO}")
    # Every size holds every N of the default list, so that --quick and a full run share their builds.
    held = sorted({*closures, *map(int, CLOSURES.split(","))})
    args.work.mkdir(parents=True, exist_ok=True)
    print(
        f"composer check: {', '.join(f'{s:,}' for s in sizes)} items; N = {', '.join(map(str, closures))}; "
        f"{args.repeat} runs each; work in {args.work}" + (f"; a {args.link:g} Mbit/s link" if args.link else ""),
        flush=True,
    )
    befores = [False, True] if args.before else [False]
    runs = [
        Run(size, engine, think, point, max(args.press, 0.0), before)
        for size in sizes
        for engine in engines
        for think in thinks
        for point in points
        for before in befores
    ]
    from playwright.sync_api import sync_playwright

    with (
        contextlib.ExitStack() as cleanup,
        serving(args.work, link_mbit=args.link) as url,
        sync_playwright() as playwright,
    ):
        sites = {(size, False): built_site(args.work, size, held) for size in sizes}
        if args.before:
            tmp = Path(cleanup.enter_context(tempfile.TemporaryDirectory(dir=args.work, prefix="before-")))
            sites |= {(size, True): with_assets_of(args.before, sites[(size, False)], tmp) for size in sizes}
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            if args.profile:
                profile(browser, f"{url}{sites[(sizes[0], False)].name}/", closures[-1], args.top)
                return 0
            results: dict[Run, dict[int, list[Sample]]] = {run: {n: [] for n in closures} for run in runs}
            for round_ in range(args.repeat):
                for run, n in ((run, n) for run in runs for n in closures):
                    sample = Sample(n)
                    site = sites[(run.size, run.before)]
                    text = measure_browser(browser, f"{url}{site.relative_to(args.work).as_posix()}/", n, sample, run)
                    measure_cli(sites[(run.size, False)], n, text, args.work, sample)
                    results[run][n].append(sample)
                    done = ", ".join(f"{what} {action.check:,.0f}" for what, action in sample.actions.items())
                    cli = ", ".join(f"{what} {ms:,.0f}" for what, ms in sample.cli.items())
                    print(f"  run {round_ + 1}: {run.label()}, N = {n}: {done} ms; CLI {cli} ms", flush=True)
        finally:
            browser.close()
    report(results, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
