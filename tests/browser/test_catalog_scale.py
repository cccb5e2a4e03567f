"""What the catalog's speed-ups for 100,000 items must not change, on the bundled registry's site.

The owner list keeps its options across keystrokes and rewrites only the counts that changed
(catalog-facets.js's fillSelect): the counts must still follow every query, the choice must stay
chosen, and a list that changes (an owner chosen that the index lacks) is still drawn anew.  The
words a typo is corrected to are counted while the page is idle (search.js's warmWhileIdle): a typo
corrects alike at once after loading and once the page has been idle.
"""

from __future__ import annotations

from collections import Counter

from playwright.sync_api import expect
from test_catalog import open_catalog

IDLE = (
    "() => new Promise((done) => { "
    "let n = 20; const step = () => (--n ? requestIdleCallback(step) : done()); step(); })"
)


def owner_options(page) -> dict[str, str]:
    """value -> label of each option of the owner list, the "anyone" one included."""
    return page.locator("#prereq-owner option").evaluate_all(
        "(options) => Object.fromEntries(options.map(o => [o.value, o.textContent]))"
    )


def shown_owners(page) -> Counter[str]:
    texts = page.locator("#prereq-results .prereq-card__owners").all_text_contents()
    return Counter(owner for text in texts for owner in text.removeprefix("by ").split(", "))


def test_owner_counts_follow_each_keystroke(visits, bundled_url):
    page = open_catalog(visits(bundled_url))
    everyone = owner_options(page)
    assert everyone[""] == "anyone" and len(everyone) > 5
    page.locator("#prereq-q").press_sequentially("mnist")
    expect(page.locator("#prereq-results > li").first).to_have_attribute("data-name", "mnist-data")
    counts = shown_owners(page)  # every hit is shown: fewer than a page of them
    assert counts["vision-team"] >= 2 and counts["erin"] >= 1 and counts["grace"] >= 1, counts
    after = owner_options(page)
    assert list(after) == list(everyone)  # every owner stays listed, in the same order
    for value in everyone:
        if value:
            assert after[value] == f"{value} ({counts[value]})", value

    page.locator("#prereq-owner").select_option("grace")
    expect(page.locator("#prereq-results > li")).to_have_count(counts["grace"])
    page.locator("#prereq-q").fill("")
    expect(page.locator("#prereq-owner")).to_have_value("grace")
    assert owner_options(page) == everyone  # the counts leave the owner facet out: back as before
    page.locator("#prereq-clear").click()
    expect(page.locator("#prereq-owner")).to_have_value("")


def test_an_unknown_owner_in_the_url_is_listed_then_dropped(visits, bundled_url):
    page = open_catalog(visits(bundled_url), "?owner=nobody-here")
    options = owner_options(page)
    assert list(options)[:2] == ["", "nobody-here"] and options["nobody-here"] == "nobody-here (0)"
    expect(page.locator("#prereq-owner")).to_have_value("nobody-here")
    page.locator("#prereq-owner").select_option("")
    assert "nobody-here" not in owner_options(page)
    assert list(owner_options(page))[1:] == sorted(list(options)[2:])


def test_a_typo_corrects_alike_before_and_after_the_page_was_idle(visits, bundled_url):
    page = open_catalog(visits(bundled_url), "?q=mnsit")  # the first search: nothing counted ahead
    expect(page.locator("#prereq-suggest")).to_contain_text("Did you mean mnist?")
    first = page.locator("#prereq-results > li").evaluate_all("(items) => items.map(i => i.dataset.name)")
    assert first[:2] == ["mnist-data", "fashion-mnist"]

    page = open_catalog(visits(bundled_url))
    page.evaluate(IDLE)  # the page counts the words while idle
    page.locator("#prereq-q").press_sequentially("mnsit")
    expect(page.locator("#prereq-suggest")).to_contain_text("Did you mean mnist?")
    again = page.locator("#prereq-results > li").evaluate_all("(items) => items.map(i => i.dataset.name)")
    assert again == first
    page.locator("#prereq-q").fill("tensorbaord")
    expect(page.locator("#prereq-suggest")).to_contain_text("Did you mean tensorboard?")
