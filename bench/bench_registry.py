"""Validate and index a generated registry, measured side by side with baselines.

Prints ratios measured in one run (machines are noisy; absolute times vary):
- our strict loader (C composer + YAML 1.2 scalars + positions) vs plain
  ``yaml.safe_load`` (pure Python) and ``yaml.load(CSafeLoader)``;
- the git history pass (one ``git log`` + one cat-file process) vs one
  GitPython ``iter_commits`` call per file, the approach it replaces.

Usage: .venv/bin/python bench/bench_registry.py [--items N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import git
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from gitrepo import GitRepo, item_yaml
from prereq.core.gitrepo import Repository
from prereq.core.yamlload import load_yaml
from prereq.marketplace.build import build
from prereq.registry.validate import validate


def timed(func, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def make_registry(root: Path, count: int) -> GitRepo:
    repo = GitRepo(root)
    repo.write("registry/owners.yaml", "users: [alice]\n")
    for i in range(count):
        require = [f"item-{i - 1:05d}@^1.0"] if i % 10 else []
        params = {"mountPoint": f"/mnt/{i}"} if i % 10 == 0 else None
        repo.write(
            f"registry/prerequisites/item-{i:05d}.yaml",
            item_yaml(
                f"item-{i:05d}",
                "1.0.0",
                require=require,
                parameters=params,
                commands=["export DIR=<% this.mountPoint %>/x", "mkdir -p $DIR"],
                extra="tags: [bench, generated]\ndescription: |\n  A generated item.\n\n  More text.\n",
            ),
        )
    repo.commit("items")
    return repo


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_registry(Path(tmp) / "repo", args.items)
        files = sorted((repo.root / "registry" / "prerequisites").glob("*.yaml"))
        texts = [f.read_bytes() for f in files]

        ours = timed(lambda: [load_yaml(t) for t in texts])
        pure = timed(lambda: [yaml.safe_load(t) for t in texts])
        c_only = timed(lambda: [yaml.load(t, Loader=yaml.CSafeLoader) for t in texts])
        print(
            f"load {len(texts)} items: strict loader {len(texts) / ours:,.0f}/s; "
            f"{pure / ours:.2f}x faster than yaml.safe_load, {ours / c_only:.2f}x the time of bare CSafeLoader"
        )

        registry = repo.root / "registry"
        validation = timed(lambda: validate(registry), repeat=1)
        print(f"validate {len(texts)} items: {len(texts) / validation:,.0f} items/s")

        items_dir = registry / "prerequisites"
        ours_git = timed(lambda: Repository.find(registry).history(items_dir), repeat=1)
        sample = files[: min(200, len(files))]
        gp = git.Repo(repo.root)

        def per_file() -> None:
            for path in sample:
                list(gp.iter_commits(paths=str(path.relative_to(repo.root))))

        per_file_time = timed(per_file, repeat=1) * len(files) / len(sample)
        print(
            f"git history of {len(files)} files: one pass is {per_file_time / ours_git:.1f}x faster than "
            f"one GitPython call per file (extrapolated from {len(sample)} files)"
        )

        out = Path(tmp) / "out"
        index_time = timed(lambda: build(registry, out, with_site=False), repeat=1)
        print(
            f"validate + index {len(files)} items: {len(files) / index_time:,.0f} items/s "
            f"({validation / index_time:.2f} of the build is validation)"
        )


if __name__ == "__main__":
    main()
