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

Drawer: a page without the navigation drawer (item pages) loses the menu button and the overlay that
would open it (``without_drawer_openers``).

Scripts: the theme writes three small inline scripts into each page (its storage helpers, the
palette's saved choice, a tab opened by the address), 1.1 KB a page with their Content-Security-Policy
hashes.  ``scripts_to_files`` moves each to a file named by its text's digest, loaded in the same
place: a classic script without ``async`` runs where it stands whether inline or loaded, and its
``location`` is still the page's.  The text of one of them names the page's way back to the site's
root, so each depth of page has its own file (a handful).  The theme's configuration block keeps the
translations the site uses (the copy button's): its own search and version selector are not on it.

May import: the standard library, prereq.core (``plugin`` calls it).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
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


def _outside(output: str, content: str | None, change: Callable[[str], str]) -> str:
    """``output`` with ``change`` made to its frame: the parts before and after ``content``."""
    if content and content in output:
        before, _, after = output.partition(content)
        return change(before) + content + change(after)
    return change(output)


def compact(output: str, *, content: str | None = None) -> str:
    """``output`` with its frame's whitespace squeezed; ``content`` (the page's own, within it) as it is."""
    return _outside(output, content, _squeeze)


# The header's menu button and the overlay behind the drawer: both open the navigation drawer, which
# item pages do not have (site/overrides/item.html).  The toggle they work stays: the theme's code reads it.
_DRAWER_OPENERS = re.compile(
    r'<label class="md-header__button md-icon" for="__drawer">.*?</label>\n?'
    r'|<label class="md-overlay" for="__drawer"></label>\n?',
    re.DOTALL,
)


def without_drawer_openers(output: str, *, content: str | None = None) -> str:
    """``output`` without what opens the navigation drawer when its frame has none to open."""
    frame = output.replace(content, "", 1) if content else output
    if "md-sidebar--primary" in frame:
        return output
    return _outside(output, content, lambda part: _DRAWER_OPENERS.sub("", part))


SCRIPTS_FOLDER = "assets/frame"
_BASE = re.compile(r'<meta name="prereq:base" content="([^"]*)">')  # site/overrides/main.html writes it
_BARE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)  # no attributes: the theme's inline code
_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.DOTALL)
USED_TRANSLATIONS = ("clipboard.",)  # the keys' beginnings the theme's code reads on this site


def scripts_to_files(output: str, *, content: str | None = None) -> tuple[str, dict[str, str]]:
    """``output`` with each inline script of its frame loaded from a file, and those files' texts by
    site path.  A page that does not say where the site's root is (no ``prereq:base``) keeps them."""
    base = _BASE.search(output)
    if base is None:
        return output, {}
    files: dict[str, str] = {}

    def to_file(match: re.Match[str]) -> str:
        path = f"{SCRIPTS_FOLDER}/{hashlib.sha256(match.group(1).encode('utf-8')).hexdigest()[:16]}.js"
        files[path] = match.group(1)
        return f'<script src="{base.group(1).rstrip("/")}/{path}"></script>'

    return _outside(output, content, lambda part: _BARE_SCRIPT.sub(to_file, part)), files


def _trimmed(match: re.Match[str]) -> str:
    try:
        config = json.loads(match.group(2))
    except ValueError:
        return match.group(0)  # not the theme's block as known: as it is
    if not isinstance(config, dict):
        return match.group(0)
    translations = config.get("translations")
    if isinstance(translations, dict):
        config["translations"] = {k: v for k, v in translations.items() if k.startswith(USED_TRANSLATIONS)}
    text = json.dumps(config, separators=(",", ":"), ensure_ascii=False)
    # As the theme's tojson writes it: nothing in the block can close it or start markup.
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return match.group(1) + text + match.group(3)


def theme_config_trimmed(output: str, *, content: str | None = None) -> str:
    """``output`` with the theme's configuration block holding only the translations the site uses."""
    return _outside(output, content, lambda part: _CONFIG.sub(_trimmed, part, count=1))


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
