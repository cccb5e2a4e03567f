"""The kinds of page of the marketplace, opened until their scripts are done (browser tests)."""

from __future__ import annotations

from playwright.sync_api import expect

# One page of each kind on the bundled registry's site.
PAGES = {
    "home": "",
    "catalog": "catalog/",
    "item": "items/mnist-data/",
    "tags": "tags/",
    "templates": "job-templates/",
    "composer": "composer/",
    "execution": "execution/",
    "rights": "execution/rights/",
}
READY = {"catalog": "#prereq-catalog", "composer": "#prereq-composer"}


def open_page(visit, kind: str):
    page = visit.open(PAGES[kind])
    if kind in READY:
        expect(page.locator(READY[kind])).to_have_attribute("data-state", "ready", timeout=15000)
    return page


def sideways(page) -> int:
    """How many pixels the page is wider than its viewport (0: it does not scroll sideways)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
