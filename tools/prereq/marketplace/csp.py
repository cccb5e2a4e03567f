"""The site's Content-Security-Policy: only its own scripts and styles run (the plugin sets it on every page).

Item text is escaped where it is rendered (``pages``, ``render``); the policy is the second line: if
some markup slipped through, the browser still runs no inline script, no ``javascript:`` link, no
event handler, no eval and nothing from another host.  A static site has no headers of its own, so
the policy is a ``<meta http-equiv>`` placed first in ``<head>``: a policy applies only to what
follows it.

The theme writes a few small inline scripts; the plugin moves them to files first
(``frame.scripts_to_files``), so a built page pins nothing.  An inline script left in a page's frame
(a page that does not say where the site's root is) is pinned by its sha256 hash, computed from the
page as written.  Scripts inside the page's content are never pinned: on item, tag and home
pages that content holds contributor text, and pinning whatever is there would let through the one
script escaping should have stopped.  A page of the site's own that needs a script loads it from a
file (``extra_javascript``, or the plugin's page scripts).

May import: the standard library only (``plugin`` calls it).
"""

from __future__ import annotations

import base64
import hashlib
import re

# The sources allowed besides 'self' and the pinned hashes.  'self' alone for scripts: the composer's
# ES modules and their dynamic import come from the site.  Images may be data: URLs since the theme's
# stylesheet draws its icons with them.  Object, base and form targets are spelled out because
# default-src does not cover base-uri and form-action.
DIRECTIVES: tuple[tuple[str, str], ...] = (
    ("default-src", "'self'"),
    ("script-src", "'self'"),
    ("style-src", "'self'"),
    ("img-src", "'self' data:"),
    ("object-src", "'none'"),
    ("base-uri", "'self'"),
    ("form-action", "'self'"),
)
# What MkDocs' live reload needs under `serve`: it injects an inline script holding a timestamp per
# request, after every plugin has run, so no hash can pin it.  With a hash in the list a browser
# ignores 'unsafe-inline', so a served page carries no hashes.  Built sites never get this.
LIVE_RELOAD_SCRIPT_SRC = "'self' 'unsafe-inline'"

_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
_HEAD = re.compile(r"<head\b[^>]*>", re.IGNORECASE)
_SRC = re.compile(r"(?:\A|\s)src\s*=", re.IGNORECASE)
_TYPE = re.compile(r"""(?:\A|\s)type\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
# The types a browser runs as script (HTML's JavaScript MIME types, the usual ones, and modules);
# the theme's JSON configuration block is data and needs no hash.
_SCRIPT_TYPES = frozenset({"", "module", "text/javascript", "application/javascript", "text/ecmascript"})


def inline_scripts(html: str) -> list[str]:
    """The text of every inline script in ``html`` that a browser would run, in order."""
    found: list[str] = []
    for match in _SCRIPT.finditer(html):
        attributes, text = match.group(1), match.group(2)
        if _SRC.search(attributes):
            continue  # a script with src runs the file, never its own text
        typed = _TYPE.search(attributes)
        kind = next((group for group in typed.groups() if group is not None), "") if typed else ""
        if kind.strip().lower() in _SCRIPT_TYPES:
            found.append(text)
    return found


def script_hash(text: str) -> str:
    """The CSP source that allows an inline script of exactly ``text``."""
    # The browser hashes the script's text after its parser turned every CR LF and CR into LF.
    normal = text.replace("\r\n", "\n").replace("\r", "\n")
    digest = hashlib.sha256(normal.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def policy(hashes: list[str], *, live_reload: bool = False) -> str:
    """The policy's text: the directives, with ``hashes`` pinned in script-src."""
    parts = []
    for name, sources in DIRECTIVES:
        if name == "script-src":
            sources = LIVE_RELOAD_SCRIPT_SRC if live_reload else " ".join([sources, *dict.fromkeys(hashes)])
        parts.append(f"{name} {sources}")
    return "; ".join(parts)


def apply(output: str, *, content: str | None = None, live_reload: bool = False) -> tuple[str, int]:
    """``output`` with the policy first in its ``<head>``, and how many of the scripts of ``content``
    (the page's own content, within ``output``) the policy will block.

    Raises ValueError when the page has no ``<head>``: a page without the policy must not be written."""
    head = _HEAD.search(output)
    if head is None:
        raise ValueError("the page has no <head> to hold its Content-Security-Policy")
    frame = output.replace(content, "", 1) if content else output
    hashes = [script_hash(text) for text in inline_scripts(frame)]
    blocked = len(inline_scripts(content)) if content and "<script" in content.lower() else 0
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(hashes, live_reload=live_reload)}">'
    return output[: head.end()] + meta + output[head.end() :], blocked
