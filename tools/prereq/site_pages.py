"""The marketplace's generated pages, from the published index only.

``SiteData`` reads ``api/v1`` (the root index and, on demand, per-item files
checked against their sha256); the ``render_*`` functions turn it into HTML
fragments that the MkDocs hooks put into pages.  Contributor text is escaped
by Jinja's autoescape or goes through ``site_render.markdown_to_html``; only
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

from jinja2 import Environment
from markupsafe import Markup

from . import openpai, runtime
from .client import Index
from .site_graph import dependency_svg
from .site_render import code_block, code_block_html, highlight_fragment, inline_code, markdown_to_html, safe_url
from .yamlio import dump_yaml

# Catalog facets: what users look for, and the OpenPAI types behind each.
TYPE_GROUPS = {
    "datasets": ("Datasets", ("data",)),
    "widgets": ("Widgets", ("script", "output")),
    "images": ("Images", ("dockerimage",)),
}
TYPE_LABELS = {"data": "Dataset", "script": "Widget · script", "output": "Widget · output",
               "dockerimage": "Docker image"}
EVENTS = {
    "taskStarts": "when the task starts, before the job's commands",
    "containerStart": "when the task starts, before the job's commands (OpenPAI's older name)",
    "taskSucceeds": "after the job's commands succeed",
    "containerExit": "after the job's commands succeed (OpenPAI's older name)",
}
# Keys of an item that say what it is, not what it does (shown elsewhere on the page).
_DESCRIPTIVE = {"name", "version", "type", "title", "description", "tags", "owners", "license", "homepage",
                "deprecated", "require", "parameters", "plugin", "failurePolicy", "callbacks", "preCommands",
                "postCommands"}

Href = Callable[[str], str]  # a site-root-relative URL -> the URL relative to the page being rendered


class SiteData:
    """The published index, as the site sees it (read through the index client)."""

    def __init__(self, index_dir: Path) -> None:
        # Bounded: a closure pulls in a few popular items again and again; 10,000 items must not stay in memory.
        self.index = Index.load(Path(index_dir), cache_size=2048)
        self.api = Path(self.index.base)
        self.root: dict[str, Any] = self.index.root
        self.entries: dict[str, dict[str, Any]] = dict(sorted(self.index.entries.items()))
        self.document = self.index.document
        self.version = self.index.version
        self.form_yaml = lru_cache(maxsize=8192)(self._form_yaml)
        self.form_html = lru_cache(maxsize=8192)(self._form_html)
        self._tags: dict[str, list[dict[str, Any]]] | None = None

    def _form_yaml(self, name: str, version: str) -> str:
        """One entry of a job's ``prerequisites`` list (every page whose closure holds it reuses it)."""
        return dump_yaml([openpai.ordered_form(self.version(name, version)["openpai"])])

    def _form_html(self, name: str, version: str) -> Markup:
        return highlight_fragment(self.form_yaml(name, version), "yaml")

    def tags(self) -> dict[str, list[dict[str, Any]]]:
        """Tag → its items (by name), tags in order; computed once."""
        if self._tags is None:
            tags: dict[str, list[dict[str, Any]]] = {}
            for entry in self.entries.values():
                for tag in entry["tags"]:
                    tags.setdefault(tag, []).append(entry)
            self._tags = dict(sorted(tags.items()))
        return self._tags

    def counts(self) -> dict[str, int]:
        by_type = Counter(entry["type"] for entry in self.entries.values())
        return {group: sum(by_type[t] for t in types) for group, (_, types) in TYPE_GROUPS.items()}

    def recently_updated(self, count: int = 8) -> list[dict[str, Any]]:
        dated = [e for e in self.entries.values() if e.get("updated") and not e.get("deprecated")]
        return sorted(dated, key=lambda e: (e["updated"], e["name"]), reverse=True)[:count]


# --- the YAML a user pastes into a job ------------------------------------------------

