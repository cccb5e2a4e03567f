"""The job composer page: checking and unchecking prerequisites edits the job as the CLI does.

Every scenario ends by comparing the composer's YAML, parsed, with what ``prereq job add`` /
``prereq job remove`` (``prereq.jobs.add_to_text`` / ``remove_from_text``) make of the same start
and the same choices, on the same built index.  One key differs by design and is left out of the
comparison: ``extras.prereq.index`` records the site the composer ran on (its URL, checked
separately), where the CLI records the ``--index`` it was given (here the build folder).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import expect

from prereq import jobs
from prereq.core.errors import PrereqError
from prereq.openpai import runtime

JOB = """\
# Train and evaluate: my own comment at the top
protocolVersion: 2
name: composer-test
type: job

prerequisites:
  # my own image, written by hand
  - name: my-image
    type: dockerimage
    uri: ubuntu:22.04

taskRoles:
  train:
    instances: 1
    dockerImage: my-image   # the image I chose
    resourcePerInstance: {cpu: 2, memoryMB: 4096, gpu: 0}
    commands:
      - echo train   # keep this comment
  evaluate:
    instances: 1
    resourcePerInstance: {cpu: 1, memoryMB: 2048, gpu: 0}
    commands:
      - echo evaluate
"""

TEMPLATE = """\
# A template from the registry: the task role names registry items.
protocolVersion: 2
name: digits-training
type: job
taskRoles:
  train:
    instances: 1
    dockerImage: pytorch-image
    prerequisites:
      - upload-results   # copies the outputs to the share
    resourcePerInstance: {cpu: 4, memoryMB: 8192, gpu: 1}
    commands:
      - python train.py --data $DIGITS_DIR --out $OUTPUT_DIR
