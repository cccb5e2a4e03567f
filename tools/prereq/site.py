"""The marketplace site: MkDocs behind one small module.

MkDocs runs as a library over ``mkdocs.yml`` and ``site/``; the hooks in
``site_hooks.py`` generate the item, tag and reference pages from the index
already written in ``index_dir``.  MkDocs empties its ``site_dir`` before
building, so it builds into a temporary folder beside ``out`` whose content is
then moved into ``out`` next to ``api/v1``.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .errors import PrereqError
from .schema import PROJECT_ROOT

HOOKS = Path(__file__).with_name("site_hooks.py")
CONFIG_NAME = "mkdocs.yml"


def find_config(registry: Path) -> Path:
    """The site's mkdocs.yml: beside the registry, else the one of prereq's own repository."""
    for folder in (Path(registry).resolve().parent, PROJECT_ROOT):
        if (folder / CONFIG_NAME).is_file():
            return folder / CONFIG_NAME
    raise PrereqError(f"no {CONFIG_NAME} beside {registry} or in {PROJECT_ROOT}",
                      hint="build with --no-site, or add the site sources (mkdocs.yml and site/)")


class _Relay(logging.Handler):
    """MkDocs' log: our hook's notes go to the progress callback, warnings are collected."""

    def __init__(self, progress: Callable[[str], None]) -> None:
        super().__init__(logging.INFO)
        self.progress = progress
        self.warnings: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage().strip()
        if record.levelno >= logging.WARNING:
            self.warnings.append(message)  # returned to the caller, which reports them once
        elif record.name == "mkdocs.plugins.prereq":
            self.progress(f"site: {message}")


def build_site(*, index_dir: Path, registry: Path, out: Path, progress: Callable[[str], None],
               config_file: Path | None = None) -> list[str]:
    """Build the MkDocs site into ``out`` from the index already written in ``index_dir``.

    Returns MkDocs' warnings."""
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    config_file = Path(config_file) if config_file else find_config(registry)
    out = Path(out).resolve()
    index_dir = Path(index_dir).resolve()
    logger = logging.getLogger("mkdocs")
    relay = _Relay(progress)
    saved = logger.level, logger.propagate
    logger.addHandler(relay)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    target = Path(tempfile.mkdtemp(prefix=".site-", dir=out.parent))
    started = time.monotonic()
    try:
        try:
            config = load_config(str(config_file), site_dir=str(target), hooks=[str(HOOKS)])
            config.extra["prereq_index_dir"] = str(index_dir)
            config.extra["prereq_index_in_site"] = index_dir == out
            build(config)
        except MkDocsException as exc:
            raise PrereqError(f"the site did not build: {exc}", hint="see the messages above") from None
        for child in target.iterdir():
            destination = out / child.name
            if destination.exists():
                raise PrereqError(f"the site would overwrite {destination}",
                                  hint=f"rename the docs page or folder {child.name!r}")
            child.rename(destination)
    finally:
        shutil.rmtree(target, ignore_errors=True)
        logger.removeHandler(relay)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
    progress(f"site: built in {time.monotonic() - started:.1f} s ({config_file})")
    return relay.warnings


def serve_site(*, index_dir: Path, registry: Path, dev_addr: str) -> None:
    """Preview the site with MkDocs' live-reloading server (until interrupted)."""
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    os.environ["PREREQ_INDEX_DIR"] = str(Path(index_dir).resolve())  # read by the hooks, in this process only
    from mkdocs.commands.serve import serve

    serve(config_file=str(find_config(registry)), dev_addr=dev_addr, livereload=True)
