"""The marketplace's generated pages, from the published index only.

``SiteData`` reads ``api/v1`` (the root index and, on demand, per-item files
checked against their sha256); the ``render_*`` functions turn it into HTML
fragments that the MkDocs plugin (``plugin.py``) puts into pages.  Contributor text is escaped
by Jinja's autoescape or goes through ``marketplace.render.markdown_to_html``; only
our own markup is marked safe.  Nothing here imports MkDocs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup

from prereq.core.yamlload import dump_yaml
from prereq.index.documents import Root, RootEntry, VersionDocument
from prereq.index.reader import Index
from prereq.jobs.plan import task_role_fields
from prereq.marketplace.diagram import dependency_svg
from prereq.marketplace.pagemeta import source_links
from prereq.marketplace.render import (
    code_block,
    code_block_html,
    highlight_fragment,
    inline_code,
    markdown_to_html,
    safe_url,
)
from prereq.openpai import forms, runtime

EVENTS = {
    "taskStarts": "when the task starts, before the job's commands",
    "containerStart": "when the task starts, before the job's commands (OpenPAI's older name)",
    "taskSucceeds": "after the job's commands succeed",
    "containerExit": "after the job's commands succeed (OpenPAI's older name)",
}
Href = Callable[[str], str]  # a site-root-relative URL -> the URL relative to the page being rendered
# An item page lists this many of the items that require it (an item 2,000 items require must stay a
# page, not 70,000 px of links); the catalog's ?requires=NAME filter has them all.
DEPENDENTS_SHOWN = 20


class SiteData:
    """The published index, as the site sees it (read through the index client)."""

    def __init__(self, index_dir: Path) -> None:
        # Bounded: a closure pulls in a few popular items again and again; 10,000 items must not stay in memory.
        self.index = Index.load(Path(index_dir), cache_size=2048)
        self.api = Path(self.index.base)
        self.root: Root = self.index.root
        self.entries: dict[str, RootEntry] = dict(sorted(self.index.entries.items()))
        self.document = self.index.document
        self.version = self.index.version
        self.form_yaml = lru_cache(maxsize=8192)(self._form_yaml)
        self.form_html = lru_cache(maxsize=8192)(self._form_html)
        self._tags: dict[str, list[RootEntry]] | None = None

    def _form_yaml(self, name: str, version: str) -> str:
        """One entry of a job's ``prerequisites`` list (every page whose closure holds it reuses it)."""
        return dump_yaml([forms.ordered_form(self.version(name, version)["openpai"])])

    def _form_html(self, name: str, version: str) -> Markup:
        return highlight_fragment(self.form_yaml(name, version), "yaml")

    def tags(self) -> dict[str, list[RootEntry]]:
        """Tag → its items (by name), tags in order; computed once."""
        if self._tags is None:
            tags: dict[str, list[RootEntry]] = {}
            for entry in self.entries.values():
                for tag in entry["tags"]:
                    tags.setdefault(tag, []).append(entry)
            self._tags = dict(sorted(tags.items()))
        return self._tags

    def live(self) -> list[RootEntry]:
        """The entries that are not deprecated: what every count of the site counts (the catalog hides
        deprecated items unless asked)."""
        return [entry for entry in self.entries.values() if not entry.get("deprecated")]

    def counts(self) -> dict[str, int]:
        by_type = Counter(entry["type"] for entry in self.live())
        return {group["name"]: sum(by_type[t] for t in group["types"]) for group in self.root["type_groups"]}

    def recently_updated(self, count: int = 8) -> list[RootEntry]:
        dated = [e for e in self.entries.values() if e.get("updated") and not e.get("deprecated")]
        return sorted(dated, key=lambda e: (e["updated"], e["name"]), reverse=True)[:count]


# --- the YAML a user pastes into a job ------------------------------------------------


