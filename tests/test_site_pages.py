"""What the marketplace's pages say about themselves and their items, built as a team publishes them
(prereq.yaml naming the site's address and its repository) and as a plain build: version dates and
links to the item's file, the sitemap, meta descriptions, the job templates' overview cards."""

from __future__ import annotations

import html
import re
import shutil
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from gitrepo import GitRepo
from prereq.marketplace.build import build
from prereq.marketplace.pagemeta import first_paragraph, new_item_url, source_links
from prereq.registry.settings import SiteSettings, load_settings

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "browser" / "fixture"
SITE_URL = "https://team.example/prereq/"
REPO_URL = "https://github.com/team/registry"
TEMPLATE = """\
# Reads the share and uploads what it wrote.
protocolVersion: 2
name: share-job
type: job
version: 1.0.0
contributor: data-team
description: Read the shared volume and upload the results.
taskRoles:
  main:
    instances: 1
    dockerImage: pytorch-image
    prerequisites:
      - nfs-share
      - upload-results
    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
    commands:
      - ls /mnt/share
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    """The browser tests' registry and hostile item: nfs-share 1.1.0 first, 1.2.0 five months later."""
    repo = GitRepo(tmp_path_factory.mktemp("team") / "repo")
    shutil.copytree(FIXTURE / "registry", repo.root / "registry")
    shutil.copy(FIXTURE / "hostile-item.yaml", repo.root / "registry" / "prerequisites" / "evil-item.yaml")
    share = repo.root / "registry" / "prerequisites" / "nfs-share.yaml"
    current = share.read_text(encoding="utf-8")
    share.write_text(current.replace("version: 1.2.0", "version: 1.1.0"), encoding="utf-8")
    repo.write("registry/templates/share-job.yaml", TEMPLATE)
    repo.write("prereq.yaml", f"site:\n  url: {SITE_URL}\n  repo_url: {REPO_URL}\n")
    repo.commit("first", date="2024-01-01T12:00:00+00:00")
    share.write_text(current, encoding="utf-8")
    repo.commit("nfs-share 1.2.0", date="2024-06-01T12:00:00+00:00")
    return repo


@pytest.fixture(scope="module")
def published(repo: GitRepo, tmp_path_factory: pytest.TempPathFactory) -> Path:
    result = build(repo.root / "registry", tmp_path_factory.mktemp("published") / "site")
    assert result.built, result.problems
    return result.out


