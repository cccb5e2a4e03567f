"""The catalog's license facet and shared lists of items (?names=a,b): what a visitor sees, what the
address says, and that favorites can be shared and taken in."""

from __future__ import annotations

import json

from playwright.sync_api import expect
from test_catalog import open_catalog, query_of, shown


def license_options(page) -> dict[str, str]:
    return dict(
        page.locator("#prereq-license option").evaluate_all("(options) => options.map(o => [o.value, o.textContent])")
    )


def test_the_license_facet_offers_each_license_with_its_count(visit):
    page = open_catalog(visit)
    assert license_options(page) == {
        "": "any",
        "CC-BY-SA-3.0": "CC-BY-SA-3.0 (1)",
        "LicenseRef-cluster-internal": "LicenseRef-cluster-internal (1)",  # old-share is deprecated: hidden
        "MIT": "MIT (1)",
        "NOASSERTION": "not stated (4)",
    }
    page.locator("#prereq-license").select_option("MIT")
    assert shown(page) == ["upload-results"]
    assert query_of(page) == {"license": ["MIT"]}
    expect(page.locator('#prereq-results > li[data-name="upload-results"]')).to_contain_text("license MIT")
    expect(page.locator("#prereq-filters-active")).to_have_text("(1 set)")

    # Items stating no license are one choice; the other facets count within the license chosen.
    page.locator("#prereq-license").select_option("NOASSERTION")
    assert shown(page) == ["base-tools", "evil-item", "hello-widget", "pytorch-image"]
    expect(page.locator('[data-count="datasets"]')).to_have_text("0")
    page.locator("#prereq-license").select_option("LicenseRef-cluster-internal")
    page.locator("#prereq-deprecated").check()
    assert shown(page) == ["nfs-share", "old-share"]
    assert license_options(page)["LicenseRef-cluster-internal"] == "LicenseRef-cluster-internal (2)"

    # Each choice is a step Back undoes; the address restores the view.
    page.go_back()
    assert query_of(page) == {"license": ["LicenseRef-cluster-internal"]}
    assert shown(page) == ["nfs-share"]
    page = open_catalog(visit, "?license=CC-BY-SA-3.0&type=datasets")
    assert shown(page) == ["digits"]
    expect(page.locator("#prereq-license")).to_have_value("CC-BY-SA-3.0")


def test_an_item_under_two_licenses_is_found_under_either(visits, bundled_url):
    visit = visits(bundled_url)
    page = open_catalog(visit, "?license=LicenseRef-Flickr-Terms-of-Use")
    assert shown(page) == ["coco-2017"]  # CC-BY-4.0 AND LicenseRef-Flickr-Terms-of-Use
    page = open_catalog(visit, "?license=CC-BY-4.0")
    assert "coco-2017" in shown(page) and len(shown(page)) > 1


def test_a_shared_list_shows_exactly_its_items_and_offers_to_star_them(visit):
    page = open_catalog(visit, "?names=nfs-share,digits,old-share,no-such-item,<b>x</b>")
    # In the order shared, deprecated ones too; a name no item can have is dropped.
    assert shown(page) == ["nfs-share", "digits", "old-share"]
    bar = page.locator("#prereq-shared")
    expect(bar).to_contain_text("A shared list of 3 items.")
    expect(bar).to_contain_text("Not in this catalog: no-such-item.")
    assert bar.locator("b").count() == 0
    assert page.url.endswith("?names=nfs-share,digits,old-share,no-such-item")  # without what was dropped

    add = bar.locator('button[data-focus-key="shared-add"]')
    expect(add).to_have_text("★ Add them to my favorites")
    add.click()
    assert json.loads(page.evaluate("localStorage.getItem('prereq.favorites')")) == ["nfs-share", "digits", "old-share"]
    expect(bar).to_contain_text("All are in your favorites.")
    # The focus stays on the bar's button (now the way to the favorites), not lost to the page.
    assert page.evaluate("document.activeElement.dataset.focusKey") == "shared-add"
    expect(page.locator('[data-count="favorites"]')).to_have_text("3")

    add.click()  # "show my favorites"
    assert query_of(page) == {"show": ["favorites"]}
    expect(bar).to_be_hidden()
    assert shown(page) == ["digits", "nfs-share"]


