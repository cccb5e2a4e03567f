"""The theme's frame around a page's content, without the blank lines and indentation its templates leave.

Material's templates indent for their own reading: a page's frame (head, header, tabs, the
navigation drawer, footer) is a quarter whitespace, repeated on each of 10,000 item pages.  Every
run of whitespace that holds a line break becomes one line break: a browser collapses such a run
to the same single space either way.  Left as written: the page's own content (the plugin renders
it, and the Content-Security-Policy finds it in the page by its text) and what a browser reads
verbatim, ``<pre>``, ``<textarea>``, ``<script>`` and ``<style>``.

May import: the standard library only (``plugin`` calls it).
"""

from __future__ import annotations

import re

_VERBATIM = re.compile(r"<(pre|textarea|script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_BREAKS = re.compile(r"\s*\n\s*")


def _squeeze(html: str) -> str:
    parts, last = [], 0
    for match in _VERBATIM.finditer(html):
        parts += [_BREAKS.sub("\n", html[last : match.start()]), match.group(0)]
        last = match.end()
    parts.append(_BREAKS.sub("\n", html[last:]))
    return "".join(parts)


def compact(output: str, *, content: str | None = None) -> str:
    """``output`` with its frame's whitespace squeezed; ``content`` (the page's own, within it) as it is."""
    if content and content in output:
        before, _, after = output.partition(content)
        return _squeeze(before) + content + _squeeze(after)
    return _squeeze(output)