def _job_parts(data: SiteData, version: dict[str, Any]) -> list[tuple[str, tuple[str, str] | None]]:
    """The job snippet in pieces: (text, the (name, version) whose OpenPAI form it is, or None)."""
    nodes = [(node["name"], node["version"]) for node in version["closure"]]
    types = {name: data.version(name, v)["openpai"]["type"] for name, v in nodes}
    run = [name for name, _ in nodes if types[name] != "dockerimage"]
    images = [name for name, _ in nodes if types[name] == "dockerimage"]
    role: dict[str, Any] = {}
    if images:
        role["dockerImage"] = images[-1]
    if run:
        role["prerequisites"] = run
    if any(data.version(name, v)["openpai"].get("plugin", "").endswith(".cmd") for name, v in nodes):
        role["commands"] = [data.root["job_load_line"]]
    roles = dump_yaml({"taskRoles": {"taskrole": role}}).replace(
        "\n  taskrole:\n", "\n  taskrole:  # each task role that uses it, under its own name\n", 1)
    return [("prerequisites:\n", None), *((data.form_yaml(*node), node) for node in nodes), (roles, None)]


def job_block(data: SiteData, version: dict[str, Any]) -> Markup:
    """The item's closure in OpenPAI form, requirements first, and the task role naming them, highlighted
    (each form once per build, not once per page)."""
    body = Markup("").join(data.form_html(*node) if node else highlight_fragment(text, "yaml")
                           for text, node in _job_parts(data, version))
    return code_block_html(body, "yaml", element_id="prereq-yaml", copy=False)


# --- templates ------------------------------------------------------------------------

_ENV = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
_ENV.filters["inline_code"] = inline_code
_ENV.filters["day"] = lambda iso: (iso or "")[:10]

