"""The marketplace site without a browser: the built HTML, the sanitiser, the diagram."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from prereq.marketplace.diagram import dependency_svg
from prereq.marketplace.publish import build
from prereq.marketplace.render import markdown_to_html, safe_url
from prereq.registry.rules import RULES

REPO = Path(__file__).resolve().parents[1]
HOSTILE = REPO / "tests" / "browser" / "fixture" / "hostile-item.yaml"
FIXTURE_REGISTRY = REPO / "tests" / "browser" / "fixture" / "registry"


class Tags(HTMLParser):
    """Every start tag with its attributes; which ones sit inside <article>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str], bool]] = []
        self.depth = 0
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}, self.depth > 0))
        if tag == "article":
            self.depth += 1
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self.depth -= 1
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def parse(path: Path) -> Tags:
    parser = Tags()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def is_remote(url: str) -> bool:
    return bool(re.match(r"^\s*(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)", url)) and not url.strip().startswith(("data:", "#"))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled registry, built as `prereq build` does."""
    result = build(REPO / "registry", tmp_path_factory.mktemp("site") / "site")
    assert result.built, result.problems
    return result.out


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A registry (not in git) with an item whose author tries to inject script."""
    root = tmp_path_factory.mktemp("hostile")
    shutil.copytree(FIXTURE_REGISTRY, root / "registry")
    shutil.copy(HOSTILE, root / "registry" / "prerequisites" / "evil-item.yaml")
    result = build(root / "registry", root / "out")
    assert result.built, result.problems
    return result.out


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
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert sitemap.count("<url>") < 40  # the nav's pages, not one per item


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
    for rule in RULES.values():
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
    assert int(counts["datasets"]) == sum(e["type"] == "data" for e in index["items"])
    assert int(counts["widgets"]) == sum(e["type"] in ("script", "output") for e in index["items"])
    assert int(counts["images"]) == sum(e["type"] == "dockerimage" for e in index["items"])
    assert text.count('class="prereq-list__name"') == 8


