"""The composer as an editor: a YAML error marks its line and "Go to line N" selects it; Copy and
Download ask before they give out a job with a problem; JSON pasted or uploaded becomes block YAML and
Copy JSON / Download JSON give the same data back; the version picker selects NAME@RANGE as
``prereq job add NAME@RANGE`` does; all of it at phone size too, with nothing serious for axe-core."""

from __future__ import annotations

import json

import pytest
import yaml
from composer_page import JOB, box, cli, cli_error, editor_text, open_composer, paste, row, same_job, settle, toggle
from playwright.sync_api import expect
from site_pages import sideways
from test_access import serious

EDITOR = "#prereq-composer-yaml"
# A job whose 61st line breaks the YAML: below the textarea's first screen.
LONG = JOB.replace("      - echo evaluate\n", "".join(f"      - echo step {n}\n" for n in range(40)))
BROKEN_LINE = 61
BROKEN = "\n".join(
    line if number != BROKEN_LINE else "      - echo: a: b" for number, line in enumerate(LONG.split("\n"), start=1)
)
# Where line N of the textarea is on the page now: its content box, padding, N-1 line boxes, less the scroll.
LINE_BOX = """([n]) => {
  const area = document.querySelector("#prereq-composer-yaml"), style = getComputedStyle(area);
  const box = area.getBoundingClientRect(), height = parseFloat(style.lineHeight);
  const top = box.top + area.clientTop + parseFloat(style.paddingTop) + (n - 1) * height - area.scrollTop;
  return {top, bottom: top + height, inside: top >= box.top && top + height <= box.top + area.clientHeight};
}"""


def clipboard_paste(page, text: str) -> None:
    """A real paste (inputType insertFromPaste) of `text` over the whole editor."""
    page.evaluate("(text) => navigator.clipboard.writeText(text)", text)
    page.locator(EDITOR).focus()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("ControlOrMeta+v")
    settle(page)


def mark(page) -> dict:
    return page.evaluate(
        """() => { const m = document.querySelector("#prereq-composer-mark"), r = m.getBoundingClientRect();
        return {line: Number(m.dataset.line), hidden: m.hidden, top: r.top, bottom: r.bottom}; }"""
    )


def test_a_yaml_error_marks_its_line_and_go_to_selects_it(visit, built_site):
    message = cli_error(BROKEN, built_site).message
    assert message.startswith(f"job:{BROKEN_LINE}:"), message  # the CLI's line, as the composer must say it
    expected = f"job:{BROKEN_LINE}:"  # a syntax error the parser finds: its line, in the parser's words
    line = BROKEN_LINE
    lines = BROKEN.split("\n")
    page = open_composer(visit)
    clipboard_paste(page, BROKEN)
    error = page.locator("#prereq-composer-error")
    expect(error).to_contain_text(expected)
    editor = page.locator(EDITOR)
    expect(editor).to_have_attribute("aria-invalid", "true")
    expect(editor).to_have_attribute("aria-describedby", "prereq-composer-error")
    # The pasted text was read at once: its error's line is scrolled into the textarea and marked there.
    where = page.evaluate(LINE_BOX, [line])
    assert where["inside"], where
    shown = mark(page)
    assert shown["line"] == line and not shown["hidden"]
    assert abs(shown["top"] - where["top"]) < 1 and abs(shown["bottom"] - where["bottom"]) < 1, (shown, where)

    # Scrolled away, the band goes with its line; "Go to line N" selects the line and brings it back.
    editor.evaluate("(area) => area.scrollTop = 0")
    expect(page.locator("#prereq-composer-mark")).to_be_hidden()
    page.locator("#prereq-composer-goto").click()
    expect(editor).to_be_focused()
    selected = editor.evaluate("(area) => area.value.slice(area.selectionStart, area.selectionEnd)")
    assert selected == lines[line - 1]
    where = page.evaluate(LINE_BOX, [line])
    assert where["inside"], where
    shown = mark(page)
    assert not shown["hidden"] and abs(shown["top"] - where["top"]) < 1

    # Typed, the error moves with the text (no jump while typing); fixed, the mark goes.
    editor.fill("# one more line\n" + BROKEN)
    expect(error).to_contain_text(f"job:{BROKEN_LINE + 1}:")
    expect(page.locator("#prereq-composer-goto")).to_have_text(f"Go to line {BROKEN_LINE + 1}")
    editor.fill(LONG)
    expect(page.locator("#prereq-composer")).to_have_attribute("data-job", "valid")
    expect(page.locator("#prereq-composer-mark")).to_be_hidden()
    expect(page.locator("#prereq-composer-goto")).to_be_hidden()
    expect(editor).not_to_have_attribute("aria-invalid", "true")


