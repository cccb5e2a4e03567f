"""The theme's frame around a page's content (head, header, tabs, the navigation drawer, footer),
repeated on each of 10,000 item pages: without the whitespace its templates leave, its icons drawn once.

Whitespace: Material's templates indent for their own reading, a quarter of the frame.  Every run of
whitespace that holds a line break becomes one line break: a browser collapses such a run to the same
single space either way.  Left as written: the page's own content (the plugin renders it, and the
Content-Security-Policy finds it in the page by its text) and what a browser reads verbatim,
``<pre>``, ``<textarea>``, ``<script>`` and ``<style>``.

Icons: Material inlines each icon of its header, search box, palette switch and back-to-top button,
ten drawings, 3 KB of every page.  ``mkdocs.yml`` names them ``prereq/NAME`` instead (and so does the
site's own search box); each ``site/overrides/.icons/prereq/NAME.svg`` is a one-line ``<svg>`` (no
``xmlns``: HTML's parser gives it the namespace) that ``<use>``s the symbol ``NAME`` of
``assets/icons.svg`` and says in a comment (``{#- icon: SET/ICON -#}``) which of the theme's icons it
shows.  ``sprite`` writes that file from the installed theme's own drawings, so they stay the theme's;
``<use>`` takes the text colour as the inline icon did.

May import: the standard library, prereq.core (``plugin`` calls it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from prereq.core.errors import PrereqError

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


SPRITE_URI = "assets/icons.svg"
ICON_SET = "prereq"  # the folder under .icons/ whose files point into the sprite
_SOURCE = re.compile(r"\{#-?\s*icon:\s*([A-Za-z0-9_-]+/[A-Za-z0-9_-]+)\s*-?#\}")
_DRAWING = re.compile(r"\A\s*<svg\b[^>]*?\bviewBox=\"([^\"]+)\"[^>]*>(.*)</svg>\s*\Z", re.DOTALL)


def _find(theme_dirs: Sequence[Path], rel: str) -> Path | None:
    """The first theme folder's ``.icons/<rel>.svg`` (the site's overrides come before the theme)."""
    for folder in theme_dirs:
        path = folder / ".icons" / f"{rel}.svg"
        if path.is_file():
            return path
    return None


def _symbol(name: str, pointer: Path, theme_dirs: Sequence[Path]) -> str:
    found = _SOURCE.search(pointer.read_text(encoding="utf-8"))
    if found is None:
        raise PrereqError(
            f"{pointer}: names no icon to draw",
            hint="start the file with a comment such as {#- icon: material/magnify -#}",
        )
    source = _find(theme_dirs, found.group(1))
    drawing = _DRAWING.match(source.read_text(encoding="utf-8")) if source else None
    if source is None or drawing is None:
        raise PrereqError(
            f"{pointer}: the theme has no icon {found.group(1)}" if source is None else f"{source}: not one <svg>",
            hint="name an icon the installed theme ships (its .icons folder)",
        )
    return f'<symbol id="{name}" viewBox="{drawing.group(1)}">{drawing.group(2).strip()}</symbol>'


def sprite(theme_dirs: Sequence[Path]) -> str | None:
    """``assets/icons.svg``: a symbol for each pointer file of the ``prereq`` icon set, named by its
    file; None when no theme folder has that set (a site that names the theme's icons directly)."""
    pointers: dict[str, Path] = {}
    for folder in reversed(theme_dirs):  # an earlier folder's file of a name wins
        pointers |= {path.stem: path for path in sorted((folder / ".icons" / ICON_SET).glob("*.svg"))}
    if not pointers:
        return None
    symbols = "".join(_symbol(name, pointers[name], theme_dirs) for name in sorted(pointers))
    return f'<svg xmlns="http://www.w3.org/2000/svg">{symbols}</svg>\n'
