"""The job composer page: checking and unchecking prerequisites edits the job as the CLI does.

Every scenario ends by comparing the composer's YAML, parsed, with what ``prereq job add`` /
``prereq job remove`` (``prereq.jobs.add_to_text`` / ``remove_from_text``) make of the same start
and the same choices, on the same built index.  One key differs by design and is left out of the
comparison: ``extras.prereq.index`` records the site the composer ran on (its URL, checked
separately), where the CLI records the ``--index`` it was given (here the build folder).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from composer_page import (
    JOB,
    TEMPLATE,
    box,
    cli,
    cli_error,
    editor_text,
    open_composer,
    paste,
    row,
    same_job,
    serve_a_template,
    settle,
    toggle,
)
from playwright.sync_api import expect

from prereq import jobs
from prereq.openpai import runtime


def test_checking_adds_requirements_and_unchecking_removes_them(visit, built_site, site_url, screenshots):
    page = open_composer(visit)
    paste(page, JOB, ["train", "evaluate"])
    expect(page.locator("#prereq-composer-role")).to_have_value("train")

    _check_an_item_with_requirements(page, screenshots)
    toggle(page, "hello-widget")
    steps = [("add", "train", ["upload-results"]), ("add", "train", ["hello-widget"])]
    same_job(editor_text(page), cli(JOB, steps, built_site), site_url)

    # Unchecking takes out what nothing else needs.
    toggle(page, "upload-results")
    for name in ("upload-results", "digits", "nfs-share"):
        expect(box(page, name)).not_to_be_checked()
        expect(box(page, name)).to_be_enabled()
    expect(box(page, "hello-widget")).to_be_checked()
    expect(page.locator("#prereq-composer-messages")).to_contain_text("removed nfs-share 1.2.0 (no longer needed)")
    expect(row(page, "upload-results").locator(".prereq-composer__delta")).to_have_text(
        "−3: nfs-share, digits, upload-results"
    )

    # Another task role: a docker image item becomes its dockerImage.
    page.locator("#prereq-composer-role").select_option("evaluate")
    expect(box(page, "hello-widget")).not_to_be_checked()
    expect(row(page, "hello-widget")).to_contain_text("selected in task role train")
    toggle(page, "pytorch-image")
    toggle(page, "digits")
    expect(box(page, "nfs-share")).to_be_disabled()
    steps += [
        ("remove", "train", ["upload-results"]),
        ("add", "evaluate", ["pytorch-image"]),
        ("add", "evaluate", ["digits"]),
    ]
    final = editor_text(page)
    data = same_job(final, cli(JOB, steps, built_site), site_url)
    assert data["taskRoles"]["evaluate"]["dockerImage"] == "pytorch-image"
    assert data["extras"]["prereq"]["selected"] == {"train": ["hello-widget"], "evaluate": ["pytorch-image", "digits"]}

    _assert_the_users_text_survives(final)
    # And OpenPAI takes the job.
    jobs.prepare_text(final, index=built_site, expressions={})


def _check_an_item_with_requirements(page, screenshots: Path) -> None:
    """An item with requirements: they come along, marked, and cannot be unchecked."""
    toggle(page, "upload-results")
    expect(box(page, "upload-results")).to_be_checked()
    expect(box(page, "upload-results")).to_be_enabled()
    # Said where the eye is: next to the row, and to a screen reader.
    expect(row(page, "upload-results").locator(".prereq-composer__delta")).to_have_text(
        "+3: nfs-share, digits, upload-results"
    )
    expect(page.locator("#prereq-composer-live")).to_have_text("upload-results: +3: nfs-share, digits, upload-results")
    for name, needed_by in (("digits", "upload-results"), ("nfs-share", "digits")):
        expect(box(page, name)).to_be_checked()
        expect(box(page, name)).to_be_disabled()
        expect(row(page, name)).to_contain_text(f"required by {needed_by}")
    expect(page.locator("#prereq-composer-closure > li")).to_have_text(
        [
            r"nfs-share 1.2.0 — required by digits",
            "digits 2.0.1 — required by upload-results",
            "upload-results 0.3.0 — selected",
        ]
    )
    expect(page.locator("#prereq-composer-messages")).to_contain_text("added digits 2.0.1, required by upload-results")
    text = editor_text(page)
    data = yaml.safe_load(text)
    assert [p["name"] for p in data["prerequisites"]] == ["my-image", "nfs-share", "digits", "upload-results"]
    assert data["taskRoles"]["train"]["prerequisites"] == ["nfs-share", "digits", "upload-results"]
    assert data["taskRoles"]["train"]["commands"][0] == runtime.JOB_LOAD_LINE
    assert json.loads(page.evaluate("localStorage.getItem('prereq.recent')")) == ["upload-results"]
    page.screenshot(path=str(screenshots / "composer.png"), full_page=True)


def _assert_the_users_text_survives(final: str) -> None:
    """The user's comments and flow mappings survive every edit."""
    for comment in (
        "# Train and evaluate: my own comment at the top",
        "# my own image, written by hand",
        "# the image I chose",
        "# keep this comment",
    ):
        assert comment in final
    assert "resourcePerInstance: {cpu: 2, memoryMB: 4096, gpu: 0}" in final


