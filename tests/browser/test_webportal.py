"""The composer as an OpenPAI webportal plugin, in a portal's page, against a stand-in rest-server.

The site is the browser tests' fixture site, served from its own origin with CORS; the portal and
its rest-server are ``webportal_standin`` on another; ``webportal_portal`` opens them as signed-in
users.  Here: picking items and submitting, the rest-server's refusals, the hand-off, the user's values
in the record, and the styles of the portal and of the plugin apart.
"""

from __future__ import annotations

import webportal_portal
import yaml
from playwright.sync_api import Page, expect
from test_access import serious
from webportal_portal import APPLICATION, EXPIRED, JOB, outcome, wait_for
from webportal_standin import Cluster

from prereq.openpai import protocol

# The portal's fixtures, where pytest looks for them (a module's own names).
cors_site, cluster, portal = webportal_portal.cors_site, webportal_portal.cluster, webportal_portal.portal


def test_picking_items_and_submitting_keeps_every_comment(portal, cluster: Cluster, cors_site: str, screenshots):
    cluster.plugins[0]["config"] = {"index": cors_site}  # the admin's index key (here the default)
    session = portal()
    page = session.open()
    expect(page.locator(".prereq-plugin h1")).to_have_text("Prerequisites")
    session.paste(JOB.replace("echo train", "echo train for <% expression.team %>"))
    session.toggle("upload-results")
    text = session.editor()
    for name in ("upload-results", "digits", "nfs-share"):
        assert f"name: {name}" in text
    assert "# keep this comment" in text
    page.locator("#prereq-plugin-key").fill("team")
    page.locator("#prereq-plugin-value").fill("vision")
    page.locator("#prereq-plugin-set").click()
    expect(page.locator('#prereq-plugin-expressions li[data-key="team"]')).to_contain_text("= vision")

    page.locator("#prereq-plugin-submit").click()
    expect(outcome(page)).to_contain_text("Submitted composer-test.")
    page.locator("pai-plugin").screenshot(path=str(screenshots / "webportal-plugin.png"))
    link = outcome(page).locator("a")
    expect(link).to_have_attribute("href", "/job-detail.html?username=alice&jobName=composer-test")
    post = cluster.posts[-1]
    assert post["status"] == 202
    assert post["type"].startswith("text/yaml")
    assert post["auth"] == "Bearer alice-token"
    body = post["body"]
    for comment in (
        "# Train and evaluate: my own comment at the top",
        "# my own image, written by hand",
        "# keep this comment",
    ):
        assert comment in body
    job = yaml.safe_load(body)
    assert protocol.refusals(protocol.validate_job(job)) == []
    assert job["extras"]["submitFrom"] == "prereq"
    assert job["extras"]["prereq"]["index"] == cors_site.rstrip("/")
    assert "echo train for vision" in job["taskRoles"]["train"]["commands"][-1]
    assert "<% expression.team %>" in session.editor()  # the editor keeps the user's own text

    # The same name again: the rest-server refuses it, and says why beside the YAML.
    page.locator("#prereq-plugin-submit").click()
    expect(outcome(page)).to_contain_text("A job named composer-test already exists for you")
    expect(outcome(page)).to_contain_text("the rest-server said: Job alice~composer-test already exists.")
    expect(outcome(page)).to_have_attribute("data-outcome", "refused")


def test_the_plugin_edits_in_a_worker_or_in_the_page_when_the_portal_refuses_workers(portal, cluster: Cluster):
    """The plugin's page is the portal's, its scripts the site's: its worker is a blob of the portal's
    that imports the site's module (issue 30: the page's tasks), and a portal whose policy refuses
    such workers keeps the page's engine, which makes the same edits."""
    texts = {}
    for where in ("worker", "page"):
        cluster.policy = "worker-src 'none'" if where == "page" else ""
        session = portal()
        page = session.open()
        session.paste(JOB)
        session.toggle("upload-results")
        assert page.evaluate("() => document.querySelector('pai-plugin').prereq.composer.engine()") == where
        texts[where] = session.editor()
        assert "name: nfs-share" in texts[where]
    assert texts["worker"] == texts["page"]


