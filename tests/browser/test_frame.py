"""The frame in a browser: the theme's scripts, loaded from files, still do their work (the palette's
saved choice on the next page, the storage helpers), no page asks for a file the site lacks, and an
item page's navigation is its tabs on every screen (site/overrides/item.html has no drawer)."""

from __future__ import annotations

from playwright.sync_api import expect
from site_pages import open_page


def _failed(visit) -> list[str]:
    failed: list[str] = []
    visit.context.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    return failed


def test_the_palette_choice_carries_to_the_next_page(visits, bundled_url):
    visit = visits(bundled_url)
    failed = _failed(visit)
    page = open_page(visit, "catalog")
    assert page.evaluate("typeof window.__md_get") == "function"  # the theme's helpers, from a file
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "default")
    page.locator('label[title="Dark mode"]').click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    item = open_page(visit, "item")
    # Set before the page is drawn by the palette's script, now a file in the header, as it was inline.
    expect(item.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    item.locator("#prereq-search-q").fill("nfs")
    expect(item.locator("#prereq-search-list a").first).to_be_visible()
    home = open_page(visit, "home")  # a page of another depth: another file names the way to the root
    expect(home.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    assert failed == []


def test_an_item_page_navigates_by_its_tabs_on_a_phone(visits, bundled_url):
    page = open_page(visits(bundled_url, "phone"), "item")
    expect(page.locator(".md-tabs")).to_be_visible()
    expect(page.locator(".md-tabs__link", has_text="Catalog")).to_be_visible()
    expect(page.locator('.md-header label[for="__drawer"]')).to_be_hidden()
    expect(page.locator(".md-header .md-logo")).to_be_visible()
    assert page.locator(".md-sidebar").count() == 0
    # The catalog keeps the theme's drawer for phones.
    catalog = open_page(visits(bundled_url, "phone"), "catalog")
    expect(catalog.locator('.md-header label[for="__drawer"]')).to_be_visible()
    expect(catalog.locator(".md-tabs")).to_be_hidden()
