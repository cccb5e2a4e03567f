"""Untrusted contributor text → safe HTML for the marketplace site.

Every field an item's author wrote reaches a page either escaped as text or
through ``markdown_to_html``: Python-Markdown with raw HTML turned off (it is
shown as text), links limited to http, https, mailto and relative URLs, images
turned into plain links (a page must load nothing from elsewhere) and headings
pushed below the page's own.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as etree

import markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import BashLexer, YamlLexer

SAFE_SCHEMES = ("http", "https", "mailto")
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")
_SCHEME = re.compile(r"^([^/?#]*?):")


def escape(text: object) -> Markup:
    """Text as HTML text or attribute value."""
    return Markup.escape("" if text is None else str(text))


def safe_url(url: str | None) -> str | None:
    """The URL as a browser will read it, when it is http(s), mailto or relative; else None.

    Character references are decoded first (``java&#x09;script:``) and the
    whitespace and control characters browsers skip are removed before the
    scheme is checked."""
    if not url:
        return None
    # Python-Markdown writes "&" as a placeholder inside some links (automail) until the end.
    decoded = html.unescape(url.replace(markdown.util.AMP_SUBSTITUTE, "&"))
    cleaned = _CONTROL.sub("", decoded)
    match = _SCHEME.match(cleaned)
    if match and match.group(1).lower() not in SAFE_SCHEMES:
        return None
    return decoded.strip()


def is_external(url: str) -> bool:
    return bool(re.match(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)", url))


class _Sanitize(Treeprocessor):
    """Runs after the inline patterns: every element built from the text is checked."""

    def run(self, root: etree.Element) -> None:
        for element in root.iter():
            for attribute in list(element.attrib):
                if attribute.lower().startswith("on") or attribute.lower() in ("style", "srcset"):
                    del element.attrib[attribute]
            if element.tag == "img":
                self._image_to_link(element)
            if element.tag == "a":
                self._check_link(element)
            if re.fullmatch(r"h[1-6]", element.tag):
                element.tag = f"h{min(int(element.tag[1]) + 2, 6)}"

    @staticmethod
    def _check_link(element: etree.Element) -> None:
        url = safe_url(element.get("href"))
        if url is None:
            element.attrib.pop("href", None)
            element.tag = "span"
            return
        # The serialiser keeps "&name;" as is: escape every "&" so the browser reads exactly `url`.
        element.set("href", url.replace("&", "&amp;"))
        if is_external(url):
            element.set("rel", "nofollow noopener noreferrer")

    @staticmethod
    def _image_to_link(element: etree.Element) -> None:
        source, alt = element.get("src"), element.get("alt") or ""
        element.attrib.clear()
        element.tag = "a"
        element.text = alt or source or "image"
        if source:
            element.set("href", source)


class SafeExtension(Extension):
    """Raw HTML becomes text; links and images are sanitised."""

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.treeprocessors.register(_Sanitize(md), "prereq_sanitize", 5)


_MD = markdown.Markdown(extensions=[SafeExtension(), "fenced_code", "tables", "sane_lists"], output_format="html")


def markdown_to_html(text: str | None) -> Markup:
    """Contributor Markdown as safe HTML."""
    if not text:
        return Markup("")
    _MD.reset()
    return Markup(_MD.convert(text))


_BASH = BashLexer()
_YAML = YamlLexer()
_FORMATTER = HtmlFormatter(nowrap=True)
# Pygments names a token by its whole type ("l l-Scalar l-Scalar-Plain") and wraps whitespace in spans;
# the theme colours the first name only and whitespace not at all.  Both go: half of a highlighted block.
# So do the seams of one colour split at its spaces (a quoted YAML string is a token a word, its spaces
# another class): a span resumed after spaces by the same class is continued instead.
_CLASSES = re.compile(r'<span class="([a-z0-9]+)(?: [A-Za-z0-9-]+)+">')
_WHITESPACE = re.compile(r'<span class="(?!err")[a-z0-9]+">([ \t\n]*)</span>')  # an error's mark stays
_SEAM = re.compile(r'(<span class="([a-z0-9]+)">[^<]*)</span>( *)<span class="\2">')
# YAML's punctuation (a key's colon, an entry's dash) takes the code's own colour, not a grey of its
# own: a span for each was a fifth of the snippet on every item page.
_YAML_PUNCTUATION = re.compile(r'<span class="p">([^<]*)</span>')


def highlight_fragment(code: str, language: str = "sh") -> Markup:
    """Highlighted (and escaped) lines, without the surrounding block."""
    lexer = {"sh": _BASH, "yaml": _YAML}.get(language)
    if lexer is None:
        return escape(code)
    html = _WHITESPACE.sub(r"\1", _CLASSES.sub(r'<span class="\1">', highlight(code, lexer, _FORMATTER)))
    if lexer is _YAML:
        html = _YAML_PUNCTUATION.sub(r"\1", html)
    seams = 1
    while seams:  # each pass joins every other seam of a run
        html, seams = _SEAM.subn(r"\1\3", html)
    return Markup(html)


def code_block_html(
    body: Markup, language: str, *, element_id: str | None = None, copy: bool = True, focusable: bool = True
) -> Markup:
    """A code block like the ones Material renders, around already highlighted lines; it scrolls sideways
    where lines are long, so a keyboard can focus it (unless a focusable box around it scrolls instead)."""
    ident = Markup(' id="{}"').format(element_id) if element_id else Markup("")
    no_copy = Markup("") if copy else Markup(" no-copy")
    tabindex = Markup(' tabindex="0"') if focusable else Markup("")
    return Markup(
        '<div class="language-{lang} highlight{nocopy}"><pre><span></span><code{ident}{tab}>{body}</code></pre></div>'
    ).format(lang=language, nocopy=no_copy, ident=ident, tab=tabindex, body=body)


def code_block(code: str, language: str = "sh", *, element_id: str | None = None, copy: bool = True) -> Markup:
    """A highlighted code block (Pygments escapes the text)."""
    return code_block_html(highlight_fragment(code, language), language, element_id=element_id, copy=copy)


def inline_code(text: str | None) -> Markup:
    """Plain text where `backticks` become <code> (summaries, in lists)."""
    if not text:
        return Markup("")
    parts = re.split(r"`([^`]+)`", text)
    return Markup("").join(
        Markup("<code>{}</code>").format(part) if index % 2 else escape(part) for index, part in enumerate(parts)
    )
