"""The marketplace's MkDocs plugin (``plugins: [search, prereq]`` in mkdocs.yml).

The site reads the published index, never the registry's YAML: data flows one
way.  The plugin's ``index_dir`` option says where the index is; ``prereq build``
and ``prereq serve`` set it, and when it is unset (a plain ``mkdocs serve``) the
last ``prereq build`` output beside mkdocs.yml (``build/site``) is shown.  When
the index is not already in the output, ``api/v1`` is copied there at the end so
the catalog can load it.

Generated pages (``File.generated``, kept out of the navigation): one per item
under ``items/<name>/``, the tag pages, the rule reference and the item format
reference.  Item and tag pages get their body as HTML rendered by
``prereq.marketplace.itempage`` and ``pages`` — contributor text never goes through
the site's own Markdown, which allows raw HTML.  MkDocs reads every page before it
writes any, keeping each body: item and tag bodies are rendered only when their page
is written (``on_page_context``) and dropped once it is (10,000 item pages held 4 GB).
Each item's form files (``itempage.form_files``) are written beside its page then.
Every page's frame loses the whitespace the theme's templates leave (``frame``), its icons
point into one file (``frame.sprite``) and its inline scripts are files (``frame.scripts_to_files``).
The theme's own search (lunr and its worker, 1.2 MB) is not published, the site's search replaces it,
nor are its source maps (1.1 MB).

May import: mkdocs, prereq.core, prereq.registry (rules and schemas for the
reference pages), prereq.review.rules (every layer's rules), prereq.index.names (where a page named after
data may be written), prereq.execution (through execution_pages) and the rest of prereq.marketplace.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from pathlib import Path
from typing import Any

from markupsafe import Markup
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from prereq.core.errors import PrereqError
from prereq.core.files import read_regular
from prereq.index import names
from prereq.marketplace import csp, execution_pages, frame, itempage, pagemeta, pages, reference
from prereq.registry import schemas
from prereq.registry.rules import rule_reference_markdown
from prereq.review.rules import ALL_RULES

log = logging.getLogger("mkdocs.plugins.prereq")

PLUGIN_NAME = "prereq"
# Scripts loaded on one page only (the template reads page.meta.prereq_scripts).  The composer's
# engine is ES modules (shared with the tests that run it under Node), which a classic script imports
# so that a module that fails to load is shown in the page (ui/start.js says how).
PAGE_SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "catalog.md": [
        {"src": f"assets/{name}.js", "module": False}
        for name in ("catalog-cards", "catalog-facets", "catalog-share", "catalog")
    ],
    "composer.md": [{"src": "assets/composer/ui/start.js", "module": False}],
}
# Item pages load a script of their own, which completes their snippet (itempage says how).
ITEM_SCRIPTS: list[dict[str, Any]] = [{"src": "assets/item.js", "module": False}]
ITEM_TEMPLATE = "item.html"  # site/overrides/item.html: the frame without the navigation drawer
DEFERRED = ("item", "tag")  # pages whose body is rendered when the page is written, then dropped
# The OpenPAI webportal plugin: written at a fixed address of the site, the one administrators put in
# webportal.plugins (site/webportal.md); it finds the rest of the site from its own URL.
WEBPORTAL_SCRIPT = ("assets/composer/webportal/prereq-plugin.js", "webportal/prereq-plugin.js")
HOME_MARKERS = ("<!-- prereq:counts -->", "<!-- prereq:recent -->")
LAST_BUILD = Path("build") / "site"
# The theme's search engine and its worker: the header's search box is the site's own
# (site/overrides/partials/search.html), so the theme never starts them.
UNUSED_THEME_FILES = ("assets/javascripts/lunr/", "assets/javascripts/workers/")
THEME_ASSETS = ("assets/javascripts/", "assets/stylesheets/")


def _unused_theme_file(src_uri: str) -> bool:
    """What the theme ships that no page of the site loads: its search engine, and the source maps of
    its minified code and styles (1.1 MB, for debugging the theme, read only by a browser's tools)."""
    return src_uri.startswith(UNUSED_THEME_FILES) or (src_uri.startswith(THEME_ASSETS) and src_uri.endswith(".map"))


class MarketplaceConfig(Config):
    index_dir = config_options.Optional(config_options.Type(str))
    # False when the index was written into the site's own output folder (prereq build).
    copy_index = config_options.Type(bool, default=True)
    # A registry repository's own pages and logo (prereq.yaml's site.pages and site.logo): added to
    # prereq's packaged pages rather than copied over them.
    extra_pages = config_options.Optional(config_options.Type(str))
    logo = config_options.Optional(config_options.Type(str))
    # What a job composed on the site records as its index (prereq.yaml's site.index_url); by default
    # the address the site is read from.
    index_url = config_options.Optional(config_options.Type(str))
    # Who may sign the index (prereq.yaml's trust.allowed_signers): the composer verifies it with them.
    allowed_signers = config_options.Optional(config_options.Type(str))


def _allowed_signers(path: Path) -> str:
    """The allowed signers file's text, for the composer (ssh-keygen's format: one key a line)."""
    try:
        return read_regular(path, what="allowed signers file").decode("utf-8")
    except (PrereqError, UnicodeDecodeError) as exc:
        raise PluginError(f"the allowed signers file {path} cannot be read: {exc}") from None


LOGO_URI = "assets/site-logo"  # + the logo file's suffix
SCHEMA_URI = "reference/prerequisite.schema.json"  # the item schema's stable address on every site


def _sprite(config: MkDocsConfig) -> str | None:
    """``assets/icons.svg`` from the theme's folders (``frame.sprite``); a missing icon stops the build."""
    try:
        return frame.sprite([Path(folder) for folder in config.theme.dirs])
    except PrereqError as exc:
        raise PluginError(f"{exc} ({exc.hint})") from None


def _stub(title: str, *, hide: tuple[str, ...] = ("toc",), search: bool = False, template: str = "") -> str:
    meta: dict[str, Any] = {"title": title, "hide": list(hide)}
    if template:
        meta["template"] = template
    if not search:
        meta["search"] = {"exclude": True}
    return "---\n" + json.dumps(meta) + "\n---\n"  # JSON is YAML: no quoting surprises


class MarketplacePlugin(BasePlugin[MarketplaceConfig]):
    """Holds one build's index and the pages it generated."""

    def __init__(self) -> None:
        self.data: pages.SiteData | None = None
        self.generated: dict[str, tuple[str, str]] = {}
        self.frame_scripts: set[str] = set()  # written this build (frame.scripts_to_files)
        self.item_template = ""  # ITEM_TEMPLATE when the theme's folders have it (on_config)
        self.live_reload = False

    def on_startup(self, *, command: str, dirty: bool) -> None:
        # Defining this hook also keeps one plugin across serve's rebuilds, which nothing here minds.
        self.live_reload = command == "serve"

    def _site_data(self) -> pages.SiteData:
        if self.data is None:
            raise PluginError("the prereq plugin has no index (on_config did not run)")
        return self.data

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        if not config.use_directory_urls:
            raise PluginError("the marketplace needs use_directory_urls: true (pages link to each other as name/)")
        configured = self.config.index_dir
        index_dir = Path(configured) if configured else Path(config.config_file_path).resolve().parent / LAST_BUILD
        try:
            if not configured and not index_dir.is_dir():
                raise PrereqError(
                    f"no index to show: {index_dir} does not exist",
                    hint="run 'prereq serve' (it indexes the registry first), or 'prereq build' "
                    "once, or set the prereq plugin's index_dir in mkdocs.yml",
                )
            self.data = pages.SiteData(index_dir)
        except PrereqError as exc:
            raise PluginError(f"{exc}" + (f" ({exc.hint})" if exc.hint else "")) from None
        if config.nav is not None and execution_pages.catalog(self.data.api) is not None:
            config.nav.append(
                {"Where jobs run": [{t: execution_pages.PAGES[k]} for k, t in execution_pages.TITLES.items()]}
            )
        if self.config.logo:
            config.theme["logo"] = LOGO_URI + Path(self.config.logo).suffix
        # A repository's own mkdocs.yml may name theme folders of its own: its item pages keep the theme's frame.
        has_template = any((Path(folder) / ITEM_TEMPLATE).is_file() for folder in config.theme.dirs)
        self.item_template = ITEM_TEMPLATE if has_template else ""
        if self.config.index_url:
            config.extra["prereq_index_url"] = self.config.index_url  # main.html's meta prereq:index
        if self.config.allowed_signers:  # main.html's meta prereq:allowed-signers (the composer's trust)
            config.extra["prereq_allowed_signers"] = _allowed_signers(Path(self.config.allowed_signers))
        new_item = pagemeta.new_item_url(config.repo_url, self.data.root.get("items_folder"))
        if new_item:
            config.extra["prereq_new_item_url"] = new_item  # main.html's meta prereq:new-item (the composer's Share)
        if self.config.extra_pages and config.nav is not None:
            listed = _nav_paths(config.nav)
            config.nav.extend(uri for uri in _extra_pages(Path(self.config.extra_pages)) if uri not in listed)
        return config

    def on_serve(self, server: Any, *, config: MkDocsConfig, builder: Any) -> Any:
        if self.config.extra_pages:
            server.watch(self.config.extra_pages)
        return server

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        data = self._site_data()
        started = time.monotonic()
        self.generated = {}
        self.frame_scripts = set()
        for unused in [file for file in files if _unused_theme_file(file.src_uri)]:
            files.remove(unused)

        def add(src_uri: str, content: str, *, in_nav: bool = False, kind: str = "", arg: str = "") -> None:
            existing = files.get_file_from_path(src_uri)
            if existing is not None:
                log.warning(f"site/{src_uri} is generated from the index: the file in the docs folder is ignored")
                files.remove(existing)
            inclusion = InclusionLevel.UNDEFINED if in_nav else InclusionLevel.NOT_IN_NAV
            files.append(File.generated(config, src_uri, content=content, inclusion=inclusion))
            if kind:
                self.generated[src_uri] = (kind, arg)

        for name in data.entries:
            if (reason := names.refusal(name, names.ITEM_NAME)) is not None:  # the build leaves such an item out
                log.warning(f"item {names.shown(name)}: no page ({reason})")
                continue
            stub = _stub(name, hide=("navigation", "toc"), template=self.item_template)
            add(f"items/{name}/index.md", stub, kind="item", arg=name)
        tags = [tag for tag in data.tags() if names.refusal(tag, names.TAG) is None]
        add("tags/index.md", _stub("Tags", hide=("navigation", "toc")) + "# Tags\n", in_nav=True, kind="tags")
        for tag in tags:
            add(f"tags/{tag}/index.md", _stub(f"Tag: {tag}", hide=("navigation", "toc")), kind="tag", arg=tag)
        templates_page = _stub("Job templates", hide=("toc",)) + "# Job templates\n"
        add("job-templates/index.md", templates_page, in_nav=True, kind="templates")
        if execution_pages.catalog(data.api) is not None:  # the execution catalog's pages (nav: on_config)
            for kind, uri in execution_pages.PAGES.items():
                add(
                    uri,
                    _stub(execution_pages.TITLES[kind]) + f"# {execution_pages.TITLES[kind]}\n",
                    in_nav=True,
                    kind=kind,
                )
        add("reference/rules.md", rule_reference_markdown(ALL_RULES), in_nav=True)
        item_schema = schemas.load_schema("prerequisite.schema.json")
        add(
            "reference/format.md",
            reference.format_reference_markdown(item_schema, reference.FORMAT_EXAMPLE),
            in_nav=True,
        )
        if config.site_url:  # published at a known address: the schema's $id says where
            item_schema = {**item_schema, "$id": config.site_url.rstrip("/") + "/" + SCHEMA_URI}
        add(SCHEMA_URI, json.dumps(item_schema, indent=2) + "\n")
        sprite = _sprite(config)
        if sprite is not None:
            add(frame.SPRITE_URI, sprite)
        self._add_repository_files(files, config)
        plugin_script = files.get_file_from_path(WEBPORTAL_SCRIPT[0])
        if plugin_script is not None and plugin_script.abs_src_path:  # moved, not copied: one address
            files.remove(plugin_script)
            files.append(File.generated(config, WEBPORTAL_SCRIPT[1], abs_src_path=plugin_script.abs_src_path))
        log.info(
            f"{len(data.entries)} item pages and {len(tags)} tag pages ({time.monotonic() - started:.2f} s to list)"
        )
        return files

    def _add_repository_files(self, files: Files, config: MkDocsConfig) -> None:
        """The repository's own pages (replacing a packaged page of the same name) and its logo.  A packaged
        file that is not a page (the composer's and the portal plugin's scripts, styles) is never replaced:
        those scripts hold the checks users rely on, the signature's among them."""
        if self.config.extra_pages:
            folder = Path(self.config.extra_pages)
            for uri in _extra_pages(folder, every_file=True):
                existing = files.get_file_from_path(uri)
                if (existing is not None and not uri.endswith(".md")) or uri == WEBPORTAL_SCRIPT[1]:
                    log.warning(f"{folder.name}/{uri} would replace prereq's own {uri}: left out")
                    continue
                if existing is not None:
                    files.remove(existing)
                files.append(File(uri, str(folder), config.site_dir, config.use_directory_urls))
        if self.config.logo:
            logo = Path(self.config.logo)
            files.append(File.generated(config, LOGO_URI + logo.suffix, abs_src_path=str(logo)))

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        kind, arg = self.generated.get(page.file.src_uri, ("", ""))
        scripts = ITEM_SCRIPTS if kind == "item" else PAGE_SCRIPTS.get(page.file.src_uri, [])
        page.meta["prereq_scripts"] = [
            script for script in scripts if files.get_file_from_path(script["src"]) is not None
        ]
        if kind == "item":  # the item's own summary for search engines and link previews, escaped here
            # (Markup: whether or not the theme's templates escape, it reaches the page once escaped)
            page.meta["description"] = Markup.escape(self._site_data().entries[arg]["summary"][:300])
        if kind in ("item", "tag"):  # the sitemap's lastmod: when it last changed, not the build's date
            data = self._site_data()
            day = pagemeta.sitemap_date([data.entries[arg]] if kind == "item" else data.tags()[arg])
            if day:
                page.update_date = day
        return markdown

    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        kind, arg = self.generated.get(page.file.src_uri, ("", ""))
        body = "" if kind in DEFERRED else self._content(html, page, config)
        if "description" not in page.meta:  # else every page would carry the site's own description
            text = (
                pagemeta.tag_description(arg, self._site_data().tags()[arg])
                if kind == "tag"
                else pagemeta.first_paragraph(body)
            )
            if text:
                page.meta["description"] = Markup.escape(text)
        return body

    def on_page_context(self, context: Any, *, page: Page, config: MkDocsConfig, nav: Any) -> Any:
        kind, arg = self.generated.get(page.file.src_uri, ("", ""))
        if kind in DEFERRED:
            page.content = self._content("", page, config)
        if kind == "item":  # the page's own folder, items/NAME/
            folder = names.place(Path(config.site_dir), "items", arg, kind=names.ITEM_NAME)
            folder.mkdir(parents=True, exist_ok=True)
            for version, text in itempage.form_files(self._site_data(), arg).items():
                # Plain writes, as MkDocs writes its pages: prereq build moves the whole site into place.
                names.place(folder, "", version, kind=names.VERSION, suffix=".yaml").write_text(text, encoding="utf-8")
        return context

    def _content(self, html: str, page: Page, config: MkDocsConfig) -> str:
        data = self._site_data()
        url = page.url

        def href(target: str) -> str:
            relative = get_relative_url(target, url)
            return relative if relative.endswith("/") or "?" in relative else relative + "/"

        # Fragments are markupsafe.Markup: turn them into plain str before joining them with `html`
        # (str + Markup would escape the str).
        kind, arg = self.generated.get(page.file.src_uri, ("", ""))
        if kind == "item":
            return str(itempage.render_item(data, arg, href, repo_url=config.repo_url))
        if kind == "tag":
            return str(pages.render_tag(data, arg, href))
        if kind == "tags":
            return html + str(pages.render_tag_index(data, href))
        if kind == "templates":
            return html + str(pages.render_templates(data, href))
        if kind in execution_pages.PAGES:
            return html + execution_pages.render(data.api, kind, href)
        if page.file.src_uri == "index.md":
            html = html.replace(HOME_MARKERS[0], str(pages.render_counts(data, href)))
            html = html.replace(HOME_MARKERS[1], str(pages.render_recent(data, href)))
        return html

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        output = self._finish_frame(output, page.file.src_uri, Path(config.site_dir), page.content)
        if self.generated.get(page.file.src_uri, ("",))[0] in DEFERRED:
            page.content = None  # written next, and not needed again
        return output

    def on_post_template(self, output_content: str, *, template_name: str, config: MkDocsConfig) -> str:
        # The theme's own pages (404.html) have no Page; sitemap.xml is no HTML.
        if not template_name.endswith(".html"):
            return output_content
        return self._finish_frame(output_content, template_name, Path(config.site_dir))

    def _finish_frame(self, output: str, name: str, site_dir: Path, content: str | None = None) -> str:
        """``output`` with its frame made lean (``frame``: whitespace, configuration, drawer openers,
        scripts as files, written here) and the Content-Security-Policy first in its head."""
        output = frame.theme_config_trimmed(frame.compact(output, content=content), content=content)
        output = frame.without_drawer_openers(output, content=content)
        output, scripts = frame.scripts_to_files(output, content=content)
        for path, text in scripts.items():
            if path not in self.frame_scripts:  # one file for every page of a depth
                target = names.inside(site_dir, path)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")  # a plain write, as MkDocs writes its pages
                self.frame_scripts.add(path)
        try:
            output, blocked = csp.apply(output, content=content, live_reload=self.live_reload)
        except ValueError as exc:
            raise PluginError(f"{name}: {exc}") from None
        if blocked:
            log.warning(
                f"{name}: {blocked} inline script(s) in the page's content will not run (the site's "
                "Content-Security-Policy allows only scripts from files: list it in extra_javascript)"
            )
        return output

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if self.data is not None and self.config.copy_index:
            shutil.copytree(self.data.api, Path(config.site_dir) / "api" / "v1", dirs_exist_ok=True)
        if not config.site_url:  # a sitemap lists absolute addresses: without the site's, MkDocs' is empty
            for name in ("sitemap.xml", "sitemap.xml.gz"):
                (Path(config.site_dir) / name).unlink(missing_ok=True)
            log.info("no sitemap.xml: the site's address is not configured (site.url in prereq.yaml)")


def _extra_pages(folder: Path, *, every_file: bool = False) -> list[str]:
    """The Markdown pages (or, with ``every_file``, all files) under ``folder``, as site paths."""
    # Links are left out: a page linked to /etc/passwd would be published (prereq.yaml's own paths are
    # checked the same way in registry.settings).
    paths = sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink() and not p.name.startswith("."))
    return [p.relative_to(folder).as_posix() for p in paths if every_file or p.suffix == ".md"]


def _nav_paths(nav: Any) -> set[str]:
    """Every page path a MkDocs ``nav`` lists, however nested."""
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, dict):
        return set().union(*(_nav_paths(v) for v in nav.values()))
    if isinstance(nav, list):
        return set().union(*(_nav_paths(v) for v in nav))
    return set()