def test_favorites_become_a_link_that_another_visitor_takes_in(visits, site_url):
    first = visits(site_url)
    page = open_catalog(first)
    page.evaluate("localStorage.setItem('prereq.favorites', JSON.stringify(['upload-results', 'gone', 'digits']))")
    page = open_catalog(first, "?show=favorites")
    share = page.locator("#prereq-share")
    expect(share).to_contain_text("Share these 2 favorites")
    link = share.locator("a").get_attribute("href")
    assert link == site_url + "catalog/?names=upload-results,digits"  # the favorites in this index, newest first
    share.locator("button").click()
    expect(share.locator("button")).to_have_text("Copied ✓")
    assert page.evaluate("navigator.clipboard.readText()") == link
    page.locator('input[name="show"][value=""]').check()
    expect(share).to_be_hidden()

    # Someone else, who has one of them already: only the other is offered; theirs stay behind it.
    second = visits(site_url)
    page = open_catalog(second)
    page.evaluate("localStorage.setItem('prereq.favorites', JSON.stringify(['digits', 'base-tools']))")
    page.goto(link)
    expect(page.locator("#prereq-catalog")).to_have_attribute("data-state", "ready")
    assert shown(page) == ["upload-results", "digits"]
    add = page.locator('#prereq-shared button[data-focus-key="shared-add"]')
    expect(add).to_have_text("★ Add the 1 not yet there to my favorites")
    add.click()
    favorites = json.loads(page.evaluate("localStorage.getItem('prereq.favorites')"))
    assert favorites == ["upload-results", "digits", "base-tools"]

    page.locator('#prereq-shared button[data-focus-key="shared-clear"]').click()
    assert query_of(page) == {}
    assert len(shown(page)) == 7
    page.go_back()
    assert shown(page) == ["upload-results", "digits"]


def test_what_was_typed_is_in_the_address_at_once_for_back_forward_and_reload(visit):
    """The address follows each key, so Back, Forward or a reload right after typing keep the query
    in the step it was typed in (an address written later lost it)."""
    page = open_catalog(visit)
    page.locator('#prereq-tags button[data-tag="tools"]').click()  # a step to come back to
    page.locator("#prereq-q").press_sequentially("base", delay=5)
    assert query_of(page) == {"q": ["base"], "tag": ["tools"]}  # read at once: nothing is pending
    page.evaluate("history.back()")
    expect(page.locator("#prereq-q")).to_have_value("")
    page.evaluate("history.forward()")
    expect(page.locator("#prereq-q")).to_have_value("base")
    assert query_of(page) == {"q": ["base"], "tag": ["tools"]}
    page.locator("#prereq-q").press_sequentially("-tools", delay=5)
    page.reload()
    expect(page.locator("#prereq-catalog")).to_have_attribute("data-state", "ready")
    expect(page.locator("#prereq-q")).to_have_value("base-tools")
    assert shown(page) == ["base-tools"]
    # An address written by hand keeps the query as typing does, without its spaces around.
    page = open_catalog(visit, "?q=base-tools%20")
    expect(page.locator("#prereq-q")).to_have_value("base-tools")
    expect(page.locator("#prereq-status")).not_to_contain_text("base-tools ")


def test_the_small_texts_say_what_the_page_does(visit):
    """An item type in the address picks its group; the sort says "best match" under search words; a
    choice that would show nothing cannot be picked; one favorite is "this favorite"."""
    page = open_catalog(visit, "?type=data")
    expect(page.locator('input[name="type"][value="datasets"]')).to_be_checked()
    assert shown(page) == ["digits", "nfs-share"]
    expect(page.locator("#prereq-sort option").first).to_have_text("name")
    page.locator("#prereq-q").fill("digits")
    expect(page.locator("#prereq-sort option").first).to_have_text("best match")

    page = open_catalog(visit, "?license=MIT")
    expect(page.locator('[data-count="datasets"]')).to_have_text("0")
    expect(page.locator('input[name="type"][value="datasets"]')).to_be_disabled()
    expect(page.locator('input[name="type"][value=""]')).to_be_enabled()
    owners = page.locator("#prereq-owner option").evaluate_all("(os) => os.map(o => [o.textContent, o.disabled])")
    assert owners[0] == ["anyone", False] and all(disabled == label.endswith("(0)") for label, disabled in owners[1:])
    assert any(disabled for _, disabled in owners)

    page.evaluate("localStorage.setItem('prereq.favorites', JSON.stringify(['digits']))")
    page = open_catalog(visit, "?show=favorites")
    expect(page.locator("#prereq-share")).to_contain_text("Share this favorite:")


def test_on_a_phone_the_filters_are_one_disclosure_that_closes_after_a_pick(visits, site_url):
    page = open_catalog(visits(site_url, "phone"))
    summary = page.locator("#prereq-filters > summary")
    marks = summary.evaluate(
        "(s) => [getComputedStyle(s, '::before').display, getComputedStyle(s, '::after').display,"
        " getComputedStyle(s.parentNode).boxShadow]"
    )
    assert marks == ["none", "none", "none"]  # no admonition icon, chevron or shadow: the native marker only
    summary.tap()
    expect(page.locator("#prereq-filters")).to_have_attribute("open", "")
    page.locator('input[name="type"][value="datasets"]').check()
    expect(page.locator("#prereq-filters")).not_to_have_attribute("open", "")
    expect(summary).to_be_focused()
    expect(page.locator("#prereq-filters-active")).to_have_text("(1 set)")
    assert shown(page) == ["digits", "nfs-share"]
