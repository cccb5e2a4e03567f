"""The composer page when it cannot start: a module of its engine that does not load or does not
parse, or an index that cannot be fetched, ends in a clear message in the page, never in a page
that stays "loading" (ui/start.js imports the engine and catches)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

NOT_STARTED = "The composer could not start: "


def open_broken_composer(visit, pattern: str, **response):
    """The composer page with every request matching ``pattern`` answered by ``response``."""
    visit.page.route(pattern, lambda route: route.fulfill(**response))
    page = visit.open("composer/")
    expect(page.locator("#prereq-composer")).to_have_attribute("data-state", "failed", timeout=15000)
    error = page.locator("#prereq-composer-error")
    expect(error).to_be_visible()
    expect(error.locator("strong")).to_have_text(NOT_STARTED)
    expect(page.locator("#prereq-composer-count")).to_have_text("The composer could not start.")
    return page


@pytest.mark.parametrize(
    "module",
    [
        "yaml/yamlstyle.js",  # deep in the engine: imported through several others
        "ui/page.js",  # the module start.js imports itself
    ],
)
def test_a_module_that_is_missing_is_reported(visit, module):
    page = open_broken_composer(visit, f"**/assets/composer/{module}", status=404, body="not found")
    expect(page.locator("#prereq-composer-error")).to_contain_text("module")
    expect(page.locator("#prereq-composer-error .prereq-composer__hint")).to_contain_text("reload the page")


def test_a_module_that_does_not_parse_is_reported(visit):
    page = open_broken_composer(
        visit,
        "**/assets/composer/jobs/plan.js",
        status=200,
        content_type="text/javascript",
        body="export const = ;\n",
    )
    expect(page.locator("#prereq-composer-error")).to_contain_text(NOT_STARTED)


def test_an_index_that_cannot_be_fetched_is_reported(visit):
    page = open_broken_composer(visit, "**/api/v1/index.json", status=404, body="not found")
    error = page.locator("#prereq-composer-error")
    expect(error).to_contain_text(NOT_STARTED + "cannot load index.json (404")
    expect(error.locator(".prereq-composer__hint")).to_have_text("hint: reload the page; the site may be incomplete")


def test_a_site_script_that_did_not_load_is_reported(visit):
    """A page cached from another deploy than its scripts: prereq.js without finding.js."""
    page = open_broken_composer(visit, "**/assets/finding.js", status=404, body="not found")
    expect(page.locator("#prereq-composer-error")).to_contain_text("assets/finding.js")


def test_a_composer_that_starts_shows_no_error(visit):
    page = visit.open("composer/")
    expect(page.locator("#prereq-composer")).to_have_attribute("data-state", "ready", timeout=15000)
    expect(page.locator("#prereq-composer-error")).to_be_hidden()
    expect(page.locator("#prereq-composer-items > li").first).to_be_visible()
