"""Contributor text runs nothing and links nowhere; the site loads nothing from elsewhere."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from composer_page import row, settle
from playwright.sync_api import expect

from conftest import Visit, _git, _serve, make_fixture_repo
from prereq.index import catalogfile
from prereq.index.builder import dump_json

# Run before any page script: a flag every payload in the hostile item would set.
WATCH = "window.__pwned = 0; window.alert = () => { window.__pwned = -1; };"

DOM_CHECK = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase(), value = attr.value.replace(/[\\u0000-\\u0020]/g, '').toLowerCase();
      if (name.startsWith('on')) bad.push(`${el.tagName} ${name}`);
      if (/^(javascript|vbscript|data):/.test(value) && /(href|src|action|formaction|data)$/.test(name))
        bad.push(`${el.tagName} ${name}=${attr.value}`);
    }
  }
  return bad;
}"""


def scripts_of(page) -> list[str]:
    """The page's scripts: only the theme's and ours, all from the site."""
    return page.locator("script").evaluate_all("(s) => s.map(x => x.getAttribute('src') || x.id || 'inline')")


def check_page(page, visit) -> None:
    assert page.evaluate("window.__pwned") == 0
    assert visit.dialogs == []
    assert page.evaluate(DOM_CHECK) == []
    assert page.locator("article iframe, article img, article svg:not(.prereq-graph), article style").count() == 0


def test_hostile_item_runs_nothing_and_links_nowhere(visit):
    visit.context.add_init_script(WATCH)
    page = visit.open("items/evil-item/")
    article = page.locator("article.prereq-item")
    # The payloads are shown, as text.
    expect(article.locator("h1")).to_contain_text("<script>window.__pwned = 1; alert(1)</script> Handy")
    text = article.locator(".prereq-item__summary, .prereq-description")
    expect(text.first).to_contain_text("<img src=x onerror=alert(document.domain)>")
    expect(text.first).to_contain_text('<a href="javascript:window.__pwned=4">click</a>')
    expect(text.last).to_contain_text('<svg onload="window.__pwned=7"></svg>')
    expect(article.locator(".language-sh")).to_contain_text("</code></pre><script>window.__pwned=11</script>")
    # Links with a script scheme lost their href; the image became a plain link.
    expect(text.locator("a")).to_have_count(1)
    assert text.locator("a").get_attribute("href") == "https://tracker.example/pixel.png"
    homepage = article.locator(".prereq-facts a[rel~='nofollow']")
    assert homepage.get_attribute("href") == 'https://example.org/"><script>window.__pwned=9</script>'
    assert [s for s in scripts_of(page) if s.startswith("http")] == []
    # Hovering and clicking everything in the description runs nothing either.
    for element in text.locator("*").all():
        element.hover()
    page.locator("[data-prereq-copy]").click()
    page.wait_for_timeout(100)
    check_page(page, visit)
    assert page.url == visit.site_url + "items/evil-item/"


def test_hostile_item_in_the_catalog_and_lists(visit):
    visit.context.add_init_script(WATCH)
    page = visit.open("catalog/?q=handy")
    expect(page.locator("#prereq-catalog")).to_have_attribute("data-state", "ready")
    card = page.locator('#prereq-results > li[data-name="evil-item"]')
    expect(card.locator(".prereq-card__title")).to_contain_text("<img src=x onerror=")
    expect(card.locator(".prereq-card__summary")).to_contain_text("<script>window.__pwned = 3; alert(3)</script>")
    check_page(page, visit)
    for path in ("tags/security-test/", "tags/tools/", ""):
        page = visit.open(path)
        check_page(page, visit)


def test_no_request_leaves_the_site(visit):
    visit.context.add_init_script(WATCH)
    for path in (
        "",
        "catalog/",
        "items/evil-item/",
        "items/upload-results/",
        "tags/",
        "reference/format/",
        "reference/rules/",
        "contributing/",
        "404.html",
    ):
        page = visit.open(path)
        page.wait_for_load_state("networkidle")
    # Material's search loads its worker and index from the site itself.
    page = visit.open("catalog/")
    page.keyboard.press("/")
    page.keyboard.type("nfs")
    page.wait_for_timeout(300)
    assert visit.requests, "no request recorded"
    assert visit.outside_requests() == []
    assert any(url == visit.site_url + "api/v1/catalog.json" for url in visit.requests)


def test_page_scripts_load_where_they_belong(visit):
    page = visit.open("composer/?add=digits")
    assert page.locator("script[src$='assets/composer/ui/start.js']").count() == 1
    assert page.locator("script[src$='assets/catalog.js']").count() == 0
    page = visit.open("catalog/")
    assert page.locator("script[src$='assets/catalog.js']").get_attribute("src") == "../assets/catalog.js"
    assert page.locator("script[src$='assets/composer/ui/start.js']").count() == 0
    page = visit.open("items/digits/")
    assert page.locator("script[src$='assets/catalog.js'], script[src$='assets/composer/ui/start.js']").count() == 0
    assert page.evaluate("typeof window.prereq.pushRecent") == "function"


