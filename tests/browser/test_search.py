"""One search: the header's box finds items first (then pages), the catalog ranks the same way, and a
typo is corrected with a "did you mean" — at desktop and phone sizes, on the bundled registry."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect


def header_search(visit, text: str, path: str = ""):
    page = visit.open(path)
    phone = page.viewport_size["width"] < 600
    if phone:  # the header shows a magnifier; the box opens over the page
        page.locator('.md-header label.md-header__button[for="__search"]').click()
    else:
        page.keyboard.press("/")
    box = page.locator("#prereq-search-q")
    expect(box).to_be_focused()
    page.keyboard.type(text)
    expect(page.locator("#prereq-search-list a.md-search-result__link").first).to_be_visible()
    return page


def item_hits(page) -> list[str]:
    return page.locator("#prereq-search-list .prereq-search-hit__head .prereq-search-hit__name").all_inner_texts()


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("text", ["mnist", "mnsit"])
def test_the_header_search_finds_the_item_first(visits, bundled_url, screenshots, size, text):
    visit = visits(bundled_url, size)
    page = header_search(visit, text)
    assert item_hits(page)[0] == "mnist-data"
    assert item_hits(page).index("fashion-mnist") > 0
    if text == "mnsit":
        expect(page.locator("#prereq-search-meta")).to_contain_text("Did you mean “mnist”?")
    page.screenshot(path=str(screenshots / f"search-{text}-{size}.png"))
    # Enter opens the first result.
    page.keyboard.press("Enter")
    expect(page).to_have_url(bundled_url + "items/mnist-data/")


def test_items_come_first_then_pages(visits, bundled_url):
    page = header_search(visits(bundled_url), "storage")
    rows = page.locator("#prereq-search-list > li")
    groups = page.locator("#prereq-search-list .prereq-search-group").all_text_contents()
    assert groups == ["Items", "Documentation"]
    first_item = rows.nth(1).locator(".prereq-search-hit__name").inner_text()
    assert first_item.endswith("storage") or "storage" in first_item
    # The type's plain label is searched too: "storage" finds the mounts by what they are.
    hrefs = page.locator("#prereq-search-list a").evaluate_all("(a) => a.map(x => x.getAttribute('href'))")
    assert any("/items/" in h for h in hrefs) and any("/items/" not in h and "catalog" not in h for h in hrefs)
    # The arrows walk the results; Escape closes and leaves the page as it was.
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.closest('#prereq-search-list') !== null")
    page.keyboard.press("ArrowUp")
    expect(page.locator("#prereq-search-q")).to_be_focused()
    page.keyboard.press("Escape")
    assert page.evaluate("document.getElementById('__search').checked") is False


def test_the_theme_builds_no_search_index(visits, bundled_url):
    """The theme's lunr worker never starts: its index would be rebuilt on every visit."""
    visit = visits(bundled_url)
    header_search(visit, "mnist")
    assert not [url for url in visit.requests if "workers/search" in url]
    # The items come from the catalog file, fetched once (the root index is the job clients').
    assert sum(url.endswith("api/v1/catalog.json") for url in visit.requests) == 1
    assert not [url for url in visit.requests if url.endswith("api/v1/index.json")]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_catalog_ranks_and_corrects_the_same_way(visits, bundled_url, size):
    visit = visits(bundled_url, size)
    page = visit.open("catalog/?q=mnist")
    expect(page.locator("#prereq-catalog")).to_have_attribute("data-state", "ready")
    names = page.locator("#prereq-results > li").evaluate_all("(i) => i.map(x => x.dataset.name)")
    assert names[:2] == ["mnist-data", "fashion-mnist"]
    page = visit.open("catalog/?q=mnsit")
    expect(page.locator("#prereq-catalog")).to_have_attribute("data-state", "ready")
    expect(page.locator("#prereq-suggest")).to_contain_text("Did you mean mnist?")
    assert page.locator("#prereq-results > li").first.get_attribute("data-name") == "mnist-data"
    page.locator("#prereq-suggest button").click()
    expect(page.locator("#prereq-q")).to_have_value("mnist")
    expect(page.locator("#prereq-suggest")).to_be_hidden()
