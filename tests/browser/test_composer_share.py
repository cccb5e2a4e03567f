"""The composer's "Share your own prerequisites": the item it shows for a hand-written entry is the one
``prereq share`` makes (the same function, fed the site's published item format), its refusals are the
CLI's, and the forge's new-file page opens prefilled with that item."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from composer_page import JOB, open_composer, paste
from playwright.sync_api import expect

from prereq.core.errors import PrereqError
from prereq.marketplace.pagemeta import new_item_url
from prereq.scaffold.share import share_entry

SETUP = """\
  # the team's setup, written by hand in every job until now
  - name: team-setup
    type: script
    server: nfs.example.org
    callbacks:
      - event: taskStarts
        commands:
          - pip install -r requirements.txt
          - echo "mounted <% this.server %>"
"""
LEAKY = """\
  - name: leaky-mount
    type: script
    callbacks:
      - event: taskStarts
        commands:
          - mount -t cifs //files/share /mnt -o username=alice,password=Tr0ub4dor3
"""
OWN = JOB.replace("\ntaskRoles:", SETUP + LEAKY + "\ntaskRoles:")


def _root(built_site: Path) -> dict:
    return json.loads((built_site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))


def _python(built_site: Path, name: str, **options: str) -> str:
    root = _root(built_site)
    shared = share_entry(
        OWN, name, item_format=root["item_format"], taken=[e["name"] for e in root["items"]], **options
    )
    return shared.text


def _section(page):
    return page.locator(".prereq-share")


def test_the_item_shown_is_the_one_prereq_share_makes(visit, built_site: Path) -> None:
    page = open_composer(visit)
    paste(page, JOB, ["train", "evaluate"])
    expect(_section(page)).to_be_visible()  # my-image is the job's own
    paste(page, OWN, ["train", "evaluate"])
    expect(page.locator("#prereq-share-entry option")).to_have_text(["my-image", "team-setup", "leaky-mount"])
    page.select_option("#prereq-share-entry", "team-setup")
    expect(page.locator("#prereq-share-name")).to_have_value("team-setup")
    expect(page.locator("#prereq-share-problem")).to_contain_text("say who owns the item")
    expect(page.locator("#prereq-share-copy")).to_be_disabled()
    page.fill("#prereq-share-owner", "alice")
    shown = page.locator("#prereq-share-item").inner_text()
    header, _, body = shown.partition("by the job composer.\n")
    assert header.startswith("# yaml-language-server: $schema=http") and "Shared from composer-test" in header
    assert body == _python(built_site, "team-setup", owner="alice")
    assert "  server: nfs.example.org" in body  # the cmd plugin's parameter, as prereq share keeps it
    with page.expect_download() as saved:
        page.click("#prereq-share-download")
    assert saved.value.suggested_filename == "team-setup.yaml"
    assert Path(saved.value.path()).read_text(encoding="utf-8") == shown
    # The owner is remembered for the next visit.
    assert page.evaluate("() => localStorage.getItem('prereq.owner')") == "alice"


def test_names_and_credentials_are_refused_as_the_cli_refuses_them(visit, built_site: Path) -> None:
    page = open_composer(visit)
    paste(page, OWN, ["train", "evaluate"])
    page.fill("#prereq-share-owner", "alice")
    page.select_option("#prereq-share-entry", "team-setup")
    page.fill("#prereq-share-name", "NFS_share")  # the fixture registry has nfs-share
    try:
        _python(built_site, "team-setup", owner="alice", as_name="NFS_share")
    except PrereqError as error:
        expected = f"{error.message} ({error.hint})"
    expect(page.locator("#prereq-share-problem")).to_have_text(expected)
    assert "too close to the item nfs-share" in expected
    expect(page.locator("#prereq-share-copy")).to_be_disabled()
    expect(page.locator("#prereq-share-item")).to_be_hidden()
    page.select_option("#prereq-share-entry", "leaky-mount")
    expect(page.locator("#prereq-share-name")).to_have_value("leaky-mount")
    expect(page.locator("#prereq-share-problem")).to_contain_text(
        "prerequisite leaky-mount holds a plain-text password= value; it cannot be shared"
    )
    assert "Tr0ub4dor3" not in page.locator(".prereq-share").inner_text()  # never the value
    # A job that defines none of its own shows no section.
    bare = JOB.replace("  - name: my-image\n    type: dockerimage\n    uri: ubuntu:22.04\n", "")
    paste(page, bare.replace("    dockerImage: my-image   # the image I chose\n", ""), ["train", "evaluate"])
    expect(page.locator("#prereq-composer")).to_have_attribute("data-job", "valid")
    expect(_section(page)).to_be_hidden()


def test_propose_opens_the_forges_new_file_page_with_the_item(visit, built_site: Path) -> None:
    template = new_item_url("https://github.com/team/registry", "registry/prerequisites")
    assert template is not None
    page = visit.page
    # The meta a site built with site.repo_url carries (tests/test_site_pages.py checks the build writes it).
    page.add_init_script(
        "document.addEventListener('DOMContentLoaded', () => { const m = document.createElement('meta');"
        f" m.name = 'prereq:new-item'; m.content = {json.dumps(template)}; document.head.appendChild(m); }});"
    )
    page = open_composer(visit)
    paste(page, OWN, ["train", "evaluate"])
    page.fill("#prereq-share-owner", "alice")
    page.select_option("#prereq-share-entry", "team-setup")
    link = page.locator("#prereq-share-open")
    expect(link).to_have_attribute("aria-disabled", "false")
    address = urlsplit(link.get_attribute("href"))
    assert (address.netloc, address.path) == ("github.com", "/team/registry/new/HEAD")
    query = parse_qs(address.query)
    assert query["filename"] == ["registry/prerequisites/team-setup.yaml"]
    assert query["value"] == [page.locator("#prereq-share-item").inner_text()]
    assert link.get_attribute("target") == "_blank" and link.get_attribute("rel") == "noopener"
    page.fill("#prereq-share-owner", "")
    expect(link).to_have_attribute("aria-disabled", "true")
    assert link.get_attribute("href") is None
