"""What a page says about itself beside its body: its meta description, the date the sitemap gives
it, an item's links to its file in the registry's repository, and where a new item is proposed.

Search engines and link previews show a page's meta description; without one every page would carry
the site's own.  Descriptions are plain text here: the plugin escapes them once.  Nothing here
imports MkDocs.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from urllib.parse import quote, urlsplit

from prereq.index.documents import RootEntry
from prereq.marketplace.render import safe_url

DESCRIPTION_MAX = 300  # characters: what search engines show, and more than enough for a preview
NAMES_IN_DESCRIPTION = 5
_PARAGRAPH = re.compile(r"<p\b([^>]*)>(.*?)</p>", re.S)
_TAG = re.compile(r"<[^>]+>")


def clip(text: str, limit: int = DESCRIPTION_MAX) -> str:
    """``text`` on one line, cut at a word within ``limit`` characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:.") + "…"


def first_paragraph(body: str) -> str:
    """The text of the first paragraph of a page's HTML that says something (not hidden, not empty)."""
    for match in _PARAGRAPH.finditer(body):
        if re.search(r"\bhidden\b", match.group(1)):
            continue
        text = " ".join(html.unescape(_TAG.sub("", match.group(2))).split())
        if text:
            return clip(text)
    return ""


def tag_description(tag: str, entries: Sequence[RootEntry]) -> str:
    names = [entry["name"] for entry in entries]
    shown = ", ".join(names[:NAMES_IN_DESCRIPTION])
    more = f" and {len(names) - NAMES_IN_DESCRIPTION} more" if len(names) > NAMES_IN_DESCRIPTION else ""
    count = f"{len(names)} prerequisite{'s' if len(names) != 1 else ''}"
    return clip(f"{count} tagged {tag}: {shown}{more}.")


def sitemap_date(entries: Sequence[RootEntry]) -> str | None:
    """The day the newest of ``entries`` last changed (YYYY-MM-DD), for the sitemap's lastmod."""
    days = [updated[:10] for entry in entries if (updated := entry.get("updated"))]
    return max(days) if days else None


def source_links(repo_url: str | None, source: str | None, commit: str | None) -> dict[str, str] | None:
    """Links to an item's file in the repository at ``repo_url``: ``view`` as built (at ``commit``, so
    the page and the file agree) and ``edit`` on the default branch (HEAD: the index does not record a
    branch).  None without a repository address or a file.  GitLab and Bitbucket lay their addresses
    out their own way; any other host is taken to lay them out as GitHub does."""
    url = safe_url(repo_url)
    if not url or not source or not url.lower().startswith(("http://", "https://")):
        return None
    base = url.rstrip("/").removesuffix(".git")
    host = urlsplit(base).netloc.lower()
    path = quote(source)
    ref = quote(commit or "HEAD")
    if "gitlab" in host:
        return {"view": f"{base}/-/blob/{ref}/{path}", "edit": f"{base}/-/edit/HEAD/{path}"}
    if host == "bitbucket.org":
        return {"view": f"{base}/src/{ref}/{path}", "edit": f"{base}/src/HEAD/{path}?mode=edit"}
    return {"view": f"{base}/blob/{ref}/{path}", "edit": f"{base}/edit/HEAD/{path}"}


def new_item_url(repo_url: str | None, folder: str | None) -> str | None:
    """The forge's page that creates a file in ``folder`` of the repository at ``repo_url``, prefilled:
    a template whose ``{name}`` (the item's file name without ``.yaml``) and ``{value}`` (its text) the
    composer fills in, URL-encoded.  GitHub's layout (``/new/BRANCH?filename=…&value=…``; ``HEAD`` is
    the default branch), which GitHub Enterprise shares; None for GitLab and Bitbucket, whose new-file
    pages take no content from the address, and without a repository or a folder."""
    url = safe_url(repo_url)
    if not url or not folder or not url.lower().startswith(("http://", "https://")):
        return None
    base = url.rstrip("/").removesuffix(".git")
    host = urlsplit(base).netloc.lower()
    if "gitlab" in host or host == "bitbucket.org":
        return None
    return f"{base}/new/HEAD?filename={quote(folder.strip('/') + '/', safe='')}{{name}}.yaml&value={{value}}"
