"""The marketplace's generated pages, from the published index only.

``SiteData`` reads ``api/v1`` (the root index and, on demand, per-item files
checked against their sha256); the ``render_*`` functions turn it into HTML
fragments that the MkDocs plugin (``plugin.py``) puts into pages (an item's page:
``itempage``).  Contributor text is escaped by Jinja's autoescape or goes through
``marketplace.render.markdown_to_html``; only our own markup is marked safe.  Nothing here
imports MkDocs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, urlencode

from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup

from prereq.index import names
from prereq.index.documents import Root, RootEntry
from prereq.index.reader import Index
from prereq.marketplace.render import code_block, inline_code

Href = Callable[[str], str]  # a site-root-relative URL -> the URL relative to the page being rendered
# A tag page lists this many of its items (the catalog's ?tag=TAG filter has them all).
TAGGED_SHOWN = 100


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
        self._tags: dict[str, list[RootEntry]] | None = None

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


# --- templates ------------------------------------------------------------------------

ENV = Environment(  # every page's templates (templates/), shared with itempage
    loader=FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
)
ENV.filters["inline_code"] = inline_code
ENV.filters["day"] = lambda iso: (iso or "")[:10]


_CARDS = ENV.get_template("cards.html")

_TAG_INDEX = ENV.get_template("tag_index.html")

_TAG_PAGE = ENV.get_template("tag.html")

_COUNTS = ENV.get_template("counts.html")


def role_href(href: Href) -> dict[str, Callable[[str], str]]:
    return {
        "item_href": lambda name: href(f"items/{quote(name)}/"),
        "tag_href": lambda tag: href(f"tags/{quote(tag)}/"),
        "owner_href": lambda owner: href("catalog/") + "?" + urlencode({"owner": owner}),
    }


_TEMPLATES = ENV.get_template("job_templates.html")


def render_templates(data: SiteData, href: Href) -> Markup:
    """The job templates page: a card per template (its title, the items it uses, the composer, its
    file) with the YAML as written folded inside, so the page is an overview rather than a stack of
    whole jobs."""
    links = role_href(href)
    templates = []
    for template in data.root["templates"]:
        folder, _, file = template["path"].rpartition("/")
        if folder != "templates" or names.refusal(file, names.FILE_NAME):  # a tampered index's: read nothing
            continue
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
            **role_href(href),
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
            **role_href(href),
        )
    )


def render_tag(data: SiteData, tag: str, href: Href) -> Markup:
    entries = data.tags()[tag]
    cards = render_cards(data, entries[:TAGGED_SHOWN], href)
    return Markup(
        _TAG_PAGE.render(
            tag=tag,
            entries=entries,
            shown=TAGGED_SHOWN,
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
