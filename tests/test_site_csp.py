"""The site's Content-Security-Policy: each page pins the theme's inline scripts by hash, and only them."""

from __future__ import annotations

import pytest

from prereq.marketplace import csp

PAGE = """<!doctype html><html><HEAD ><meta charset="utf-8">
<script>alert(1)</script>
<script id="__config" type="application/json">{"base": "."}</script>
<script src="assets/x.js">ignored()</script>
<script type="module">import("./y.js")</script>
</head><body><article>{content}</article></body></html>"""
# sha256 of "alert(1)", as a browser computes it.
ALERT = "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"


def test_the_policy_comes_first_and_pins_the_theme_scripts():
    content = "<p>text</p>"
    output, blocked = csp.apply(PAGE.replace("{content}", content), content=content)
    assert blocked == 0
    head = output.index("<HEAD >") + len("<HEAD >")
    meta = output[head : output.index(">", head) + 1]
    assert meta.startswith('<meta http-equiv="Content-Security-Policy" content="default-src \'self\'; ')
    script_src = next(d for d in meta.split(";") if d.strip().startswith("script-src")).split()[1:]
    # The JSON block is data and the src script runs its file: neither needs a hash.
    assert script_src == ["'self'", ALERT, csp.script_hash('import("./y.js")')]
    for directive in ("object-src 'none'", "base-uri 'self'", "form-action 'self'", "style-src 'self'"):
        assert directive in meta
    assert "unsafe" not in meta


def test_scripts_in_the_content_are_never_pinned():
    content = "<p>x</p><script>window.__pwned = 1</script>"
    output, blocked = csp.apply(PAGE.replace("{content}", content), content=content)
    assert blocked == 1
    assert csp.script_hash("window.__pwned = 1") not in output


def test_hashes_are_of_the_text_the_browser_parsed():
    assert csp.script_hash("alert(1)") == ALERT
    assert csp.script_hash("a()\r\nb()\rc()") == csp.script_hash("a()\nb()\nc()")
    assert csp.inline_scripts('<script type="TEXT/JavaScript">a()</script><script type=text/plain>b</script>') == [
        "a()"
    ]


def test_live_reload_allows_inline_scripts_without_hashes():
    # MkDocs' live reload injects a script that changes with each request, after the plugins ran.
    output, _ = csp.apply(PAGE.replace("{content}", ""), live_reload=True)
    assert "script-src 'self' 'unsafe-inline';" in output
    assert ALERT not in output


def test_a_page_without_head_is_refused():
    with pytest.raises(ValueError, match="no <head>"):
        csp.apply("<html><body>hi</body></html>")