def _job_parts(data: SiteData, version: VersionDocument) -> list[tuple[str, tuple[str, str] | None]]:
    """The job snippet in pieces: (text, the (name, version) whose OpenPAI form it is, or None); the task
    role is what ``prereq job add`` gives one (``jobs.plan.task_role_fields``)."""
    nodes = [(node["name"], node["version"]) for node in version["closure"]]
    closure = [(name, data.version(name, v)["openpai"]) for name, v in nodes]
    role = task_role_fields(closure, load_line=data.root["job_load_line"])
    roles = dump_yaml({"taskRoles": {"taskrole": role}}).replace(
        "\n  taskrole:\n", "\n  taskrole:  # each task role that uses it, under its own name\n", 1
    )
    return [("prerequisites:\n", None), *((data.form_yaml(*node), node) for node in nodes), (roles, None)]


def job_block(data: SiteData, version: VersionDocument) -> Markup:
    """The item's closure in OpenPAI form, requirements first, and the task role naming them, highlighted
    (each form once per build, not once per page)."""
    body = Markup("").join(
        data.form_html(*node) if node else highlight_fragment(text, "yaml") for text, node in _job_parts(data, version)
    )
    # The block is long (runtime wrappers): it scrolls in a box that keyboard users can focus and scroll.
    return Markup(
        '<div class="prereq-job-yaml" tabindex="0" role="region" aria-label="The YAML for your job">{}</div>'
    ).format(code_block_html(body, "yaml", element_id="prereq-yaml", copy=False))


# --- templates ------------------------------------------------------------------------

