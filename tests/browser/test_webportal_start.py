"""A job that can be submitted from the start, in Chromium: the job users start from on the image the
registry marks (prereq.yaml's composer.image) or the portal's plugin entry names, "no image yet"
before Submit when neither does, problems on lines the editor has, no "name in use" about the job
just submitted, and the queues' words for end users and for administrators.

The plugin runs in the stand-in portal (``webportal_portal``); a second site is built from the same
fixture registry with a prereq.yaml that names its image.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import webportal_portal
import yaml
from composer_page import JOB as COMPOSER_JOB
from composer_page import cli, editor_text, open_composer, same_job, settle
from playwright.sync_api import Page, expect
from webportal_portal import JOB, check, outcome
from webportal_standin import Cluster, serve_site

from conftest import make_fixture_repo
from prereq.marketplace.build import build

# The portal's fixtures, where pytest looks for them (a module's own names).
cors_site, cluster, portal = webportal_portal.cors_site, webportal_portal.cluster, webportal_portal.portal
rights_index = webportal_portal.rights_index

IMAGE = "pytorch-image"  # the fixture registry's Docker image


@pytest.fixture(scope="module")
def image_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The fixture registry built with ``composer: {image: pytorch-image}`` in its prereq.yaml, on its
    own origin: (its address, its build folder)."""
    root = tmp_path_factory.mktemp("image-repo")
    registry = make_fixture_repo(root)
    (root / "prereq.yaml").write_text(f"composer:\n  image: {IMAGE}   # what new jobs run on\n", encoding="utf-8")
    result = build(registry, root / "out")
    assert result.built, result.problems
    url, server = serve_site(result.out)
    yield url, result.out
    server.shutdown()
    server.server_close()


def _empty_job(page: Page, site: str) -> str:
    """The composer's empty job, as its own module has it."""
    return page.evaluate("(url) => import(url).then((m) => m.EMPTY_JOB)", site + "assets/composer/ui/jobfile.js")


def _buttons(page: Page) -> list[str]:
    return page.evaluate(
        "() => [...document.querySelector('pai-plugin').shadowRoot.querySelectorAll('button')]"
        ".map((b) => b.textContent)"
    )


def test_the_site_composer_starts_on_the_registry_image_as_the_cli_writes_it(visits, image_site):
    url, out = image_site
    session = visits(url)
    page = open_composer(session)
    started = editor_text(page)
    assert yaml.safe_load(started)["taskRoles"]["taskrole"]["dockerImage"] == IMAGE
    same_job(started, cli(_empty_job(page, url), [("add", "taskrole", [IMAGE])], out), url)
    # "New empty job" starts from it again (after asking: the edited job is the user's work).
    page.locator("#prereq-composer-yaml").fill(started.replace("name: my-job", "name: mine"))
    settle(page)
    session.answers.append(True)
    page.locator("#prereq-composer-empty").click()
    settle(page)
    assert session.dialogs == ["Replace the job in the editor by a new empty job?"]
    assert editor_text(page) == started


def test_the_plugin_on_that_index_starts_with_a_job_it_submits(portal, cluster: Cluster, image_site):
    url, _ = image_site
    cluster.plugins[0]["uri"] = url + "webportal/prereq-plugin.js"
    session = portal()
    session.indexes.append(url)
    page = session.open()
    assert yaml.safe_load(session.editor())["taskRoles"]["taskrole"]["dockerImage"] == IMAGE
    expect(check(page, "job")).to_have_attribute("data-state", "ready")
    expect(check(page, "image")).to_have_count(0)
    page.locator("#prereq-plugin-submit").click()
    expect(outcome(page)).to_contain_text("Submitted my-job.")
    assert cluster.posts[-1]["status"] == 202
    name = check(page, "name")
    expect(name).to_have_attribute("data-state", "submitted")
    expect(name).to_contain_text("You submitted my-job just now.")
    # Never the contradiction the rest-server's check of the very job just sent would give.
    expect(page.locator("#prereq-plugin-checks")).not_to_contain_text("You already have a job named")
    expect(outcome(page)).to_contain_text("Submitted my-job.")

    # A job of the user's own whose task role has no image: the starting image is one click away.
    session.paste(COMPOSER_JOB)
    image = check(page, "image")
    expect(image).to_contain_text("No image yet: task role evaluate names no dockerImage")
    image.locator(f'button[data-add="{IMAGE}"]').click()
    session.settle()
    expect(check(page, "image")).to_have_count(0)
    text = session.editor()
    assert yaml.safe_load(text)["taskRoles"]["evaluate"]["dockerImage"] == IMAGE
    assert "# keep this comment" in text  # the engine's edit