# An item with a payload in every field the site shows.  What the registry's validation lets through
# is written as a contributor would; what it refuses (tags, owners, license, a requirement's range, a
# version's suffix) is written into the published index afterwards, as a tampered host could: the
# site must show that as text too.  Each payload would set window.__pwned, open a dialog or log "pwned".
EVERYWHERE = """\
name: evil-everywhere
version: 1.0.0
type: data
title: '"><svg onload=window.__pwned=20> <script>window.__pwned=21</script> Everywhere'
description: |
  Summary "><svg onload=alert(22)> <a href="javascript:window.__pwned=23">go</a>.

  Details <img src=x onerror=console.log('pwned')> [j](javascript:window.__pwned=25).
tags: [tools]
owners: [bob]
license: MIT
homepage: https://example.org/"><svg/onload=window.__pwned=26>
uri:
  - https://example.org/"><svg/onload=window.__pwned=27>
  - javascript:window.__pwned=28
require:
  - digits@>=1.0
parameters:
  banner: '"><svg onload=window.__pwned=30> <script>window.__pwned=31</script>'
callbacks:
  - event: taskStarts
    commands:
      - echo '"><svg onload=window.__pwned=32>' '</textarea></code></pre><script>alert(33)</script>'
      - echo '<% this.banner %>'
"""
TAMPERED = {
    "tags": '"><svg onload=window.__pwned=40>',
    "owners": "<img src=x onerror=window.__pwned=41>",
    "license": '"><script>window.__pwned=42</script>',
    "range": ' "><svg onload=window.__pwned=43>',
    "version": '-"><svg onload=window.__pwned=44>',
}
# Run before any page script: what an injected script or handler would leave behind.
LISTEN = """window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective));"""


def _tamper(api: Path, name: str, change) -> None:
    """Rewrite one item's published document with ``change(document, root_entry)``, its sha256 kept true."""
    root_path = api / "index.json"
    root = json.loads(root_path.read_text(encoding="utf-8"))
    entry = next(e for e in root["items"] if e["name"] == name)
    path = api / entry["path"]
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document, entry)
    body = json.dumps(document).encode("utf-8")
    path.write_bytes(body)
    entry["sha256"] = hashlib.sha256(body).hexdigest()
    root_path.write_text(json.dumps(root), encoding="utf-8")
    # The catalog and the header search read the catalog file: made again from the tampered root.
    (api / catalogfile.CATALOG_FILE).write_text(dump_json(catalogfile.catalog_document(root)), encoding="utf-8")


def _everywhere(document: dict, entry: dict) -> None:
    for version in document["versions"]:
        item = version["item"]
        item["tags"] = entry["tags"] = [*item["tags"], TAMPERED["tags"]]
        item["owners"] = entry["owners"] = [*item["owners"], TAMPERED["owners"]]
        item["license"] = TAMPERED["license"]


def _odd_requirements(document: dict, entry: dict) -> None:
    """A hostile range for each requirement, and a hostile suffix to the version the dependency
    diagram labels the item's box with (the composer refuses both, saying why)."""
    entry["version"] += TAMPERED["version"]
    for version in document["versions"]:
        for node in [version, version["item"], *(n for n in version["closure"] if n["name"] == document["name"])]:
            node["version"] += TAMPERED["version"]
        version["item"]["require"] = [r + TAMPERED["range"] for r in version["item"]["require"]]
        for requirement in version["requires"]:
            requirement["range"] += TAMPERED["range"]


@pytest.fixture(scope="module")
def hostile_url(tmp_path_factory: pytest.TempPathFactory):
    from prereq.marketplace.build import build
    from prereq.marketplace.site import build_site
    from prereq.registry.settings import load_settings

    root = tmp_path_factory.mktemp("hostile-repo")
    registry = make_fixture_repo(root)
    (registry / "prerequisites" / "evil-everywhere.yaml").write_text(EVERYWHERE, encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "a payload in every field")
    result = build(registry, root / "out", with_site=False)
    assert result.built, result.problems
    api = result.out / "api" / "v1"
    _tamper(api, "evil-everywhere", _everywhere)
    _tamper(api, "upload-results", _odd_requirements)
    settings = load_settings(result.validation.root)
    build_site(
        index_dir=result.out,
        registry=registry,
        out=result.out,
        settings=settings,
        progress=lambda _: None,
        config_file=root / "mkdocs.yml",
    )
    yield from _serve(result.out)


def _watch(visit) -> list[str]:
    """Record what a payload could leave: CSP violations (in the page), console lines and dialogs."""
    console: list[str] = []
    visit.context.add_init_script(LISTEN)
    visit.page.on("console", lambda message: console.append(message.text))
    return console


def _nothing_ran(page, visit, console: list[str]) -> None:
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert visit.dialogs == []
    assert [line for line in console if "pwned" in line] == []
    assert page.evaluate("window.__csp") == []  # escaped as text: the policy had nothing to block
    assert page.evaluate(DOM_CHECK) == []