def test_item_page_yaml_is_the_closure_in_openpai_form(site: Path) -> None:
    text = (site / "items" / "mnist-data" / "index.html").read_text(encoding="utf-8")
    block = re.search(r'<code id="prereq-yaml">(.*?)</code>', text, re.S).group(1)
    job = yaml.safe_load(html.unescape(re.sub(r"<[^>]+>", "", block)))
    document = json.loads((site / "api" / "v1" / "prerequisites" / "mnist-data.json").read_text(encoding="utf-8"))
    closure = [node["name"] for node in document["versions"][-1]["closure"]]
    assert [form["name"] for form in job["prerequisites"]] == closure
    assert job["taskRoles"]["taskrole"]["prerequisites"] == closure
    assert job["prerequisites"][-1] == document["versions"][-1]["openpai"]
    root = json.loads((site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    assert job["taskRoles"]["taskrole"]["commands"] == [root["job_load_line"]]


def test_hostile_text_is_only_text(hostile_site: Path) -> None:
    page = hostile_site / "items" / "evil-item" / "index.html"
    parsed = parse(page)
    inside = [(tag, attrs) for tag, attrs, in_article in parsed.tags if in_article]
    assert inside
    for tag, attrs in inside:
        assert tag not in ("script", "img", "iframe", "style", "object", "embed", "form"), (tag, attrs)
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        for name in ("href", "src", "xlink:href"):
            if name in attrs:
                assert safe_url(attrs[name]) is not None, (tag, attrs)
    # Only the theme's and the site's own scripts, all local.
    scripts = [attrs.get("src") for tag, attrs, _ in parsed.tags if tag == "script"]
    assert all(src is None or not is_remote(src) for src in scripts)
    text = page.read_text(encoding="utf-8")
    assert "&lt;script&gt;window.__pwned = 1" in text  # shown, as text
    for tag, attrs, _ in parsed.tags:  # attribute values as the browser reads them
        for name, value in attrs.items():
            assert not re.match(r"(?i)(?:javascript|vbscript|data):", re.sub(r"[\x00-\x20]", "", value)), (tag, name)
    # The catalog's data: the index carries the text as JSON, the catalog writes it as text.
    index = json.loads((hostile_site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    assert any("<script>" in entry["title"] for entry in index["items"])
    catalog = (hostile_site / "assets" / "catalog.js").read_text(encoding="utf-8")
    assert "innerHTML" not in catalog and "insertAdjacentHTML" not in catalog
    assert "innerHTML" not in (hostile_site / "assets" / "prereq.js").read_text(encoding="utf-8")
    # Tag pages and lists escape titles too.
    tag_page = (hostile_site / "tags" / "security-test" / "index.html").read_text(encoding="utf-8")
    assert "<script>window" not in tag_page and "&lt;script&gt;window" in tag_page


@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://example.org/a?b=1&c=2", "https://example.org/a?b=1&c=2"),
        ("mailto:someone@example.org", "mailto:someone@example.org"),
        ("../other/", "../other/"),
        ("#anchor", "#anchor"),
        ("javascript:alert(1)", None),
        ("JaVaScRiPt:alert(1)", None),
        (" javascript:alert(1)", None),
        ("java\tscript:alert(1)", None),
        ("java&#x09;script:alert(1)", None),
        ("&#106;avascript:alert(1)", None),
        ("vbscript:msgbox", None),
        ("data:text/html,<script>alert(1)</script>", None),
        ("file:///etc/passwd", None),
    ],
)
def test_safe_url(url: str, expected: str | None) -> None:
    assert safe_url(url) == expected


@pytest.mark.parametrize(
    "text, forbidden",
    [
        ("<script>alert(1)</script>", "<script"),
        ("<img src=x onerror=alert(1)>", "<img"),
        ("![x](https://tracker.example/p.png)", "<img"),
        ("[x](javascript:alert(1))", "javascript:"),
        ("[x](java&#x09;script:alert(1))", "script:"),
        ("[r]: javascript:alert(1)\n\nsee [r]", "javascript:"),
        ("<javascript:alert(1)>", 'href="javascript'),
        ('<a href="javascript:alert(1)">x</a>', "<a "),
        ("<div onclick=alert(1)>\n\nx\n\n</div>", "<div"),
        ("<style>body{display:none}</style>", "<style"),
        ("```\n</code></pre><script>alert(1)</script>\n```", "<script"),
    ],
)
def test_markdown_is_sanitised(text: str, forbidden: str) -> None:
    assert forbidden not in str(markdown_to_html(text))


def test_markdown_keeps_what_is_safe() -> None:
    rendered = str(markdown_to_html("# Title\n\nSome `code`, a [link](https://example.org) and **bold**.\n\n- one\n"))
    assert "<h3>Title</h3>" in rendered  # below the page's own headings
    assert '<a href="https://example.org" rel="nofollow noopener noreferrer">link</a>' in rendered
    assert "<code>code</code>" in rendered and "<strong>bold</strong>" in rendered and "<li>one</li>" in rendered


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


def _project_copy(tmp_path: Path) -> Path:
    """mkdocs.yml and the site sources in a fresh folder (the hooks file linked)."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(REPO / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(REPO / "site", project / "site")
    (project / "tools").symlink_to(REPO / "tools")
    return project


def _mkdocs_build(project: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if True}
    env["NO_MKDOCS_2_WARNING"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(project / "mkdocs.yml"), "-d", str(out)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_plain_mkdocs_shows_the_last_prereq_build(tmp_path: Path) -> None:
    """What a plain `mkdocs serve` does: no index_dir, so the plugin reads build/site."""
    project = _project_copy(tmp_path)
    run = _mkdocs_build(project, tmp_path / "out")
    assert run.returncode != 0 and "prereq serve" in run.stderr and "Traceback" not in run.stderr
    assert build(REPO / "registry", project / "build" / "site", with_site=False).built
    run = _mkdocs_build(project, tmp_path / "out")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out" / "api" / "v1" / "index.json").is_file()
    assert (tmp_path / "out" / "items" / "mnist-data" / "index.html").is_file()


def test_prereq_serve_indexes_the_registry_and_serves_the_site(tmp_path: Path) -> None:
    import socket
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("prereq")),
            "serve",
            "--registry",
            str(REPO / "registry"),
            "--dev-addr",
            f"127.0.0.1:{port}",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline, page = time.monotonic() + 120, ""
        while time.monotonic() < deadline and not page:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/items/mnist-data/", timeout=5) as response:
                    page = response.read().decode()
            except OSError:
                assert server.poll() is None, server.communicate()[1]
                time.sleep(0.5)
        assert "MNIST handwritten digits" in page
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/index.json", timeout=5) as response:
            assert json.loads(response.read())["format"] == "prereq-index/1"
    finally:
        server.terminate()
        server.communicate(timeout=30)


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
        text = (site / "items" / entry["name"] / "index.html").read_text(encoding="utf-8")
        block = re.search(r'<code id="prereq-yaml">(.*?)</code>', text, re.S).group(1)
        shown = yaml.safe_load(html.unescape(re.sub(r"<[^>]+>", "", block)))["taskRoles"]["taskrole"]
        added = yaml.safe_load(jobs.add_to_text(skeleton, [entry["name"]], index=site).after)["taskRoles"]["taskrole"]
        assert shown.get("dockerImage") == added.get("dockerImage"), entry["name"]
        assert shown["prerequisites"] == added["prerequisites"], entry["name"]
        load_line = [c for c in added["commands"] if c != "python train.py"]
        assert shown.get("commands", []) == load_line, entry["name"]
