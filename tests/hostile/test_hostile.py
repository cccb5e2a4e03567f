"""The hostile suite (issue 10): one case per class of hostile registry, job, index and output path,
each run as a user would run prereq.  Every case must end in its expected exit code (never 3), with
its rule, file and line in the output and no traceback; in time and memory within generous bounds
of a trivial run measured in this same session; having changed nothing outside the place it may
write; and a previous build it must keep, intact and readable.

A case is a folder of ``cases/`` (``hostile_harness`` says what its ``case.yaml`` holds); big
fixtures are built by ``hostile_generators``.
"""

from __future__ import annotations

import json
import os
import re
import stat
import statistics
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hostile_harness import INDEXES, Case, Run, allowed, changed, load_cases, run_prereq, set_up, snapshot

from gitrepo import item_yaml

CASES = load_cases()
WORKERS = 2  # cases played at a time (the machine has two cores, shared)
TIME_FACTOR = 20  # a case may take this many times a trivial validation, per thousand items it holds


def _bound(case: Case, baseline_seconds: float) -> float:
    """How long ``case`` may run: linear work on its items is fine, anything worse is a finding
    (a case says how many items it generates with ``items:``, default under a thousand)."""
    return TIME_FACTOR * baseline_seconds * max(1.0, case.get("items", 1000) / 1000)


EXTRA_RSS_KB = 512 * 1024  # and this much memory above it
CLASSES = {
    "data loss",
    "special files",
    "symbolic links",
    "unbounded work",
    "type confusion",
    "what reaches people",
    "messages",
}
# A problem line of `prereq validate`'s text output: FILE[:LINE:COLUMN]: RULE severity message
PROBLEM = re.compile(r"^(?P<file>.+?)(?::(?P<line>\d+):\d+)?: (?P<rule>PRQ\d{3}) (?:error|warning) ", re.M)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")  # what a terminal would obey (tab and newline are text)


def _env(work: Path) -> dict[str, str]:
    home = work / "home"
    keep = {name: os.environ[name] for name in ("PATH", "LANG", "LC_ALL", "SYSTEMROOT") if name in os.environ}
    return {**keep, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "PYTHONDONTWRITEBYTECODE": "1"}


class _Drip(BaseHTTPRequestHandler):
    """An index server that sends one byte every 0.2 s, for a minute."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        try:
            for _ in range(300):
                self.wfile.write(b" ")
                self.wfile.flush()
                threading.Event().wait(0.2)
        except OSError:
            pass  # the client gave up, as it should

    def log_message(self, *args: object) -> None:
        pass


@dataclass
class Played:
    """What one case did: its run, and its work folder before and after."""

    work: Path
    run: Run | None = None
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    failure: Exception | None = None  # in setting the case up or running it


def _trivial_registry(work: Path) -> Path:
    (work / "registry" / "prerequisites").mkdir(parents=True)
    (work / "registry" / "owners.yaml").write_text("users: [alice]\n")
    (work / "registry" / "prerequisites" / "ok.yaml").write_text(item_yaml("ok", "1.0.0"))
    return work


def _baseline(work: Path) -> Run:
    """The trivial registry, validated."""
    run = run_prereq(["validate", "registry"], cwd=work, env=_env(work), timeout=120)
    assert run.code == 0, run
    return run


def _play(case: Case, work: Path, bound: float, fill: dict[str, str]) -> Played:
    """Set the case up, run it, and note what changed; a failure on the way is the case's own."""
    played = Played(work)
    try:
        work.mkdir()
        set_up(case, work)
        played.before = snapshot(work)
        fill = {**fill, "work": str(work)}
        fill.update({name: text * times for name, (text, times) in (case.get("repeat") or {}).items()})
        argv = [str(arg).format(**fill) for arg in case["argv"]]
        options = {key: case.get(key) for key in ("patch", "umask", "tty")}
        cwd = work / case.get("cwd", ".")
        played.run = run_prereq(argv, cwd=cwd, env=_env(work), timeout=3 * bound + 10, **options)
        played.after = snapshot(work)
    except Exception as exc:
        played.failure = exc
    return played


@pytest.fixture(scope="session")
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, dict[str, Played]]:
    """Every selected case played, WORKERS at a time, and the baseline measured the same way: the
    median time and the largest memory of a few trivial runs among them."""
    names = {
        item.callspec.params["case"].name
        for item in request.session.items
        if item.name.startswith("test_hostile_case[")
    }
    cases = [case for case in CASES if case.name in names]
    root = tmp_path_factory.mktemp("hostile")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Drip)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    fill = {"indexes": str(INDEXES), "drip": f"http://127.0.0.1:{server.server_port}"}
    try:
        with ThreadPoolExecutor(WORKERS) as pool:
            runs = list(pool.map(_baseline, [_trivial_registry(root / "baseline")] * WORKERS * 2))
            baseline = Run(0, "", "", statistics.median(r.seconds for r in runs), max(r.peak_rss_kb for r in runs))
            futures = {
                case.name: pool.submit(_play, case, root / case.name, _bound(case, baseline.seconds), fill)
                for case in cases
            }
            return baseline, {name: future.result() for name, future in futures.items()}
    finally:
        server.shutdown()
        server.server_close()


