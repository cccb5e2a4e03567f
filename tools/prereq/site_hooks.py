"""MkDocs hooks of the marketplace site (``hooks:`` in mkdocs.yml).

The site reads the published index, never the registry's YAML: data flows
one way.  The index is found, in order, in ``extra.prereq_index_dir`` (set by
``prereq build`` and ``prereq serve``), ``$PREREQ_INDEX_DIR``, or the last
``prereq build`` output beside mkdocs.yml (``build/site``), so a plain
``mkdocs serve`` previews the last build.  When the index is not already in the
output, ``api/v1`` is copied there at the end so the catalog can load it.

Generated pages (``File.generated``, kept out of the navigation): one per item
under ``items/<name>/``, the tag pages, the rule reference and the item format
reference.  Item and tag pages get their body in ``on_page_content``, as HTML
rendered by ``prereq.site_pages`` — contributor text never goes through the
site's own Markdown, which allows raw HTML.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.utils import get_relative_url

from prereq import rules, schema, site_pages
from prereq.errors import PrereqError

log = logging.getLogger("mkdocs.plugins.prereq")

# Scripts loaded on one page only (the template reads page.meta.prereq_scripts).
PAGE_SCRIPTS = {"catalog.md": ["assets/catalog.js"], "composer.md": ["assets/composer.js"]}
HOME_MARKERS = ("<!-- prereq:counts -->", "<!-- prereq:recent -->")
_SAFE_SEGMENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")  # names and tags, as the index format allows


class _State:
    data: site_pages.SiteData | None = None
    copy_index: bool = False
    generated: dict[str, tuple[str, str]] = {}


_state = _State()
LAST_BUILD = Path("build") / "site"


def on_config(config: Any) -> Any:
    if not config.use_directory_urls:
        raise PluginError("the marketplace needs use_directory_urls: true (pages link to each other as name/)")
    configured = config.extra.get("prereq_index_dir") or os.environ.get("PREREQ_INDEX_DIR")
    try:
        if configured:
            index_dir = Path(configured)
            _state.copy_index = not config.extra.get("prereq_index_in_site", False)
        else:
            index_dir = Path(config.config_file_path).resolve().parent / LAST_BUILD
            _state.copy_index = True
            if not index_dir.is_dir():
                raise PrereqError(f"no index to show: {index_dir} does not exist",
                                  hint="run 'prereq serve' (it indexes the registry first), or 'prereq build' "
                                  "once, or set PREREQ_INDEX_DIR")
        _state.data = site_pages.SiteData(index_dir)
    except PrereqError as exc:
        raise PluginError(f"{exc}" + (f" ({exc.hint})" if getattr(exc, "hint", None) else "")) from None
    return config


def _stub(title: str, *, hide: tuple[str, ...] = ("toc",), search: bool = False) -> str:
    meta: dict[str, Any] = {"title": title, "hide": list(hide)}
    if not search:
        meta["search"] = {"exclude": True}
    return "---\n" + json.dumps(meta) + "\n---\n"  # JSON is YAML: no quoting surprises


def on_files(files: Files, config: Any) -> Files:
    data = _state.data
    assert data is not None
    started = time.monotonic()
    generated: dict[str, tuple[str, str]] = {}

    def add(src_uri: str, content: str, *, in_nav: bool = False) -> None:
        existing = files.get_file_from_path(src_uri)
        if existing is not None:
            log.warning(f"site/{src_uri} is generated from the index: the file in the docs folder is ignored")
            files.remove(existing)
        inclusion = InclusionLevel.UNDEFINED if in_nav else InclusionLevel.NOT_IN_NAV
        files.append(File.generated(config, src_uri, content=content, inclusion=inclusion))

    for name in data.entries:
        if not _SAFE_SEGMENT.match(name):
            log.warning(f"item {name!r}: not a valid name, no page")
            continue
        add(f"items/{name}/index.md", _stub(name, hide=("navigation", "toc")))
        generated[f"items/{name}/index.md"] = ("item", name)
    tags = [tag for tag in data.tags() if _SAFE_SEGMENT.match(tag)]
    add("tags/index.md", _stub("Tags", hide=("navigation", "toc")) + "# Tags\n", in_nav=True)
    generated["tags/index.md"] = ("tags", "")
    for tag in tags:
        add(f"tags/{tag}/index.md", _stub(f"Tag: {tag}", hide=("navigation", "toc")))
        generated[f"tags/{tag}/index.md"] = ("tag", tag)
    add("job-templates/index.md", _stub("Job templates", hide=("toc",)) + "# Job templates\n", in_nav=True)
    generated["job-templates/index.md"] = ("templates", "")
    add("reference/rules.md", rules.rule_reference_markdown(), in_nav=True)
    item_schema = schema.load_schema("prerequisite.schema.json")
    add("reference/format.md", site_pages.format_reference_markdown(item_schema, site_pages.FORMAT_EXAMPLE),
        in_nav=True)
    add("reference/prerequisite.schema.json", json.dumps(item_schema, indent=2) + "\n")
    _state.generated = generated
    log.info(f"{len(data.entries)} item pages and {len(tags)} tag pages "
             f"({time.monotonic() - started:.2f} s to list)")
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    scripts = PAGE_SCRIPTS.get(page.file.src_uri, [])
    page.meta["prereq_scripts"] = [path for path in scripts if files.get_file_from_path(path) is not None]
    return markdown


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    data = _state.data
    assert data is not None

    def href(url: str) -> str:
        relative = get_relative_url(url, page.url)
        return relative if relative.endswith("/") or "?" in relative else relative + "/"

    # Fragments are markupsafe.Markup: turn them into plain str before joining them with `html`
    # (str + Markup would escape the str).
    kind, arg = _state.generated.get(page.file.src_uri, ("", ""))
    if kind == "item":
        return str(site_pages.render_item(data, arg, href))
    if kind == "tag":
        return str(site_pages.render_tag(data, arg, href))
    if kind == "tags":
        return html + str(site_pages.render_tag_index(data, href))
    if kind == "templates":
        return html + str(site_pages.render_templates(data, href))
    if page.file.src_uri == "index.md":
        html = html.replace(HOME_MARKERS[0], str(site_pages.render_counts(data, href)))
        html = html.replace(HOME_MARKERS[1], str(site_pages.render_recent(data, href)))
    return html


def on_post_build(config: Any) -> None:
    data = _state.data
    if data is not None and _state.copy_index:
        shutil.copytree(data.api, Path(config.site_dir) / "api" / "v1", dirs_exist_ok=True)
