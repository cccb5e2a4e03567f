"""The composer binds a data item to the task role's ``data:`` as ``prereq job add --bind`` does, and
unbinds it as ``prereq job remove --unbind`` does: same text, item kept, focus kept on the box."""

from __future__ import annotations

import yaml
from composer_page import JOB, box, editor_text, open_composer, paste, settle, toggle
from playwright.sync_api import expect

from prereq import jobs


def test_binding_a_data_item_is_add_bind_and_unbinding_is_remove_unbind(visit, built_site, site_url) -> None:
    page = open_composer(visit)
    paste(page, JOB, ["train", "evaluate"])
    toggle(page, "digits")
    added = editor_text(page)
    bind = page.locator("#prereq-composer-bind-digits")
    expect(bind).not_to_be_checked()
    expect(page.locator("label:has(#prereq-composer-bind-digits)")).to_have_text(" as the task role's data")
    bind.check()
    settle(page)
    expect(bind).to_be_checked()
    expect(bind).to_be_focused()  # the list is drawn again; the keyboard stays on the box
    bound = editor_text(page)
    cli = jobs.add_to_text(added, ["digits"], index=built_site, task_role="train", bind=True, source="job")
    assert bound == cli.after.replace(str(built_site), site_url.rstrip("/"))
    assert yaml.safe_load(bound)["taskRoles"]["train"]["data"] == "digits"
    bind.uncheck()
    settle(page)
    expect(bind).not_to_be_checked()
    unbound = editor_text(page)
    cli = jobs.remove_from_text(bound, ["digits"], index=built_site, task_role="train", unbind=True, source="job")
    assert unbound == cli.after
    data = yaml.safe_load(unbound)
    assert "data" not in data["taskRoles"]["train"] and "bound" not in data["extras"]["prereq"]
    expect(box(page, "digits")).to_be_checked()  # the item stays in the job
    # Each type binds to the field of its name.
    toggle(page, "upload-results")
    expect(page.locator("label:has(#prereq-composer-bind-upload-results)")).to_have_text(" as the task role's output")