def test_every_class_of_the_issue_has_cases() -> None:
    assert {case["class"] for case in CASES} == CLASSES
    for case in CASES:
        assert case["exit"] != 3, case.name
        assert case.get("what") and "argv" in case.spec, case.name


def test_the_rule_reference_lists_every_limit_and_a_case_crosses_each() -> None:
    from prereq.registry.limits import limits
    from prereq.registry.rules import rule_reference_markdown
    from prereq.review.rules import ALL_RULES

    reference = rule_reference_markdown(ALL_RULES)
    expected = {p["rule"] for case in CASES for p in case.get("problems") or []}
    for limit in limits():
        assert f"| {limit.what} | {limit.value:,} {limit.unit} |" in reference, limit
        assert not limit.rule or limit.rule in expected, f"no hostile case crosses {limit.what} ({limit.rule})"


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_hostile_case(case: Case, played: tuple[Run, dict[str, Played]]) -> None:
    baseline, outcomes = played
    outcome = outcomes[case.name]
    if outcome.failure is not None:
        raise outcome.failure
    run = outcome.run
    assert run is not None
    shown = f"\n--- stdout\n{run.stdout[-3000:]}\n--- stderr\n{run.stderr[-3000:]}"

    assert not run.hung, f"killed after {run.seconds:.1f} s" + shown
    assert "Traceback" not in run.stdout + run.stderr and "internal error" not in run.stderr, shown
    assert run.code == case["exit"], shown
    bound = _bound(case, baseline.seconds)
    assert run.seconds <= bound, (
        f"{run.seconds:.2f} s, more than {bound:.2f} s (baseline {baseline.seconds:.2f} s)" + shown
    )
    extra = run.peak_rss_kb - baseline.peak_rss_kb
    assert extra <= EXTRA_RSS_KB, f"{extra // 1024} MB more than a trivial run"
    _check_output(case, run, shown)
    _check_files(case, outcome)


def _check_output(case: Case, run: Run, shown: str) -> None:
    printed = run.stdout + run.stderr
    if case.get("tty"):
        printed = printed.replace("\r\n", "\n")  # the terminal's own line ends
    assert not CONTROL.search(printed), "a control character reached the output: " + repr(CONTROL.findall(printed))
    if "problems" in case.spec:
        expected = {(p["rule"], p["file"], p.get("line")) for p in case["problems"]}
        files = {p["file"] for p in case["problems"]}
        found = {
            (m["rule"], _registry_relative(m["file"], files), int(m["line"]) if m["line"] else None)
            for m in PROBLEM.finditer(run.stdout)
        }
        assert found == expected, shown
    for text in case.get("stdout") or []:
        assert text in run.stdout, f"{text!r} not in stdout" + shown
    for text in case.get("stderr") or []:
        assert text in run.stderr, f"{text!r} not in stderr" + shown
    for text in case.get("absent") or []:
        assert text not in printed, f"{text!r} was printed" + shown


def _registry_relative(shown: str, expected: set[str]) -> str:
    """The case gives files relative to the registry; prereq may show them from where it runs."""
    return next((file for file in expected if shown == file or shown.endswith("/" + file)), shown)


# Validation keeps what it read in .prereq-cache/ at the work tree's root (README, "validation's cache"):
# the one place every command may write besides its own.
VALIDATION_CACHE = "*.prereq-cache*"


def _check_files(case: Case, outcome: Played) -> None:
    work, before, after = outcome.work, outcome.before, outcome.after
    places = [*(case.get("changes") or []), VALIDATION_CACHE]
    unexpected = [rel for rel in changed(before, after) if not allowed(rel, places)]
    assert unexpected == [], "changed outside the expected place"
    for rel in case.get("created") or []:
        assert (work / rel).exists(), rel
    for rel in case.get("gone") or []:
        assert not (work / rel).exists(), rel
    for rel, mode in (case.get("modes") or {}).items():
        assert oct(stat.S_IMODE((work / rel).stat().st_mode)) == oct(int(str(mode), 8)), rel
    if case.get("intact"):
        build = work / case["intact"]
        assert (build / ".prereq-build").is_file()
        json.loads((build / "api" / "v1" / "index.json").read_text(encoding="utf-8"))  # still readable
        assert all(before[rel] == after.get(rel) for rel in before if rel.startswith(case["intact"] + "/"))
