"""Item pages: facts, requirements, the YAML to paste and its copy button (which puts in the forms of
the items it requires: the same text as prereq's Python)."""

from __future__ import annotations

import json
import re

import yaml
from playwright.sync_api import expect

from site_html import whole_snippet


def test_item_page_shows_requirements_and_copies_the_job_yaml(visit, screenshots, built_site):
    page = visit.open("items/upload-results/")
    article = page.locator("article.prereq-item")
    expect(article.locator("h1")).to_have_text("Upload results next to the digits")
    expect(article.locator(".prereq-facts")).to_contain_text("Uploader")
    expect(article.locator(".prereq-facts")).to_contain_text("bob, data-team")
    expect(article.locator(".prereq-facts")).to_contain_text("MIT")

    # Requirements: direct ones as links, the whole closure in the diagram.
    requires = article.locator("ul.prereq-requires a")
    expect(requires).to_have_text(["digits"])
    requires.first.click()
    expect(page).to_have_url(visit.site_url + "items/digits/")
    expect(page.locator("ul.prereq-required-by a")).to_have_text(["upload-results"])
    page.go_back()
    graph = page.locator("svg.prereq-graph")
    expect(graph).to_be_visible()
    links = graph.locator("a").evaluate_all("(links) => links.map(a => a.getAttribute('href'))")
    assert sorted(links) == ["../digits/", "../nfs-share/"]
    expect(graph.locator(".prereq-graph__node--self")).to_contain_text("upload-results 0.3.0")

    # The closure in a job's order, each linked but the item itself.
    closure = article.locator("ol.prereq-closure > li")
    expect(closure).to_have_count(3)
    expect(closure.nth(0)).to_contain_text("nfs-share 1.2.0")
    assert closure.locator("a").evaluate_all("(links) => links.map(a => a.getAttribute('href'))") == [
        "../nfs-share/",
        "../digits/",
    ]

    # Callbacks as written, as shell.
    expect(article.locator("h3.prereq-event")).to_have_count(2)
    expect(article.locator(".language-sh").first).to_contain_text("export OUTPUT_DIR=<% this.mountPoint %>/runs/")

    # The composer link keeps working under any sub-path.
    composer = article.locator("a", has_text="Open in job composer")
    assert composer.get_attribute("href") == "../../composer/?add=upload-results"

    # The whole page in one tall viewport (a full-page capture would repeat Material's sticky header).
    page.set_viewport_size({"width": 1280, "height": page.evaluate("document.documentElement.scrollHeight")})
    page.screenshot(path=str(screenshots / "item.png"))
    page.set_viewport_size({"width": 1280, "height": 900})

    page.evaluate("document.addEventListener('prereq:copied', e => { window.__copied = e.detail; })")
    button = article.locator("[data-prereq-copy]")
    button.click()
    expect(button).to_have_text("Copied ✓")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.evaluate("window.__copied.text")
    assert copied == page.locator("#prereq-yaml").text_content()
    assert copied == whole_snippet(built_site, "upload-results")
    job = yaml.safe_load(copied)
    assert [p["name"] for p in job["prerequisites"]] == ["nfs-share", "digits", "upload-results"]
    assert job["taskRoles"]["taskrole"]["prerequisites"] == ["nfs-share", "digits", "upload-results"]
    digits = job["prerequisites"][1]
    assert "export DIGITS_DIR=/mnt/share/digits" in digits["callbacks"][0]["commands"]
    # A copy counts as a use: the catalog's "recently used" filter and the composer read this.
    assert json.loads(page.evaluate("localStorage.getItem('prereq.recent')")) == ["upload-results"]


def test_a_requirement_that_cannot_be_read_is_said_and_nothing_is_copied(visit):
    visit.page.route(re.compile(r".*/items/nfs-share/1\.2\.0\.yaml$"), lambda route: route.fulfill(status=404))
    page = visit.open("items/upload-results/")
    page.evaluate("navigator.clipboard.writeText('before')")
    box = page.locator("#prereq-yaml")
    expect(box).to_contain_text("The forms of the 2 items it requires could not be loaded")
    expect(box).not_to_have_attribute("aria-busy", "true")
    button = page.locator("article.prereq-item [data-prereq-copy]")
    button.click()
    expect(button).to_have_text("Could not load what it requires")
    assert page.evaluate("navigator.clipboard.readText()") == "before"
    expect(button).to_have_text("Copy YAML for your job", timeout=5000)


def test_item_page_versions_deprecation_and_images(visit):
    page = visit.open("items/nfs-share/")
    expect(page.locator(".prereq-facts")).to_contain_text("all versions: 1.2.0, 1.1.0")
    expect(page.locator(".prereq-versions tbody tr")).to_have_count(2)
    expect(page.locator(".prereq-facts a[href^='https://nfs.example.org']")).to_have_count(1)
    star = page.locator(".prereq-item__header [data-prereq-star]")
    star.click()
    expect(star).to_have_attribute("aria-pressed", "true")
    assert json.loads(page.evaluate("localStorage.getItem('prereq.favorites')")) == ["nfs-share"]

    page = visit.open("items/old-share/")
    banner = page.locator(".prereq-deprecated")
    expect(banner).to_contain_text("The old file server is retired.")
    banner.locator("a", has_text="nfs-share").click()
    expect(page).to_have_url(visit.site_url + "items/nfs-share/")
    expect(page.locator(".prereq-item__header [data-prereq-star]")).to_have_attribute("aria-pressed", "true")

    page = visit.open("items/pytorch-image/")
    job = yaml.safe_load(page.locator("#prereq-yaml").text_content())
    # As `prereq job add` does: the image is the task role's dockerImage and in its list.
    assert job["taskRoles"]["taskrole"] == {"dockerImage": "pytorch-image", "prerequisites": ["pytorch-image"]}
    assert job["prerequisites"][0]["uri"] == "nvcr.io/nvidia/pytorch:24.05-py3"


def test_home_tags_and_reference_pages(visit):
    page = visit.open("")
    counts = page.locator(".prereq-counts a")
    expect(counts.first).to_contain_text("Data and storage")
    counts.first.click()
    expect(page.locator("#prereq-catalog")).to_have_attribute("data-state", "ready")
    assert page.url.endswith("catalog/?type=datasets")

    page = visit.open("tags/")
    page.locator(".prereq-tag-cloud a", has_text="storage").click()
    expect(page).to_have_url(visit.site_url + "tags/storage/")
    expect(page.locator(".prereq-list__name")).to_have_text(["nfs-share", "old-share", "upload-results"])

    page = visit.open("reference/rules/")
    expect(page.locator("h1")).to_contain_text("Rule reference")
    page = visit.open("reference/format/")
    expect(page.locator("h1")).to_contain_text("Item format")
    # Item pages are not in the navigation.
    assert page.locator("nav.md-nav--primary a[href*='items/']").count() == 0


def test_an_item_page_describes_the_item_with_its_summary_as_text(visit):
    page = visit.open("items/evil-item/")
    description = page.locator('head meta[name="description"]').get_attribute("content")
    assert description is not None and "<script>window.__pwned = 3" in description  # text, not markup
    assert page.evaluate("document.head.querySelectorAll('meta[name=description]').length") == 1
    page = visit.open("items/digits/")
    assert page.locator('meta[name="description"]').get_attribute("content", timeout=1000).startswith("Keeps a")
