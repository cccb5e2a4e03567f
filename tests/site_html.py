"""Reading the site's HTML in tests: every start tag with its attributes (and whether it sits inside
the page's <article>), the page's <style> text, and whether a URL points at another host."""

from __future__ import annotations

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