@pytest.fixture(scope="module")
def plain(repo: GitRepo, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same registry without the site's address or repository."""
    settings = replace(load_settings(repo.root / "registry"), site=SiteSettings())
    result = build(repo.root / "registry", tmp_path_factory.mktemp("plain") / "site", settings=settings)
    assert result.built, result.problems
    return result.out


def page(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text(encoding="utf-8")


def text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def test_item_pages_date_each_version(published: Path) -> None:
    item = page(published, "items/nfs-share")
    versions = item[item.index('<div class="prereq-versions">') :]
    rows = re.findall(r"<tr><td>([^<]+)</td><td>(.*?)</td>", versions)
    assert rows == [
        ("1.2.0 (latest)", '<time datetime="2024-06-01T12:00:00+00:00">2024-06-01</time>'),
        ("1.1.0", '<time datetime="2024-01-01T12:00:00+00:00">2024-01-01</time>'),
    ]
    facts = item[item.index('<dl class="prereq-facts">') : item.index("</dl>")]
    assert '<dd>1.2.0 (published <time datetime="2024-06-01T12:00:00+00:00">2024-06-01</time>)' in facts


def test_item_pages_link_to_their_file_when_the_repository_is_known(
    published: Path, plain: Path, repo: GitRepo
) -> None:
    commit = repo.git("rev-parse", "HEAD").strip()
    item = page(published, "items/nfs-share")
    path = "registry/prerequisites/nfs-share.yaml"
    assert f'<a href="{REPO_URL}/blob/{commit}/{path}" rel="noopener">{path}</a>' in item
    assert f'href="{REPO_URL}/edit/HEAD/{path}" rel="noopener">edit this item</a>' in item
    # Without a repository address: the file's path, for the pull request, and no link.
    item = page(plain, "items/nfs-share")
    assert f'<dt>Source</dt><dd class="prereq-source"><code>{path}</code></dd>' in item
    assert "edit this item" not in item


def test_the_composer_knows_the_forges_new_file_page_when_the_repository_is_known(published: Path, plain: Path) -> None:
    template = f"{REPO_URL}/new/HEAD?filename=registry%2Fprerequisites%2F{{name}}.yaml&amp;value={{value}}"
    assert f'<meta name="prereq:new-item" content="{template}">' in page(published, "composer")
    assert 'name="prereq:new-item"' not in page(plain, "composer")


def test_new_item_pages_are_githubs_layout_only() -> None:
    assert new_item_url("https://github.example.com/t/r.git/", "reg/prerequisites/") == (
        "https://github.example.com/t/r/new/HEAD?filename=reg%2Fprerequisites%2F{name}.yaml&value={value}"
    )
    for other in ("https://gitlab.com/g/r", "https://bitbucket.org/t/r", "javascript:alert(1)", None):
        assert new_item_url(other, "registry/prerequisites") is None
    assert new_item_url(REPO_URL, None) is None  # an index built outside git knows no folder


def test_source_links_follow_each_hosts_layout() -> None:
    path, commit = "registry/prerequisites/a.yaml", "0" * 40
    assert source_links("https://github.com/t/r.git/", path, commit) == {
        "view": f"https://github.com/t/r/blob/{commit}/{path}",
        "edit": f"https://github.com/t/r/edit/HEAD/{path}",
    }
    assert source_links("https://gitlab.example/g/r", path, None) == {
        "view": f"https://gitlab.example/g/r/-/blob/HEAD/{path}",
        "edit": f"https://gitlab.example/g/r/-/edit/HEAD/{path}",
    }
    assert source_links("https://bitbucket.org/t/r", path, commit)["edit"].endswith(f"/src/HEAD/{path}?mode=edit")
    for unsafe in ("javascript:alert(1)", "ftp://host/r", "", None):
        assert source_links(unsafe, path, commit) is None
    assert source_links("https://github.com/t/r", None, commit) is None


def test_the_sitemap_lists_every_item_and_tag_page_from_the_sites_address(published: Path, plain: Path) -> None:
    ns = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
    urls = {
        url.findtext(f"{ns}loc"): url.findtext(f"{ns}lastmod")
        for url in ET.parse(published / "sitemap.xml").getroot().iter(f"{ns}url")
    }
    items = sorted(p.parent.name for p in (published / "items").glob("*/index.html"))
    tags = sorted(p.parent.name for p in (published / "tags").glob("*/index.html"))
    assert len(items) == 8 and tags
    for name in items:
        assert SITE_URL + f"items/{name}/" in urls, name
    for tag in tags:
        assert SITE_URL + f"tags/{tag}/" in urls, tag
    assert {SITE_URL, SITE_URL + "catalog/", SITE_URL + "job-templates/"} <= set(urls)
    # Dated when the item last changed (a tag: its newest item), not when the site was built.
    assert urls[SITE_URL + "items/nfs-share/"] == "2024-06-01"
    assert urls[SITE_URL + "items/digits/"] == "2024-01-01"
    assert urls[SITE_URL + "tags/storage/"] == "2024-06-01"
    # Without the site's address there is nothing a sitemap could say (its addresses are absolute).
    assert not (plain / "sitemap.xml").exists() and not (plain / "sitemap.xml.gz").exists()


def descriptions(site: Path) -> dict[str, str]:
    found = {}
    for path in sorted(site.rglob("index.html")):
        metas = re.findall(r'<meta name="description" content="([^"]*)"', path.read_text(encoding="utf-8"))
        assert len(metas) == 1, path
        found[path.parent.relative_to(site).as_posix()] = html.unescape(metas[0])
    return found


def test_every_page_has_a_description_of_its_own(published: Path) -> None:
    found = descriptions(published)
    generic = "Find, understand and pick prerequisites for OpenPAI jobs."  # mkdocs.yml's site_description
    assert {page for page, description in found.items() if not description or description == generic} == set()
    assert found["items/nfs-share"].startswith("Mounts the shared NFS export at `/mnt/share`")
    assert found["tags/storage"] == "3 prerequisites tagged storage: nfs-share, old-share, upload-results."
    assert found["job-templates"].startswith("Complete OpenPAI jobs that name registry prerequisites")
    assert found["catalog"].startswith("Every prerequisite of the registry in one list")
    assert found["."].startswith("Reviewed, ready-to-use prerequisites for OpenPAI jobs")
    assert all(len(description) <= 300 for description in found.values())


def test_an_authors_markup_in_a_description_stays_text(published: Path) -> None:
    """The hostile fixture item's summary reaches the meta tag escaped, once."""
    raw = page(published, "items/evil-item")
    content = re.search(r'<meta name="description" content="([^"]*)"', raw)
    assert content is not None and "<" not in content.group(1)
    assert first_paragraph('<p hidden>x</p><p id="a"> </p><p>One <code>&lt;b&gt;</code>\n two</p>') == "One <b> two"


def test_the_templates_page_is_a_card_per_template_with_its_yaml_folded(published: Path) -> None:
    body = page(published, "job-templates")
    cards = re.findall(r'<section class="prereq-template" data-prereq-template="([^"]+)"', body)
    assert cards == ["share-job"]
    card = body[body.index('data-prereq-template="share-job"') :]
    card = card[: card.index("</section>")]
    assert "Read the shared volume and upload the results." in text(card)
    assert "Uses 3 items" in text(card)  # the docker image too
    items = ["../items/nfs-share/", "../items/upload-results/", "../items/pytorch-image/"]
    assert re.findall(r'<li><a href="([^"]+)">', card) == items
    assert 'href="../composer/?template=share-job"' in card
    assert '<a class="md-button" href="../api/v1/templates/share-job.yaml" download>' in card
    # The whole YAML is there, folded (a <details> without open), the author's comment included.
    details = card[card.index("<details") :]
    assert details.startswith('<details class="prereq-template__yaml">')
    assert "(17 lines)" in details and "# Reads the share and uploads what it wrote." in text(details)