_ITEM = _ENV.from_string("""\
<article class="prereq-item" data-prereq-item="{{ entry.name }}">
{% if deprecated %}
<div class="admonition warning prereq-deprecated" role="note">
<p class="admonition-title">Deprecated</p>
<p>{{ deprecated.reason }}</p>
{% if deprecated.replacement %}
<p>Use {% if replacement_href %}<a href="{{ replacement_href }}">{{ deprecated.replacement }}</a>{% else %}<code>{{ deprecated.replacement }}</code>{% endif %} instead.</p>
{% endif %}
</div>
{% endif %}
<header class="prereq-item__header">
<h1 class="prereq-item__title">{{ item.title }}</h1>
<button type="button" class="prereq-star" data-prereq-star="{{ entry.name }}" aria-pressed="false" title="Add to favorites"><span aria-hidden="true">☆</span><span class="prereq-star__label">Favorite</span></button>
</header>
<p class="prereq-item__lead"><code class="prereq-item__name">{{ entry.name }}</code> <span class="prereq-badge prereq-badge--{{ item.type }}">{{ type_label }}</span> <span class="prereq-item__version">{{ version.version }}</span></p>
{% if lead %}<div class="prereq-item__summary">{{ lead }}</div>{% endif %}
<div class="prereq-item__actions">
<button type="button" class="md-button md-button--primary" data-prereq-copy="prereq-yaml" data-prereq-name="{{ entry.name }}">Copy YAML for your job</button>
<a class="md-button" href="{{ composer_href }}">Open in job composer</a>
</div>
<dl class="prereq-facts">
<dt>Type</dt><dd>{{ type_label }} (<code>{{ item.type }}</code>)</dd>
<dt>Version</dt><dd>{{ version.version }}{% if versions|length > 1 %} · all versions: {% for v in versions|reverse %}<span class="prereq-version">{{ v.version }}</span>{% if not loop.last %}, {% endif %}{% endfor %}{% endif %}</dd>
<dt>Owners</dt><dd>{% for owner in item.owners %}<a href="{{ owner_href(owner) }}">{{ owner }}</a>{% if not loop.last %}, {% endif %}{% endfor %}</dd>
<dt>License</dt><dd>{% if item.license %}<code>{{ item.license }}</code>{% else %}not stated{% endif %}</dd>
{% if homepage %}<dt>Homepage</dt><dd><a href="{{ homepage }}" rel="nofollow noopener noreferrer">{{ homepage }}</a></dd>{% endif %}
<dt>Updated</dt><dd>{% if entry.updated %}<time datetime="{{ entry.updated }}">{{ entry.updated | day }}</time>{% else %}not yet committed{% endif %}</dd>
{% if item.tags %}<dt>Tags</dt><dd class="prereq-tags">{% for tag in item.tags %}<a class="prereq-tag" href="{{ tag_href(tag) }}">{{ tag }}</a>{% endfor %}</dd>{% endif %}
{% if version.exports %}<dt>Exports</dt><dd class="prereq-exports">{% for name in version.exports %}<code>${{ name }}</code>{% if not loop.last %}, {% endif %}{% endfor %} <span class="prereq-note">seen by the items after it, the job's commands and the succeed callbacks</span></dd>{% endif %}
<dt>Digest</dt><dd><code class="prereq-digest">{{ version.digest }}</code></dd>
</dl>
{% if details %}
<h2 id="details">Details</h2>
<div class="prereq-description">{{ details }}</div>
{% endif %}
<h2 id="requirements">Requirements</h2>
{% if version.requires or required_by %}
<div class="prereq-graph-wrap">{{ graph }}</div>
{% endif %}
<div class="prereq-relations">
<section>
<h3>Requires</h3>
{% if version.requires %}
<ul class="prereq-requires">{% for r in version.requires %}<li><a href="{{ item_href(r.name) }}">{{ r.name }}</a> <code>{{ r.range }}</code> → {{ r.version }}</li>{% endfor %}</ul>
{% else %}<p>Nothing: it stands alone.</p>{% endif %}
</section>
<section>
<h3>Required by</h3>
{% if required_by %}
<ul class="prereq-required-by">{% for name in required_by %}<li><a href="{{ item_href(name) }}">{{ name }}</a></li>{% endfor %}</ul>
{% else %}<p>No published item requires it.</p>{% endif %}
</section>
</div>
{% if version.closure|length > 1 %}
<p>In a job, in this order: {% for node in version.closure %}{% if node.name == entry.name %}<strong>{{ node.name }} {{ node.version }}</strong>{% else %}<a href="{{ item_href(node.name) }}">{{ node.name }} {{ node.version }}</a>{% endif %}{% if not loop.last %} → {% endif %}{% endfor %}.</p>
{% endif %}
<h2 id="what-it-runs">What it runs</h2>
{% if item.type == "dockerimage" %}
<p>A Docker image: the task role that names it runs in it.</p>
{{ settings_block }}
{% else %}
<p>Plugin <code>{{ plugin }}</code>{% if item.failurePolicy %}, failure policy <code>{{ item.failurePolicy }}</code>{% endif %}. Commands as the author wrote them: <code>&lt;% this.NAME %&gt;</code> is filled from the parameters below.</p>
{% for block in callbacks %}
<h3 class="prereq-event"><code>{{ block.event }}</code>: {{ block.when }}</h3>
{{ block.code }}
{% endfor %}
{% if settings_block %}<h3>Other settings</h3>{{ settings_block }}{% endif %}
{% if not callbacks and not settings_block %}<p>No commands.</p>{% endif %}
{% endif %}
{% if item.parameters %}
<h2 id="parameters">Parameters</h2>
<p>Values for <code>&lt;% this.NAME %&gt;</code> in this item and in the items that require it.</p>
<div class="prereq-parameters"><table><thead><tr><th>name</th><th>value</th></tr></thead><tbody>
{% for key, value in item.parameters.items() %}<tr><td><code>{{ key }}</code></td><td><code>{{ value }}</code></td></tr>{% endfor %}
</tbody></table></div>
{% endif %}
<h2 id="use-it">Use it in a job</h2>
<p>Paste this into your OpenPAI job (protocol version 2). It holds the item{% if version.closure|length > 1 %} and the {{ version.closure|length - 1 }} it requires, requirements first,{% endif %} and the task role's list of what to run. The <a href="{{ composer_href }}">job composer</a> merges it into a job you already have, and so does <code>prereq job add JOB.yaml {{ entry.name }}</code>.</p>
{{ yaml_block }}
<h2 id="versions">Versions</h2>
<div class="prereq-versions"><table><thead><tr><th>version</th><th>digest</th><th>show it</th></tr></thead><tbody>
{% for v in versions|reverse %}<tr><td>{{ v.version }}{% if loop.first %} (latest){% endif %}</td><td><code class="prereq-digest">{{ v.digest[:19] }}…</code></td><td><code>prereq show {{ entry.name }}@{{ v.version }}</code></td></tr>{% endfor %}
</tbody></table></div>
</article>
""")

