"""The frame around every page: the theme's inline scripts are files (so the Content-Security-Policy
pins no hash), its configuration keeps the translations the site reads, item pages have no drawer, and
the theme's own search engine is not published.  In a browser: tests/browser/test_frame.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prereq.marketplace import frame

HEAD = '<html><head><meta name="prereq:base" content="{base}"><script>var a=1</script></head>'
PAGE = HEAD + '<body><article>{content}</article><script>b()</script><script src="x.js"></script></body></html>'
CONFIG = '<script id="__config" type="application/json">{text}</script>'


def test_the_frames_inline_scripts_become_files_loaded_in_their_place() -> None:
    content = "<p>text</p><script>contributor()</script>"
    output, files = frame.scripts_to_files(PAGE.format(base="../..", content=content), content=content)
    assert sorted(files.values()) == ["b()", "var a=1"]
    for path, text in files.items():
        assert re.fullmatch(r"assets/frame/[0-9a-f]{16}\.js", path)
        assert f'<script src="../../{path}"></script>' in output
        assert f"<script>{text}</script>" not in output
    # The page's own content is left as written: the policy blocks its script, it is never published.
    assert "<script>contributor()</script>" in output
    assert '<script src="x.js"></script>' in output
    # The same text is the same file, whichever page it is on; the root's own page points at it too.
    again, same = frame.scripts_to_files(PAGE.format(base=".", content=""), content="")
    assert same == files and f'src="./{next(iter(files))}"' in again
    rooted, _ = frame.scripts_to_files(PAGE.format(base="/docs/", content=""), content="")
    assert f'src="/docs/{next(iter(files))}"' in rooted


def test_a_page_that_does_not_say_where_its_root_is_keeps_its_scripts() -> None:
    page = "<html><head><script>var a=1</script></head><body></body></html>"
    assert frame.scripts_to_files(page) == (page, {})


def test_the_theme_configuration_keeps_the_translations_the_site_reads() -> None:
    config = {
        "base": "..",
        "translations": {"clipboard.copy": "Copy", "search.result.none": "None", "select.version": "V"},
        "note": "</script><script>x()</script> & more",
    }
    escaped = json.dumps(config).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    page = "<body>" + CONFIG.format(text=escaped) + "</body>"  # as the theme's tojson writes it
    output = frame.theme_config_trimmed(page)
    text = output.split(">", 2)[2].rsplit("</script>", 1)[0]
    assert "<" not in text and "&" not in text  # nothing in the block can close it or start markup
    assert json.loads(text) == {**config, "translations": {"clipboard.copy": "Copy"}}
    # A block that is not the theme's JSON as known, or inside the page's content, is left alone.
    for text in ("{not json", "[1, 2]"):
        broken = "<body>" + CONFIG.format(text=text) + "</body>"
        assert frame.theme_config_trimmed(broken) == broken
    inside = CONFIG.format(text=json.dumps(config))
    assert frame.theme_config_trimmed(f"<body>{inside}</body>", content=inside) == f"<body>{inside}</body>"


def test_what_opens_the_drawer_goes_only_where_there_is_no_drawer() -> None:
    openers = (
        '<label class="md-overlay" for="__drawer"></label>\n'
        '<header><label class="md-header__button md-icon" for="__drawer">\n<svg/>\n</label>\n'
    )
    toggle = '<input class="md-toggle" data-md-toggle="drawer" type="checkbox" id="__drawer">\n'
    content = '<p>a label in the content: <label class="md-overlay" for="__drawer"></label></p>'
    page = toggle + openers + "<main>" + content + "</main>"
    assert frame.without_drawer_openers(page, content=content) == toggle + "<header>" + "<main>" + content + "</main>"
    drawer = page + '<div class="md-sidebar md-sidebar--primary"></div>'
    assert frame.without_drawer_openers(drawer, content=content) == drawer
    # The content's own text never stands for the frame's drawer.
    said = content + "md-sidebar--primary"
    assert "md-header__button" not in frame.without_drawer_openers(toggle + openers + said, content=said)


def test_built_pages_load_every_script_from_a_file(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 50
    loaded: set[str] = set()
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for attributes, body in re.findall(r"<script\b([^>]*)>(.*?)</script>", text, re.S):
            if 'type="application/json"' in attributes:
                continue
            source = re.search(r'src="([^"]+)"', attributes)
            assert source and not body.strip(), (page, attributes, body[:80])
            # 404.html is served at any address: its links start at the site's root.
            relative = source.group(1)
            target = (site / relative[1:] if relative.startswith("/") else page.parent / relative).resolve()
            assert target.is_file(), (page, source.group(1))
            loaded.add(target.relative_to(site.resolve()).as_posix())
        policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text)
        assert policy and "sha256-" not in policy.group(1) and "script-src 'self';" in policy.group(1), page
        config = re.search(r'<script id="__config" type="application/json">(.*?)</script>', text, re.S)
        assert config, page
        assert set(json.loads(config.group(1))["translations"]) == {"clipboard.copy", "clipboard.copied"}
    # Every frame script written is loaded by some page: nothing stale is published.
    written = {p.relative_to(site).as_posix() for p in (site / frame.SCRIPTS_FOLDER).glob("*.js")}
    assert written and written == {path for path in loaded if path.startswith(frame.SCRIPTS_FOLDER + "/")}
    assert not (site / "assets" / "javascripts" / "lunr").exists()
    assert not (site / "assets" / "javascripts" / "workers").exists()
    assert not list((site / "assets").rglob("*.map"))  # the theme's source maps
    assert (site / "assets" / "javascripts").is_dir()  # the theme's own code stays
    assert (site / "search" / "search_index.json").is_file()  # the header's search box reads it


def test_item_pages_have_no_drawer_and_nothing_that_would_open_it(site: Path) -> None:
    for page in [*sorted((site / "items").glob("*/index.html"))[:10], site / "catalog" / "index.html"]:
        text = page.read_text(encoding="utf-8")
        item = page.parent.parent.name == "items"
        assert 'data-md-toggle="drawer"' in text  # the theme's code reads the toggle on every page
        assert ("md-sidebar--primary" in text) is not item, page
        assert ('<label class="md-header__button md-icon" for="__drawer">' in text) is not item, page
        assert ('<label class="md-overlay" for="__drawer">' in text) is not item, page
