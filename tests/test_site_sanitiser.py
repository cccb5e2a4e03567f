"""The site's sanitiser: an item author's text is only text on every page that shows it, links keep
safe schemes only, and Markdown keeps what is safe and drops the rest."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from prereq.marketplace.build import build
from prereq.marketplace.render import markdown_to_html, safe_url
from site_html import is_remote, parse

REPO = Path(__file__).resolve().parents[1]
HOSTILE = REPO / "tests" / "browser" / "fixture" / "hostile-item.yaml"
FIXTURE_REGISTRY = REPO / "tests" / "browser" / "fixture" / "registry"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A registry (not in git) with an item whose author tries to inject script."""
    root = tmp_path_factory.mktemp("hostile")
    shutil.copytree(FIXTURE_REGISTRY, root / "registry")
    shutil.copy(HOSTILE, root / "registry" / "prerequisites" / "evil-item.yaml")
    result = build(root / "registry", root / "out")
    assert result.built, result.problems
    return result.out


def test_hostile_text_is_only_text(hostile_site: Path) -> None:
    page = hostile_site / "items" / "evil-item" / "index.html"
    parsed = parse(page)
    inside = [(tag, attrs) for tag, attrs, in_article in parsed.tags if in_article]
    assert inside
    for tag, attrs in inside:
        assert tag not in ("script", "img", "iframe", "style", "object", "embed", "form"), (tag, attrs)
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        for name in ("href", "src", "xlink:href"):
            if name in attrs:
                assert safe_url(attrs[name]) is not None, (tag, attrs)
    # Only the theme's and the site's own scripts, all local.
    scripts = [attrs.get("src") for tag, attrs, _ in parsed.tags if tag == "script"]
    assert all(src is None or not is_remote(src) for src in scripts)
    text = page.read_text(encoding="utf-8")
    assert "&lt;script&gt;window.__pwned = 1" in text  # shown, as text
    for tag, attrs, _ in parsed.tags:  # attribute values as the browser reads them
        for name, value in attrs.items():
            assert not re.match(r"(?i)(?:javascript|vbscript|data):", re.sub(r"[\x00-\x20]", "", value)), (tag, name)
    # The catalog's data: the index carries the text as JSON, the catalog writes it as text.
    index = json.loads((hostile_site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    assert any("<script>" in entry["title"] for entry in index["items"])
    catalog = (hostile_site / "assets" / "catalog.js").read_text(encoding="utf-8")
    assert "innerHTML" not in catalog and "insertAdjacentHTML" not in catalog
    assert "innerHTML" not in (hostile_site / "assets" / "prereq.js").read_text(encoding="utf-8")
    # Tag pages and lists escape titles too.
    tag_page = (hostile_site / "tags" / "security-test" / "index.html").read_text(encoding="utf-8")
    assert "<script>window" not in tag_page and "&lt;script&gt;window" in tag_page


@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://example.org/a?b=1&c=2", "https://example.org/a?b=1&c=2"),
        ("mailto:someone@example.org", "mailto:someone@example.org"),
        ("../other/", "../other/"),
        ("#anchor", "#anchor"),
        ("javascript:alert(1)", None),
        ("JaVaScRiPt:alert(1)", None),
        (" javascript:alert(1)", None),
        ("java\tscript:alert(1)", None),
        ("java&#x09;script:alert(1)", None),
        ("&#106;avascript:alert(1)", None),
        ("vbscript:msgbox", None),
        ("data:text/html,<script>alert(1)</script>", None),
        ("file:///etc/passwd", None),
    ],
)
def test_safe_url(url: str, expected: str | None) -> None:
    assert safe_url(url) == expected


@pytest.mark.parametrize(
    "text, forbidden",
    [
        ("<script>alert(1)</script>", "<script"),
        ("<img src=x onerror=alert(1)>", "<img"),
        ("![x](https://tracker.example/p.png)", "<img"),
        ("[x](javascript:alert(1))", "javascript:"),
        ("[x](java&#x09;script:alert(1))", "script:"),
        ("[r]: javascript:alert(1)\n\nsee [r]", "javascript:"),
        ("<javascript:alert(1)>", 'href="javascript'),
        ('<a href="javascript:alert(1)">x</a>', "<a "),
        ("<div onclick=alert(1)>\n\nx\n\n</div>", "<div"),
        ("<style>body{display:none}</style>", "<style"),
        ("```\n</code></pre><script>alert(1)</script>\n```", "<script"),
    ],
)
def test_markdown_is_sanitised(text: str, forbidden: str) -> None:
    assert forbidden not in str(markdown_to_html(text))


def test_markdown_keeps_what_is_safe() -> None:
    rendered = str(markdown_to_html("# Title\n\nSome `code`, a [link](https://example.org) and **bold**.\n\n- one\n"))
    assert "<h3>Title</h3>" in rendered  # below the page's own headings
    assert '<a href="https://example.org" rel="nofollow noopener noreferrer">link</a>' in rendered
    assert "<code>code</code>" in rendered and "<strong>bold</strong>" in rendered and "<li>one</li>" in rendered
