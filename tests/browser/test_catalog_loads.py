"""The catalog and the header's search read the catalog file (api/v1/catalog.json), not the root
index: once per page, with one set of search records for both; the entries rebuilt from its columns
are the root's; an index without the file (published by an older prereq) still shows."""

from __future__ import annotations

import json

import pytest
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


def _broken(built_site, how: str) -> str:
    """The site's catalog file, broken as ``how`` says: what a partial or hand-edited deploy serves."""
    file = json.loads((built_site / "api" / "v1" / "catalog.json").read_text(encoding="utf-8"))
    columns = file["items"]
    if how == "a position past its list":
        columns["type"][0] = len(file["types"])
    elif how == "a tag that is not listed":
        columns["tags"][0] = [len(file["tags"]) + 9]
    else:  # a column of another length
        columns["title"] = columns["title"][:-3]
    return json.dumps(file)


@pytest.mark.parametrize("broken", [None, "a position past its list", "a tag that is not listed", "a short column"])
def test_an_index_without_a_whole_catalog_file_still_shows(visit, built_site, broken):
    """Missing (an index published by an older prereq) or broken: the page reads the root instead."""
    body, status = (_broken(built_site, broken), 200) if broken else ("not found", 404)
    visit.page.route("**/api/v1/catalog.json", lambda route: route.fulfill(status=status, body=body))
    page = open_catalog(visit, "?deprecated=1")
    assert shown(page) == ALL
    expect(page.locator("#prereq-status")).to_contain_text("8 items")
    assert api_requests(visit) == ["catalog.json", "index.json"]


def _vocabulary(built_site, how: str) -> str:
    """The site's catalog file with its vocabulary as built, without the word "share", or broken."""
    file = json.loads((built_site / "api" / "v1" / "catalog.json").read_text(encoding="utf-8"))
    vocabulary = file["vocabulary"]
    at = vocabulary["words"].index("share")
    if how == "without share":
        del vocabulary["words"][at], vocabulary["counts"][at]
    elif how == "broken":
        vocabulary["counts"] = vocabulary["counts"][1:]
    return json.dumps(file)


@pytest.mark.parametrize(("how", "suggested"), [("as built", True), ("without share", False), ("broken", True)])
def test_a_typo_is_corrected_to_the_words_of_the_catalog_file(visit, built_site, how, suggested):
    """The page takes the words a typo is corrected to from the file instead of counting them: a
    word the file leaves out is never suggested; a vocabulary that does not hold together is counted."""
    body = _vocabulary(built_site, how)
    visit.page.route("**/api/v1/catalog.json", lambda route: route.fulfill(status=200, body=body))
    page = open_catalog(visit, "?q=shaer")
    if suggested:
        expect(page.locator("#prereq-suggest")).to_contain_text("Did you mean share?")
        assert shown(page)[0] == "nfs-share"
    else:
        expect(page.locator("#prereq-status")).to_contain_text("No item matches")
        expect(page.locator("#prereq-suggest")).to_be_hidden()
    assert api_requests(visit) == ["catalog.json"]


def test_a_catalog_whose_site_scripts_did_not_all_load_says_so(visit):
    """A page cached from another deploy than its scripts (prereq.js without finding.js): a message,
    not a page that stays "Loading the index…"."""
    visit.page.route("**/assets/finding.js", lambda route: route.fulfill(status=404, body="not found"))
    page = visit.open("catalog/")
    expect(page.locator("#prereq-catalog")).to_have_attribute("data-state", "error")
    expect(page.locator("#prereq-status")).to_have_text(
        "The page's scripts did not all load (assets/prereq.js, assets/finding.js): reload the page."
    )
