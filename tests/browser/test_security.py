"""Contributor text runs nothing and links nowhere; the site loads nothing from elsewhere."""

from __future__ import annotations

from playwright.sync_api import expect

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
    assert any(url == visit.site_url + "api/v1/index.json" for url in visit.requests)


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