def test_add_parameter_checks_the_item_in_the_draft(visit, built_site, site_url):
    page = open_composer(visit, "?add=digits")
    expect(box(page, "digits")).to_be_checked()
    expect(box(page, "nfs-share")).to_be_disabled()
    expect(row(page, "nfs-share")).to_contain_text("required by digits")
    assert "add=" not in page.url

    # The draft stays in the browser: the next item page's link adds to it.
    page = open_composer(visit, "?add=hello-widget")
    expect(box(page, "hello-widget")).to_be_checked()
    expect(box(page, "digits")).to_be_checked()
    assert json.loads(page.evaluate("localStorage.getItem('prereq.recent')")) == ["hello-widget", "digits"]
    composed = editor_text(page)

    # A new empty job asks before it replaces the draft: dismissed, the draft stays.
    page.locator("#prereq-composer-empty").click()
    settle(page)
    assert editor_text(page) == composed and visit.dialogs[-1].startswith("Replace the job in the editor")

    # The same choices on the empty job the composer starts from, through the CLI.
    visit.answers.append(True)
    page.locator("#prereq-composer-empty").click()
    settle(page)
    blank = editor_text(page)
    assert not {"prerequisites", "extras"} & set(yaml.safe_load(blank))
    expect(box(page, "digits")).not_to_be_checked()
    steps = [("add", "taskrole", ["digits"]), ("add", "taskrole", ["hello-widget"])]
    same_job(composed, cli(blank, steps, built_site), site_url)

    # An unknown name is reported, not added.
    page = open_composer(visit, "?add=no-such-item")
    expect(page.locator("#prereq-composer-error")).to_contain_text("no prerequisite named 'no-such-item'")
    assert "no-such-item" not in editor_text(page)


def test_template_upload_copy_download_and_undo(visit, built_site, site_url, tmp_path):
    serve_a_template(visit)
    # The job templates page links here with ?template=NAME; the Template list offers the same.
    page = open_composer(visit, "?template=digits-training")
    expect(page.locator("#prereq-composer-template option[value='digits-training']")).to_have_count(1)
    expect(box(page, "upload-results")).to_be_checked()
    settle(page)
    assert "template=" not in page.url
    # The names the template's task role gives are selected, as `prereq job add --task-role` would.
    expect(box(page, "pytorch-image")).to_be_checked()
    expected = cli(TEMPLATE, [("add", "train", ["upload-results", "pytorch-image"])], built_site)
    same_job(editor_text(page), expected, site_url)
    assert "# copies the outputs to the share" in editor_text(page)

    toggle(page, "hello-widget")
    expected = cli(expected, [("add", "train", ["hello-widget"])], built_site)
    same_job(editor_text(page), expected, site_url)

    _copy_and_download_give_the_editors_text(page, tmp_path)

    # Upload a job: it replaces the editor's text; Undo brings the previous one back.
    before = editor_text(page)
    page.locator("#prereq-composer-upload").set_input_files(
        files=[{"name": "mine.yaml", "mimeType": "application/yaml", "buffer": JOB.encode()}]
    )
    expect(page.locator("#prereq-composer-role option")).to_have_text(["train", "evaluate"])
    settle(page)
    assert editor_text(page) == JOB
    expect(box(page, "upload-results")).not_to_be_checked()
    page.locator("#prereq-composer-undo").click()
    settle(page)
    assert editor_text(page) == before

    # A new empty job (asked first), then the template again from the list.
    visit.answers.append(True)
    page.locator("#prereq-composer-empty").click()
    expect(box(page, "upload-results")).not_to_be_checked()
    page.locator("#prereq-composer-template").select_option("digits-training")
    expect(box(page, "upload-results")).to_be_checked()
    settle(page)
    same_job(
        editor_text(page), cli(TEMPLATE, [("add", "train", ["upload-results", "pytorch-image"])], built_site), site_url
    )


