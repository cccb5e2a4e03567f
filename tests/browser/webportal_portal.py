"""The webportal plugin's browser sessions: a portal (the stand-in, ``webportal_standin``) with the
browser tests' fixture site on its own origin, and one signed-in browser context per user.

Each test opens the portal's plugin page (``/plugin.html?index=0``, or the address the portal's Clone
gives) as a signed-in user (the portal's ``user`` and ``token`` cookies), works in the plugin's shadow
root (Playwright's CSS locators reach into open shadow roots) and reads what the stand-in received.
Test modules import the fixtures (``cors_site``, ``cluster``, ``portal``) from here.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from composer_page import JOB as COMPOSER_JOB
from playwright.sync_api import Page, expect
from webportal_standin import Cluster, serve_portal, serve_site

from conftest import SIZES

RIGHTS_INDEX = Path(__file__).resolve().parents[1] / "cases" / "indexes" / "rights"

# The composer tests' job, its second task role given the image too (OpenPAI needs one in each).
JOB = COMPOSER_JOB.replace(
    "  evaluate:\n    instances: 1\n", "  evaluate:\n    instances: 1\n    dockerImage: my-image\n"
)
assert JOB != COMPOSER_JOB
TOKENS = {"alice": "alice-token", "bob": "bob-token"}
EXPIRED = "expired-token"
APPLICATION = "application-token"


@pytest.fixture(scope="module")
def cors_site(built_site: Path) -> Iterator[str]:
    url, server = serve_site(built_site)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def rights_index() -> Iterator[str]:
    """The rights case index (issue 15's rows) on its own origin, as an administrator's index key names it."""
    url, server = serve_site(RIGHTS_INDEX)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture()
def cluster(cors_site: str) -> Iterator[Cluster]:
    cluster = Cluster()
    for user, token in TOKENS.items():
        cluster.add_user(user, token)
    cluster.tokens[APPLICATION] = ("alice", True)
    cluster.plugins = [{"id": "prereq", "title": "Prerequisites", "uri": cors_site + "webportal/prereq-plugin.js"}]
    origin, server = serve_portal(cluster)
    cluster.origin = origin  # type: ignore[attr-defined]
    yield cluster
    server.shutdown()
    server.server_close()


class Portal:
    """One browser context signed in to the stand-in portal, and the requests its pages made."""

    def __init__(
        self, browser: Any, cluster: Cluster, site: str, user: str | None, token: str | None, size: str = "desktop"
    ) -> None:
        self.cluster = cluster
        self.site = site
        self.origin: str = cluster.origin  # type: ignore[attr-defined]
        self.context = browser.new_context(**SIZES[size])
        if user and token:
            self.context.add_cookies(
                [
                    {"name": "user", "value": user, "url": self.origin},
                    {"name": "token", "value": token, "url": self.origin},
                ]
            )
        self.requests: list[str] = []
        self.indexes: list[str] = []  # another index the admin's entry names (its own host)
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page: Page = self.context.new_page()

    def open(self, address: str = "/plugin.html?index=0") -> Page:
        self.page.goto(self.origin + address)
        expect(self.page.locator("pai-plugin")).to_have_attribute("data-state", "ready", timeout=20000)
        return self.page

    def settle(self) -> None:
        self.page.evaluate("() => document.querySelector('pai-plugin').prereq.idle().then(() => true)")

    def toggle(self, name: str) -> None:
        self.page.locator(f'#prereq-composer-items > li[data-name="{name}"] input[type=checkbox]').click()
        self.settle()

    def paste(self, text: str) -> None:
        self.page.locator("#prereq-composer-yaml").fill(text)
        self.page.wait_for_timeout(400)  # the editor's own pause before it reads the text again
        self.settle()

    def editor(self) -> str:
        return self.page.locator("#prereq-composer-yaml").input_value()

    def elsewhere(self) -> list[str]:
        """Requests to anything but the portal, the prereq site and the indexes the test allowed."""
        sites = tuple("/".join(site.split("/")[:3]) + "/" for site in [self.site, *self.indexes])
        return [u for u in self.requests if not u.startswith((self.origin + "/", *sites, "data:", "blob:"))]


@pytest.fixture()
def portal(browser, cluster: Cluster, cors_site: str):
    opened: list[Portal] = []

    def make(user: str | None = "alice", token: str | None = None, size: str = "desktop") -> Portal:
        session = Portal(browser, cluster, cors_site, user, token or (TOKENS.get(user or "") if user else None), size)
        opened.append(session)
        return session

    yield make
    elsewhere = [u for session in opened for u in session.elsewhere()]
    for session in opened:
        session.context.close()
    assert not elsewhere, f"requests left the portal and the site: {elsewhere}"


def outcome(page: Page):
    return page.locator("#prereq-plugin-outcome")


def check(page: Page, which: str):
    """The checks' line of one kind: "image", "job", "name", "cluster" or "start"."""
    return page.locator(f'#prereq-plugin-checks li[data-check="{which}"]')


def wait_for(check, what: str, timeout: float = 10.0) -> None:
    """Until the stand-in holds what a request should have brought (requests run on its threads)."""
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            pytest.fail(f"the rest-server never got {what}")
        time.sleep(0.05)
