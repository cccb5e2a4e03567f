"""What the cluster says of a job before it is submitted, the portal's Clone, and the queues a user's
groups get: the webportal plugin against the stand-in rest-server (``webportal_portal``).

The rest-server's answers (a job of that name, the user's virtual clusters and groups, a job's config)
come from the stand-in as the real one gives them; the queues' slots are what the Python engine
(``prereq.execution.rights.user_rights``) gives on the catalog the index was built from.
"""

from __future__ import annotations

import sys
from pathlib import Path

import webportal_portal
import yaml
from playwright.sync_api import Page, expect
from webportal_portal import EXPIRED, JOB, check, outcome
from webportal_standin import Cluster, mask_secrets

from prereq.execution.rights import user_rights

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cases" / "rights"))
from rights_corpus import catalog  # the catalog of the rights case index's registry

# The portal's fixtures, where pytest looks for them (a module's own names).
cors_site, cluster, portal = webportal_portal.cors_site, webportal_portal.cluster, webportal_portal.portal
rights_index = webportal_portal.rights_index

SECRET_JOB = JOB.replace("taskRoles:\n", "secrets:\n  registryKey: s3cret   # my key\n\ntaskRoles:\n", 1)
assert SECRET_JOB != JOB


def test_a_name_in_use_is_said_before_submitting_with_a_fresh_name(portal, cluster: Cluster):
    cluster.jobs["alice~composer-test"] = cluster.jobs["alice~composer-test_2"] = "name: earlier\n"
    session = portal()
    page = session.open()
    expect(check(page, "name")).to_contain_text("The name my-job is free")  # the empty job's
    session.paste(JOB)
    name = check(page, "name")
    expect(name).to_have_attribute("data-state", "taken")
    expect(name).to_contain_text("You already have a job named composer-test: the rest-server would refuse this one")
    expect(name).to_contain_text("hint: submit it as composer-test_3")  # _2 is in use too
    assert not cluster.posts  # said before any submission

    page.locator("#prereq-plugin-fresh-name").click()
    expect(name).to_have_attribute("data-state", "free")
    expect(name).to_contain_text("The name composer-test_3 is free")
    text = session.editor()
    assert "name: composer-test_3\n" in text and "# keep this comment" in text  # the engine's edit
    page.locator("#prereq-plugin-submit").click()
    expect(outcome(page)).to_contain_text("Submitted composer-test_3.")
    assert "alice~composer-test_3" in cluster.jobs
    # Not asked about the job just submitted (the rest-server would only say it is taken, by that job).
    expect(name).to_have_attribute("data-state", "submitted")
    expect(name).to_contain_text("You submitted composer-test_3 just now.")
    expect(name).to_contain_text("composer-test_4 is free")
    expect(page.locator("#prereq-plugin-checks")).not_to_contain_text("You already have a job named")


def test_a_virtual_cluster_the_user_lacks_is_warned_before_submitting(portal, cluster: Cluster):
    cluster.add_user("alice", "alice-token", clusters=("default", "vision"))
    session = portal()
    page = session.open()
    session.paste(JOB + "defaults:\n  virtualCluster: secret   # not ours\n")
    vc = check(page, "cluster")
    expect(vc).to_have_attribute("data-state", "denied")
    expect(vc).to_contain_text("Your groups may not use the virtual cluster secret: the rest-server would refuse")
    expect(vc).to_contain_text("Yours: default, vision.")
    assert not cluster.posts

    session.paste(JOB + "defaults:\n  virtualCluster: vision\n")
    expect(vc).to_have_attribute("data-state", "allowed")
    expect(vc).to_contain_text("Virtual cluster vision: your groups may use it.")


def test_an_expired_token_is_said_on_the_checks_and_submitting_stays_possible(portal, cluster: Cluster):
    session = portal("alice", EXPIRED)
    page = session.open()
    session.paste(JOB)
    name, vc = check(page, "name"), check(page, "cluster")
    for item in (name, vc):
        expect(item).to_have_attribute("data-state", "unknown")
        expect(item).to_contain_text("sign-in has expired or is missing (the rest-server said: Your token is invalid.)")
        expect(item).to_contain_text("You can still submit: the rest-server checks it then.")
        expect(item).to_contain_text("hint: sign in to the portal again")
    expect(name).to_contain_text("Cannot check whether the name composer-test is free")
    expect(vc).to_contain_text("Virtual cluster default not checked: Cannot read your user record")
    page.locator("#prereq-plugin-submit").click()
    expect(outcome(page)).to_contain_text("Cannot submit the job: your sign-in has expired")
    assert [post["auth"] for post in cluster.posts] == ["Bearer " + EXPIRED]  # it was sent all the same