def _copy_and_download_give_the_editors_text(page, tmp_path: Path) -> None:
    page.locator("#prereq-composer-copy").click()
    expect(page.locator("#prereq-composer-copy")).to_have_text("Copied ✓")
    assert page.evaluate("navigator.clipboard.readText()") == editor_text(page)
    with page.expect_download() as download:
        page.locator("#prereq-composer-download").click()
    assert download.value.suggested_filename == "digits-training.yaml"
    saved = tmp_path / "saved.yaml"
    download.value.save_as(saved)
    assert saved.read_text(encoding="utf-8") == editor_text(page)


def test_the_filter_searches_as_the_catalog_does(visit):
    """A typo is corrected and said; the best match comes first; a type group's label ("Setup and
    upload") is no word of every setup script."""
    page = open_composer(visit)
    items = page.locator("#prereq-composer-items > li")
    names = lambda: items.evaluate_all("(li) => li.map(x => x.dataset.name)")  # noqa: E731
    page.locator("#prereq-composer-q").fill("digtis")
    expect(page.locator("#prereq-composer-count")).to_contain_text("for “digits” (nothing matched “digtis”)")
    assert names()[0] == "digits"
    page.locator("#prereq-composer-q").fill("upload")
    expect(items.first).to_have_attribute("data-name", "upload-results")
    assert "hello-widget" not in names()


def test_filters_favorites_recent_and_problems(visit, built_site):
    visit.context.add_init_script(
        "localStorage.setItem('prereq.favorites', JSON.stringify(['pytorch-image', 'gone-item']));"
        "localStorage.setItem('prereq.recent', JSON.stringify(['hello-widget', 'digits']));"
    )
    page = open_composer(visit)
    items = page.locator("#prereq-composer-items > li")
    names = lambda: items.evaluate_all("(li) => li.map(x => x.dataset.name)")  # noqa: E731
    # Deprecated items are hidden unless asked for.
    assert "old-share" not in names()
    page.locator("#prereq-composer-deprecated").check()
    expect(row(page, "old-share")).to_contain_text("deprecated")
    page.locator("#prereq-composer-type").select_option("images")
    expect(items).to_have_count(1)
    assert names() == ["pytorch-image"]
    page.locator("#prereq-composer-type").select_option("")
    page.locator("#prereq-composer-tag").select_option("storage")
    assert sorted(names()) == ["nfs-share", "old-share", "upload-results"]
    page.locator("#prereq-composer-tag").select_option("")
    page.locator("#prereq-composer-q").fill("handwritten shared")
    assert names() == ["digits"]
    page.locator("#prereq-composer-q").fill("")
    page.locator("input[name='prereq-composer-show'][value='favorites']").check()
    assert names() == ["pytorch-image"]
    page.locator("input[name='prereq-composer-show'][value='recent']").check()
    assert names() == ["hello-widget", "digits"]
    # Stars work here too.
    row(page, "digits").locator("[data-prereq-star]").click()
    assert json.loads(page.evaluate("localStorage.getItem('prereq.favorites')"))[0] == "digits"

    # Titles from the index are text, never markup.
    page.locator("input[name='prereq-composer-show'][value='']").check()
    expect(row(page, "evil-item")).to_contain_text("<script>window.__pwned = 1; alert(1)</script>")
    assert row(page, "evil-item").locator("script, img").count() == 0

    # A job the composer cannot edit: the reason is shown and nothing can be checked.
    page.locator("#prereq-composer-yaml").fill("taskRoles: [oops")
    error = page.locator("#prereq-composer-error")
    # A syntax error the parser finds: the same line as the CLI's, in the composer's parser's words.
    where = cli_error("taskRoles: [oops", built_site).message.split(": ", 1)[0].rsplit(":", 1)[0]
    expect(error).to_contain_text(where + ":")
    expect(error).to_contain_text("This job cannot be edited yet: ")  # the user only pasted: no "Cannot do that"
    expect(page.locator("#prereq-composer-messages > li")).to_have_count(0)  # nothing said of the job before
    expect(box(page, "hello-widget")).to_be_disabled()
    # The job's own prerequisite with a registry item's name is left alone, as the CLI does.
    paste(
        page,
        JOB.replace("name: my-image", "name: digits").replace("dockerImage: my-image", "dockerImage: digits"),
        ["train", "evaluate"],
    )
    expect(box(page, "digits")).to_be_disabled()
    expect(row(page, "digits")).to_contain_text("the job defines its own digits")
    toggle(page, "upload-results")
    expect(page.locator("#prereq-composer-error")).to_contain_text("the job's own prerequisite 'digits'")
    expect(box(page, "upload-results")).not_to_be_checked()


