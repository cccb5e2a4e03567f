"""Pages that fit: no page scrolls sideways at desktop or phone size, the catalog's first result is on
a phone's first screen, the composer works by touch.  Screenshots of every page at both sizes go to
build/screenshots/ for a reviewer."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from site_pages import PAGES, open_page, sideways


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("kind", list(PAGES))
def test_no_page_scrolls_sideways(visits, bundled_url, screenshots, size, kind):
    for scheme in ("light", "dark"):
        page = open_page(visits(bundled_url, size, scheme), kind)
        assert sideways(page) <= 0, f"{kind} is {sideways(page)} px wider than a {size} screen"
        whole = kind in ("home", "tags", "templates")  # the others are long lists: their first screen
        page.screenshot(path=str(screenshots / f"{kind}-{size}-{scheme}.png"), full_page=whole)


def test_the_first_result_is_on_a_phones_first_screen(visits, bundled_url):
    page = open_page(visits(bundled_url, "phone"), "catalog")
    first = page.locator("#prereq-results > li").first.bounding_box()
    assert first is not None and first["y"] + 60 < 844, first
    # The facets are folded into a panel, which opens and closes.
    panel = page.locator("#prereq-filters")
    expect(panel).not_to_have_attribute("open", "")
    expect(page.locator('input[name="type"]').first).to_be_hidden()
    page.locator("#prereq-filters > summary").tap()
    expect(page.locator('input[name="type"]').first).to_be_visible()
    page.locator('#prereq-tags button[data-tag="vision"]').tap()
    expect(page.locator("#prereq-filters-active")).to_have_text("(1 set)")
    # On a desktop the facets are always shown.
    page = open_page(visits(bundled_url, "desktop"), "catalog")
    expect(page.locator('input[name="type"]').first).to_be_visible()
    expect(page.locator("#prereq-filters > summary")).to_be_hidden()


def test_the_composer_works_by_touch(visits, bundled_url):
    page = open_page(visits(bundled_url, "phone"), "composer")
    page.locator("#prereq-composer-q").fill("mnist-data")
    row = page.locator('#prereq-composer-items > li[data-name="mnist-data"]')
    box = row.locator("input.prereq-composer__check")  # not the data binding's box, which checking it shows
    size = box.bounding_box()
    assert size is not None and size["width"] >= 20 and size["height"] >= 20, size
    target = row.locator(".prereq-composer__head").bounding_box()
    assert target is not None and target["height"] >= 44, target
    row.locator(".prereq-composer__name").tap()  # the label: a finger need not hit the box itself
    expect(box).to_be_checked()
    page.evaluate("window.prereqComposer.idle()")
    assert "name: mnist-data" in page.locator("#prereq-composer-yaml").input_value()
    assert sideways(page) <= 0


@pytest.mark.parametrize("kind", ["item", "catalog"])
def test_every_icon_draws_from_the_one_icon_file(visits, bundled_url, kind):
    """The header, search box and palette switch icons are drawn from assets/icons.svg, at both sizes
    and in both colour schemes: a <use> whose reference is missing draws nothing (its box is empty)."""
    drawn: set[str] = set()
    for size in ("desktop", "phone"):
        for scheme in ("light", "dark"):
            page = open_page(visits(bundled_url, size, scheme), kind)
            assert page.locator("svg path").count() < 5, "an icon is inline again"
            shown = page.evaluate(
                """() => Array.from(document.querySelectorAll("svg > use"))
                     .filter((use) => use.ownerSVGElement.getClientRects().length > 0)
                     .map((use) => [use.getAttribute("href").split("#")[1], use.getBBox().width])"""
            )
            assert shown and all(width > 0 for _, width in shown), (size, scheme, shown)
            drawn |= {name for name, _ in shown}
    assert drawn >= {"logo", "search", "dark", "light"}, drawn
    # An item page has no drawer, so no button to open it (site/overrides/item.html); others have both.
    assert ("menu" in drawn) == (kind != "item"), drawn