def test_without_an_image_the_checks_say_so_before_submit(portal, cluster: Cluster, screenshots: Path):
    session = portal()
    page = session.open()
    image = check(page, "image")
    expect(image).to_have_attribute("data-state", "missing")
    expect(image).to_contain_text("No image yet: task role taskrole names no dockerImage")
    expect(image).to_contain_text("hint: check a Docker image in the list")
    expect(image).not_to_contain_text("prereq.yaml")  # an end user's words
    page.locator("pai-plugin").screenshot(path=str(screenshots / "webportal-no-image.png"))
    assert not cluster.posts
    lines = session.editor().split("\n")
    go = image.locator("button[data-line]")
    line = int(go.get_attribute("data-line") or 0)
    assert lines[line - 1] == "  taskrole:"
    go.click()
    selected = page.evaluate(
        "() => { const t = document.querySelector('pai-plugin').shadowRoot.querySelector('#prereq-composer-yaml');"
        " return t.value.slice(t.selectionStart, t.selectionEnd); }"
    )
    assert selected == "  taskrole:"
    assert not [text for text in _buttons(page) if "line 0" in text]

    # Checking the fixture's image puts it into the task role: the check goes, the job passes.
    session.toggle(IMAGE)
    expect(check(page, "image")).to_have_count(0)
    expect(check(page, "job")).to_have_attribute("data-state", "ready")


def test_problems_are_on_lines_of_the_editor_or_said_to_be_on_none(portal, cluster: Cluster):
    session = portal()
    page = session.open()
    text = JOB.replace("protocolVersion: 2", "protocolVersion: 2\njobRetryCount: lots")
    session.paste(text)
    refused = check(page, "job")
    expect(refused).to_have_count(1)
    expect(refused).to_have_attribute("data-state", "refused")
    expect(refused).to_contain_text('jobRetryCount: "lots" is not of type "integer"')
    line = text.split("\n").index("jobRetryCount: lots") + 1
    expect(refused.locator("button[data-line]")).to_have_text(f"Go to line {line}")
    # What the lock names and the index no longer has is on no line of the YAML: said so, no button.
    session.paste(JOB + 'extras:\n  prereq:\n    lock:\n      gone-item: {version: 1.0.0, digest: "sha256:00"}\n')
    lineless = check(page, "job")
    expect(lineless).to_have_text(
        "warning: gone-item 1.0.0 is locked but not published in the index (on no line of the YAML)"
    )
    expect(lineless).to_have_attribute("data-state", "warning")
    expect(lineless.locator("button")).to_have_count(0)
    assert not [text for text in _buttons(page) if "line 0" in text]
    assert not cluster.posts


def test_an_entry_image_the_index_lacks_is_told_by_reader(portal, cluster: Cluster):
    cluster.plugins[0]["config"] = {"image": "no-such-image"}
    cluster.add_user("carol", "carol-token", admin=True)
    user = portal().open()
    expect(check(user, "start")).to_have_text(
        "The image your administrators chose for new jobs (no-such-image) is not in the index."
        "hint: ask your administrators; meanwhile check a Docker image in the list"
    )
    expect(check(user, "image")).to_have_attribute("data-state", "missing")
    admin = portal("carol", "carol-token").open()
    start = check(admin, "start")
    expect(start).to_contain_text("This plugin's entry names no-such-image as the image new jobs start with")
    expect(start).to_contain_text("the index has no item named no-such-image")
    expect(check(admin, "image")).to_contain_text("prereq.yaml (composer.image)")


def test_no_queue_is_said_in_the_users_words_and_the_administrators(portal, cluster: Cluster, rights_index: str):
    cluster.plugins[0]["index"] = rights_index
    cluster.add_user("alice", "alice-token", groups=("students",))
    cluster.add_user("carol", "carol-token", groups=("students",), admin=True)
    alice = portal()
    alice.indexes.append(rights_index)
    queues = alice.open().locator("#prereq-plugin-queues")
    expect(queues.locator("#prereq-plugin-no-queue")).to_have_text(
        "No queue is offered to your groups: ask your administrators."
    )
    for word in ("rights.yaml", "owners.yaml", "prereq rights"):
        expect(queues).not_to_contain_text(word)
    carol = portal("carol", "carol-token")
    carol.indexes.append(rights_index)
    admin = carol.open().locator("#prereq-plugin-queues")
    expect(admin).to_contain_text("no rights for the groups students: rights.yaml names none of them")
    expect(admin).to_contain_text("owners.yaml")
