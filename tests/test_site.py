"""The marketplace site without a browser: the built pages of the bundled registry (items, tags,
references, the home page, job templates, snippets), that nothing is loaded from another host, and the
dependency diagram.  The sanitiser is tested in test_site_sanitiser.py, mkdocs and prereq serve in
test_site_serve.py."""

from __future__ import annotations

import html
import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from prereq.marketplace.diagram import MAX_REQUIREMENTS, dependency_svg
from prereq.marketplace.itempage import job_text
from prereq.marketplace.pages import SiteData
from prereq.marketplace.render import highlight_fragment, safe_url
from prereq.review.rules import ALL_RULES
from site_html import is_remote, parse, snippet, whole_snippet

REPO = Path(__file__).resolve().parents[1]


def test_every_item_has_a_page(site: Path) -> None:
    index = json.loads((site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    assert len(index["items"]) >= 50
    for entry in index["items"]:
        page = site / "items" / entry["name"] / "index.html"
        assert page.is_file(), entry["name"]
        text = page.read_text(encoding="utf-8")
        assert f'data-prereq-item="{entry["name"]}"' in text
        assert f'data-prereq-star="{entry["name"]}"' in text
        assert "../../composer/?add=" + entry["name"] in text
    for tag in {tag for entry in index["items"] for tag in entry["tags"]}:
        assert (site / "tags" / tag / "index.html").is_file(), tag
    for page in (
        "index.html",
        "catalog/index.html",
        "tags/index.html",
        "contributing/index.html",
        "reference/rules/index.html",
        "reference/format/index.html",
        "reference/prerequisite.schema.json",
    ):
        assert (site / page).is_file(), page


def test_item_pages_stay_out_of_the_navigation(site: Path) -> None:
    for page in (site / "index.html", site / "catalog" / "index.html", site / "items" / "base-tools" / "index.html"):
        text = page.read_text(encoding="utf-8")
        navigation = re.findall(r'<nav class="md-(?:nav md-nav--primary|tabs)".*?</nav>', text, re.S)
        assert navigation, page
        for block in navigation:
            assert "items/" not in block
            assert "tags/storage" not in block
    # An item page has no drawer (site/overrides/item.html): its tabs, a section by its first page, are
    # its navigation on every screen.  Other pages' drawers list a section by its first page too
    # (navigation.prune: the whole tree was a third of each frame); the section's own pages list it.
    item_page = (site / "items" / "base-tools" / "index.html").read_text(encoding="utf-8")
    assert "md-sidebar" not in item_page and "md-nav--primary" not in item_page
    tabs = re.search(r'<nav class="md-tabs".*?</nav>', item_page, re.S)
    assert tabs and 'href="../../reference/format/"' in tabs.group(0)
    tag_page = (site / "tags" / "storage" / "index.html").read_text(encoding="utf-8")
    drawer = re.search(r'<nav class="md-nav md-nav--primary.*?</nav>\n</div>', tag_page, re.S)
    assert drawer and 'href="../../reference/format/"' in drawer.group(0)
    assert "reference/rules/" not in drawer.group(0)
    assert 'href="../rules/"' in (site / "reference" / "format" / "index.html").read_text(encoding="utf-8")
    # No site address configured: no sitemap (its addresses are absolute; test_site_pages.py has one).
    assert not (site / "sitemap.xml").exists()


def test_nothing_is_loaded_from_another_host(site: Path) -> None:
    """Everything a page loads (src, srcset, stylesheets, icons, CSS url()) comes from the site;
    only links (<a href>) may point elsewhere, and never with a script scheme."""
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 100
    for page in pages:
        parsed = parse(page)
        for tag, attrs, _ in parsed.tags:
            for name in ("src", "srcset", "poster", "data", "action", "formaction"):
                if name in attrs:
                    assert not is_remote(attrs[name]), (page, tag, name, attrs[name])
            if tag == "link" and "href" in attrs:
                assert not is_remote(attrs["href"]), (page, attrs)
            if tag == "a" and "href" in attrs:
                assert safe_url(attrs["href"]) is not None or attrs["href"] == "", (page, attrs["href"])
            if "style" in attrs:
                assert not re.search(r"url\(\s*['\"]?(?:https?:)?//", attrs["style"]), (page, attrs)
            if tag == "meta" and attrs.get("http-equiv", "").lower() == "refresh":
                pytest.fail(f"{page}: meta refresh")
        for style in parsed.styles:
            assert not re.search(r"url\(\s*['\"]?(?:https?:)?//|@import", style), page
    for sheet in site.rglob("*.css"):
        css = sheet.read_text(encoding="utf-8")
        assert not re.search(r"@import\s+(?:url\()?['\"]?(?:https?:)?//", css), sheet
        for url in re.findall(r"url\(\s*['\"]?([^'\")]+)", css):
            assert url.startswith("data:") or not is_remote(url), (sheet, url)


def test_generated_pages_are_not_committed() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "site"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    assert not [path for path in tracked if path.startswith(("site/items/", "site/tags/", "site/reference/"))]
    assert not (REPO / "site" / "items").exists()


def test_rule_and_format_references(site: Path) -> None:
    rules = (site / "reference" / "rules" / "index.html").read_text(encoding="utf-8")
    for rule in ALL_RULES.values():
        assert f'id="{rule.id.lower()}"' in rules, rule.id
    fmt = (site / "reference" / "format" / "index.html").read_text(encoding="utf-8")
    for key in ("name", "version", "type", "title", "owners", "require", "parameters", "callbacks", "uri"):
        assert f"<code>{key}</code>" in fmt, key
    schema = json.loads((site / "reference" / "prerequisite.schema.json").read_text(encoding="utf-8"))
    assert schema["title"] == "prereq prerequisite item"


def test_home_page_counts_and_recent_items(site: Path) -> None:
    text = (site / "index.html").read_text(encoding="utf-8")
    assert "prereq:counts" not in text and "prereq:recent" not in text
    counts = dict(re.findall(r'href="catalog/\?type=(\w+)"><span class="prereq-count__number">(\d+)', text))
    index = json.loads((site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    live = [e for e in index["items"] if not e["deprecated"]]  # the site counts no deprecated item
    assert int(counts["datasets"]) == sum(e["type"] == "data" for e in live)
    assert int(counts["widgets"]) == sum(e["type"] in ("script", "output") for e in live)
    assert int(counts["images"]) == sum(e["type"] == "dockerimage" for e in live)
    assert text.count('class="prereq-list__name"') == 8


def test_item_page_yaml_is_the_closure_in_openpai_form(site: Path) -> None:
    text = whole_snippet(site, "mnist-data")
    job = yaml.safe_load(text)
    document = json.loads((site / "api" / "v1" / "prerequisites" / "mnist-data.json").read_text(encoding="utf-8"))
    closure = [node["name"] for node in document["versions"][-1]["closure"]]
    assert len(closure) > 2
    assert text == job_text(SiteData(site), document["versions"][-1])
    assert [form["name"] for form in job["prerequisites"]] == closure
    assert job["taskRoles"]["taskrole"]["prerequisites"] == closure
    assert job["prerequisites"][-1] == document["versions"][-1]["openpai"]
    root = json.loads((site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    assert job["taskRoles"]["taskrole"]["commands"] == [root["job_load_line"]]
    # The first callback the task role runs (a requirement's: its file has the short line) has the long one.
    heads = [callback["commands"][0] for form in job["prerequisites"] for callback in form.get("callbacks") or []]
    assert heads[0] == root["callback_lines"]["first"] and heads.count(root["callback_lines"]["first"]) == 1
    assert 'data-prereq-first-entry="0"' in (site / "items" / "mnist-data" / "index.html").read_text(encoding="utf-8")


def test_item_pages_hold_their_own_form_and_files_hold_every_versions(site: Path) -> None:
    """The page shows the item's own form and names its requirements; each version's form is a file
    beside the page, the entry a job's prerequisites list takes."""
    root = json.loads((site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    for entry in root["items"]:
        document = json.loads((site / "api" / "v1" / entry["path"]).read_text(encoding="utf-8"))
        for version in document["versions"]:
            text = (site / "items" / entry["name"] / f"{version['version']}.yaml").read_text(encoding="utf-8")
            assert yaml.safe_load(text) == [version["openpai"]], (entry["name"], version["version"])
        page = (site / "items" / entry["name"] / "index.html").read_text(encoding="utf-8")
        (shown,) = yaml.safe_load(snippet(page))["prerequisites"]
        for callback in shown.get("callbacks") or []:  # the long line, when the item's callback runs first
            if callback["commands"][0] == root["callback_lines"]["first"]:
                callback["commands"][0] = root["callback_lines"]["other"]
        assert shown == document["versions"][-1]["openpai"], entry["name"]
        requirements = len(document["versions"][-1]["closure"]) - 1
        assert (f'data-prereq-requirements="{requirements}"' in page) == (requirements > 0), entry["name"]


def test_item_pages_list_the_variables_the_item_exports(site: Path) -> None:
    page = (site / "items" / "mnist-data" / "index.html").read_text(encoding="utf-8")
    facts = page[page.index("<dt>Exports</dt>") :]
    assert "<code>$MNIST_DIR</code>" in facts[: facts.index("</dd>")]
    assert "<dt>Exports</dt>" not in (site / "items" / "enable-ssh" / "index.html").read_text(encoding="utf-8")


def test_job_templates_page_lists_every_template_as_written(site: Path) -> None:
    root = json.loads((site / "api" / "v1" / "index.json").read_text())
    page = (site / "job-templates" / "index.html").read_text(encoding="utf-8")
    assert root["templates"]
    for template in root["templates"]:
        assert f'data-prereq-template="{template["name"]}"' in page
        assert f'href="../composer/?template={template["name"]}"' in page
        first_comment = (site / "api" / "v1" / template["path"]).read_text().splitlines()[0]
        assert first_comment in html.unescape(re.sub(r"<[^>]+>", "", page))
    assert 'href="../items/mnist-data/"' in page


def test_item_page_snippets_give_the_task_role_prereq_job_add_gives(site: Path) -> None:
    """The snippet follows the job engine's plan: for every item, the task role it shows is the one
    that adding the item to a one-role job gives (docker image, list, load line)."""
    from prereq import jobs

    skeleton = (
        "protocolVersion: 2\nname: j\ntype: job\ntaskRoles:\n  taskrole:\n    instances: 1\n"
        "    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}\n    commands:\n      - python train.py\n"
    )
    root = json.loads((site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    for entry in root["items"]:
        shown = yaml.safe_load(whole_snippet(site, entry["name"]))["taskRoles"]["taskrole"]
        added = yaml.safe_load(jobs.add_to_text(skeleton, [entry["name"]], index=site).after)["taskRoles"]["taskrole"]
        assert shown.get("dockerImage") == added.get("dockerImage"), entry["name"]
        assert shown["prerequisites"] == added["prerequisites"], entry["name"]
        load_line = [c for c in added["commands"] if c != "python train.py"]
        assert shown.get("commands", []) == load_line, entry["name"]


def test_dependency_diagram_draws_the_nearest_requirements_and_counts_the_rest() -> None:
    chain = {f"c{i}": [f"c{i + 1}"] for i in range(40)} | {"c40": []}
    svg = str(
        dependency_svg(
            "c0",
            "1.0.0",
            edges=chain,
            versions=dict.fromkeys(chain, "1.0.0"),
            required_by=[],
            href=lambda name: f"../{name}/",
            more_requirements_href="#in-a-job",
        )
    )
    links = [a.get("href") for a in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}a")]
    assert links == [f"../c{i}/" for i in range(1, MAX_REQUIREMENTS + 1)] + ["#in-a-job"]
    assert f"+{40 - MAX_REQUIREMENTS} more" in svg


def test_dependency_diagram_is_wellformed_svg() -> None:
    edges = {"app": ["lib", "base"], "lib": ["base"], "base": []}
    svg = str(
        dependency_svg(
            "app",
            "1.0.0",
            edges=edges,
            versions={"app": "1.0.0", "lib": "2.0.0", "base": "0.1.0"},
            required_by=[f"user{i}" for i in range(15)],
            href=lambda name: f"../{name}/",
        )
    )
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    links = [a.get("href") for a in root.iter(f"{ns}a")]
    assert links.count("../lib/") == 1 and links.count("../base/") == 1
    assert len([link for link in links if link.startswith("../user")]) == 12
    assert "+3 more" in svg
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "app 1.0.0" in texts
    # Edges: 12 dependents + app->lib, app->base (long: arcs over lib), lib->base.
    assert len(list(root.iter(f"{ns}path"))) == 1 + 12 + 3
    # The classes are the groups': the edges', and one per run of boxes of a kind (bytes on every page).
    kinds = [g.get("class") for g in root.iter(f"{ns}g") if g.get("class")]
    assert kinds == ["prereq-graph__edges"] + [
        f"prereq-graph__node prereq-graph__node--{kind}" for kind in ("self", "requirement", "dependent", "more")
    ], kinds
    assert svg.count("class=") == 1 + len(kinds)


@pytest.mark.parametrize(
    ("code", "language"),
    [
        ("    commands:\n    - '. /tmp/prereq.env 2>/dev/null || :  # prereq: load variables'\n", "yaml"),
        ('echo "item $X is ready in $DIR"\nmkdir -p "$DIR" && cd "$DIR"\n', "sh"),
        ("key: <% this.x %> & 'a  b'\n", "yaml"),
    ],
)
def test_highlighting_is_one_span_per_colour_run_and_keeps_the_text(code: str, language: str) -> None:
    highlighted = str(highlight_fragment(code, language))
    assert html.unescape(re.sub(r"<[^>]+>", "", highlighted)) == code
    assert not re.search(r'<span class="[a-z0-9]+">\s*</span>', highlighted)  # no span of whitespace alone
    assert not re.search(r'<span class="([a-z0-9]+)">[^<]*</span> *<span class="\1">', highlighted), highlighted
    assert "<span" in highlighted
    if language == "yaml":  # its punctuation takes the code's own colour: no span of its own
        assert '<span class="p">' not in highlighted and '<span class="nt">' in highlighted


def test_an_item_page_says_when_it_was_updated_only_when_that_is_news(site: Path) -> None:
    """The Updated fact is left out when it is the day the Version fact already gives (the item's file
    last changed when its version was published); it stays when the file changed since, or never was
    committed."""
    index = json.loads((site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    seen = {True: 0, False: 0}
    for entry in index["items"]:
        document = json.loads((site / "api" / "v1" / entry["path"]).read_text(encoding="utf-8"))
        shown = next(v for v in document["versions"] if v["version"] == entry["version"])
        news = not entry["updated"] or entry["updated"] != shown["published"]
        page = (site / "items" / entry["name"] / "index.html").read_text(encoding="utf-8")
        assert ("<dt>Updated</dt>" in page) is news, entry["name"]
        seen[news] += 1
    assert seen[True] and seen[False], seen  # the bundled registry has both


def test_the_parameter_note_is_on_the_pages_whose_commands_take_one(site: Path) -> None:
    """What <% this.NAME %> means is said where the item's commands use it, and only there."""
    index = json.loads((site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    seen = {True: 0, False: 0}
    for entry in index["items"]:
        document = json.loads((site / "api" / "v1" / entry["path"]).read_text(encoding="utf-8"))
        item = next(v for v in document["versions"] if v["version"] == entry["version"])["item"]
        commands = [c for callback in item.get("callbacks", []) for c in callback["commands"]]
        commands += [*item.get("preCommands", []), *item.get("postCommands", [])]
        takes = any(re.search(r"<%\s*this\.", command) for command in commands)
        page = (site / "items" / entry["name"] / "index.html").read_text(encoding="utf-8")
        assert ("<code>&lt;% this.NAME %&gt;</code> takes the parameter" in page) is takes, entry["name"]
        seen[takes] += 1
    assert seen[True] and seen[False], seen
