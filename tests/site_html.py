"""Reading the site's HTML in tests: every start tag with its attributes (and whether it sits inside
the page's <article>), the page's <style> text, whether a URL points at another host, and an item
page's job snippet."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path


class Tags(HTMLParser):
    """Every start tag with its attributes; which ones sit inside <article>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str], bool]] = []
        self.depth = 0
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}, self.depth > 0))
        if tag == "article":
            self.depth += 1
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self.depth -= 1
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def parse(path: Path) -> Tags:
    parser = Tags()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def is_remote(url: str) -> bool:
    return bool(re.match(r"^\s*(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)", url)) and not url.strip().startswith(("data:", "#"))


_SNIPPET = re.compile(r'<code id="prereq-yaml">(.*?)</code>', re.S)
_PLACEHOLDER = re.compile(r'<span class="prereq-job-yaml__requirements"[^>]*>.*?</span>', re.S)
_FIRST_LINE = re.compile(
    r'data-prereq-first-entry="(\d+)" data-prereq-first-offset="(\d+)" '
    r'data-prereq-first-old="([^"]*)" data-prereq-first-new="([^"]*)"'
)
_CLOSURE = re.compile(r'<ol class="prereq-closure">(.*?)</ol>', re.S)
_REQUIREMENT = re.compile(r'<li><a href="\.\./([^/"]+)/">[^<]*</a> <code>([^<]+)</code>')


def snippet(page: str) -> str:
    """The text of an item page's "Use it in a job" box as written (the requirements' forms not in)."""
    block = _SNIPPET.search(page)
    assert block is not None, "no snippet"
    return html.unescape(re.sub(r"<[^>]+>", "", block.group(1)))


def whole_snippet(site: Path, name: str) -> str:
    """The box's text once the page's script (assets/item.js) has put in the forms of the items the
    closure list names, read from the files beside their pages, as the script reads them."""
    page = (site / "items" / name / "index.html").read_text(encoding="utf-8")
    listed = _CLOSURE.search(page)
    forms = [
        (site / "items" / other / f"{version}.yaml").read_text(encoding="utf-8")
        for other, version in _REQUIREMENT.findall(listed.group(1) if listed else "")
    ]
    first = _FIRST_LINE.search(page)
    if first:  # the long callback line goes into a requirement's form, at an offset of its text
        entry, offset, old, new = int(first[1]), int(first[2]), html.unescape(first[3]), html.unescape(first[4])
        assert forms[entry][offset : offset + len(old)] == old
        forms[entry] = forms[entry][:offset] + new + forms[entry][offset + len(old) :]
    return snippet(_PLACEHOLDER.sub("\0", page, count=1)).replace("\0", "".join(forms))