def test_a_job_the_rest_server_refuses_shows_its_message(portal, cluster: Cluster):
    session = portal()
    page = session.open()
    session.paste(JOB.replace("name: composer-test", "name: other-vc") + "defaults:\n  virtualCluster: secret\n")
    page.locator("#prereq-plugin-submit").click()
    expect(outcome(page)).to_contain_text("your account does not have the right")
    expect(outcome(page)).to_contain_text("User alice is not allowed to do operation in secret")
    assert cluster.posts[-1]["status"] == 403

    # A job the browser's checks refuse never reaches the rest-server.
    posted = len(cluster.posts)
    session.paste(JOB.replace("name: composer-test", "name: bad name!"))
    page.locator("#prereq-plugin-submit").click()
    expect(outcome(page)).to_contain_text("Not submitted: OpenPAI would refuse the job")
    assert len(cluster.posts) == posted


def test_an_expired_token_is_said_in_plain_words(portal, cluster: Cluster):
    session = portal("alice", EXPIRED)
    page = session.open()
    session.paste(JOB)
    expect(page.locator("#prereq-plugin-where")).to_contain_text("Kept in this browser only")
    expect(page.locator("#prereq-plugin-where")).to_contain_text("your sign-in has expired or is missing")
    page.locator("#prereq-plugin-submit").click()
    expect(outcome(page)).to_contain_text("Cannot submit the job: your sign-in has expired or is missing")
    expect(outcome(page)).to_contain_text("Your token is invalid.")
    expect(outcome(page)).to_contain_text("sign in to the portal again")
    assert cluster.posts[-1]["auth"] == "Bearer " + EXPIRED
    assert not cluster.jobs


def test_the_hand_off_to_the_submission_page(portal, cluster: Cluster):
    session = portal()
    page = session.open()
    session.paste(JOB)
    session.toggle("hello-widget")
    page.locator("#prereq-plugin-handover").click()
    expect(outcome(page)).to_contain_text("the comments in your YAML will be lost there")
    page.locator("#prereq-plugin-handover-go").click()
    page.wait_for_url(session.origin + "/submit.html")
    handed = yaml.safe_load(page.locator("#handed").text_content() or "")
    assert handed["name"] == "composer-test"
    assert "hello-widget" in handed["taskRoles"]["train"]["prerequisites"]
    assert "submitFrom" not in handed.get("extras", {})
    assert not cluster.posts


def test_favorites_and_expressions_follow_the_user_to_another_browser(portal, cluster: Cluster):
    first = portal()
    page = first.open()
    expect(page.locator("#prereq-plugin-where")).to_contain_text("kept in your OpenPAI record (alice)")
    page.locator('#prereq-composer-items > li[data-name="digits"] [data-prereq-star]').click()
    page.locator("#prereq-plugin-key").fill("nfsUser")
    page.locator("#prereq-plugin-value").fill("alice01")
    page.locator("#prereq-plugin-set").click()
    first.settle()

    def stored() -> dict:
        return cluster.users["alice"]["extension"].get("prereq") or {}

    wait_for(lambda: "digits" in stored().get("favorites", []), "the favorite")
    wait_for(lambda: stored().get("expressions") == {"nfsUser": "alice01"}, "the expression")
    assert cluster.users["alice"]["extension"]["sshKeys"] == []  # the other keys stay

    second = portal()  # another browser: nothing in its storage
    other = second.open()
    expect(other.locator('#prereq-plugin-expressions li[data-key="nfsUser"]')).to_contain_text("= alice01")
    other.locator('input[name="prereq-composer-show"][value="favorites"]').check()
    expect(other.locator("#prereq-composer-items > li")).to_have_count(1)
    star = other.locator('#prereq-composer-items > li[data-name="digits"] [data-prereq-star]')
    expect(star).to_have_attribute("aria-pressed", "true")

    # Bob, on his own record, sees none of it.
    third = portal("bob")
    bob = third.open()
    expect(bob.locator("#prereq-plugin-expressions")).to_contain_text("none yet")


def test_a_token_that_cannot_write_keeps_the_values_in_the_browser(portal, cluster: Cluster):
    session = portal("alice", APPLICATION)
    page = session.open()
    where = page.locator("#prereq-plugin-where")
    expect(where).to_have_attribute("data-where", "browser")
    expect(where).to_contain_text("Applications are not allowed to do this operation.")
    page.locator("#prereq-plugin-key").fill("k")
    page.locator("#prereq-plugin-value").fill("v")
    page.locator("#prereq-plugin-set").click()
    expect(page.locator('#prereq-plugin-expressions li[data-key="k"]')).to_contain_text("= v")
    assert "prereq" not in cluster.users["alice"]["extension"]


