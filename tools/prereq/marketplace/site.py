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
from urllib.parse import urlsplit

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
    """Preview the site with MkDocs' live-reloading server until interrupted.

    Every edit rebuilds it: of the site's sources (its docs folder, mkdocs.yml, prereq.yaml's pages)
    and of the registry, which is first indexed again into ``index_dir``."""
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    from mkdocs.exceptions import MkDocsException

    config_file = find_config(registry, settings)
    site_dir = Path(tempfile.mkdtemp(prefix="prereq-serve-site-"))
    try:
        _serve(
            config_file,
            site_dir,
            index_dir=Path(index_dir).resolve(),
            registry=registry,
            settings=settings,
            dev_addr=dev_addr,
        )
    except OSError as exc:  # the port is taken, or not ours to bind
        raise PrereqError(
            f"cannot serve on {dev_addr}: {exc.strerror or exc}", hint="pass --dev-addr HOST:PORT with a free port"
        ) from None
    except MkDocsException as exc:
        raise PrereqError(f"the site cannot be served: {exc}", hint=f"fix {config_file}") from None
    finally:
        shutil.rmtree(site_dir, ignore_errors=True)


def _serve(
    config_file: Path, site_dir: Path, *, index_dir: Path, registry: Path, settings: Settings, dev_addr: str
) -> None:
    """MkDocs' own serve loop (``mkdocs.commands.serve``), but for the registry: MkDocs' rebuilds
    read mkdocs.yml again and nothing else, so the index would stay as it was at start."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer

    plugins = _plugins(config_file, settings, index_dir=index_dir, copy_index=True)

    def load() -> MkDocsConfig:
        return load_config(
            str(config_file), site_dir=str(site_dir), dev_addr=dev_addr, plugins=plugins, **_overrides(settings)
        )

    config = load()
    config.plugins.on_startup(command="serve", dirty=False)
    host, port = config.dev_addr
    mount = urlsplit(config.site_url or "/").path  # served where prereq.yaml's site.url puts it
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}{mount}"
    indexed = [_stamp(registry)]

    def builder(config: MkDocsConfig | None = None) -> None:
        now = _stamp(registry)
        if now != indexed[0]:  # only a registry edit needs the index again (a page's needs the site)
            indexed[0] = now
            _reindex(registry, index_dir)
        config = config or load()
        config.site_url = url  # the site's links and live reload point at this server
        build(config, serve_url=url)

    server = LiveReloadServer(builder=builder, host=host, port=port, root=str(site_dir), mount_path=mount)
    try:
        builder(config)
        for path in (config.docs_dir, str(config_file), str(registry)):
            server.watch(path)
        server = config.plugins.on_serve(server, config=config, builder=builder)
        for path in config.watch:
            server.watch(path)
        try:
            server.serve()
        except KeyboardInterrupt:
            pass
        finally:
            server.shutdown()
    finally:
        config.plugins.on_shutdown()


def _stamp(registry: Path) -> list[tuple[str, int, int]]:
    """What changes when a registry file is edited, added or removed (compared before each rebuild)."""
    found = []
    for top, _, filenames in os.walk(registry):
        for name in filenames:
            try:
                status = os.stat(os.path.join(top, name))
            except OSError:  # removed while listed: the next rebuild sees it gone
                continue
            found.append((os.path.join(top, name), status.st_mtime_ns, status.st_size))
    return sorted(found)


def _reindex(registry: Path, index_dir: Path) -> None:
    """Index the edited registry into ``index_dir``; while it has errors the site shows the last index."""
    # Imported here: publish imports this module (lazily) to build a site, and only serving needs it back.
    from prereq.marketplace.build import build

    log = logging.getLogger("mkdocs.plugins.prereq")
    try:
        result = build(registry, index_dir, with_site=False, strict=False)  # a preview shows work in progress
    except PrereqError as exc:
        log.error(f"the registry was not indexed again: {exc} ({exc.hint})")
        return
    for problem in result.validation.errors:
        log.error(f"{problem.file}:{problem.line}: {problem.rule} {problem.message}")
    if result.validation.errors:
        log.error("the registry has errors: the site shows it as it was before (fix them and save again)")


def _plugins(config_file: Path, settings: Settings, *, index_dir: Path, copy_index: bool) -> dict[str, Any]:
    """mkdocs.yml's plugins with the prereq plugin's options set for this build (added when missing).

    A mapping, never MkDocs' list form: MkDocs empties each ``{name: options}`` of a list as it reads
    it, and serving reads the configuration again for every rebuild."""
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
    out: dict[str, Any] = {}
    for entry in listed if isinstance(listed, list) else [{k: v} for k, v in listed.items()]:
        name, value = (entry, {}) if isinstance(entry, str) else next(iter(entry.items()))
        if name != PLUGIN_NAME:
            out[name] = value
    return {**out, PLUGIN_NAME: options}
