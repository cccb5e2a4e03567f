"""The job composer page, driven as the browser tests need it, and the CLI it is held to.

The two jobs the scenarios start from, the page's controls (open, paste, check an item's box, wait
until the page is idle, read the editor), and the same choices through ``prereq.jobs``
(``cli``, ``cli_error``) with the comparison of both results (``same_job``), and a job template served
into the index (``serve_a_template``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import expect

from prereq import jobs
from prereq.core.errors import PrereqError

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
    return row(page, name).locator("input.prereq-composer__check")


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
            index = state.pop("index", None)  # the CLI records no local folder
            if data is mine:
                assert index == site_url.rstrip("/")
    assert mine == theirs
    return mine


def paste(page, text: str, roles: list[str]) -> None:
    page.locator("#prereq-composer-yaml").fill(text)
    options = page.locator("#prereq-composer-role option")
    expect(options).to_have_text(roles)
    settle(page)


def cli_error(text: str, index: Path) -> PrereqError:
    with pytest.raises(PrereqError) as raised:
        jobs.add_to_text(text, ["hello-widget"], index=index, task_role="train", source="job")
    return raised.value


def serve_a_template(visit, served: str = TEMPLATE) -> None:
    """A template in the index (the fixture registry has none): served by the test, on the same site; the root
    gives TEMPLATE's sha256, the file is ``served``."""

    def index_with_template(route):
        response = route.fetch()
        data = response.json()
        digest = hashlib.sha256(TEMPLATE.encode()).hexdigest()
        data["templates"] = [
            {"name": "digits-training", "title": "Train on the digits", "path": "templates/digits-training.yaml"}
            | {"uses": [], "sha256": digest}
        ]
        route.fulfill(response=response, body=json.dumps(data))

    visit.page.route("**/api/v1/index.json", index_with_template)
    visit.page.route(
        "**/api/v1/templates/digits-training.yaml",
        lambda route: route.fulfill(body=served, content_type="application/yaml"),
    )
