"""A realistic synthetic registry for the benchmarks: every item type, require chains, callbacks,
parameters, owners and teams, and a git history of version bumps (every version stays published).

All items validate.  The shape follows the bundled registry: about a fifth storage and datasets
(data), half setup scripts, a tenth uploaders (output), a tenth docker images; each non-image item
requires up to three earlier items (chains about ten deep), a tenth define a `mountPoint`
parameter that their dependents read with `<% this.mountPoint %>`.  With ``--parameters`` every
non-image item defines two (one built from a required item's) and every command reads its own and
those of each item it requires: the registry where checks across items cost the most.  With
``--closures 5,150`` it also holds, for each size N, an item ``closure-N`` whose require closure is
exactly N items (itself included: ``closure-N-000`` ... and it), shaped like the chains above (each
requires a few of the dozen before it), in place of as many numbered items (the count stays N).

Usage: .venv/bin/python bench/generate.py N OUT [--parameters] [--closures 5,20]
       (OUT must not exist; prints what it made)
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.org",
    "GIT_CONFIG_NOSYSTEM": "1",
}
TEAMS = 20
USERS = 60
KINDS = ["data"] * 2 + ["script"] * 5 + ["output"] + ["dockerimage"]  # the bundled registry's mix


def _name(i: int) -> str:
    return f"item-{i:06d}"


def _kind(i: int) -> str:
    return KINDS[i % len(KINDS)]


def _requires(i: int, rng: random.Random) -> list[int]:
    """Up to three earlier non-image items, mostly near ones, so chains run about ten deep."""
    if i == 0 or _kind(i) == "dockerimage":
        return []
    picks = {max(0, i - rng.randint(1, 12)) for _ in range(rng.randint(0, 3))}
    return sorted(p for p in picks if _kind(p) != "dockerimage" and p < i)


def item_text(i: int, version: str, rng: random.Random, *, parameters: bool = False) -> str:
    name, kind = _name(i), _kind(i)
    lines = _head(i, name, kind, version)
    if kind == "dockerimage":
        return "\n".join([*lines, f"uri: example.org/bench/image-{i}:{version}"]) + "\n"
    requires = _requires(i, rng)
    if requires:
        lines.append("require:")
        lines += [f"  - {_name(r)}@^1.0" for r in requires]
    if parameters:
        commands = _parameter_commands(i, requires, lines)
    else:
        if i % 10 == 0:
            lines += ["parameters:", f"  mountPoint: /mnt/bench/{i}"]
        # Read from the item itself or from its only requirement: never two definitions at one distance.
        reads_mount = i % 10 == 0 or (len(requires) == 1 and requires[0] % 10 == 0)
        commands = _commands(i, name, version, "<% this.mountPoint %>" if reads_mount else "/tmp")
    return _with_callbacks(lines, kind, commands)


def _head(i: int, name: str, kind: str, version: str) -> list[str]:
    lines = [
        f"name: {name}",
        f"version: {version}",
        f"type: {kind}",
        f"title: Generated {kind} item number {i}",
        "description: |",
        f"  A generated {kind} item for the benchmarks, shaped like the bundled ones.",
        "",
        "  It exists to be validated, indexed and published at scale.",
        f"tags: [bench, {kind}, group-{i % 37}]",
        f"owners: [team-{i % TEAMS}, user-{i % USERS}]",
    ]
    if kind == "data":
        lines.append("license: CC-BY-4.0")
    return lines


def _with_callbacks(lines: list[str], kind: str, commands: list[str]) -> str:
    event = "taskSucceeds" if kind == "output" else "taskStarts"
    lines += ["plugin: com.microsoft.pai.runtimeplugin.cmd", "failurePolicy: fail", "callbacks:"]
    lines += [f"  - event: {event}", "    commands:", *(f"      - {command}" for command in commands)]
    return "\n".join(lines) + "\n"


def _commands(i: int, name: str, version: str, mount: str) -> list[str]:
    return [
        f"export ITEM_{i}_DIR={mount}/{name}",
        f'mkdir -p "$ITEM_{i}_DIR"',
        f'echo "{name} {version} ready in $ITEM_{i}_DIR"',
    ]


def _parameter_commands(i: int, requires: list[int], lines: list[str]) -> list[str]:
    """Parameters named after the item (one definition each: never ambiguous), the second built from the
    first required item's; a command per required item reading its parameter, each command reading one."""
    base = f"<% this.dir{requires[0]} %>" if requires else "/mnt/bench"
    lines += ["parameters:", f"  dir{i}: /mnt/bench/{i}", f'  data{i}: "{base}/data-{i}"']
    commands = [f"export ITEM_{i}_DIR=<% this.dir{i} %>", f'mkdir -p "<% this.data{i} %>"']
    commands += [f'ln -sfn "<% this.dir{r} %>" "$ITEM_{i}_DIR/from-{r}"' for r in requires]
    return commands


