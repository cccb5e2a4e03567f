"""Every figure of the performance issue, measured side by side with its floor in one run.

Each figure is a ratio of two commands run as separate processes, interleaved (A B A B …) and
taken as medians, so the shared machine's noise hits both sides alike.  Registries come from
``bench/generate.py`` (all valid, with a git history of bumps).  Nothing here asserts a time.
Every process may keep its bytecode (in the work folder, ``PYTHONPYCACHEPREFIX``), as an installed
prereq and PyYAML have theirs: a machine set to compile every module on every start
(``PYTHONDONTWRITEBYTECODE``) would measure that instead.  Validation's cache folder is chosen per
figure (``PREREQ_CACHE``); the build runs without one, so its figures stay those of a first build.

    .venv/bin/python bench/figures.py                       # sizes 1,000 and 10,000
    .venv/bin/python bench/figures.py --small 1000 --large 10000 --huge 100000 --repeat 3
    .venv/bin/python bench/figures.py --only validation     # the validation figures alone
    .venv/bin/python bench/figures.py --only restored       # validation as CI runs it, warm

Figures (target in brackets, from the issue):
  validate  wall and CPU vs parsing the same files with CSafeLoader in one process   [≤ 1.5×]
            beside ShellCheck alone on the scripts validation gives it (its floor when cold)
            cold (an empty cache folder) and warm (the cache a cold run left)
  validate  warm in a fresh environment with the restored cache (``restored.py``), also on a
            registry whose every command reads parameters of what its item requires  [≤ 1.5×]
  validate  large / small, and huge / large with --huge                            [≤ 11× for 10×]
  build     large / small                                                          [≤ 11×]
  build     peak memory at the large size                                          [≤ 1 GB]
  site      bytes per item at each size                                            [≤ 20 KB]
  job add   5 items on the large index vs json-loading its root + a YAML round trip [≤ 3×]
  index     root api/v1/index.json gzipped, bytes per item                         [≤ 100 B]
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate
from restored import fresh_environment, restore, restored_command

PYTHON = sys.executable
PREREQ = [PYTHON, "-c", "import sys; from prereq.cli import main; sys.exit(main(sys.argv[1:]))"]

# The floor of validation: read every item file and parse it with libyaml, in one process.
PARSE_FLOOR = """
import sys, yaml
from pathlib import Path
for path in sorted(Path(sys.argv[1]).glob("prerequisites/*.yaml")):
    yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
"""
# What a cold validation cannot take less than while it lints the commands (PRQ173): ShellCheck alone on
# the scripts validation gives it, run as validation runs it (files, both cores), and nothing else.
SHELLCHECK_FLOOR = """
import json, sys
from prereq.openpai import shelllint
shelllint.lint_scripts(json.loads(open(sys.argv[1], encoding="utf-8").read()))
"""
# The floor of `job add`: json-load the same root index and round-trip the same job with PyYAML.
JOB_FLOOR = """
import json, sys, yaml
from pathlib import Path
json.loads(Path(sys.argv[1], "api", "v1", "index.json").read_text())
yaml.safe_dump(yaml.safe_load(Path(sys.argv[2]).read_text()))
"""
JOB = """\
protocolVersion: 2
name: bench
type: job
taskRoles:
  train:
    instances: 1
    dockerImage: image
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands:
      - python train.py
prerequisites:
  - name: image
    type: dockerimage
    uri: ubuntu:22.04