STYLED = [
    ("#prereq-composer-yaml", ["font-size", "font-family", "background-color", "color", "letter-spacing"]),
    ("#prereq-composer-items", ["display", "list-style-type", "margin-top", "padding-left"]),
    ("#prereq-composer-items > li", ["margin-top", "padding-top", "line-height", "color"]),
    (".prereq-badge", ["display", "font-size", "color", "background-color"]),
    ("#prereq-plugin-submit", ["background-color", "text-transform", "border-top-width", "font-size"]),
    (".prereq-plugin h1", ["font-size", "font-family", "text-align"]),
    ("#prereq-composer-closure-title", ["font-size"]),
]


def _computed(page: Page) -> dict[str, dict[str, str]]:
    return page.evaluate(
        """(wanted) => {
          const root = document.querySelector('pai-plugin').shadowRoot;
          const out = {};
          for (const [selector, names] of wanted) {
            const node = root.querySelector(selector);
            const style = getComputedStyle(node);
            out[selector] = Object.fromEntries(names.map((name) => [name, style.getPropertyValue(name)]));
          }
          return out;
        }""",
        STYLED,
    )


def test_the_portals_styles_and_the_plugins_do_not_touch_each_other(portal, cluster: Cluster):
    cluster.hostile = False
    plain = portal()
    expected = _computed(plain.open())
    cluster.hostile = True
    styled = portal()
    page = styled.open()
    assert _computed(page) == expected
    # .68rem of the site's 20px, not of the portal's 10px
    assert expected["#prereq-composer-yaml"]["font-size"] == "13.6px"
    # The portal's own elements carry the classes the plugin styles, and keep the portal's look.
    host = page.evaluate(
        """() => Object.fromEntries(['#host-button', '#host-title'].map((id) => {
          const style = getComputedStyle(document.querySelector(id));
          return [id, [style.borderTopWidth, style.backgroundColor, style.fontSize, style.display]];
        }))"""
    )
    assert host["#host-button"] == ["0px", "rgb(0, 200, 0)", "13.3333px", "inline-block"]
    assert host["#host-title"] == ["0px", "rgb(0, 200, 0)", "50px", "block"]


def test_an_entry_naming_allowed_signers_refuses_an_unsigned_index(portal, cluster: Cluster, tmp_path) -> None:
    """The portal's administrators name who signs the index in the plugin's entry (allowedSigners): an
    index nobody signed is refused, whoever serves it."""
    import subprocess

    key = tmp_path / "signer"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "index", "-f", str(key)], check=True)
    kind, public = (tmp_path / "signer.pub").read_text(encoding="utf-8").split()[:2]
    cluster.plugins[0]["allowedSigners"] = f'index@example namespaces="prereq-index" {kind} {public}\n'
    session = portal()
    session.page.goto(session.origin + "/plugin.html?index=0")
    plugin = session.page.locator("pai-plugin")
    expect(plugin).to_have_attribute("data-state", "failed", timeout=20000)
    expect(session.page.locator("#prereq-composer-error")).to_contain_text("is not signed")


def test_the_plugin_fits_a_phone_and_axe_finds_nothing_serious(portal, cluster: Cluster, axe_source):
    """Inside a portal page with a viewport tag, as a phone shows it: nothing wider than the screen, and
    axe finds nothing serious or critical in the plugin (its open shadow root; the stand-in portal's own
    page is hostile on purpose)."""
    session = portal(size="phone")
    session.context.add_init_script(path=str(axe_source))
    page = session.open()
    session.toggle("upload-results")
    assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0
    serious(page, within="pai-plugin")
    # axe read the shadow root: the plugin's own buttons are among what it checked.
    checked = page.evaluate(
        """async () => (await axe.run(document.querySelector("pai-plugin"), {runOnly: ["button-name"]}))
          .passes.flatMap((rule) => rule.nodes.map((node) => JSON.stringify(node.target)))"""
    )
    assert any("prereq-plugin-submit" in target for target in checked), checked[:5]