def test_every_field_of_a_hostile_item_is_text(browser, hostile_url):
    visit = Visit(browser, hostile_url)
    console = _watch(visit)
    page = visit.open("items/evil-everywhere/")
    article = page.locator("article.prereq-item")
    expect(article.locator("h1")).to_contain_text('"><svg onload=window.__pwned=20> <script>window.__pwned=21')
    facts = article.locator(".prereq-facts")
    for text in (TAMPERED["owners"], TAMPERED["license"], TAMPERED["tags"], "svg/onload=window.__pwned=26"):
        expect(facts).to_contain_text(text)
    expect(article).to_contain_text("javascript:window.__pwned=28")  # the uri, among the other settings
    expect(article.locator(".prereq-parameters")).to_contain_text("<script>window.__pwned=31</script>")
    expect(article.locator(".language-sh").first).to_contain_text("<script>alert(33)</script>")
    for element in article.locator("a, .prereq-graph rect, code, td").all():
        if element.is_visible():
            element.hover(force=True)  # whatever lies on top of it gets the pointer's events, as for a user
    _nothing_ran(page, visit, console)
    # The diagram labels a box with a version's hostile suffix, as text.
    page = visit.open("items/upload-results/")
    expect(page.locator(".prereq-graph")).to_contain_text("upload-results 0.3.0")
    assert TAMPERED["version"] in page.locator(".prereq-graph title").all_text_contents()[1]
    expect(page.locator(".prereq-requires")).to_contain_text(TAMPERED["range"].strip())
    _nothing_ran(page, visit, console)
    visit.context.close()


@pytest.mark.parametrize("path", ["catalog/?q=everywhere", "tags/", "tags/tools/", "", "job-templates/"])
def test_a_hostile_item_is_text_in_lists(browser, hostile_url, path):
    visit = Visit(browser, hostile_url)
    console = _watch(visit)
    page = visit.open(path)
    if path.startswith("catalog"):
        expect(page.locator("#prereq-catalog")).to_have_attribute("data-state", "ready")
        card = page.locator('#prereq-results > li[data-name="evil-everywhere"]')
        expect(card).to_contain_text("<script>window.__pwned=21</script>")
        expect(card).to_contain_text(TAMPERED["tags"])
    page.wait_for_load_state("networkidle")
    _nothing_ran(page, visit, console)
    visit.context.close()


def test_a_hostile_item_is_text_in_the_composer(browser, hostile_url):
    visit = Visit(browser, hostile_url)
    console = _watch(visit)
    page = visit.open("composer/?add=evil-everywhere")
    expect(page.locator("#prereq-composer")).to_have_attribute("data-state", "ready", timeout=15000)
    settle(page)
    expect(row(page, "evil-everywhere")).to_contain_text("<script>window.__pwned=21</script> Everywhere")
    yaml_text = page.locator("#prereq-composer-yaml")
    expect(yaml_text).to_have_value(re.compile(r"<script>alert\(33\)</script>"))
    expect(yaml_text).to_have_value(re.compile(r"<script>window.__pwned=31</script>"))
    page.locator("#prereq-composer-yaml").focus()
    _nothing_ran(page, visit, console)
    # What the composer refuses, it names as text.
    page = visit.open("composer/?add=upload-results")
    expect(page.locator("#prereq-composer-error")).to_contain_text(TAMPERED["range"].strip())
    page.wait_for_timeout(300)
    _nothing_ran(page, visit, console)
    visit.context.close()


def test_every_page_carries_the_policy_first(built_site: Path):
    for html_file in sorted(built_site.rglob("*.html")):
        text = html_file.read_text(encoding="utf-8")
        head = text.index("<head>") + len("<head>")
        assert text[head:].startswith('<meta http-equiv="Content-Security-Policy" content="'), html_file
        policy = text[head:].split('content="', 1)[1].split('"', 1)[0]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert directives["object-src"] == "'none'"
        assert directives["base-uri"] == directives["form-action"] == "'self'"
        sources = [s for value in directives.values() for s in value.split()]
        # The theme's scripts are files: nothing inline is pinned (test_site_frame.py).
        assert set(sources) <= {"'self'", "'none'", "data:"}, html_file
        # The browser finds the charset declaration in the first 1,024 bytes only.
        assert text.encode("utf-8").find(b"<meta charset") < 1024, html_file


def test_the_policy_blocks_injected_script(visit):
    console = _watch(visit)
    page = visit.open("items/evil-item/")
    # The theme's own scripts ran (files since frame.scripts_to_files), and the page's scripts work.
    assert page.evaluate("typeof window.__md_get") == "function"
    assert page.evaluate("typeof window.prereq.pushRecent") == "function"
    page.evaluate(
        """() => {
        const script = document.createElement('script');
        script.textContent = 'window.__pwned = 1';
        document.head.append(script);
        const div = document.createElement('div');
        div.innerHTML = '<img src="data:," onerror="window.__pwned = 2"><a href="javascript:window.__pwned=3">x</a>';
        document.body.append(div);
        div.querySelector('a').click();
        setTimeout('window.__pwned = 4', 0);
      }"""
    )
    page.wait_for_timeout(200)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert set(page.evaluate("window.__csp")) == {"script-src-elem", "script-src-attr", "script-src"}
    assert visit.dialogs == []
    assert console, "the browser says what it refused"