def test_copy_and_download_ask_first_when_the_job_has_a_problem(visit, built_site, tmp_path):
    expected = cli_error(BROKEN, built_site).message.split(": ", 1)[0].rsplit(":", 1)[0] + ":"  # "job:LINE:"
    page = open_composer(visit)
    downloads: list = []
    page.on("download", lambda download: downloads.append(download))
    page.evaluate("() => navigator.clipboard.writeText('before')")
    clipboard_paste(page, BROKEN)
    page.evaluate("() => navigator.clipboard.writeText('before')")
    copy, download = page.locator("#prereq-composer-copy"), page.locator("#prereq-composer-download")
    # The buttons say they will ask, and are described by the alert that says why.
    expect(copy).to_have_text("Copy…")
    expect(download).to_have_text("Download…")
    expect(copy).to_have_attribute("aria-describedby", "prereq-composer-error")
    # The visit dismisses every dialog: the confirm named the problem, and nothing went out.
    copy.click()
    download.click()
    assert len(visit.dialogs) == 2 and all(expected in message for message in visit.dialogs), visit.dialogs
    assert visit.dialogs[0].endswith("Copy it anyway?") and visit.dialogs[1].endswith("Download it anyway?")
    page.wait_for_timeout(300)
    assert downloads == [] and page.evaluate("navigator.clipboard.readText()") == "before"
    # JSON cannot be made from YAML that does not load: the error is shown, nothing is asked or copied.
    page.locator("#prereq-composer-copy-json").click()
    expect(page.locator("#prereq-composer-error")).to_contain_text(expected)
    assert len(visit.dialogs) == 2 and page.evaluate("navigator.clipboard.readText()") == "before"

    # Said yes to, the broken job goes out as it is (a draft saved to finish elsewhere).
    other = visit.context.new_page()
    asked: list[str] = []
    other.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    other.goto(page.url)
    expect(other.locator("#prereq-composer")).to_have_attribute("data-state", "ready", timeout=15000)
    assert editor_text(other) == BROKEN  # the draft
    with other.expect_download() as saved:
        other.locator("#prereq-composer-download").click()
    saved.value.save_as(tmp_path / "broken.yaml")
    assert (tmp_path / "broken.yaml").read_text(encoding="utf-8") == BROKEN and len(asked) == 1
    other.locator("#prereq-composer-copy").click()
    expect(other.locator("#prereq-composer-copy")).to_have_text("Copied ✓")
    assert other.evaluate("navigator.clipboard.readText()") == BROKEN and len(asked) == 2

    # A job the engine accepts goes out without a question, and the labels say so.
    other.locator(EDITOR).fill(LONG)
    expect(other.locator("#prereq-composer-download")).to_have_text("Download")
    with other.expect_download():
        other.locator("#prereq-composer-download").click()
    assert len(asked) == 2
    expect(other.locator("#prereq-composer-copy")).not_to_have_attribute("aria-describedby", "prereq-composer-error")


JSON_JOB = json.dumps(
    {
        "protocolVersion": 2,
        "name": "json-job",
        "type": "job",
        "taskRoles": {
            "train": {
                "instances": 1,
                "resourcePerInstance": {"cpu": 2, "memoryMB": 4096, "gpu": 0},
                "commands": ["echo caf\u00e9", "python train.py --lr 1.0"],
            }
        },
        "extras": {"ratio": 1.0, "big": 123456789012345678901, "empty": {}},
    },
    indent=2,
)