_ENV = Environment(
    loader=FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENV.filters["inline_code"] = inline_code
_ENV.filters["day"] = lambda iso: (iso or "")[:10]

_ITEM = _ENV.get_template("item.html")

_CARDS = _ENV.get_template("cards.html")

_TAG_INDEX = _ENV.get_template("tag_index.html")

_TAG_PAGE = _ENV.get_template("tag.html")

_COUNTS = _ENV.get_template("counts.html")


def _role_href(href: Href) -> dict[str, Callable[[str], str]]:
    return {
        "item_href": lambda name: href(f"items/{quote(name)}/"),
        "tag_href": lambda tag: href(f"tags/{quote(tag)}/"),
        "owner_href": lambda owner: href("catalog/") + "?" + urlencode({"owner": owner}),
    }


def _callbacks(item: dict[str, Any]) -> list[dict[str, Any]]:
    """Each block of commands the item runs, with when it runs, highlighted."""
    callbacks = []
    for callback in item.get("callbacks") or []:
        callbacks.append(
            {
                "event": callback["event"],
                "when": EVENTS.get(callback["event"], ""),
                "code": code_block("\n".join(callback["commands"]), "sh"),
            }
        )
    for key, event in runtime.COMMAND_KEYS.items():
        if item.get(key):
            callbacks.append({"event": key, "when": EVENTS[event], "code": code_block("\n".join(item[key]), "sh")})
    return callbacks


def _graph(data: SiteData, name: str, version: Any, required_by: list[str], *, item_href: Href, more: str) -> Markup:
    """The item's dependency diagram: its closure, and who requires it (the rest behind ``more``)."""
    edges = {
        node["name"]: [r["name"] for r in data.version(node["name"], node["version"])["requires"]]
        for node in version["closure"]
    }
    closure_versions = {node["name"]: node["version"] for node in version["closure"]}
    return dependency_svg(
        name,
        version["version"],
        edges=edges,
        versions=closure_versions,
        required_by=required_by,
        href=item_href,
        more_href=more,
    )


def render_item(data: SiteData, name: str, href: Href, *, repo_url: str | None = None) -> Markup:
    """The body of ``items/<name>/``; with the site's ``repo_url``, links to the item's file there."""
    entry = data.entries[name]
    document = data.document(name)
    versions = document["versions"]
    version = versions[-1]
    item = version["item"]
    links = _role_href(href)
    dependents_href = href("catalog/") + "?" + urlencode({"requires": name})
    graph = _graph(data, name, version, document["required_by"], item_href=links["item_href"], more=dependents_href)
    callbacks = _callbacks(item)
    settings = {k: v for k, v in item.items() if k not in forms.ITEM_KEYS}
    plugin = item.get("plugin", runtime.DEFAULT_PLUGIN)
    # The first paragraph is the summary, shown under the title; the rest below the facts.
    parts = re.split(r"\n\s*\n", (item.get("description") or "").strip(), maxsplit=1)
    lead, details = parts[0], (parts[1] if len(parts) > 1 else "")
    deprecated = item.get("deprecated")
    replacement = (deprecated or {}).get("replacement")
    homepage = safe_url(item.get("homepage"))
    if homepage and not homepage.lower().startswith(("http://", "https://")):
        homepage = None

    return Markup(
        _ITEM.render(
            entry=entry,
            item=item,
            version=version,
            versions=versions,
            required_by=document["required_by"],
            type_label=data.root["type_labels"].get(item["type"], item["type"]),
            lead=markdown_to_html(lead),
            details=markdown_to_html(details),
            deprecated=deprecated,
            replacement_href=links["item_href"](replacement) if replacement in data.entries else None,
            homepage=homepage,
            composer_href=href("composer/") + "?" + urlencode({"add": name}),
            dependents_href=dependents_href,
            dependents_shown=DEPENDENTS_SHOWN,
            requirements_href=href("catalog/") + "?" + urlencode({"required_by": name}),
            yaml_block=job_block(data, version),
            graph=graph,
            callbacks=callbacks,
            plugin=plugin,
            settings_block=code_block(dump_yaml(settings), "yaml") if settings else None,
            source=document.get("source"),
            source_links=source_links(repo_url, document.get("source"), data.root.get("commit")),
            **links,
        )
    )


_TEMPLATES = _ENV.get_template("job_templates.html")


def render_templates(data: SiteData, href: Href) -> Markup:
    """The job templates page: a card per template (its title, the items it uses, the composer, its
    file) with the YAML as written folded inside, so the page is an overview rather than a stack of
    whole jobs."""
    links = _role_href(href)
    templates = []
    for template in data.root["templates"]:
        text = (data.api / template["path"]).read_text(encoding="utf-8")
        templates.append(
            {
                **template,
                "uses": [data.entries[name] for name in template["uses"] if name in data.entries],
                "lines": text.count("\n") + (not text.endswith("\n")),
                "code": code_block(text, "yaml"),
                "download": href("api/v1/").rstrip("/") + "/" + template["path"],
            }
        )
    return Markup(
        _TEMPLATES.render(
            templates=templates, composer_href=href("composer/"), type_labels=data.root["type_labels"], **links
        )
    )


def render_cards(
    data: SiteData, entries: list[RootEntry], href: Href, *, show_date: bool = False, show_summary: bool = True
) -> Markup:
    return Markup(
        _CARDS.render(
            entries=entries,
            type_labels=data.root["type_labels"],
            show_date=show_date,
            show_summary=show_summary,
            **_role_href(href),
        )
    )


def render_tag_index(data: SiteData, href: Href) -> Markup:
    live = {tag: sum(not entry.get("deprecated") for entry in entries) for tag, entries in data.tags().items()}
    return Markup(
        _TAG_INDEX.render(
            tags={tag: count for tag, count in live.items() if count},
            total=len(data.live()),
            deprecated=len(data.entries) - len(data.live()),
            catalog_href=href("catalog/"),
            **_role_href(href),
        )
    )


def render_tag(data: SiteData, tag: str, href: Href) -> Markup:
    entries = data.tags()[tag]
    cards = render_cards(data, entries, href)
    return Markup(
        _TAG_PAGE.render(
            tag=tag,
            entries=entries,
            cards=cards,
            tags_href=href("tags/"),
            catalog_href=href("catalog/") + "?" + urlencode({"tag": tag}),
        )
    )


def render_counts(data: SiteData, href: Href) -> Markup:
    counts = data.counts()
    rows = [(group["name"], group["label"], counts[group["name"]]) for group in data.root["type_groups"]]
    deprecated = len(data.entries) - len(data.live())
    return Markup(
        _COUNTS.render(counts=rows, total=len(data.live()), deprecated=deprecated, catalog_href=href("catalog/"))
    )


def render_recent(data: SiteData, href: Href, count: int = 8) -> Markup:
    recent = data.recently_updated(count)
    if not recent:
        return Markup("<p>No item has been committed yet.</p>")
    return Markup("<section data-search-exclude>{}</section>").format(
        render_cards(data, recent, href, show_date=True, show_summary=False)
    )
