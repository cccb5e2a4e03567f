"""One verdict from pull request to publish: prereq.yaml's ``validate: {strict: ...}`` (default: warnings
fail) read by plain validation, the review (its exit code and its trivially-safe verdict) and the build,
with ``--strict``/``--no-strict`` overriding it for one run."""

from __future__ import annotations

from pathlib import Path

import pytest

from prereq import cli
from prereq.core.errors import PrereqError
from prereq.registry.settings import load_settings
from review_helpers import item, make_pr

# A patch bump by an owner that every dependent accepts: trivially safe, but for the warning (PRQ114) its
# TODO title gives.
WARNED = item("tool", "1.0.1", command="echo fixed").replace("title: tool test item", "title: TODO tool")


def _repo(tmp_path: Path, settings: str | None) -> Path:
    """A pull request whose only finding is a warning; ``settings``: prereq.yaml on main and the branch."""
    base: dict[str, str | None] = {"prerequisites/tool.yaml": item("tool")}
    if settings is not None:
        base["../prereq.yaml"] = settings  # at the repository root, unchanged by the pull request
    repo = make_pr(tmp_path / "repo", base, {"prerequisites/tool.yaml": WARNED})
    return repo.root


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(args)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


CASES = [  # prereq.yaml, the flag, whether warnings fail
    (None, [], True),
    ("validate: {strict: true}\n", [], True),
    ("validate:\n  strict: false\n", [], False),
    ("validate: {strict: false}\n", ["--strict"], True),
    (None, ["--no-strict"], False),
]


@pytest.mark.parametrize(("settings", "flag", "fails"), CASES)
def test_the_check_its_verdict_and_the_build_agree(
    settings: str | None, flag: list[str], fails: bool, tmp_path: Path, capsys, monkeypatch
) -> None:
    root = _repo(tmp_path, settings)
    monkeypatch.chdir(root)
    plain, said = _run(["validate", *flag], capsys)
    assert "PRQ114 warning" in said
    review, said = _run(["validate", "--base", "main", "--author", "alice", "--report", "-", *flag], capsys)
    built, build_said = _run(["build", "--no-site", "--out", str(tmp_path / "out"), *flag], capsys)
    assert (plain, review, built) == ((1, 1, 1) if fails else (0, 0, 0))
    if fails:  # never "trivially safe" for a change that publish would refuse
        assert "needs a review" in said and "1 warning fails this check and the publish" in said
        assert "**Trivially safe**" not in said
        assert "warnings and validation is strict" in build_said and not (tmp_path / "out").exists()
    else:
        assert "trivially safe" in said and "**Trivially safe**" in said
        assert "published 1 item" in build_said


def test_the_verdict_of_the_library_is_held_to_strictness(tmp_path: Path) -> None:
    from prereq.review.impact import as_publish_sees_it
    from prereq.review.review import review

    reviewed = review(_repo(tmp_path, None) / "registry", base="main", author="alice")
    assert [p.rule for p in reviewed.result.warnings] == ["PRQ114"] and not reviewed.result.errors
    strict = as_publish_sees_it(reviewed, strict=True)
    loose = as_publish_sees_it(reviewed, strict=False)
    assert not strict.impact.trivially_safe and strict.failed(strict=True)
    assert strict.impact.reasons[-1].startswith("1 warning fails this check")
    assert loose.impact.trivially_safe == reviewed.impact.trivially_safe and not loose.failed(strict=False)


def test_the_build_library_reads_prereq_yaml(tmp_path: Path) -> None:
    from prereq.marketplace.build import build

    root = _repo(tmp_path, "validate: {strict: false}\n")
    assert build(root / "registry", tmp_path / "a", with_site=False).built
    refused = build(root / "registry", tmp_path / "b", with_site=False, strict=True)
    assert not refused.built and [p.rule for p in refused.problems] == ["PRQ114"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("validate: {strict: maybe}\n", "strict must be true or false"),
        ("validate: {strictness: true}\n", "unknown key 'strictness'"),
        ("validate: strict\n", "expected a mapping of keys"),
    ],
)
def test_a_wrong_setting_is_an_error_at_its_line(text: str, message: str, tmp_path: Path, capsys, monkeypatch) -> None:
    root = _repo(tmp_path, None)
    (root / "prereq.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(PrereqError, match=message):
        load_settings(root)
    monkeypatch.chdir(root)
    code, said = _run(["validate"], capsys)
    assert code == 2 and "prereq.yaml:1:" in said and message in said and "Traceback" not in said


def test_the_default_is_strict(tmp_path: Path) -> None:
    assert load_settings(tmp_path).strict and load_settings(tmp_path).strictness(None)
    assert not load_settings(tmp_path).strictness(False)
