"""The catalog page: every item, search, facets, the URL, favorites."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import expect

ALL = ["base-tools", "digits", "evil-item", "hello-widget", "nfs-share", "old-share", "pytorch-image", "upload-results"]
DEPRECATED = ["old-share"]


def open_catalog(visit, query: str = ""):
    page = visit.open("catalog/" + query)
    expect(page.locator("#prereq-catalog")).to_have_attribute("data-state", "ready")
    return page


def shown(page) -> list[str]:
    return page.locator("#prereq-results > li").evaluate_all("(items) => items.map(i => i.dataset.name)")


def query_of(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def typed_query(page, text: str) -> dict[str, list[str]]:
    """The page's query once the address holds the text typed (typing writes it within 250 ms)."""
    page.wait_for_function("text => new URLSearchParams(location.search).get('q') === text", arg=text)
    return query_of(page)


def test_the_catalog_lists_every_item(visit, screenshots):
    page = open_catalog(visit)
    assert shown(page) == sorted(set(ALL) - set(DEPRECATED))
    expect(page.locator("#prereq-status")).to_contain_text("7 items")
    page.screenshot(path=str(screenshots / "catalog.png"))

    page.locator("#prereq-deprecated").check()
    assert shown(page) == ALL
    assert query_of(page) == {"deprecated": ["1"]}
    card = page.locator('#prereq-results > li[data-name="old-share"]')
    expect(card.locator(".prereq-badge--deprecated")).to_have_text("deprecated")
    # Item links resolve to the item pages.
    card.locator("a.prereq-card__name").click()
    expect(page).to_have_url(visit.site_url + "items/old-share/")


def test_typing_narrows_the_list_and_the_url_follows(visit):
    page = open_catalog(visit)
    page.locator("#prereq-q").fill("share")
    expect(page.locator("#prereq-results > li")).to_have_count(3)
    # Name matches first, then the others by name.
    assert shown(page) == ["nfs-share", "digits", "upload-results"]
    assert typed_query(page, "share") == {"q": ["share"]}

    page.locator("#prereq-q").fill("shared volume")
    assert shown(page) == ["digits", "nfs-share", "upload-results"]
    assert typed_query(page, "shared volume") == {"q": ["shared volume"]}

    # The URL restores the view, as a shared link would.
    page.reload()
    expect(page.locator("#prereq-catalog")).to_have_attribute("data-state", "ready")
    expect(page.locator("#prereq-q")).to_have_value("shared volume")
    assert shown(page) == ["digits", "nfs-share", "upload-results"]

    page.locator("#prereq-q").fill("no-such-thing")
    expect(page.locator("#prereq-results > li")).to_have_count(0)
    expect(page.locator("#prereq-status")).to_contain_text("No item matches")


def test_facets_filter(visit):
    page = open_catalog(visit)
    page.locator('input[name="type"][value="datasets"]').check()
    assert shown(page) == ["digits", "nfs-share"]
    assert query_of(page) == {"type": ["datasets"]}
    expect(page.locator('[data-count="datasets"]')).to_have_text("2")
    expect(page.locator('[data-count="widgets"]')).to_have_text("4")

    page.locator('input[name="type"][value="widgets"]').check()
    assert shown(page) == ["base-tools", "evil-item", "hello-widget", "upload-results"]
    page.locator('#prereq-tags button[data-tag="tools"]').click()
    assert shown(page) == ["base-tools", "evil-item", "hello-widget"]
    page.locator('#prereq-tags button[data-tag="debug"]').click()
    assert shown(page) == ["hello-widget"]
    assert query_of(page) == {"type": ["widgets"], "tag": ["tools", "debug"]}

    page.locator("#prereq-clear").click()
    page.locator("#prereq-owner").select_option("data-team")
    assert shown(page) == ["nfs-share", "upload-results"]
    assert query_of(page) == {"owner": ["data-team"]}

    page.locator("#prereq-owner").select_option("")
    page.locator("#prereq-sort").select_option("updated")
    assert query_of(page) == {"sort": ["updated"]}
    # evil-item and nfs-share 1.2.0 came with the last commit.
    assert set(shown(page)[:2]) == {"evil-item", "nfs-share"}

    # Links from elsewhere (the home page's counts, a tag page) open a filtered catalog.
    page = open_catalog(visit, "?type=images&tag=pytorch")
    assert shown(page) == ["pytorch-image"]
    expect(page.locator('input[name="type"][value="images"]')).to_be_checked()


def test_a_star_survives_a_reload_and_favorites_filter_shows_it(visit):
    page = open_catalog(visit)
    star = page.locator('#prereq-results > li[data-name="digits"] [data-prereq-star]')
    expect(star).to_have_attribute("aria-pressed", "false")
    star.click()
    expect(star).to_have_attribute("aria-pressed", "true")
    assert json.loads(page.evaluate("localStorage.getItem('prereq.favorites')")) == ["digits"]

    page.reload()
    expect(page.locator("#prereq-catalog")).to_have_attribute("data-state", "ready")
    star = page.locator('#prereq-results > li[data-name="digits"] [data-prereq-star]')
    expect(star).to_have_attribute("aria-pressed", "true")
    expect(page.locator('[data-count="favorites"]')).to_have_text("1")

    page.locator('input[name="show"][value="favorites"]').check()
    assert shown(page) == ["digits"]
    assert query_of(page) == {"show": ["favorites"]}

    # Unstarring under the favorites filter empties it.
    page.locator('#prereq-results > li[data-name="digits"] [data-prereq-star]').click()
    expect(page.locator("#prereq-results > li")).to_have_count(0)
    expect(page.locator("#prereq-status")).to_contain_text("No favorites yet")


def test_recently_used_is_a_filter(visit):
    page = open_catalog(visit)
    # What the composer and item pages write (newest first); unknown names are ignored.
    page.evaluate("localStorage.setItem('prereq.recent', JSON.stringify(['nfs-share', 'gone', 'digits']))")
    page = open_catalog(visit, "?show=recent")
    assert shown(page) == ["nfs-share", "digits"]  # most recent first
    expect(page.locator('[data-count="recent"]')).to_have_text("2")