"""


# --------------------------------------------------------------------------- helpers


def open_composer(visit, query: str = ""):
    page = visit.open("composer/" + query)
    expect(page.locator("#prereq-composer")).to_have_attribute("data-state", "ready", timeout=15000)
    return page


def settle(page) -> None:
    """Wait until every edit the page queued is done."""
    page.evaluate("() => window.prereqComposer.idle().then(() => true)")


def row(page, name: str):
    return page.locator(f'#prereq-composer-items > li[data-name="{name}"]')


def box(page, name: str):
    return row(page, name).locator("input[type=checkbox]")


def toggle(page, name: str) -> None:
    box(page, name).click()
    settle(page)


def editor_text(page) -> str:
    return page.locator("#prereq-composer-yaml").input_value()


def cli(text: str, steps: list[tuple[str, str, list[str]]], index: Path) -> str:
    """The same choices through the Python API of ``prereq job add/remove``."""
    for action, role, names in steps:
        edit = jobs.add_to_text if action == "add" else jobs.remove_from_text
        text = edit(text, names, index=index, task_role=role).after
    return text


def same_job(composer_text: str, cli_text: str, site_url: str) -> dict:
    mine, theirs = yaml.safe_load(composer_text), yaml.safe_load(cli_text)
    for data in (mine, theirs):
        state = (data.get("extras") or {}).get("prereq")
        if state is not None:
            index = state.pop("index")
            if data is mine:
                assert index == site_url.rstrip("/")
    assert mine == theirs
    return mine


def paste(page, text: str, roles: list[str]) -> None:
    page.locator("#prereq-composer-yaml").fill(text)
    options = page.locator("#prereq-composer-role option")
    expect(options).to_have_text(roles)
    settle(page)


# --------------------------------------------------------------------------- tests


def test_checking_adds_requirements_and_unchecking_removes_them(visit, built_site, site_url, screenshots):
    page = open_composer(visit)
    paste(page, JOB, ["train", "evaluate"])
    expect(page.locator("#prereq-composer-role")).to_have_value("train")

    # An item with requirements: they come along, marked, and cannot be unchecked.
    toggle(page, "upload-results")
    expect(box(page, "upload-results")).to_be_checked()
    expect(box(page, "upload-results")).to_be_enabled()
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

    # The user's comments and flow mappings survive every edit.
    for comment in (
        "# Train and evaluate: my own comment at the top",
        "# my own image, written by hand",
        "# the image I chose",
        "# keep this comment",
    ):
        assert comment in final
    assert "resourcePerInstance: {cpu: 2, memoryMB: 4096, gpu: 0}" in final
    # And OpenPAI takes the job.
    jobs.prepare_text(final, index=built_site, expressions={})


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

    # The same choices on the empty job the composer starts from, through the CLI.
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
    # A template in the index (the fixture registry has none): served by the test, on the same site.
    def index_with_template(route):
        response = route.fetch()
        data = response.json()
        data["templates"] = [
            {"name": "digits-training", "title": "Train on the digits", "path": "templates/digits-training.yaml"}
        ]
        route.fulfill(response=response, body=json.dumps(data))

    visit.page.route("**/api/v1/index.json", index_with_template)
    visit.page.route(
        "**/api/v1/templates/digits-training.yaml",
        lambda route: route.fulfill(body=TEMPLATE, content_type="application/yaml"),
    )
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

    # Copy and download give the editor's text.
    page.locator("#prereq-composer-copy").click()
    expect(page.locator("#prereq-composer-copy")).to_have_text("Copied ✓")
    assert page.evaluate("navigator.clipboard.readText()") == editor_text(page)
    with page.expect_download() as download:
        page.locator("#prereq-composer-download").click()
    assert download.value.suggested_filename == "digits-training.yaml"
    saved = tmp_path / "saved.yaml"
    download.value.save_as(saved)
    assert saved.read_text(encoding="utf-8") == editor_text(page)

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

    # A new empty job, then the template again from the list.
    page.locator("#prereq-composer-empty").click()
    expect(box(page, "upload-results")).not_to_be_checked()
    page.locator("#prereq-composer-template").select_option("digits-training")
    expect(box(page, "upload-results")).to_be_checked()
    settle(page)
    same_job(
        editor_text(page), cli(TEMPLATE, [("add", "train", ["upload-results", "pytorch-image"])], built_site), site_url
    )


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
    expect(page.locator("#prereq-composer-error")).to_contain_text(cli_error("taskRoles: [oops", built_site).message)
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


MOUNT = "- mount -t nfs nfs.example.org:/export /mnt/share\n"


def test_hand_edits_of_prereq_entries_are_warned_about_as_the_cli_does(visit, built_site, site_url):
    def warnings_of(text: str) -> list[str]:
        return jobs.add_to_text(text, ["hello-widget"], index=built_site, task_role="train", source="job").warnings

    def composer_warnings(page) -> list[str]:
        return page.locator("#prereq-composer-messages .prereq-composer__warning").all_inner_texts()

    page = open_composer(visit)
    # The locked version stays: the hand edit is kept, with a warning.
    added = jobs.add_to_text(JOB, ["digits"], index=built_site, task_role="train", source="job").after
    edited = added.replace(MOUNT, MOUNT.replace("-t nfs", "-t nfs -o ro"))
    assert edited != added
    expected = warnings_of(edited)
    assert expected == [
        f"job:{edited[: edited.index('  - name: nfs-share')].count(chr(10)) + 1}: nfs-share was "
        "edited by hand since prereq added it; left as it is"
    ]
    paste(page, edited, ["train", "evaluate"])
    expect(box(page, "hello-widget")).not_to_be_checked()  # the pasted job is the one shown
    toggle(page, "hello-widget")
    assert composer_warnings(page) == ["warning: " + line for line in expected]
    assert "-t nfs -o ro" in editor_text(page)
    same_job(editor_text(page), cli(edited, [("add", "train", ["hello-widget"])], built_site), site_url)

    # Another version is chosen: the hand edit is replaced, with a warning.
    added = jobs.add_to_text(JOB, ["nfs-share@~1.1"], index=built_site, task_role="train", source="job").after
    edited = added.replace(MOUNT, MOUNT.replace("-t nfs", "-t nfs -o ro")).replace("nfs-share@~1.1", "nfs-share@^1.2")
    expected = warnings_of(edited)
    assert len(expected) == 1 and expected[0].endswith(
        ": nfs-share was edited by hand; replaced by nfs-share 1.2.0 from the index"
    )
    paste(page, edited, ["train", "evaluate"])
    expect(box(page, "hello-widget")).not_to_be_checked()  # the pasted job is the one shown
    toggle(page, "hello-widget")
    assert composer_warnings(page) == ["warning: " + line for line in expected]
    assert "-t nfs -o ro" not in editor_text(page)
    same_job(editor_text(page), cli(edited, [("add", "train", ["hello-widget"])], built_site), site_url)

    # An entry as prereq wrote it gets no warning.
    paste(page, added, ["train", "evaluate"])
    expect(box(page, "hello-widget")).not_to_be_checked()
    toggle(page, "hello-widget")
    expect(page.locator("#prereq-composer-messages")).to_contain_text("added hello-widget")
    assert composer_warnings(page) == []


def test_an_index_without_the_load_line_is_an_error(visit):
    def without_load_line(route):
        response = route.fetch()
        data = response.json()
        del data["job_load_line"]
        route.fulfill(response=response, body=json.dumps(data))

    visit.page.route("**/api/v1/index.json", without_load_line)
    page = visit.open("composer/")
    expect(page.locator("#prereq-composer")).to_have_attribute("data-state", "failed", timeout=15000)
    expect(page.locator("#prereq-composer-error")).to_contain_text(
        "index.json is not a valid prereq index file: it has no job_load_line"
    )
    expect(page.locator("#prereq-composer-error")).to_contain_text("rebuild it with 'prereq build'")


# Job texts the CLI refuses (the job document's checks); the composer must say the same, at the same line.
EXTRAS = "extras:\n  prereq:\n"
BAD_JOBS = {
    "a task role name that is a number": JOB.replace("  evaluate:", "  1:"),
    "a task role name that is null": JOB.replace("  evaluate:", "  null:"),
    "a task role name that is a float": JOB.replace("  evaluate:", "  1e16:"),
    "a prerequisite name that is not a string": JOB.replace("name: my-image", "name: 1.0"),
    "extras that is not a mapping": JOB + "extras: [prereq]\n",
    "an index that is not a string": JOB + EXTRAS + "    index: 12\n",
    "an invalid range in selected": JOB
    + EXTRAS
    + "    selected:\n      train:\n        - digits\n        - nfs-share@^^1\n",
    "an empty name in selected": JOB + EXTRAS + "    selected:\n      train: [digits, '@^1']\n",
    "a selected task role that is not a string": JOB + EXTRAS + "    selected:\n      1: [digits]\n",
    "a lock name that is not a string": JOB + EXTRAS + "    lock:\n      true: {version: 1.0.0, digest: 'sha256:0'}\n",
    # Older checks, whose lines are those of the values (a block value starts on the next line).
    "a task role that is not a mapping": JOB + "  broken: 3\n",
    "a task role listing what are not names": JOB + "  other:\n    prerequisites:\n      - {name: x}\n",
    "extras.prereq that is not a mapping": JOB + EXTRAS.replace("prereq:", "prereq: [a]"),
    "selected that is a word": JOB + EXTRAS + "    selected: yes\n",
    "a selected task role the job does not have": JOB + EXTRAS + "    selected:\n      gone:\n        - digits\n",
    "a lock entry without a digest": JOB + EXTRAS + "    lock:\n      digits:\n        version: 2.0.1\n",
}


def cli_error(text: str, index: Path) -> PrereqError:
    with pytest.raises(PrereqError) as raised:
        jobs.add_to_text(text, ["hello-widget"], index=index, task_role="train", source="job")
    return raised.value


def test_jobs_the_cli_refuses_are_refused_with_its_message(visit, built_site):
    page = open_composer(visit)
    error = page.locator("#prereq-composer-error")
    for case, text in BAD_JOBS.items():
        expected = cli_error(text, built_site)
        assert expected.message.startswith("job:"), (case, expected.message)
        # Checking an item: the edit is refused with the CLI's message and hint.
        refused = page.evaluate(
            """([text]) => window.prereqComposer.add(text, ["hello-widget"], "train").then(
            () => null, (error) => ({message: error.message, hint: error.hint}))""",
            [text],
        )
        assert refused == {"message": expected.message, "hint": expected.hint}, case
        # The pasted job: the page shows why nothing can be checked.
        page.locator("#prereq-composer-yaml").fill(text)
        hint = f"hint: {expected.hint}" if expected.hint else ""
        expect(error).to_have_text(f"Cannot do that: {expected.message}{hint}")
        expect(page.locator("#prereq-composer")).to_have_attribute("data-job", "invalid")
        expect(box(page, "hello-widget")).to_be_disabled()
        settle(page)


def test_names_the_cli_reads_as_strings_are_accepted(visit, built_site, site_url):
    # Quoted, or plain words YAML 1.2 (the CLI) reads as strings where YAML 1.1 would not.
    text = (
        JOB.replace("  evaluate:", "  '1':")
        .replace("name: my-image", "name: on")
        .replace("dockerImage: my-image", "dockerImage: 'on'")
    )
    expected = jobs.add_to_text(text, ["hello-widget"], index=built_site, task_role="train", source="job").after
    page = open_composer(visit)
    paste(page, text, ["train", "1"])
    expect(page.locator("#prereq-composer")).to_have_attribute("data-job", "valid")
    toggle(page, "hello-widget")
    expect(page.locator("#prereq-composer-error")).to_be_hidden()
    same_job(editor_text(page), expected, site_url)
