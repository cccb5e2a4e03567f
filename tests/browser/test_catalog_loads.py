"""The catalog and the header's search read the catalog file (api/v1/catalog.json), not the root
index: once per page, with one set of search records for both; the entries rebuilt from its columns
are the root's; an index without the file (published by an older prereq) still shows."""

from __future__ import annotations

import json

from playwright.sync_api import expect
from test_catalog import ALL, DEPRECATED, open_catalog, shown

FIELDS = ["name", "version", "type", "title", "summary", "tags", "owners", "license", "updated", "path"]


def api_requests(visit) -> list[str]:
    return [url.rsplit("/api/v1/", 1)[1] for url in visit.requests if "/api/v1/" in url]


def test_the_catalog_and_the_header_search_share_one_catalog_file(visit, built_site):
    page = open_catalog(visit, "?q=share")
    page.keyboard.press("/")
    page.keyboard.type("share")
    expect(page.locator("#prereq-search-list .prereq-search-hit__name").first).to_have_text("nfs-share")
    assert api_requests(visit) == ["catalog.json"]
    # One list of records, searched by both: the header's search reuses the catalog's.
    assert page.evaluate("window.prereq.loadCatalog().then(c => c.records[0].facetAt)") == 0
    # The entries rebuilt from the columns hold the root's values.
    root = json.loads((built_site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    entries = page.evaluate("window.prereq.loadCatalog().then(c => c.items)")
    assert [{key: entry[key] for key in FIELDS} for entry in entries] == [
        {key: entry[key] for key in FIELDS} for entry in root["items"]
    ]
    assert [entry["name"] for entry in entries if entry["deprecated"]] == DEPRECATED


def test_an_index_without_the_catalog_file_still_shows(visit):
    visit.page.route("**/api/v1/catalog.json", lambda route: route.fulfill(status=404, body="not found"))
    page = open_catalog(visit, "?deprecated=1")
    assert shown(page) == ALL
    expect(page.locator("#prereq-status")).to_contain_text("8 items")
    assert api_requests(visit) == ["catalog.json", "index.json"]