_CARDS = _ENV.from_string("""\
<ul class="prereq-list">
{% for entry in entries %}
<li class="prereq-list__item{% if entry.deprecated %} prereq-list__item--deprecated{% endif %}">
<a class="prereq-list__name" href="{{ item_href(entry.name) }}">{{ entry.name }}</a>
<span class="prereq-badge prereq-badge--{{ entry.type }}">{{ type_labels[entry.type] }}</span>
{% if entry.deprecated %}<span class="prereq-badge prereq-badge--deprecated">deprecated</span>{% endif %}
{% if show_date and entry.updated %}<time datetime="{{ entry.updated }}">{{ entry.updated | day }}</time>{% endif %}
<div class="prereq-list__title">{{ entry.title }}</div>
{% if show_summary and entry.summary != entry.title %}<div class="prereq-list__summary">{{ entry.summary | inline_code }}</div>{% endif %}
</li>
{% endfor %}
</ul>
""")

_TAG_INDEX = _ENV.from_string("""\
<p>{{ tags|length }} tags over {{ total }} items. The <a href="{{ catalog_href }}">catalog</a> combines them with search and other filters.</p>
<ul class="prereq-tag-cloud">
{% for tag, entries in tags.items() %}<li><a class="prereq-tag" href="{{ tag_href(tag) }}">{{ tag }} <span class="prereq-tag__count">{{ entries|length }}</span></a></li>
{% endfor %}
</ul>
""")

_TAG_PAGE = _ENV.from_string("""\
<h1>Tag: {{ tag }}</h1>
<p>{{ entries|length }} item{% if entries|length != 1 %}s{% endif %} tagged <code>{{ tag }}</code>. <a href="{{ catalog_href }}">Filter the catalog</a> · <a href="{{ tags_href }}">all tags</a></p>
{{ cards }}
""")

_COUNTS = _ENV.from_string("""\
<div class="prereq-counts" data-search-exclude>
{% for group, label, count in counts %}<a class="prereq-count" href="{{ catalog_href }}?type={{ group }}"><span class="prereq-count__number">{{ count }}</span> <span class="prereq-count__label">{{ label }}</span></a>
{% endfor %}
<a class="prereq-count" href="{{ catalog_href }}"><span class="prereq-count__number">{{ total }}</span> <span class="prereq-count__label">in all</span></a>
</div>
""")


def _role_href(href: Href) -> dict[str, Callable[[str], str]]:
    return {
        "item_href": lambda name: href(f"items/{quote(name)}/"),
        "tag_href": lambda tag: href(f"tags/{quote(tag)}/"),
        "owner_href": lambda owner: href("catalog/") + "?" + urlencode({"owner": owner}),
    }


def render_item(data: SiteData, name: str, href: Href) -> Markup:
    """The body of ``items/<name>/``."""
    entry = data.entries[name]
    document = data.document(name)
    versions = document["versions"]
    version = versions[-1]
    item = version["item"]
    links = _role_href(href)

    edges = {node["name"]: [r["name"] for r in data.version(node["name"], node["version"])["requires"]]
             for node in version["closure"]}
    closure_versions = {node["name"]: node["version"] for node in version["closure"]}
    graph = dependency_svg(name, version["version"], edges=edges, versions=closure_versions,
                           required_by=document["required_by"], href=links["item_href"])

    callbacks = []
    for callback in item.get("callbacks") or []:
        callbacks.append({"event": callback["event"], "when": EVENTS.get(callback["event"], ""),
                          "code": code_block("\n".join(callback["commands"]), "sh")})
    for key, event in (("preCommands", "taskStarts"), ("postCommands", "taskSucceeds")):
        if item.get(key):
            callbacks.append({"event": key, "when": EVENTS[event],
                              "code": code_block("\n".join(item[key]), "sh")})
    settings = {k: v for k, v in item.items() if k not in _DESCRIPTIVE}
    plugin = item.get("plugin", runtime.DEFAULT_PLUGIN)
    # The first paragraph is the summary, shown under the title; the rest below the facts.
    parts = re.split(r"\n\s*\n", (item.get("description") or "").strip(), maxsplit=1)
    lead, details = parts[0], (parts[1] if len(parts) > 1 else "")
    deprecated = item.get("deprecated")
    replacement = (deprecated or {}).get("replacement")
    homepage = safe_url(item.get("homepage"))
    if homepage and not homepage.lower().startswith(("http://", "https://")):
        homepage = None

    return Markup(_ITEM.render(
        entry=entry, item=item, version=version, versions=versions, required_by=document["required_by"],
        type_label=TYPE_LABELS.get(item["type"], item["type"]),
        lead=markdown_to_html(lead), details=markdown_to_html(details),
        deprecated=deprecated,
        replacement_href=links["item_href"](replacement) if replacement in data.entries else None,
        homepage=homepage,
        composer_href=href("composer/") + "?" + urlencode({"add": name}),
        yaml_block=job_block(data, version),
        graph=graph, callbacks=callbacks, plugin=plugin,
        settings_block=code_block(dump_yaml(settings), "yaml") if settings else None,
        **links))


