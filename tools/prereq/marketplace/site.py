"""The marketplace site: MkDocs behind one small module.

MkDocs runs as a library over a ``mkdocs.yml`` and its ``site/``: the registry repository's own
when it has one (full control), else the one packaged with prereq, customised by the repository's
``prereq.yaml`` (title, address, pages, logo: ``registry.settings``).  The ``prereq``
plugin (``plugin.py``) generates the item, tag and reference pages from the
index already written in ``index_dir``, which this module hands it as the
plugin's own option.  MkDocs empties its ``site_dir`` before
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
from typing import Any

from prereq.core.errors import PrereqError
from prereq.core.files import DATA_DIR
from prereq.index import names
from prereq.marketplace.plugin import PLUGIN_NAME
from prereq.registry.settings import Settings

CONFIG_NAME = "mkdocs.yml"


def find_config(registry: Path, settings: Settings) -> Path:
    """The site's mkdocs.yml: the repository's own (at its root or beside the registry), else prereq's."""
    for folder in (settings.root, Path(registry).resolve().parent, DATA_DIR):
        if (folder / CONFIG_NAME).is_file():
            return folder / CONFIG_NAME
    raise PrereqError(
        f"no {CONFIG_NAME} in {settings.root} or in prereq's data {DATA_DIR}",
        hint="reinstall prereq (its wheel carries the site), or build with --no-site",
    )


def _overrides(settings: Settings) -> dict[str, Any]:
    """prereq.yaml's site settings as MkDocs configuration keys (only those it sets)."""
    site = settings.site
    keys = {
        "site_name": site.name,
        "site_url": site.url,
        "repo_url": site.repo_url,
        "site_description": site.description,
    }
    return {key: value for key, value in keys.items() if value is not None}


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


def build_site(
    *,
    index_dir: Path,
    registry: Path,
    out: Path,
    settings: Settings,
    progress: Callable[[str], None],
    config_file: Path | None = None,
) -> list[str]:
    """Build the MkDocs site into ``out`` from the index already written in ``index_dir``.

    Returns MkDocs' warnings."""
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    config_file = Path(config_file) if config_file else find_config(registry, settings)
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
            config = load_config(
                str(config_file),
                site_dir=str(target),
                plugins=_plugins(config_file, settings, index_dir=index_dir, copy_index=index_dir != out),
                **_overrides(settings),
            )
            build(config)
        except MkDocsException as exc:
            reasons = "".join(f"\n    {line}" for line in relay.warnings[-10:])  # MkDocs' own reasons
            raise PrereqError(
                f"the site did not build: {exc}{reasons}", hint=f"fix {config_file} or the pages in its docs_dir"
            ) from None
        for child in target.iterdir():
            destination = names.inside(out, child.name)
            if destination.exists():
                raise PrereqError(
                    f"the site would overwrite {destination}", hint=f"rename the docs page or folder {child.name!r}"
                )
            child.rename(destination)
    finally:
        shutil.rmtree(target, ignore_errors=True)
        logger.removeHandler(relay)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
    progress(f"site: built in {time.monotonic() - started:.1f} s ({config_file})")
    return relay.warnings


def serve_site(*, index_dir: Path, registry: Path, settings: Settings, dev_addr: str) -> None:
    """Preview the site with MkDocs' live-reloading server (until interrupted)."""
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    from mkdocs.commands.serve import serve
    from mkdocs.exceptions import MkDocsException

    config_file = find_config(registry, settings)
    try:
        serve(
            config_file=str(config_file),
            dev_addr=dev_addr,
            livereload=True,
            plugins=_plugins(config_file, settings, index_dir=Path(index_dir).resolve(), copy_index=True),
            **_overrides(settings),
        )
    except OSError as exc:  # the port is taken, or not ours to bind
        raise PrereqError(
            f"cannot serve on {dev_addr}: {exc.strerror or exc}", hint="pass --dev-addr HOST:PORT with a free port"
        ) from None
    except MkDocsException as exc:
        raise PrereqError(f"the site cannot be served: {exc}", hint=f"fix {config_file}") from None


def _plugins(config_file: Path, settings: Settings, *, index_dir: Path, copy_index: bool) -> list[Any]:
    """mkdocs.yml's plugin list with the prereq plugin's options set for this build (added when missing)."""
    from mkdocs.utils.yaml import yaml_load

    with open(config_file, encoding="utf-8") as handle:
        listed = (yaml_load(handle) or {}).get("plugins") or ["search"]
    options: dict[str, Any] = {"index_dir": str(index_dir), "copy_index": copy_index}
    if settings.site.pages:
        options["extra_pages"] = str(settings.site.pages)
    if settings.site.logo:
        options["logo"] = str(settings.site.logo)
    if settings.site.index_url:
        options["index_url"] = settings.site.index_url
    if settings.allowed_signers:
        options["allowed_signers"] = str(settings.allowed_signers)
    out: list[Any] = []
    for entry in listed if isinstance(listed, list) else [{k: v} for k, v in listed.items()]:
        name = entry if isinstance(entry, str) else next(iter(entry))
        if name != PLUGIN_NAME:
            out.append(entry)
    return [*out, {PLUGIN_NAME: options}]
