"""The validator's library API: a registry folder in, items and problems out.

What validation reads of each file and script is kept across runs (``Cache``), keyed by content and
prereq's identity: the data of each file, what the file checks find in it, ShellCheck's and bash's
readings of each script, and what each blob of the git history holds.  Checks across items (the
require graph, variables flowing between items, conflicts, placeholders) always run.  The folder is
``$PREREQ_CACHE`` (an absolute path; ``off``: none), else ``.prereq-cache/`` at the root of the git
work tree holding the registry, git-ignored by its own ``.gitignore``: on by default, as ruff's and
mypy's caches are, since a pre-commit hook validates on every commit; never in a user's home, and
none outside a git work tree (nothing is written beside a registry that is not a checkout).  A cache
folder git tracks files in is not read: a pull request could bring one that hides a credential; nor is
one that is a link (a pull request could point it out of the work tree, or into ``.git``), another
user's, or a shelf file that is a link: ``ValidationResult.notes`` says so, and validation reads
every file.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import prereq
from prereq.core.files import NO_CACHE, SCHEMA_DIR, Cache, unusable_folder
from prereq.core.gitrepo import Repository
from prereq.core.terminal import Progress, silent
from prereq.openpai import shelllint
from prereq.registry import suppress
from prereq.registry.checks import CHECKS, run_checks
from prereq.registry.checks.causes import link_causes
from prereq.registry.checks.commands import EarlyLint
from prereq.registry.checks.published_ranges import stays
from prereq.registry.history import HISTORY_RULES, cleared_lines, history_problems
from prereq.registry.loader import LOADER_RULES, LoadedRegistry, Owners, SourceItem, load_registry
from prereq.registry.rules import RULES, Problem, Rule, Severity

CACHE_FOLDER = ".prereq-cache"
# What else computes what is kept, by module, with the distribution that installs it: a new version of
# any of them is a new identity (yaml._yaml: the same version built without libyaml is another reader).
_LIBRARIES = {
    "yaml": "PyYAML",
    "yaml._yaml": "PyYAML",
    "detect_secrets": "detect-secrets",
    "jsonschema": "jsonschema",
    "jsonschema_rs": "jsonschema-rs",
    "nodesemver": "node-semver",
}


@dataclass
class ValidationResult:
    root: Path
    items: dict[str, SourceItem]
    owners: Owners
    problems: list[Problem]
    templates: list[SourceItem]
    suppressed: list[suppress.Suppressed] = field(default_factory=list)  # shown, not counted
    notes: list[str] = field(default_factory=list)  # what the CLI says besides the problems (a cache not used)
    # Dependents that stay on an older published version (PRQ142's information): said by validate; a
    # review's report says them only for what the change touches.
    stays: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.WARNING]

    def failed(self, *, strict: bool = False) -> bool:
        return bool(self.errors or (strict and self.warnings))


def validate_loaded(
    registry: LoadedRegistry,
    *,
    history: bool = False,
    cache: Cache = NO_CACHE,
    progress: Progress = silent,
    rules: Mapping[str, Rule] = RULES,
) -> ValidationResult:
    """Every check (and with ``history`` the git history's credentials, PRQ192), suppressions applied:
    ``rules`` are those a suppression may name (the registry's own unless the caller, reporting other
    layers' problems too, passes every layer's: ``prereq.review.rules.ALL_RULES``)."""
    ctx, problems = run_checks(registry, cache=cache, progress=progress)
    # A suppression is judged unused only for the rules this run checks (not the review's, nor the
    # history's without ``history``).
    judged = {rule for check in CHECKS for rule in check.ids} | set(LOADER_RULES)
    judged |= set(HISTORY_RULES) if history else set()
    sources = [*registry.items, *registry.templates]
    if history:  # the history skips what today's files suppress PRQ190 on, as the build publishes it
        _, first = suppress.apply(sources, problems, judged=judged, rules=rules)
        current = {source.rel: source.blob for source in sources}
        if Repository.find(registry.root) is not None:  # outside one there is no history to check
            progress("checking the git history for credentials")
        cleared = cleared_lines(ctx.items, first)
        problems = problems + history_problems(registry.root, cleared=cleared, current=current, cache=cache)
    kept, suppressed = suppress.apply(sources, problems, judged=judged, rules=rules)
    return ValidationResult(
        root=registry.root,
        items=ctx.items,
        owners=registry.owners,
        problems=link_causes(kept, ctx.items),  # after suppressions: a silenced problem is no one's cause
        templates=registry.templates,
        suppressed=suppressed,
        stays=[str(stay) for stay in stays(registry.root, registry.items, cache=cache)],
    )


def validate(
    root: Path, *, history: bool = False, progress: Progress = silent, rules: Mapping[str, Rule] = RULES
) -> ValidationResult:
    """Check every file under the registry folder ``root``; never raises for bad content.  With
    ``history``, also every revision in the git history around it (PRQ192): ``prereq validate`` asks
    for it, the build does not (it leaves such versions out instead of failing).  ``progress`` hears
    of each phase: a first run over 100,000 items takes minutes, most of them ShellCheck's.  One
    validation at a time in a process: ShellCheck's readings are the process's (``shelllint``).
    ``rules``: as for ``validate_loaded``."""
    cache = cache_for(root)
    started = time.monotonic()
    early = EarlyLint(cache)
    try:
        registry = load_registry(root, cache=cache, parsed=early.add)  # the last, partial batch: with the checks'
        reading = f"; ShellCheck is reading {early.started:,} of their scripts" if early.started else ""
        progress(f"read {_files(registry)} in {time.monotonic() - started:.1f} s{reading}")
        result = validate_loaded(registry, history=history, cache=cache, progress=progress, rules=rules)
    finally:
        shelllint.stop()  # interrupted or not, nothing of ShellCheck's outlives the run
    cache.save()
    result.notes += cache.notes
    return result


def _files(registry: LoadedRegistry) -> str:
    items, templates = len(registry.items), len(registry.templates)
    text = f"{items:,} item file{'s' * (items != 1)}"
    return text + (f" and {templates:,} job template{'s' * (templates != 1)}" if templates else "")


def cache_for(root: Path) -> Cache:
    """The cache of validating the registry at ``root`` (see the module's docstring); one that cannot be
    trusted (``unusable_folder``, or files git tracks) is none, and its ``notes`` say why."""
    setting = os.environ.get("PREREQ_CACHE", "")
    if setting == "off" or (setting and not os.path.isabs(setting)):
        return NO_CACHE  # a relative folder would depend on where prereq runs
    above = [f for f in (root.resolve(), *root.resolve().parents) if (f / ".git").exists()]
    if not (setting or above):
        return NO_CACHE
    folder = Path(setting) if setting else above[0] / CACHE_FOLDER
    refused = unusable_folder(folder, checkout=above[0] if above else None)
    if refused is not None:
        return Cache(notes=[f"{refused}; validation reads every file"])
    repository = Repository.find(folder) if folder.exists() else None
    if repository is not None and repository.tracks(folder):
        return Cache(notes=[f"the cache folder {folder} is not used: git tracks files in it (remove them)"])
    return Cache(folder, identity())


@lru_cache(maxsize=1)
def identity() -> str:
    """prereq as what computed a kept result: its version, a digest of the code validation runs (the
    packages the registry may import, as the layers allow: core, openpai, registry) and of the schemas,
    so that an edited checkout is another prereq, and Python's and the libraries' versions.  Never a
    path nor a file time: CI restores the cache into a new environment on every run (computed only for a
    cache, once: 3 ms)."""
    digest = hashlib.sha256()
    package = Path(prereq.__file__).parent
    code = [path for part in ("core", "openpai", "registry") for path in (package / part).rglob("*.py")]
    for path in sorted([package / "__init__.py", *code, *SCHEMA_DIR.glob("*.json")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    libraries = [f"{module} {_installed(module, distribution)}" for module, distribution in _LIBRARIES.items()]
    return f"prereq {prereq.__version__} {digest.hexdigest()[:20]} Python {sys.version.split()[0]} {libraries}"


def _installed(module: str, distribution: str) -> str:
    """The version of ``distribution`` that installed ``module`` ("-": not installed), read from the name
    of its ``*.dist-info`` folder beside the module (importing importlib.metadata alone costs 50 ms, a
    twentieth of a warm run of 10,000 items); importlib.metadata only for another layout (an egg)."""
    spec = importlib.util.find_spec(module)
    top = importlib.util.find_spec(module.partition(".")[0])
    if spec is None or top is None or top.origin is None:
        return "-"
    folder = Path(top.origin).parent.parent if top.submodule_search_locations else Path(top.origin).parent
    wanted = _normal(distribution)
    for entry in _entries(folder):
        name, _, version = entry.removesuffix(".dist-info").partition("-")
        if entry.endswith(".dist-info") and _normal(name) == wanted:
            return version
    from importlib import metadata  # not a wheel's layout: the standard reader, at its cost

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "-"


@lru_cache(maxsize=8)
def _entries(folder: Path) -> tuple[str, ...]:
    try:
        return tuple(os.listdir(folder))
    except OSError:
        return ()


def _normal(name: str) -> str:
    """A distribution's name as its folder spells it, compared (PEP 503: case and runs of ``-_.`` aside)."""
    return re.sub(r"[-_.]+", "_", name).lower()