def _clone_from_the_jobs_page(page: Page, origin: str) -> str:
    page.locator("#prereq-plugin-outcome a").click()  # "Open the job's page"
    page.wait_for_url(origin + "/job-detail.html?*")
    clone = page.locator("#clone")
    href = clone.get_attribute("href") or ""
    clone.click()
    expect(page.locator("pai-plugin")).to_have_attribute("data-state", "ready", timeout=20000)
    return href


def test_clone_reopens_the_job(portal, cluster: Cluster):
    first = portal()
    page = first.open()
    written = SECRET_JOB.replace("echo train", "echo train for <% expression.team %>")
    first.paste(written)
    page.locator("#prereq-plugin-key").fill("team")
    page.locator("#prereq-plugin-value").fill("vision")
    page.locator("#prereq-plugin-set").click()
    page.locator("#prereq-plugin-submit").click()
    expect(outcome(page)).to_contain_text("Submitted composer-test.")
    href = _clone_from_the_jobs_page(page, first.origin)
    assert href == "/plugin.html?op=resubmit&type=job&user=alice&jobname=composer-test&index=0"  # the portal's Clone
    # This browser kept what alice wrote: every comment and the expression as she wrote them.
    assert first.editor() == written
    messages = page.locator("#prereq-composer-messages")
    expect(messages).to_contain_text("opened alice~composer-test as you wrote it in this browser")
    expect(check(page, "name")).to_contain_text("submit it as composer-test_2")

    # Another browser has only what the rest-server keeps: the job, its secrets masked, no comments.
    second = portal()
    other = second.open(href)
    said = other.locator("#prereq-composer-messages")
    expect(said).to_contain_text("opened alice~composer-test as the rest-server keeps it (it keeps no comments)")
    reopened = second.editor()
    assert "#" not in reopened and not reopened.lstrip().startswith("{")
    assert yaml.safe_load(reopened) == yaml.safe_load(mask_secrets(cluster.posts[0]["body"]))
    assert yaml.safe_load(reopened)["secrets"] == "******"


def test_clone_of_a_job_the_rest_server_does_not_have(portal, cluster: Cluster):
    session = portal()
    page = session.open("/plugin.html?op=resubmit&type=job&user=alice&jobname=gone&index=0")
    expect(outcome(page)).to_contain_text("Cannot clone alice~gone: the rest-server has no such job")


def test_a_user_in_default_and_super_is_shown_the_queues_with_their_slots(
    portal, cluster: Cluster, rights_index: str, screenshots: Path
):
    cluster.plugins[0]["index"] = rights_index
    cluster.add_user("alice", "alice-token", groups=("default", "super"), clusters=("default",))
    session = portal()
    session.indexes.append(rights_index)
    page = session.open()
    expect(page.locator("#prereq-plugin-groups")).to_contain_text("Your OpenPAI groups: default, super.")
    rights = user_rights(catalog("rights"), ["default", "super"])
    assert len(rights) == 2
    rows = page.locator("#prereq-plugin-queues tbody tr")
    expect(rows).to_have_count(len(rights))
    queues = {queue.name: queue for queue in catalog("rights").queues.values()}
    for row, right in zip(rows.all(), rights, strict=True):
        queue = queues[right.queue]
        cells = [cell.text_content() for cell in row.locator("td").all()]
        assert cells[:3] == [f"{queue.title} {queue.name}", str(right.slots), str(right.priority)]
        assert (cells[3] or "").startswith(queue.virtual_cluster)
    not_ours = page.locator('#prereq-plugin-queues tr[data-queue="q2"]')
    expect(not_ours).to_contain_text("(your OpenPAI groups may not use it)")

    session.paste(JOB)
    page.locator("#prereq-plugin-queue-q2").click()
    expect(page.locator("#prereq-plugin-queue-q2")).to_have_attribute("aria-pressed", "true")
    expect(check(page, "cluster")).to_have_attribute("data-state", "denied")
    text = session.editor()
    assert yaml.safe_load(text)["defaults"] == {"virtualCluster": queues["q2"].virtual_cluster}
    assert "# keep this comment" in text
    page.locator("#prereq-plugin-queue-q1").click()
    expect(page.locator("#prereq-plugin-queue-q1")).to_have_text("In use")
    expect(page.locator("#prereq-plugin-queue-q2")).to_have_attribute("aria-pressed", "false")
    expect(check(page, "cluster")).to_have_attribute("data-state", "allowed")
    page.locator("#prereq-plugin-queues").screenshot(path=str(screenshots / "webportal-queues.png"))
    assert yaml.safe_load(session.editor())["defaults"] == {"virtualCluster": queues["q1"].virtual_cluster}