def test_json_in_becomes_block_yaml_and_json_out_reads_back(visit, built_site, site_url, tmp_path):
    data = json.loads(JSON_JOB)
    page = open_composer(visit)
    clipboard_paste(page, JSON_JOB)
    text = editor_text(page)
    # Block YAML with the same data (1.0 a float, the big integer whole), as the engines' first edit writes it.
    assert "taskRoles:\n  train:\n    instances: 1\n" in text and "{" not in text.replace("{}", ""), text
    assert yaml.safe_load(text) == data
    expect(page.locator("#prereq-composer-messages")).to_have_text(
        "the pasted JSON is written as YAML (Undo brings the JSON back)"
    )
    toggle(page, "hello-widget")
    same_job(editor_text(page), cli(JSON_JOB, [("add", "train", ["hello-widget"])], built_site), site_url)
    page.locator("#prereq-composer-undo").click()
    settle(page)
    page.locator("#prereq-composer-undo").click()
    settle(page)
    assert editor_text(page) == JSON_JOB

    # Uploaded, it is written as YAML too.
    page.locator("#prereq-composer-upload").set_input_files(
        files=[{"name": "mine.json", "mimeType": "application/json", "buffer": JSON_JOB.encode()}]
    )
    expect(page.locator("#prereq-composer-messages")).to_have_text("opened mine.json (JSON, written as YAML)")
    settle(page)
    assert editor_text(page) == text

    # And out again: Copy JSON and Download JSON give the job's data.
    toggle(page, "hello-widget")
    now = yaml.safe_load(editor_text(page))
    page.locator("#prereq-composer-copy-json").click()
    expect(page.locator("#prereq-composer-copy-json")).to_have_text("Copied ✓")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert json.loads(copied) == now and '"ratio": 1.0' in copied and "123456789012345678901" in copied
    with page.expect_download() as download:
        page.locator("#prereq-composer-download-json").click()
    assert download.value.suggested_filename == "json-job.json"
    download.value.save_as(tmp_path / "job.json")
    assert json.loads((tmp_path / "job.json").read_text(encoding="utf-8")) == now
    assert visit.dialogs == []


def test_json_that_is_no_job_object_stays_as_it_is(visit):
    page = open_composer(visit)
    for text in ('["a", "b"]', '{"name": "x", "name": "y"}', "{name: flow-yaml, type: job}"):
        clipboard_paste(page, text)
        assert editor_text(page) == text
        expect(page.locator("#prereq-composer")).to_have_attribute("data-job", "invalid")


def selected(page) -> dict:
    return yaml.safe_load(editor_text(page))["extras"]["prereq"]["selected"]


def closure_version(page, name: str):
    return page.locator(f'#prereq-composer-closure li[data-name="{name}"]')


