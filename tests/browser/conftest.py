"""Browser tests of the marketplace site: Playwright driving Debian's headless Chromium.

The site is built once per session from a small fixture registry (plus one hostile
item) committed to a temporary git repository, then served over HTTP on loopback.
Every page a test opens records its requests; none may leave the site's origin.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).resolve().parent / "fixture"
SCREENSHOTS = REPO / "build" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Pages written by other parts of the project; a placeholder stands in (in the temporary copy
# only) when one is not there yet.
PLACEHOLDERS = {
    "site/composer.md": "# Job composer\n\nPlaceholder for the browser tests.\n",
    "site/authors.md": "# Writing items\n\nPlaceholder for the browser tests.\n",
}


def _git(repo: Path, *args: str, date: str = "2024-01-01T12:00:00+00:00") -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(
        ["git", "-c", "user.name=Fixture", "-c", "user.email=fixture@example.org", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    )


def make_fixture_repo(root: Path) -> Path:
    """A git repository holding the fixture registry (nfs-share published twice) and the site sources."""
    registry = root / "registry"
    shutil.copytree(FIXTURE / "registry", registry)
    _git(root, "init", "-q", "-b", "main")
    share = registry / "prerequisites" / "nfs-share.yaml"
    current = share.read_text(encoding="utf-8")
    share.write_text(current.replace("version: 1.2.0", "version: 1.1.0"), encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "fixture registry")
    share.write_text(current, encoding="utf-8")
    shutil.copy(FIXTURE / "hostile-item.yaml", registry / "prerequisites" / "evil-item.yaml")
    _git(root, "add", "-A")
    _git(
        root,
        "commit",
        "-q",
        "-m",
        "nfs-share 1.2.0 and an item from a hostile author",
        date="2024-06-01T12:00:00+00:00",
    )
    copy_site_sources(root)
    return registry


def copy_site_sources(root: Path) -> None:
    """This repository's mkdocs.yml and site/ beside a test registry, with the pages it names filled in."""
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO / "site", root / "site")
    for rel, text in PLACEHOLDERS.items():
        if not (root / rel).exists():
            (root / rel).write_text(text, encoding="utf-8")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from prereq.marketplace.build import build

    root = tmp_path_factory.mktemp("site-repo")
    registry = make_fixture_repo(root)
    result = build(registry, root / "out")
    assert result.built, result.problems
    return result.out


def _serve(built: Path):
    """The site under a sub-path (/out/), as on a shared static host: every link must be relative."""
    handler = functools.partial(_QuietHandler, directory=str(built.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/{built.name}/"
    server.shutdown()
    server.server_close()


AXE = REPO / ".venv" / "npm" / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="session")
def axe_source() -> Path:
    """axe-core's script, for a page's init scripts (tests/browser/test_access.py runs it)."""
    if not AXE.is_file():
        pytest.skip(f"{AXE} is missing: ./scripts/setup.sh --test installs axe-core")
    return AXE


@pytest.fixture(scope="session")
def bundled_root_url(bundled_site: Path):
    """The bundled site at the root of its host: where the theme's 404 page, whose links start at the
    site's root (MkDocs' rule without a site_url), works as a static host serves it."""
    handler = functools.partial(_QuietHandler, directory=str(bundled_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def site_url(built_site: Path):
    yield from _serve(built_site)


@pytest.fixture(scope="session")
def bundled_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of the registry this repository ships (50 items with real names: mnist-data beside
    fashion-mnist), committed to a temporary repository as a team's registry would be."""
    from prereq.marketplace.build import build

    root = tmp_path_factory.mktemp("bundled-repo")
    shutil.copytree(REPO / "registry", root / "registry")
    copy_site_sources(root)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "the bundled registry")
    result = build(root / "registry", root / "out")
    assert result.built, result.problems
    return result.out


@pytest.fixture(scope="session")
def bundled_url(bundled_site: Path):
    yield from _serve(bundled_site)


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is not installed (./scripts/setup.sh --test installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
SIZES = {"desktop": DESKTOP, "phone": PHONE}


class Visit:
    """One browser context (fresh localStorage) and the requests and dialogs its pages made."""

    def __init__(self, browser, site_url: str, size: dict | None = None, scheme: str = "light") -> None:
        self.site_url = site_url
        self.origin = "/".join(site_url.split("/")[:3])
        self.context = browser.new_context(**(size or DESKTOP), color_scheme=scheme)
        self.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=self.origin)
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.answers: list[bool] = []  # how the next dialogs are answered (accepted when True); dismissed after
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page = self.context.new_page()
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        if self.answers and self.answers.pop(0):
            dialog.accept()
        else:
            dialog.dismiss()

    def open(self, path: str):
        self.page.goto(self.site_url + path.lstrip("/"))
        return self.page

    def outside_requests(self) -> list[str]:
        return [
            url
            for url in self.requests
            if not url.startswith(self.origin + "/") and not url.startswith(("data:", "blob:"))
        ]


@pytest.fixture()
def visit(browser, site_url: str):
    session = Visit(browser, site_url)
    yield session
    outside = session.outside_requests()
    session.context.close()
    assert not outside, f"requests left the site: {outside}"


@pytest.fixture()
def visits(browser):
    """Visit(site_url, size, scheme) as often as a test needs, each checked as ``visit`` is."""
    opened: list[Visit] = []

    def make(site_url: str, size: str = "desktop", scheme: str = "light") -> Visit:
        session = Visit(browser, site_url, SIZES[size], scheme)
        opened.append(session)
        return session

    yield make
    outside = [url for session in opened for url in session.outside_requests()]
    for session in opened:
        session.context.close()
    assert not outside, f"requests left the site: {outside}"


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
