"""Keyboards and screen readers: axe-core finds nothing serious on any kind of page in either colour
scheme; focus stays on the control after each check, star and tag; every control shows its focus;
the catalog has a skip link to its results.

axe-core is the npm package, installed (pinned) by ./scripts/setup.sh --test into .venv/npm rather
than committed: 650 KB of third-party code the site never serves.  It is injected as an init script
(the DevTools protocol's, which a Content-Security-Policy does not block)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from site_pages import PAGES, open_page

RUN_AXE = """async (within) => {
  const result = await axe.run(within ? document.querySelector(within) : document, { resultTypes: ["violations"] });
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").flatMap((v) =>
    v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(" ")}: ` +
      (n.failureSummary || "").split("\\n").slice(1).join(" ")));
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("kind", list(PAGES))
def test_axe_finds_nothing_serious(visits, bundled_url, axe_source, kind, scheme):
    visit = visits(bundled_url, "desktop", scheme)
    visit.context.add_init_script(path=str(axe_source))
    page = open_page(visit, kind)
    serious(page)


@pytest.mark.parametrize("kind", list(PAGES))
def test_axe_finds_nothing_serious_on_a_phone(visits, bundled_url, axe_source, kind):
    visit = visits(bundled_url, "phone")
    visit.context.add_init_script(path=str(axe_source))
    serious(open_page(visit, kind))


def test_axe_on_a_phone_and_on_the_open_search(visits, bundled_url, axe_source):
    visit = visits(bundled_url, "phone")
    visit.context.add_init_script(path=str(axe_source))
    page = open_page(visit, "catalog")
    page.locator("#prereq-filters > summary").tap()
    serious(page)
    page = open_page(visits(bundled_url), "home")
    page.add_init_script(path=str(axe_source))
    page = open_page(visit, "home")
    page.locator('.md-header label.md-header__button[for="__search"]').click()
    expect(page.locator("#prereq-search-q")).to_be_focused()  # as a person sees the box, then types
    page.keyboard.type("mnist")
    expect(page.locator("#prereq-search-list a").first).to_be_visible()
    serious(page)


def serious(page, within: str | None = None) -> None:
    """axe's serious and critical findings on the page, or on the element ``within`` selects (and its
    open shadow root): none."""
    # Material fades its search panel in: mid-fade, text is grey on white and axe measures that.
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    found = page.evaluate(RUN_AXE, within)
    assert not found, f"{page.url}:\n" + "\n".join(found)


def focused(page) -> str:
    """The focused element's data-focus-key, else its id."""
    return page.evaluate("(e => e && (e.getAttribute('data-focus-key') || e.id))(document.activeElement)")


def test_focus_stays_on_the_catalogs_tags_and_stars(visits, bundled_url):
    page = open_page(visits(bundled_url), "catalog")
    tag = page.locator('#prereq-tags button[data-tag="vision"]')
    tag.focus()
    page.keyboard.press("Enter")
    expect(page.locator('#prereq-tags button[data-tag="vision"]')).to_have_attribute("aria-pressed", "true")
    assert focused(page) == "tag:vision"
    page.keyboard.press("Space")
    expect(page.locator('#prereq-tags button[data-tag="vision"]')).to_have_attribute("aria-pressed", "false")
    assert focused(page) == "tag:vision"
    # A tag on a card.
    card_tag = page.locator('#prereq-results > li[data-name="mnist-data"] .prereq-card__meta button', has_text="vision")
    card_tag.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#prereq-q")).to_have_value("")
    assert focused(page) == "card:mnist-data:tag:vision"
    # A star, under the favorites filter (the list is drawn again), and when its card goes away.
    page.locator('#prereq-results > li[data-name="mnist-data"] [data-prereq-star]').focus()
    page.keyboard.press("Enter")
    page.locator('input[name="show"][value="favorites"]').check()
    star = page.locator('#prereq-results > li[data-name="mnist-data"] [data-prereq-star]')
    star.focus()
    page.keyboard.press("Space")
    expect(page.locator("#prereq-results > li")).to_have_count(0)
    assert focused(page) == "prereq-results-section"


def test_focus_stays_on_the_composers_boxes_and_stars(visits, bundled_url):
    page = open_page(visits(bundled_url), "composer")
    page.locator("#prereq-composer-q").fill("mnist")
    box = page.locator("#prereq-composer-item-mnist-data")
    box.focus()
    page.keyboard.press("Space")
    expect(page.locator("#prereq-composer-item-mnist-data")).to_be_checked()
    page.evaluate("window.prereqComposer.idle()")
    expect(page.locator("#prereq-composer-item-mnist-data")).to_be_focused()
    page.keyboard.press("Space")
    expect(page.locator("#prereq-composer-item-mnist-data")).not_to_be_checked()
    page.evaluate("window.prereqComposer.idle()")
    expect(page.locator("#prereq-composer-item-mnist-data")).to_be_focused()
    star = page.locator('#prereq-composer-items > li[data-name="mnist-data"] [data-prereq-star]')
    star.focus()
    page.keyboard.press("Enter")
    expect(star).to_have_attribute("aria-pressed", "true")
    assert focused(page) == "star:mnist-data"
    # Under "in this task role", unchecking takes the row away: the focus goes to what is in its place
    # (here nothing: the filter box), not to the page.
    page.keyboard.press("Tab")
    box.focus()
    page.keyboard.press("Space")
    expect(box).to_be_checked()
    page.evaluate("window.prereqComposer.idle()")
    page.locator('input[name="prereq-composer-show"][value="job"]').check()
    box.focus()
    page.keyboard.press("Space")
    expect(page.locator("#prereq-composer-items > li")).to_have_count(0)
    page.evaluate("window.prereqComposer.idle()")
    assert focused(page) == "prereq-composer-q"


def test_every_control_shows_its_focus_and_a_skip_link_leads_to_the_results(visits, bundled_url):
    page = open_page(visits(bundled_url), "catalog")
    for selector in (
        'input[name="type"]',
        "#prereq-deprecated",
        "#prereq-owner",
        "#prereq-tags button",
        "#prereq-results [data-prereq-star]",
        "#prereq-q",
    ):
        control = page.locator(selector).first
        control.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")  # focus by keyboard: :focus-visible applies
        width = control.evaluate("(e) => e === document.activeElement ? getComputedStyle(e).outlineWidth : 'none'")
        assert width not in ("0px", "none"), selector
    page.locator("#prereq-q").focus()
    page.keyboard.press("Tab")  # the sort order, which belongs with the search
    page.keyboard.press("Tab")
    expect(page.locator(".prereq-skip")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#prereq-results-section")).to_be_focused()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('#prereq-results') !== null")


CONTRAST = """(e) => {
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const channel = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = (c) => { const [r, g, b] = rgb(c).map(channel); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const style = getComputedStyle(e);
  const [a, b] = [lum(style.color), lum(style.backgroundColor)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_hovered_button_keeps_aa_contrast(visits, bundled_url, scheme):
    """axe reads no hover state: a hovered button is measured here (white on the accent was 4.3:1)."""
    page = open_page(visits(bundled_url, scheme=scheme), "composer")
    for selector in ("#prereq-composer-copy", "#prereq-composer-download", "#prereq-composer-empty"):
        button = page.locator(selector)
        button.hover()
        page.wait_for_timeout(300)  # the theme's transition
        assert button.evaluate(CONTRAST) >= 4.5, selector


def test_the_composers_list_is_one_tab_stop_walked_by_arrows(visits, bundled_url):
    """A roving tabindex: Tab enters the list once and leaves it; arrows move between rows and within one;
    `s` stars; a box that cannot change is still reached.  The skip link after the filter box leads to
    the job, whose Copy is the next Tab."""
    page = open_page(visits(bundled_url), "composer")
    page.locator("#prereq-composer-q").fill("mnist")
    page.locator("#prereq-composer-item-mnist-data").click()
    page.evaluate("window.prereqComposer.idle()")
    tabbable = page.locator("#prereq-composer-items [tabindex='0']")
    expect(tabbable).to_have_count(1)
    first = page.locator("#prereq-composer-items > li").first.locator("input").first
    first.focus()
    names = page.locator("#prereq-composer-items > li").evaluate_all("(li) => li.map((x) => x.dataset.name)")
    page.keyboard.press("ArrowDown")
    expect(page.locator(f"#prereq-composer-item-{names[1]}")).to_be_focused()
    page.keyboard.press("ArrowRight")
    assert focused(page) == f"star:{names[1]}"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("s")
    expect(page.locator(f'#prereq-composer-items > li[data-name="{names[1]}"] [data-prereq-star]')).to_have_attribute(
        "aria-pressed", "true"
    )
    page.keyboard.press("Home")
    expect(first).to_be_focused()
    page.keyboard.press("Tab")  # out of the list at once: one stop
    assert page.evaluate("document.activeElement.closest('#prereq-composer-items') === null")
    # A required item's box cannot change but is reached.
    page.locator("#prereq-composer-q").fill("")
    required = page.locator("#prereq-composer-items input[aria-disabled='true']").first
    required.focus()
    page.keyboard.press("Space")
    expect(required).to_be_checked()

    page.locator("#prereq-composer-q").focus()
    page.keyboard.press("Tab")
    expect(page.locator(".prereq-skip")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#prereq-composer-job")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#prereq-composer-copy")).to_be_focused()