def test_the_version_picker_selects_name_at_range_and_the_closure_follows(visit, built_site, site_url):
    page = open_composer(visit)
    paste(page, JOB, ["train", "evaluate"])
    toggle(page, "nfs-share")
    picker = page.locator("#prereq-composer-version-nfs-share")
    # The published versions (1.1.0 and 1.2.0, newest first), as ranges and exactly, after "any".
    options = picker.locator("option")
    expect(options).to_have_text(
        [
            "any compatible version",
            "^1.2: 1.2 or a newer 1.x",
            "^1.1: 1.1 or a newer 1.x",
            "1.2.0 exactly",
            "1.1.0 exactly",
        ]
    )
    expect(picker).to_have_value("")
    expect(closure_version(page, "nfs-share")).to_contain_text("nfs-share 1.2.0")
    steps = [("add", "train", ["nfs-share"])]
    for value, version in (("1.1.0", "1.1.0"), ("^1.1", "1.1.0"), ("^1.2", "1.2.0")):
        picker.focus()
        picker.select_option(value)
        settle(page)
        assert selected(page) == {"train": [f"nfs-share@{value}"]}
        expect(closure_version(page, "nfs-share")).to_contain_text(f"nfs-share {version}")
        expect(picker).to_have_value(value)
        expect(picker).to_be_focused()  # the list was drawn anew; the keyboard stays on the picker
        steps.append(("add", "train", [f"nfs-share@{value}"]))
        same_job(editor_text(page), cli(JOB, steps, built_site), site_url)
    # "any" is the name alone: the locked version stays, as `prereq job add nfs-share` keeps it.
    picker.select_option("")
    settle(page)
    assert selected(page) == {"train": ["nfs-share"]}
    steps.append(("add", "train", ["nfs-share"]))
    same_job(editor_text(page), cli(JOB, steps, built_site), site_url)

    # A range of the job's own is offered as it is; an item only required has no picker.
    paste(page, editor_text(page).replace("- nfs-share\n", "- nfs-share@>=1.0 <1.2\n"), ["train", "evaluate"])
    expect(picker).to_have_value(">=1.0 <1.2")
    expect(picker.locator("option").nth(1)).to_have_text(">=1.0 <1.2 (as the job says)")
    toggle(page, "nfs-share")
    toggle(page, "digits")
    expect(box(page, "nfs-share")).to_be_checked()
    expect(row(page, "nfs-share").locator("select")).to_have_count(0)
    expect(row(page, "digits").locator("select")).to_have_count(1)


def test_an_item_selected_and_required_keeps_its_picker(visit, built_site, site_url):
    page = open_composer(visit)
    paste(page, JOB, ["train", "evaluate"])
    toggle(page, "nfs-share")
    toggle(page, "digits")  # requires nfs-share@^1.0, which 1.1.0 fits
    picker = page.locator("#prereq-composer-version-nfs-share")
    picker.select_option("1.1.0")
    settle(page)
    assert selected(page) == {"train": ["nfs-share@1.1.0", "digits"]}
    expect(closure_version(page, "nfs-share")).to_contain_text("nfs-share 1.1.0 — required by digits")
    steps = [("add", "train", ["nfs-share"]), ("add", "train", ["digits"]), ("add", "train", ["nfs-share@1.1.0"])]
    same_job(editor_text(page), cli(JOB, steps, built_site), site_url)


@pytest.mark.parametrize(("size", "scheme"), [("desktop", "light"), ("desktop", "dark"), ("phone", "light")])
def test_the_editor_fits_both_sizes_and_axe_finds_nothing_serious(
    visits, site_url, screenshots, axe_source, size, scheme
):
    visit = visits(site_url, size, scheme)
    visit.context.add_init_script(path=str(axe_source))
    page = open_composer(visit)
    paste(page, JOB, ["train", "evaluate"])
    toggle(page, "nfs-share")
    expect(page.locator("#prereq-composer-version-nfs-share")).to_be_visible()
    assert sideways(page) <= 0, f"the composer is {sideways(page)} px wider than a {size} screen"
    serious(page)
    page.locator("#prereq-composer-version-nfs-share").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / f"composer-picker-{size}-{scheme}.png"))
    page.locator(EDITOR).fill(BROKEN)
    expect(page.locator("#prereq-composer-goto")).to_be_visible()
    page.locator("#prereq-composer-goto").press("Enter")  # by keyboard (a hovered button is the theme's own colour)
    expect(page.locator("#prereq-composer-mark")).to_be_visible()
    assert sideways(page) <= 0, f"the composer is {sideways(page)} px wider than a {size} screen"
    serious(page)
    page.screenshot(path=str(screenshots / f"composer-error-{size}-{scheme}.png"))


