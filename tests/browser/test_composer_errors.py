"""The job composer page warns and refuses as the CLI does: hand edits of prereq's entries, an index
without the load line, job texts the job document refuses (same message, same line), and names the CLI
reads as strings."""

from __future__ import annotations

import json

from composer_page import JOB, box, cli, cli_error, editor_text, open_composer, paste, same_job, settle, toggle
from playwright.sync_api import expect

from prereq import jobs

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
        expect(error).to_have_text(f"This job cannot be edited yet: {expected.message}{hint}")
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
