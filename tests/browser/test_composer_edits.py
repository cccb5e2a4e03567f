"""The composer when a user starts over or changes their mind: a job file opened (read as the CLI reads
one), Undo over typing, and edits asked for while another runs."""

from __future__ import annotations

import re

import yaml
from composer_page import JOB, box, editor_text, open_composer, paste, row, settle, toggle
from playwright.sync_api import expect


def test_an_opened_file_that_is_not_utf8_is_refused_at_its_byte_and_the_job_stays(visit):
    """As `prereq job` reads a job file; File.text() would have put U+FFFD in the byte's place unsaid.
    The task role picked stays too, and checks go on in it."""
    page = open_composer(visit)
    paste(page, JOB, ["train", "evaluate"])
    page.locator("#prereq-composer-role").select_option("evaluate")
    settle(page)
    before = editor_text(page)
    page.locator("#prereq-composer-upload").set_input_files(
        files=[{"name": "latin.yaml", "mimeType": "text/yaml", "buffer": "name: café\n".encode("latin-1")}]
    )
    error = page.locator("#prereq-composer-error")
    expect(error).to_contain_text("latin.yaml:1:10: not valid UTF-8 (byte 0xe9)")
    expect(error).to_contain_text("hint: save the file as UTF-8")
    settle(page)
    assert editor_text(page) == before
    expect(page.locator("#prereq-composer-role")).to_have_value("evaluate")
    toggle(page, "hello-widget")
    assert "hello-widget" in yaml.safe_load(editor_text(page))["taskRoles"]["evaluate"]["prerequisites"]


def test_typing_is_an_undo_step_of_its_own_before_the_check_under_it(visit):
    page = open_composer(visit)
    start = editor_text(page)
    toggle(page, "hello-widget")
    checked = editor_text(page)
    page.locator("#prereq-composer-yaml").focus()
    page.keyboard.press("Control+End")
    page.keyboard.type("# my notes\n")
    page.wait_for_timeout(400)  # the editor reads typed text after a pause of 250 ms
    settle(page)
    assert editor_text(page) == checked + "# my notes\n"
    undo = page.locator("#prereq-composer-undo")
    undo.click()
    settle(page)
    assert editor_text(page) == checked  # the typing went, the check stays
    undo.click()
    settle(page)
    assert editor_text(page) == start
    expect(undo).to_be_disabled()


def test_edits_clicked_at_once_each_say_their_own_change_and_the_list_waits_for_them(visit):
    page = open_composer(visit)
    # Both boxes in one task: the second check is queued behind the first; the filter changes meanwhile.
    during = page.evaluate("""() => {
        const box = (name) => document.querySelector(`li[data-name="${name}"] input.prereq-composer__check`);
        box("digits").click();
        box("hello-widget").click();
        const query = document.getElementById("prereq-composer-q");
        query.value = "i";
        query.dispatchEvent(new Event("input"));
        return { disabled: box("digits").disabled, checked: box("digits").checked };
    }""")
    assert during == {"disabled": True, "checked": True}  # not drawn again from the job before the edit
    settle(page)
    expect(box(page, "digits")).to_be_checked()
    delta = row(page, "hello-widget").locator(".prereq-composer__delta")
    expect(delta).to_have_text(re.compile(r"^\+\d+: "))
    assert "digits" not in delta.inner_text() and "nfs-share" not in delta.inner_text()