_TEMPLATES = _ENV.from_string("""\
<p>Complete OpenPAI jobs that name registry prerequisites in their task roles. Start from one in the
<a href="{{ composer_href }}">job composer</a>, or download it and run
<code>prereq job resolve JOB.yaml</code>: the items it names, and what they require, are added in order.</p>
{% for template in templates %}
<section class="prereq-template" data-prereq-template="{{ template.name }}">
<h2 id="{{ template.name }}">{{ template.title }}</h2>
<p><code>{{ template.name }}</code> ·
<a class="md-button" href="{{ composer_href }}?template={{ template.name | urlencode }}">Start in job composer</a>
<a href="{{ template.download }}" download>download YAML</a></p>
{% if template.uses %}<p>Uses: {% for name in template.uses %}<a href="{{ item_href(name) }}">{{ name }}</a>{% if not loop.last %}, {% endif %}{% endfor %}</p>{% endif %}
{{ template.code }}
</section>
{% else %}
<p>The registry has no job templates yet: add one under <code>registry/templates/</code>.</p>
{% endfor %}
""")


def render_templates(data: SiteData, href: Href) -> Markup:
    """The job templates page: each template as written, with the items it names."""
    links = _role_href(href)
    templates = []
    for template in data.root["templates"]:
        text = (data.api / template["path"]).read_text(encoding="utf-8")
        templates.append({**template, "code": code_block(text, "yaml"),
                          "download": href("api/v1/").rstrip("/") + "/" + template["path"]})
    return Markup(_TEMPLATES.render(templates=templates, composer_href=href("composer/"), **links))


def render_cards(entries: list[dict[str, Any]], href: Href, *, show_date: bool = False,
                 show_summary: bool = True) -> Markup:
    return Markup(_CARDS.render(entries=entries, type_labels=TYPE_LABELS, show_date=show_date,
                                show_summary=show_summary, **_role_href(href)))


def render_tag_index(data: SiteData, href: Href) -> Markup:
    return Markup(_TAG_INDEX.render(tags=data.tags(), total=len(data.entries), catalog_href=href("catalog/"),
                                    **_role_href(href)))


def render_tag(data: SiteData, tag: str, href: Href) -> Markup:
    entries = data.tags()[tag]
    cards = render_cards(entries, href)
    return Markup(_TAG_PAGE.render(tag=tag, entries=entries, cards=cards, tags_href=href("tags/"),
                                   catalog_href=href("catalog/") + "?" + urlencode({"tag": tag})))


def render_counts(data: SiteData, href: Href) -> Markup:
    counts = data.counts()
    rows = [(group, label, counts[group]) for group, (label, _) in TYPE_GROUPS.items()]
    return Markup(_COUNTS.render(counts=rows, total=len(data.entries), catalog_href=href("catalog/")))


def render_recent(data: SiteData, href: Href, count: int = 8) -> Markup:
    recent = data.recently_updated(count)
    if not recent:
        return Markup("<p>No item has been committed yet.</p>")
    return Markup('<section data-search-exclude>{}</section>').format(render_cards(recent, href, show_date=True,
                                                                           show_summary=False))


