"""Pages that fit: no page scrolls sideways at desktop or phone size, the catalog's first result is on
a phone's first screen, the composer works by touch.  Screenshots of every page at both sizes go to
build/screenshots/ for a reviewer."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from site_pages import PAGES, open_page, sideways
from test_access import serious


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


def test_the_execution_tables_fit_a_phone_and_scroll_by_keyboard(visits, bundled_url):
    page = open_page(visits(bundled_url, "phone"), "execution")
    boxes = page.locator(".prereq-table")
    assert boxes.count() >= 3
    for box in boxes.all():
        assert box.get_attribute("tabindex") == "0" and box.get_attribute("role") == "region"
        assert box.get_attribute("aria-label") == box.locator("caption").text_content()
    wide = boxes.first
    assert wide.evaluate("(b) => b.scrollWidth > b.clientWidth")  # the table scrolls inside its box
    wide.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(b) => b.scrollLeft > 0", arg=wide.element_handle())


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_not_found_page_leads_somewhere(visits, bundled_root_url, axe_source, size):
    visit = visits(bundled_root_url, size)
    visit.context.add_init_script(path=str(axe_source))
    page = visit.open("404.html")
    expect(page.locator("h1")).to_have_text("Page not found")
    links = page.locator(".md-content a").evaluate_all("(as) => as.map(a => [a.textContent, a.href])")
    assert {"Search the catalog", "Compose a job", "job template"} <= {text for text, _ in links}
    assert dict(links)["Search the catalog"] == bundled_root_url + "catalog/"
    assert sideways(page) <= 0
    serious(page)


def test_an_empty_closure_is_a_sentence_not_a_numbered_item(visits, bundled_url):
    page = open_page(visits(bundled_url), "composer")
    none = page.locator(".prereq-composer__none")
    expect(none).to_have_text("no prerequisites from the registry yet")
    assert none.evaluate("(li) => getComputedStyle(li).listStyleType") == "none"


def test_the_jobs_yaml_is_beside_the_list_or_one_tap_away(visits, bundled_url):
    """At desktop size the job's panel stays in view beside the list as the list scrolls; on a phone,
    where it is under the whole list, a visible link takes one there."""
    page = open_page(visits(bundled_url), "composer")
    job = page.locator("#prereq-composer-job")
    page.locator("#prereq-composer-items > li").last.scroll_into_view_if_needed()
    box, view = job.bounding_box(), page.viewport_size
    assert box is not None and view is not None and 0 <= box["y"] < view["height"]  # still in view
    assert page.locator(".prereq-skip").evaluate("(a) => a.getBoundingClientRect().width") <= 1  # hidden here

    phone = open_page(visits(bundled_url, "phone"), "composer")
    skip = phone.locator(".prereq-skip")
    expect(skip).to_be_visible()
    skip.tap()
    expect(phone.locator("#prereq-composer-job")).to_be_focused()
    assert phone.locator("#prereq-composer-job").evaluate("(e) => e.getBoundingClientRect().top < innerHeight")
