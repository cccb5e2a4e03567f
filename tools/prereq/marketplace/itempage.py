"""An item's page (``items/NAME/``): its facts, what it runs, its requirements and the YAML for a job.

The page stays small however many items the item's closure holds (in a generated 10,000-item
registry, up to 185): it shows the item's own OpenPAI form, lists the closure (name, version, type,
link), draws a bounded diagram and shows the first ``DEPENDENTS_SHOWN`` items that require it, each
with the version of this item it resolves (an older one when its range excludes the newest).  The
forms of the items it requires are not on the page: each version's form is a file beside its
item's page (``form_files``: ``items/NAME/VERSION.yaml``, the entry a job's ``prerequisites`` list
takes, which the plugin writes), and the page's script (``site/assets/item.js``) fetches those
the closure list names, in its order, into the snippet's placeholder comment, so the
box shows and Copy copies the whole snippet: ``job_text``.  The script finds each file from the
list's link to the item's page and the version beside it.  Nothing here imports MkDocs.
"""

from __future__ import annotations

import copy
import re
from typing import Any
from urllib.parse import urlencode

from markupsafe import Markup

from prereq.core import placeholders
from prereq.core.yamlload import dump_yaml
from prereq.index import names
from prereq.index.documents import VersionDocument
from prereq.jobs.loadline import CallbackLines, first_callbacks
from prereq.jobs.plan import task_role_fields
from prereq.marketplace.diagram import dependency_svg
from prereq.marketplace.pagemeta import source_links
from prereq.marketplace.pages import ENV, Href, SiteData, role_href
from prereq.marketplace.render import (
    code_block,
    code_block_html,
    escape,
    highlight_fragment,
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
# An item page lists this many of the items that require it (an item 2,000 items require must stay a
# page, not 70,000 px of links); the catalog's ?requires=NAME filter has them all.
DEPENDENTS_SHOWN = 20


# --- the YAML a user pastes into a job ------------------------------------------------


def form_yaml(version: VersionDocument) -> str:
    """A version's OpenPAI form as one entry of a job's ``prerequisites`` list."""
    return dump_yaml([forms.ordered_form(version["openpai"])])


def form_file(version: str) -> str | None:
    """The name of the file holding a version's form, beside its item's page; None for a version no
    file may be named after (only a tampered index has one: the build publishes no other)."""
    return f"{version}.yaml" if names.refusal(version, names.VERSION) is None else None


def form_files(data: SiteData, name: str) -> dict[str, str]:
    """Each published version's form (version → text), for its file (``form_file``) beside the item's page."""
    versions = data.document(name)["versions"]
    return {v["version"]: form_yaml(v) for v in versions if form_file(v["version"])}


def _roles_yaml(data: SiteData, version: VersionDocument) -> str:
    """The task role ``prereq job add`` gives one that runs only this version's closure
    (``jobs.plan.task_role_fields``)."""
    closure = [(node["name"], data.version(node["name"], node["version"])["openpai"]) for node in version["closure"]]
    role = task_role_fields(closure, load_line=data.root["job_load_line"])
    return dump_yaml({"taskRoles": {"taskrole": role}}).replace(
        "\n  taskrole:\n", "\n  taskrole:  # each task role that uses it, under its own name\n", 1
    )


def _snippet_forms(data: SiteData, version: VersionDocument) -> tuple[list[dict[str, Any]], int | None]:
    """The closure's forms as the snippet holds them, and which of them has changed: the first callback
    its task role runs carries the index's long callback line (``jobs.loadline``), as ``prereq job add``
    would place it."""
    closure = [forms.ordered_form(data.version(n["name"], n["version"])["openpai"]) for n in version["closure"]]
    lines = CallbackLines.of(data.root)
    job = {"prerequisites": closure, "taskRoles": {"taskrole": {"prerequisites": [f["name"] for f in closure]}}}
    if lines is None:
        return closure, None
    for entry, callback in first_callbacks(job, lines):  # one task role: one at most
        closure[entry] = copy.deepcopy(closure[entry])
        closure[entry]["callbacks"][callback]["commands"][0] = lines.first
        return closure, entry
    return closure, None


def job_text(data: SiteData, version: VersionDocument) -> str:
    """The whole snippet, as the page's box shows it once its script has put the requirements' forms in:
    the closure's forms, requirements first, then the task role naming them."""
    closure, _ = _snippet_forms(data, version)
    return "prerequisites:\n" + "".join(dump_yaml([form]) for form in closure) + _roles_yaml(data, version)


def _shared(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` start with alike."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def _first_line_attributes(
    data: SiteData, version: VersionDocument, closure: list[dict[str, Any]], entry: int
) -> Markup:
    """For the page's script: the requirement (by position) whose file's text changes where the long
    callback line goes, the offset, and the text there before and after (the lines fold at their depth,
    so the script replaces text, never parses it)."""
    node = version["closure"][entry]
    before, after = form_yaml(data.version(node["name"], node["version"])), dump_yaml([closure[entry]])
    start = _shared(before, after)
    end = min(_shared(before[::-1], after[::-1]), len(before) - start)
    return Markup(
        ' data-prereq-first-entry="{}" data-prereq-first-offset="{}" data-prereq-first-old="{}"'
        ' data-prereq-first-new="{}"'
    ).format(entry, start, before[start : len(before) - end], after[start : len(after) - end])


def _roles_html(roles: str) -> Markup:
    """The task role highlighted, but for its list of names: as long as the closure, and ~140 bytes of
    highlighting a name."""
    lines = roles.splitlines(keepends=True)
    start = lines.index("    prerequisites:\n") + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("    - ")), len(lines))
    head, names, tail = "".join(lines[:start]), "".join(lines[start:end]), "".join(lines[end:])
    return highlight_fragment(head, "yaml") + escape(names) + (highlight_fragment(tail, "yaml") if tail else "")


def job_block(data: SiteData, version: VersionDocument) -> Markup:
    """The snippet's box: the item's own form highlighted, a placeholder comment where its requirements'
    forms go (``assets/item.js`` fills it), the task role."""
    requirements = len(version["closure"]) - 1  # the item is last
    closure, first = _snippet_forms(data, version)
    placeholder = Markup("")
    if requirements:
        comment = (
            f"# + the {requirements} item{'s' if requirements > 1 else ''} it requires (listed above): "
            "Copy YAML puts them here\n"
        )
        moved = Markup("") if first in (None, requirements) else _first_line_attributes(data, version, closure, first)
        placeholder = Markup(
            '<span class="prereq-job-yaml__requirements" data-prereq-requirements="{}"{}>{}</span>'
        ).format(requirements, moved, comment)
    body = Markup("").join(
        [
            highlight_fragment("prerequisites:\n", "yaml"),
            placeholder,
            highlight_fragment(dump_yaml([closure[-1]]), "yaml"),
            _roles_html(_roles_yaml(data, version)),
        ]
    )
    # The block is long (runtime wrappers): it scrolls in a box that keyboard users can focus and scroll.
    return Markup(
        '<div class="prereq-job-yaml" tabindex="0" role="region" aria-label="The YAML for your job">{}</div>'
    ).format(code_block_html(body, "yaml", element_id="prereq-yaml", copy=False, focusable=False))


_ITEM = ENV.get_template("item.html")


def _callbacks(item: dict[str, Any]) -> list[dict[str, Any]]:
    """Each block of commands the item runs: when it runs, its text (``commands``) and highlighted."""
    blocks = [(callback["event"], "\n".join(callback["commands"])) for callback in item.get("callbacks") or []]
    blocks += [(key, "\n".join(item[key])) for key in runtime.COMMAND_KEYS if item.get(key)]
    return [
        {
            "event": event,
            "when": EVENTS.get(runtime.COMMAND_KEYS.get(event, event), ""),
            "commands": text,
            "code": code_block(text, "sh"),
        }
        for event, text in blocks
    ]


def _closure(data: SiteData, version: VersionDocument, item_href: Href) -> list[dict[str, Any]]:
    """The closure as the page lists it, in a job's order: each item's name, version, its page's link
    (none for the item itself) and what it requires directly (for the diagram).  Not each one's type: a
    badge a line was half the list's bytes on 10,000 pages, and each one's own page says it."""
    rows = []
    for node in version["closure"]:
        member = data.version(node["name"], node["version"])
        own = node["name"] == version["item"]["name"]
        rows.append(
            {
                **node,
                "href": None if own else item_href(node["name"]),
                "requires": [r["name"] for r in member["requires"]],
            }
        )
    return rows


def _dependents(data: SiteData, name: str, required_by: list[str]) -> list[dict[str, str]]:
    """The first ``DEPENDENTS_SHOWN`` items that require ``name``, each with the version of it their latest
    version resolves: an older one when their range excludes the newest (they keep resolving it)."""
    rows = []
    for dependent in required_by[:DEPENDENTS_SHOWN]:
        requires = data.document(dependent)["versions"][-1]["requires"]
        version = next((r["version"] for r in requires if r["name"] == name), "")
        rows.append({"name": dependent, "version": version})
    return rows


def _graph(
    name: str, version: VersionDocument, closure: list[dict[str, Any]], required_by: list[str], **links: Any
) -> Markup:
    """The item's dependency diagram: its nearest requirements, the first items that require it, each
    side's rest behind a link (``links``: ``item_href``, ``more`` and ``more_requirements``)."""
    return dependency_svg(
        name,
        version["version"],
        edges={row["name"]: row["requires"] for row in closure},
        versions={row["name"]: row["version"] for row in closure},
        required_by=required_by,
        href=links["item_href"],
        more_href=links["more"],
        more_requirements_href=links["more_requirements"],
    )


def render_item(data: SiteData, name: str, href: Href, *, repo_url: str | None = None) -> Markup:
    """The body of ``items/<name>/``; with the site's ``repo_url``, links to the item's file there."""
    document = data.document(name)
    versions = document["versions"]
    version = versions[-1]
    item = version["item"]
    links = role_href(href)
    dependents_href = href("catalog/") + "?" + urlencode({"requires": name})
    closure = _closure(data, version, links["item_href"])
    graph = _graph(
        name,
        version,
        closure,
        document["required_by"],
        item_href=links["item_href"],
        more=dependents_href,
        more_requirements="#in-a-job",
    )
    callbacks = _callbacks(item)
    settings = {k: v for k, v in item.items() if k not in forms.ITEM_KEYS}
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
            entry=data.entries[name],
            item=item,
            version=version,
            versions=versions,
            required_by=document["required_by"],
            dependents=_dependents(data, name, document["required_by"]),
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
            closure=closure,
            form_file=form_file,
            graph=graph,
            callbacks=callbacks,
            fills_parameters=any(t.namespace == "this" for b in callbacks for t in placeholders.find(b["commands"])),
            plugin=item.get("plugin", runtime.DEFAULT_PLUGIN),
            settings_block=code_block(dump_yaml(settings), "yaml") if settings else None,
            source=document.get("source"),
            source_links=source_links(repo_url, document.get("source"), data.root.get("commit")),
            **links,
        )
    )