"""


@dataclass
class Run:
    wall: float
    cpu: float
    peak_rss: int  # bytes


def run(command: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> Run:
    """One process: wall time, CPU time and peak resident memory (os.wait4's own accounting)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command[-3:])} failed ({process.returncode}):\n{err.decode()[-2000:]}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)


def _median(side: list[Run]) -> Run:
    return Run(
        statistics.median(r.wall for r in side), statistics.median(r.cpu for r in side), max(r.peak_rss for r in side)
    )


def environment(work: Path, **extra: str) -> dict[str, str]:
    """The environment of every measured process: bytecode kept in ``work`` (see the docstring)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(work / "pycache"), **extra}


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _registry(work: Path, count: int, *, parameters: bool = False) -> Path:
    repo = work / f"registry-{count}{'-parameters' * parameters}"
    if not repo.exists():
        started = time.perf_counter()
        generate(count, repo, parameters=parameters)
        print(f"  (generated {count:,} items in {time.perf_counter() - started:.0f} s)", flush=True)
    return repo / "registry"


def _lint_texts(registry: Path, out: Path) -> int:
    """The scripts validation gives ShellCheck for ``registry``, as JSON in ``out``; how many."""
    from prereq.registry.checks import commands
    from prereq.registry.checks.context import make_context
    from prereq.registry.loader import load_registry

    loaded = load_registry(registry)
    texts = sorted(set(commands.lint_texts(loaded, make_context(loaded))))
    out.write_text(json.dumps(texts), encoding="utf-8")
    return len(texts)


def validation_figures(registries: dict[int, Path], *, repeat: int, work: Path) -> list[str]:
    """Per size: the parse floor, ShellCheck alone on the scripts validation gives it, a cold validation
    (an empty cache folder each time) and a warm one (the folder the cold run just filled), interleaved;
    then how the cold wall grows with the size."""
    lines, walls = [], {}
    cache = work / "validation-cache"
    for n, registry in registries.items():
        scripts = work / f"scripts-{n}.json"
        count = _lint_texts(registry, scripts)
        sides = {
            "floor": [PYTHON, "-c", PARSE_FLOOR, str(registry)],
            "shellcheck": [PYTHON, "-c", SHELLCHECK_FLOOR, str(scripts)],
            "ours": [*PREREQ, "validate", str(registry)],
        }
        env = environment(work, PREREQ_CACHE=str(cache))
        for command in sides.values():  # a first run of each leaves the bytecode both sides then read
            run(command, env=env)
        runs: dict[str, list[Run]] = {"floor": [], "shellcheck": [], "cold": [], "warm": []}
        for _ in range(repeat):
            runs["floor"].append(run(sides["floor"], env=env))
            runs["shellcheck"].append(run(sides["shellcheck"], env=env))
            shutil.rmtree(cache, ignore_errors=True)
            runs["cold"].append(run(sides["ours"], env=env))
            runs["warm"].append(run(sides["ours"], env=env))
        floor = _median(runs["floor"])
        walls[n] = _median(runs["cold"]).wall
        linting = _median(runs["shellcheck"])
        lines.append(
            f"ShellCheck alone on the {count:,} scripts of {n:,} items, as validation runs it: {linting.wall:.1f} s "
            f"wall, {linting.wall / floor.wall:.1f}× the parse floor (CPU {linting.cpu / floor.cpu:.1f}×): "
            "the least a cold validation takes"
        )
        print(lines[-1], flush=True)
        for kind in ("cold", "warm"):
            ours = _median(runs[kind])
            lines.append(
                f"validate {n:,} {kind}: {ours.wall:.1f} s wall, {ours.wall / floor.wall:.1f}× the parse floor "
                f"({floor.wall:.2f} s; CPU {ours.cpu / floor.cpu:.1f}×), peak {ours.peak_rss / 2**20:,.0f} MB"
                "   [target ≤ 1.5×]"
            )
            print(lines[-1], flush=True)
    for a, b in itertools.pairwise(sorted(walls)):
        lines.append(f"validate {b:,} / {a:,} cold: {walls[b] / walls[a]:.1f}×   [target ≤ {1.1 * b / a:.0f}×]")
        print(lines[-1], flush=True)
    return lines


def restored_figures(sizes: list[int], *, repeat: int, work: Path) -> list[str]:
    """Per size and registry (the usual one, and one whose commands read parameters of what they
    require): the parse floor and a warm validation in a fresh environment with the cache another
    environment's cold run left, restored before each run (``restored.py``), interleaved."""
    lines = []
    first, second = (fresh_environment(work / name) for name in ("env-saving", "env-restoring"))
    for n, parameters in itertools.product(sizes, (False, True)):
        registry = _registry(work, n, parameters=parameters)
        saved, restored = work / "cache-saved", work / "cache-restored"
        shutil.rmtree(saved, ignore_errors=True)
        run(restored_command(first, registry), env=environment(work, PREREQ_CACHE=str(saved)))
        floor_command = [PYTHON, "-c", PARSE_FLOOR, str(registry)]
        env = environment(work, PREREQ_CACHE=str(restored))
        run(floor_command, env=env)
        floors, warms = [], []
        for _ in range(repeat):
            floors.append(run(floor_command, env=env))
            restore(saved, restored)
            warms.append(run(restored_command(second, registry), env=env))
        floor, warm = _median(floors), _median(warms)
        kind = "every command reading parameters of what it requires" if parameters else "the usual registry"
        lines.append(
            f"validate {n:,} warm in a fresh environment with the restored cache ({kind}): {warm.wall:.2f} s wall, "
            f"{warm.wall / floor.wall:.2f}× the parse floor ({floor.wall:.2f} s; CPU {warm.cpu / floor.cpu:.2f}×), "
            f"peak {warm.peak_rss / 2**20:,.0f} MB   [target ≤ 1.5×]"
        )
        print(lines[-1], flush=True)
    return lines


def build_figures(registries: dict[int, Path], *, small: int, large: int, work: Path) -> list[str]:
    lines, builds = [], {}
    for n in (small, large):
        out = work / f"site-{n}"
        command = [*PREREQ, "build", "-q", "--registry", str(registries[n]), "--out", str(out)]
        builds[n] = run(command, env=environment(work, PREREQ_CACHE="off"))
        root = (out / "api" / "v1" / "index.json").read_bytes()
        lines.append(
            f"build {n:,}: {builds[n].wall:.0f} s, peak {builds[n].peak_rss / 2**20:,.0f} MB, "
            f"site {_size(out) / n / 1024:,.0f} KB per item [≤ 20 KB], root index "
            f"{len(gzip.compress(root)) / n:.0f} B gzipped per item [≤ 100 B]"
        )
        print(lines[-1], flush=True)
    lines.append(
        f"build {large:,} / {small:,}: {builds[large].wall / builds[small].wall:.1f}×   "
        f"[target ≤ {1.1 * large / small:.0f}×]; peak at {large:,}: {builds[large].peak_rss / 2**30:.2f} GB [≤ 1 GB]"
    )
    print(lines[-1], flush=True)
    return lines


def job_figure(index: Path, *, items: int, repeat: int, work: Path) -> str:
    job = work / "job.yaml"
    names = [f"item-{i:06d}" for i in range(items - 5 * 9, items, 9)][:5]  # late in the chains: big closures
    add_times, floor_times = [], []
    for _ in range(repeat):
        job.write_text(JOB, encoding="utf-8")
        env = environment(work)
        add_times.append(run([*PREREQ, "job", "add", str(job), *names, "--index", str(index)], env=env).wall)
        floor_times.append(run([PYTHON, "-c", JOB_FLOOR, str(index), str(job)], env=env).wall)
    add, floor = statistics.median(add_times), statistics.median(floor_times)
    line = f"job add of 5 items on the {items:,} index: {add:.1f} s, {add / floor:.1f}× the floor   [target ≤ 3×]"
    print(line, flush=True)
    return line


FIGURES = ("validation", "restored", "build", "job")


def figures(*, small: int, large: int, huge: int | None, repeat: int, work: Path, only: str | None) -> list[str]:
    registries = {n: _registry(work, n) for n in (small, large, *([huge] if huge else []))}
    lines = validation_figures(registries, repeat=repeat, work=work) if only in (None, "validation") else []
    if only in (None, "restored"):
        lines += restored_figures(list(registries), repeat=repeat, work=work)
    if only in (None, "build", "job"):  # job add reads the large build's index
        lines += build_figures(registries, small=small, large=large, work=work)
    if only in (None, "job"):
        lines.append(job_figure(work / f"site-{large}", items=large, repeat=repeat, work=work))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=10000)
    parser.add_argument("--huge", type=int, help="also validate this many items (100000 for the issue's figure)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side, interleaved (medians)")
    parser.add_argument("--work", type=Path, help="keep generated registries and builds here (default: a temp dir)")
    parser.add_argument("--only", choices=FIGURES, help="only these figures (job: the build's too, it reads its index)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="prereq-bench-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        print(
            f"prereq figures: {args.small:,} / {args.large:,}{f' / {args.huge:,}' if args.huge else ''} items, "
            f"{args.repeat} interleaved runs, {os.cpu_count()} CPUs",
            flush=True,
        )
        figures(small=args.small, large=args.large, huge=args.huge, repeat=args.repeat, work=work, only=args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