# Every text the editor is given, with what the page had committed then: its state, Undo, the kept draft.
WATCH_SETS = """() => {
  const editor = document.querySelector("#prereq-composer-yaml");
  const native = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value");
  window.__sets = [];
  Object.defineProperty(editor, "value", { configurable: true, get() { return native.get.call(this); }, set(text) {
    window.__sets.push({ text, state: document.querySelector("#prereq-composer").dataset.state,
      draft: JSON.parse(localStorage.getItem("prereq.composer.draft") || "null")?.text ?? null });
    native.set.call(this, text);
  } });
  const post = Worker.prototype.postMessage; // what the page tells the worker after each text it is given
  Worker.prototype.postMessage = function (data) {
    if (data && "painted" in data) window.__sets.push({ painted: true });
    return post.call(this, data);
  };
}"""


@pytest.mark.parametrize("where", ["worker", "page"])
def test_a_checks_text_is_painted_before_its_check_and_committed_after(visits, site_url, built_site, where):
    """An edit's text is shown while the composer is busy, before the load that checks it (issue 30: the
    YAML sooner); the Undo step and the kept draft come only with the checked text, which is the same."""
    session = visits(site_url)
    if where == "page":
        session.context.route("**/composer/ui/engineworker.js", lambda route: route.fulfill(status=404, body=""))
    page = open_composer(session)  # the starting job: the edit's splice goes in at once
    before = editor_text(page)
    page.evaluate(WATCH_SETS)
    toggle(page, "upload-results")
    assert page.evaluate("window.prereqComposer.engine()") == where
    sets = page.evaluate("window.__sets")
    if where == "worker":  # the worker's check waits for the page to have painted the text
        assert sets[1:] == [{"painted": True}], sets[1:]
        sets = sets[:1]
    assert len(sets) == 1, "shown once, before its check; the checked text is the same and not set again"
    assert sets[0]["state"] == "busy"
    final = editor_text(page)
    assert sets[0]["text"] == final != before
    assert sets[0]["draft"] in (None, before), "the draft kept is not the edit's text until its check"
    same_job(final, cli(before, [("add", "taskrole", ["upload-results"])], built_site), site_url)
    assert page.evaluate("JSON.parse(localStorage.getItem('prereq.composer.draft')).text") == final
    page.locator("#prereq-composer-undo").click()
    settle(page)
    assert editor_text(page) == before


# The page's {painted} answers to the worker, held until the test lets them go: the window in which the
# editor shows an edit's text before its check, made as long as a slow machine's.
HOLD_PAINTED = """() => {
  const post = Worker.prototype.postMessage;
  window.__held = [];
  window.__release = () => window.__held.splice(0).forEach(([worker, data]) => post.call(worker, data));
  Worker.prototype.postMessage = function (data) {
    if (data && "painted" in data) return void window.__held.push([this, data]);
    return post.call(this, data);
  };
}"""


def test_while_a_text_waits_for_its_check_copy_the_draft_and_the_host_have_the_committed_one(visit):
    """Shown before its check, an edit's text is not the job yet: Copy, the kept draft and the host's
    text() give the job it replaced until the check is done."""
    page = open_composer(visit)
    before = editor_text(page)
    page.evaluate(HOLD_PAINTED)
    box(page, "upload-results").click()
    page.wait_for_function("(before) => document.querySelector('#prereq-composer-yaml').value !== before", arg=before)
    shown = editor_text(page)
    assert "name: upload-results" in shown
    expect(page.locator("#prereq-composer")).to_have_attribute("data-state", "busy")
    assert page.evaluate("window.prereqComposer.text()") == before
    page.locator("#prereq-composer-copy").click()
    expect(page.locator("#prereq-composer-copy")).to_have_text("Copied ✓")
    assert page.evaluate("navigator.clipboard.readText()") == before
    assert page.evaluate("JSON.parse(localStorage.getItem('prereq.composer.draft'))?.text ?? null") in (None, before)
    page.evaluate("window.__release()")
    settle(page)
    assert editor_text(page) == shown == page.evaluate("window.prereqComposer.text()")
    assert page.evaluate("JSON.parse(localStorage.getItem('prereq.composer.draft')).text") == shown