# --- the item format reference (from our own schema: trusted text) ----------------------

def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _describe_type(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return "one of " + ", ".join(f"`{v}`" for v in prop["enum"])
    if "const" in prop:
        return f"`{prop['const']}`"
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    kind = prop.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        items = prop.get("items") or {}
        inner = _describe_type(items) if items else "values"
        if "$ref" in items:
            inner = "commands" if items["$ref"].endswith("commands") else inner
        return f"list of {inner}" + ("s" if inner in ("string", "object") else "")
    if kind == "object":
        keys = list((prop.get("properties") or {}).keys())
        return "mapping" + (f" ({', '.join(keys)})" if keys else "")
    return kind or "any"


def _property_rows(properties: dict[str, Any], required: list[str]) -> list[str]:
    rows = ["| key | required | value | what |", "|---|---|---|---|"]
    for key, prop in properties.items():
        parts = [prop.get("description") or ""]
        if prop.get("x-hint"):
            parts.append(f"Hint: {prop['x-hint']}.")
        what = " ".join(part for part in parts if part)
        rows.append(f"| `{key}` | {'yes' if key in required else ''} | {_cell(_describe_type(prop))} | {_cell(what)} |")
    return rows


def format_reference_markdown(schema: dict[str, Any], example: str | None = None) -> str:
    defs = schema["$defs"]
    lines = [
        "# Item format",
        "",
        "An item is one YAML file, `registry/prerequisites/<name>.yaml`, whose `name` is the file's stem. "
        "`prereq validate` checks it against this format (the machine-readable form is "
        "[prerequisite.schema.json](prerequisite.schema.json), JSON Schema 2020-12) and against the rest of "
        "the registry: see the [rule reference](rules.md).",
        "",
        "## Every item",
        "",
        *_property_rows(schema["properties"], schema.get("required", [])),
        "",
        "Items of type `data` must state a `license`.",
        "",
        "## Datasets and widgets (`data`, `script`, `output`)",
        "",
        *_property_rows(defs["runnable"]["properties"], []),
        "",
        "`uri` is a list of strings for `data` items and one string for `script` and `output` items.",
    ]
    for key in sorted(k for k in defs if k.startswith("plugin-")):
        plugin = key.removeprefix("plugin-")
        section = defs[key]
        lines += ["", f"### Plugin `{plugin}`", "", section.get("description", ""), "",
                  *_property_rows(section["properties"], section.get("required", []))]
    image = defs["dockerimage"]
    lines += ["", "## Docker images (`dockerimage`)", "", *_property_rows(image["properties"], image.get("required", [])),
              "", "`auth` values are secret references such as `<% $secrets.registryPassword %>`: never write "
              "credentials into the registry.", ""]
    lines += ["## Templates", "",
              "- `<% this.NAME %>` is filled from `parameters`: the item's own, then those of the items it "
              "requires (nearest first).",
              "- `<% $secrets.KEY %>` and `<% expression.KEY %>` are left for the job: each user's job carries its "
              "secrets and expressions.", ""]
    if example:
        lines += ["## An example", "", "```yaml", example.rstrip("\n"), "```", ""]
    return "\n".join(lines)


FORMAT_EXAMPLE = """\
name: imagenet-subset
version: 1.1.0
type: data
title: A 100-class ImageNet subset on the shared volume
description: |
  Unpacks the subset under `<mountPoint>/imagenet-100` and exports `IMAGENET_DIR`.

  The first paragraph is the summary shown in the catalog; the rest is Markdown too.
tags: [vision, classification]
owners: [vision-team]
license: LicenseRef-imagenet-terms
homepage: https://www.image-net.org/
require:
  - nfs-storage-1@^1.0        # gives <% this.mountPoint %>
  - base-tools
parameters:
  subset: imagenet-100
callbacks:
  - event: taskStarts
    commands:
      - export IMAGENET_DIR=<% this.mountPoint %>/<% this.subset %>
      - test -d $IMAGENET_DIR || tar -xf /datasets/<% this.subset %>.tar -C <% this.mountPoint %>
"""
