"""Pages that scale: on a registry of 3,000 items, the page of the item 2,000 others require stays a
page (under 200 KB), says how many require it and leads to all of them through the catalog's
?requires= filter, as the graph's "+N more" does.  In a tree of 200 items (each requires the two
below it), an item page grows by a small constant per item of its closure (a list row and a name in
the task role, never the item's form), and Copy still gives the root's whole snippet of 200 forms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import expect

from conftest import _serve, copy_site_sources
from gitrepo import GitRepo, item_yaml
from site_html import whole_snippet

ITEMS = 3000
DEPENDENTS = 2000
LIMIT = 200 * 1024
TREE = 200
PER_MEMBER = 200  # bytes a page may grow by for each item of its closure


@pytest.fixture(scope="module")
def big_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from prereq.marketplace.build import build

    root = tmp_path_factory.mktemp("big-repo")
    repo = GitRepo(root)
    repo.write("registry/owners.yaml", "users: [alice]\n")
    repo.write("registry/prerequisites/hub-tool.yaml", item_yaml("hub-tool", "1.0.0"))
    for i in range(ITEMS - 1):
        name = f"item-{i:05d}"
        require = ["hub-tool@^1.0"] if i < DEPENDENTS else None
        repo.write(f"registry/prerequisites/{name}.yaml", item_yaml(name, "1.0.0", require=require))
    repo.commit("3,000 items")
    copy_site_sources(root)
    result = build(root / "registry", root / "out")
    assert result.built, result.problems
    return result.out


@pytest.fixture(scope="module")
def big_url(big_site: Path):
    yield from _serve(big_site)


def _node(i: int) -> str:
    return f"node-{i:03d}"


def _below(i: int) -> list[int]:
    return [child for child in (2 * i + 1, 2 * i + 2) if child < TREE]


@pytest.fixture(scope="module")
def tree_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from prereq.marketplace.build import build

    root = tmp_path_factory.mktemp("tree-repo")
    repo = GitRepo(root)
    repo.write("registry/owners.yaml", "users: [alice]\n")
    for i in range(TREE):
        require = [f"{_node(child)}@^1.0" for child in _below(i)]
        text = item_yaml(_node(i), "1.0.0", require=require, extra="tags: [tree]\n")
        repo.write(f"registry/prerequisites/{_node(i)}.yaml", text)
    repo.commit("a tree of 200")
    copy_site_sources(root)
    result = build(root / "registry", root / "out")
    assert result.built, result.problems
    return result.out


def _closure_size(site: Path, i: int) -> int:
    document = json.loads((site / "api" / "v1" / "prerequisites" / f"{_node(i)}.json").read_text(encoding="utf-8"))
    return len(document["versions"][-1]["closure"])


def test_a_tag_page_lists_the_first_hundred_and_leads_to_the_rest(tree_site):
    from prereq.marketplace.pages import TAGGED_SHOWN

    page = (tree_site / "tags" / "tree" / "index.html").read_text(encoding="utf-8")
    assert page.count('class="prereq-list__name"') == TAGGED_SHOWN < TREE
    assert f'<a href="../../catalog/?tag=tree">All {TREE} items tagged tree in the catalog</a>' in page


def test_an_item_page_grows_by_a_small_constant_per_item_of_its_closure(tree_site):
    def size(i: int) -> int:
        return (tree_site / "items" / _node(i) / "index.html").stat().st_size

    assert _closure_size(tree_site, 0) == TREE
    # node 0's closure is 200, node 1's about half of it, node 3's a quarter: the same page otherwise.
    for big, small in ((0, 1), (1, 3)):
        grown = (size(big) - size(small)) / (_closure_size(tree_site, big) - _closure_size(tree_site, small))
        form = (tree_site / "items" / _node(big) / "1.0.0.yaml").stat().st_size
        assert grown < min(PER_MEMBER, form), (big, grown, form)


@pytest.fixture(scope="module")
def tree_url(tree_site: Path):
    yield from _serve(tree_site)


def test_copy_gives_the_whole_snippet_of_a_large_closure(visits, tree_site, tree_url):
    visit = visits(tree_url)
    page = visit.open(f"items/{_node(0)}/")
    button = page.locator("article.prereq-item [data-prereq-copy]")
    button.click()
    expect(button).to_have_text("Copied ✓")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == whole_snippet(tree_site, _node(0))
    assert len(yaml.safe_load(copied)["prerequisites"]) == TREE
    # The diagram stays a diagram: the nearest requirements, the rest behind one box.
    expect(page.locator(".prereq-graph a", has_text="more")).to_have_attribute("href", "#in-a-job")


def test_the_most_required_item_page_stays_small(big_site):
    page = big_site / "items" / "hub-tool" / "index.html"
    assert page.stat().st_size < LIMIT, f"{page.stat().st_size} bytes"


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_its_dependents_are_reachable_through_the_catalog(visits, big_url, screenshots, size):
    visit = visits(big_url, size)
    page = visit.open("items/hub-tool/")
    expect(page.locator(".prereq-count-badge")).to_have_text(str(DEPENDENTS))
    expect(page.locator("ul.prereq-required-by > li")).to_have_count(20)
    more = page.locator(".prereq-graph a", has_text="more")
    assert more.get_attribute("href") == "../../catalog/?requires=hub-tool"
    page.screenshot(path=str(screenshots / f"item-3000-{size}.png"))
    page.get_by_role("link", name=f"All {DEPENDENTS} items that require hub-tool in the catalog").click()
    expect(page).to_have_url(big_url + "catalog/?requires=hub-tool")
    expect(page.locator("#prereq-catalog")).to_have_attribute("data-state", "ready")
    expect(page.locator("#prereq-relation")).to_contain_text(f"Items that require hub-tool ({DEPENDENTS})")
    expect(page.locator("#prereq-status")).to_contain_text(f"{DEPENDENTS} of {ITEMS} items")
    # The filter combines with the search, and goes away with one press.
    page.locator("#prereq-q").fill("item-00042")
    expect(page.locator("#prereq-results > li")).to_have_count(1)
    page.locator("#prereq-q").fill("item-02042")
    expect(page.locator("#prereq-results > li")).to_have_count(0)
    page.locator("#prereq-relation button").click()
    expect(page.locator("#prereq-results > li")).to_have_count(1)
    # What an item requires, the other way.
    page = visit.open("catalog/?required_by=item-00001")
    expect(page.locator("#prereq-relation")).to_contain_text("Items that item-00001 requires (1)")
    assert page.locator("#prereq-results > li").evaluate_all("(i) => i.map(x => x.dataset.name)") == ["hub-tool"]