def test_the_engine_runs_in_a_worker_and_in_the_page_when_none_can_start(visits, site_url):
    """The site's page edits in a worker, its own thread only drawing (issue 30: no task of the page
    over 50 ms); when the worker's script cannot be had, the page makes the same edits itself.  Either
    reads the item files from their gzipped packs, none on its own."""
    texts = {}
    for where in ("worker", "page"):
        session = visits(site_url)
        if where == "page":
            session.context.route("**/composer/ui/engineworker.js", lambda route: route.fulfill(status=404, body=""))
        page = open_composer(session)
        paste(page, JOB, ["train", "evaluate"])
        toggle(page, "upload-results")
        expect(box(page, "nfs-share")).to_be_checked()
        assert page.evaluate("window.prereqComposer.engine()") == where
        toggle(page, "hello-widget")
        texts[where] = editor_text(page)
        fetched = [url.split("/api/v1/", 1)[1] for url in session.requests if "/api/v1/" in url]
        assert any(re.fullmatch(r"packs/[0-9a-f]{16}\.ndjson\.gz", path) for path in fetched), fetched
        assert not [path for path in fetched if path.startswith("prerequisites/")], fetched
    assert texts["worker"] == texts["page"]
    assert "name: hello-widget" in texts["page"]


def test_the_composer_page_loads_none_of_submits_code(visits, site_url):
    """Submit's preparation (jobs/prepare.js, with the rest-server's checks) is the portal plugin's: the
    engine imports it when first asked, so the composer page, editing a job, fetches none of it."""
    session = visits(site_url)
    page = open_composer(session)
    page.fill("#prereq-composer-q", "hello-widget")
    toggle(page, "hello-widget")
    expect(box(page, "hello-widget")).to_be_checked()
    # The worker made the edit, and its requests are seen: the item's files came through it.
    assert page.evaluate("window.prereqComposer.engine()") == "worker"
    assert _item_files(session), session.requests
    scripts = [url.split("/assets/composer/", 1)[1] for url in session.requests if "/assets/composer/" in url]
    assert "jobs/plan.js" in scripts and "ui/engineworker.js" in scripts, scripts
    assert not {"jobs/prepare.js", "openpai/restserver.js"} & set(scripts), scripts


def _item_files(session) -> list[str]:
    return [url for url in session.requests if re.search(r"/api/v1/(packs|prerequisites)/", url)]


def _until_read(page, session) -> list[str]:
    """The item files read, once some were and no more came for 250 ms (a closure may span packs)."""
    seen, quiet = [], 0
    for _ in range(200):
        page.wait_for_timeout(50)
        now = _item_files(session)
        quiet = quiet + 1 if now and now == seen else 0
        if quiet == 5:
            return now
        seen = now
    raise AssertionError(f"no item file was read, or the reads did not stop: {seen}")


def test_pointing_at_a_box_reads_its_items_files_before_the_click(visits, site_url):
    """The pointer resting on an item's box, or the keyboard's focus on it, reads the item's files then
    (issue 30: a first check waits for none); the check that follows reads no more."""
    session = visits(site_url)
    page = open_composer(session)
    page.fill("#prereq-composer-q", "upload-results")
    expect(box(page, "upload-results")).to_be_visible()
    assert _item_files(session) == [], "the empty job reads no item's files"
    box(page, "upload-results").hover()
    read = _until_read(page, session)
    toggle(page, "upload-results")
    expect(box(page, "upload-results")).to_be_checked()
    assert "name: nfs-share" in editor_text(page)
    assert _item_files(session) == read, "the check found its files read"

    session = visits(site_url)
    page = open_composer(session)
    page.fill("#prereq-composer-q", "hello-widget")
    box(page, "hello-widget").focus()
    read = _until_read(page, session)
    page.keyboard.press("Space")
    settle(page)
    expect(box(page, "hello-widget")).to_be_checked()
    assert _item_files(session) == read


def test_a_press_on_a_box_reads_its_items_files_at_once(visits, site_url):
    """A primary press, some 100 ms before its click, reads the item's files (issue 30); no more after."""
    session = visits(site_url)
    page = open_composer(session)
    page.fill("#prereq-composer-q", "upload-results")
    expect(box(page, "upload-results")).to_be_visible()
    for other in ({"button": 2, "isPrimary": True}, {"button": 0, "isPrimary": False}):  # right-click, 2nd finger
        box(page, "upload-results").dispatch_event("pointerdown", {"pointerType": "mouse", **other})
    page.wait_for_timeout(300)
    assert _item_files(session) == [], "only a primary press reads"
    box(page, "upload-results").dispatch_event("pointerdown", {"pointerType": "touch", "isPrimary": True, "button": 0})
    read = _until_read(page, session)
    toggle(page, "upload-results")
    expect(box(page, "upload-results")).to_be_checked()
    assert _item_files(session) == read, "the check found its files read"
