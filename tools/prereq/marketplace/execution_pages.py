"""The execution catalog's pages, from the published ``api/v1/execution/catalog.json`` only.

"Where jobs run" lists the queues, environments and libraries; "Which queues do I get" holds the
rights by queue and group, and, for every user and for every group alone, the queues they get (the
rule of ``execution.rights.combine``, at a reputation of 100).  Pages are static: every text of the
catalog is escaped here (this module has no Jinja), and the plugin puts the fragments into pages.

May import: prereq.execution, and the standard library.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from html import escape
from pathlib import Path
from typing import Any

from prereq.execution.catalog_index import CATALOG_FILE
from prereq.execution.rights import combine

Href = Callable[[str], str]
PAGES = {"execution": "execution/index.md", "rights": "execution/rights/index.md"}
TITLES = {"execution": "Where jobs run", "rights": "Which queues do I get"}


def catalog(api: Path) -> dict[str, Any] | None:
    """The published catalog beside the index at ``api`` (api/v1), or None when there is none."""
    path = api / CATALOG_FILE.relative_to(Path("api") / "v1")
    if not path.is_file():
        return None
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def _table(caption: str, headers: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    """A table, styled as the site's others, in a box that scrolls sideways where a phone is too narrow
    (focusable, so that a keyboard scrolls it too); the cells are HTML already escaped."""
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return (
        f'<div class="prereq-table" tabindex="0" role="region" aria-label="{escape(caption)}">'
        f'<table class="prereq-execution"><caption>{escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _code(values: Iterable[str]) -> str:
    return ", ".join(f"<code>{escape(v)}</code>" for v in values) or "—"


def _queues(document: dict[str, Any]) -> str:
    rows = [
        [
            f'<span id="queue-{escape(q["name"])}"><code>{escape(q["name"])}</code></span><br>{escape(q["title"])}',
            f"{q['cores_per_slot']} cores, {q['memory_mb']} MB"
            + (f", {q['gpus_per_slot']} GPU" if q["gpus_per_slot"] else ""),
            f"{q['time_limit_minutes']} min",
            f"{q['slots_per_machine']} x {q['machines']} machines = {q['total_slots']}",
            _code(q["environments"]),
            f"<code>{escape(q['virtual_cluster'])}</code>",
        ]
        for q in document["queues"]
    ]
    headers = ("queue", "per slot", "time limit", "slots", "environments", "virtual cluster")
    return _table("Queues: a block takes slots of one machine", headers, rows)


def _environments(document: dict[str, Any]) -> str:
    rows = []
    for env in document["environments"]:
        ref = f"{env['name']}@{env['version']}"
        image = env["image"].get("item") or env["image"].get("uri", "")
        packages = ", ".join(f"{escape(name)} {escape(version)}" for name, version in env["packages"].items())
        rows.append(
            [
                f'<span id="env-{escape(ref)}"><code>{escape(ref)}</code></span><br>{escape(env["title"])}',
                f"{escape(env['os']['name'])} {escape(env['os']['version'])}; {escape(', '.join(env['languages']))}",
                _code(env["capabilities"]),
                f"<code>{escape(image)}</code>",
                packages,
                _code(env["queues"]),
            ]
        )
    headers = ("environment", "system and languages", "capabilities", "image", "packages", "served by")
    return _table("Environments", headers, rows)


def _libraries(document: dict[str, Any]) -> str:
    rows = [
        [
            f"<code>{escape(lib['name'])}@{escape(lib['version'])}</code><br>{escape(lib['title'])}",
            escape(lib["language"]),
            _code(lib["effective_environments"]),
            _code(lib["depends"]),
            escape(lib["install"].get("prerequisite") or f"{len(lib['install'].get('files') or [])} file(s)"),
        ]
        for lib in document["libraries"]
    ]
    headers = ("library", "language", "works in (with its dependencies)", "depends on", "installed by")
    return _table("Libraries", headers, rows)


def _rows(document: dict[str, Any]) -> list[tuple[str, str, int, int]]:
    return [(r["queue"], r["group"], r["slots"], r["priority"]) for r in document["rights"]]


def _gets(document: dict[str, Any], groups: Iterable[str]) -> str:
    got = combine(_rows(document), groups)
    return (
        ", ".join(f"<code>{escape(q)}</code> {slots} slot(s), priority {prio}" for q, (slots, prio, _) in got.items())
        or "no queue"
    )


def _rights(document: dict[str, Any]) -> str:
    groups = sorted({r["group"] for r in document["rights"]})
    cells: dict[tuple[str, str], str] = {
        (r["queue"], r["group"]): f"{r['slots']} / {r['priority']}" for r in document["rights"]
    }
    rows = [
        [f"<code>{escape(q['name'])}</code>", *(cells.get((q["name"], g), "—") for g in groups)]
        for q in document["queues"]
    ]
    matrix = _table("Rights by queue and group: slots / priority", ["queue", *groups], rows)
    members: dict[str, set[str]] = {}
    for name, group in document["groups"].items():
        for user in group["members"]:
            members.setdefault(user, set()).add(name)
    users = [[escape(user), _code(sorted(mine)), _gets(document, mine)] for user, mine in sorted(members.items())]
    per_user = _table("What each user gets (over all their groups)", ["user", "groups", "queues"], users)
    alone = [[f"<code>{escape(g)}</code>", _gets(document, [g])] for g in sorted(document["groups"])]
    per_group = _table("What each group gives on its own", ["group", "queues"], alone)
    return matrix + per_user + per_group


INTRO = {
    "execution": (
        "<p>Each block of an experiment runs in an <em>environment</em>, on a <em>queue</em>, with the "
        "<em>libraries</em> it uses. A queue is offered for a block when you have a slot on it, it serves the "
        "block's environment, and every library (with all it depends on) works there. Ask with "
        "<code>prereq queues --user NAME --environment NAME@VERSION --library NAME@VERSION</code>.</p>"
    ),
    "rights": (
        "<p>Your right on a queue is, over all your groups, the most slots and, separately, the highest "
        "priority. A reputation multiplies the slots (100% is x1), rounded down and capped at the queue's "
        "total, never below one slot. <code>prereq rights --user NAME --reputation PERCENT</code> computes it; "
        "<code>prereq schedule</code> shows what a change of these rows does to real requests.</p>"
    ),
}


def render(api: Path, kind: str, href: Href) -> str:
    """The body of the page ``kind`` ("execution" or "rights")."""
    document = catalog(api)
    if document is None:
        return "<p>This registry has no execution catalog.</p>"
    link = {"execution": ("rights", "Which queues do I get"), "rights": ("execution", "Where jobs run")}[kind]
    see = f'<p>See also <a href="{escape(href(PAGES[link[0]].removesuffix("index.md")))}">{escape(link[1])}</a>.</p>'
    if kind == "execution":
        return INTRO[kind] + see + _queues(document) + _environments(document) + _libraries(document)
    return INTRO[kind] + see + _rights(document)