def closure_texts(size: int, first: int) -> dict[str, str]:
    """The ``size`` items of ``closure-SIZE`` (no images), numbered from ``first`` in their texts: each
    but the last is required by one of the dozen after it, so the last requires them all, and each
    also requires up to two of the dozen before it, as the numbered chains do."""
    rng = random.Random(f"closure-{size}")
    names = [f"closure-{size}-{k:03d}" for k in range(size - 1)] + [f"closure-{size}"]
    requires: list[set[int]] = [set() for _ in names]
    for k in range(size - 1):
        requires[rng.randint(k + 1, min(k + 12, size - 1))].add(k)
    for k in range(1, size):
        requires[k] |= {max(0, k - rng.randint(1, 12)) for _ in range(rng.randint(0, 2))}
    texts = {}
    for k, name in enumerate(names):
        kind = KINDS[k % (len(KINDS) - 1)]  # KINDS without its dockerimage: one image per task role
        lines = _head(first + k, name, kind, "1.0.0")
        if requires[k]:
            lines += ["require:", *(f"  - {names[r]}@^1.0" for r in sorted(requires[k]))]
        texts[name] = _with_callbacks(lines, kind, _commands(first + k, name, "1.0.0", "/tmp"))
    return texts


def _owners() -> str:
    users = [f"user-{u}" for u in range(USERS)]
    teams = {f"team-{t}": [users[(t * 3 + k) % USERS] for k in range(3)] for t in range(TEAMS)}
    return f"users: [{', '.join(users)}]\nteams:\n" + "".join(f"  {t}: [{', '.join(m)}]\n" for t, m in teams.items())


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def generate(count: int, out: Path, *, parameters: bool = False, closures: Sequence[int] = ()) -> dict[str, int]:
    """Write the registry under ``out/registry`` in three commits: every item at 1.0.0, then a tenth at
    1.1.0, then a twentieth at 1.2.0 (``parameters`` and ``closures``: see the module's docstring; the
    closures' items stay at 1.0.0).  Returns counts of what was made."""
    numbered = count - sum(closures)
    if numbered < 1:
        raise ValueError(f"{count} items cannot hold closures of {sum(closures)} items and a numbered one")
    items = out / "registry" / "prerequisites"
    items.mkdir(parents=True)
    (out / "registry" / "owners.yaml").write_text(_owners(), encoding="utf-8")
    _git(out, "init", "-q", "-b", "main")
    versions = 0
    first = numbered
    for size in closures:
        for name, text in closure_texts(size, first).items():
            (items / f"{name}.yaml").write_text(text, encoding="utf-8")
            versions += 1
        first += size
    for step, (version, every) in enumerate([("1.0.0", 1), ("1.1.0", 10), ("1.2.0", 20)], start=1):
        for i in range(0, numbered, every):
            # Seeded by the item's number: every version of an item has the same shape.
            text = item_text(i, version, random.Random(i), parameters=parameters)
            (items / f"{_name(i)}.yaml").write_text(text, encoding="utf-8")
            versions += 1
        _git(out, "add", "-A")
        date = f"2026-01-0{step}T00:00:00+00:00"
        _git(out, "-c", f"user.date={date}", "commit", "-q", "-m", f"version {version}", f"--date={date}")
    return {"items": count, "versions": versions, "commits": 3}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", type=int, help="how many items")
    parser.add_argument("out", type=Path, help="a folder to create")
    parser.add_argument("--parameters", action="store_true", help="every command reads parameters of what it requires")
    parser.add_argument("--closures", default="", help="sizes N of closure-N items, comma-separated (5,20,40)")
    args = parser.parse_args()
    if args.out.exists():
        print(f"generate: {args.out} exists; pass a new folder", file=sys.stderr)
        return 2
    started = time.perf_counter()
    closures = [int(size) for size in args.closures.split(",") if size]
    made = generate(args.count, args.out, parameters=args.parameters, closures=closures)
    print(
        f"generated {made['items']} items, {made['versions']} versions in {made['commits']} commits "
        f"under {args.out} ({time.perf_counter() - started:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
