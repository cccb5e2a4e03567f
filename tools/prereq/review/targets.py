"""Where the review writes: the impact report (``--report FILE``) and ``.github/CODEOWNERS``.

Both are written in a checkout whose files a pull request chose: a committed symbolic link
(``impact.md -> ../outside``, ``.github -> /somewhere``) would carry the write anywhere the runner
may write, so no link inside the repository is followed.  The report is never written into the
registry (it would replace an item or owners.yaml that the next commit would publish) nor into
git's own folder (``--report .git/config`` would rewrite the repository's configuration)."""

from __future__ import annotations

import os
from pathlib import Path

from prereq.core.errors import PrereqError
from prereq.core.files import check_writable, link_inside, within, write_atomic
from prereq.core.gitrepo import Repository
from prereq.review.codeowners import CodeOwners


def _no_link_inside(path: Path, root: Path, what: str) -> None:
    """Refuse ``path`` when it, or a folder on the way to it below ``root``, is a symbolic link."""
    link = link_inside(path, root)
    if link is not None:
        raise PrereqError(
            f"{what} {Path(os.path.abspath(path))}: {link} is a symbolic link, and prereq writes nothing through "
            "a link in a checkout (a pull request could have committed it, pointing anywhere)",
            hint="name a file outside the repository, such as $RUNNER_TEMP/impact.md, or remove the link",
        )


def check_report_path(path: Path, registry: Path) -> None:
    """Refuse (exit 2) a report path inside the registry or git's folder, or reached through a link in
    the repository; checked before the review runs, so a bad path costs nothing."""
    repo = Repository.find(registry)
    target = Path(os.path.realpath(Path(path).parent)) / Path(path).name
    folders = [(Path(os.path.realpath(registry)), "the registry", "it would replace the registry's own files")]
    if repo is not None:
        reason = "it would replace git's own files"
        folders += [(folder, "the repository's git folder", reason) for folder in repo.git_dirs]
    for folder, name, reason in folders:
        if within(target, folder):
            raise PrereqError(
                f"--report {path} lies inside {name} ({folder}): {reason}",
                hint="write it outside the registry and .git, such as $RUNNER_TEMP/impact.md or build/impact.md",
            )
    if repo is not None:
        _no_link_inside(Path(path), repo.root, "--report")
    check_writable(Path(path))


def write_report(path: Path, text: str, registry: Path) -> None:
    """The impact report into ``path``, after ``check_report_path``; a link there is refused too."""
    check_report_path(path, registry)
    write_atomic(Path(path), text, follow_links=False)


def write_codeowners(found: CodeOwners, repo_root: Path) -> None:
    """``.github/CODEOWNERS``, refusing a ``.github`` or a CODEOWNERS that is a link (a committed link
    would have the write land wherever it points), and a text that had to leave out a path it cannot
    name safely (a file name holding a newline would inject a line)."""
    found.check_safe()
    _no_link_inside(found.path, repo_root, "CODEOWNERS")
    found.path.parent.mkdir(exist_ok=True)
    write_atomic(found.path, found.text, follow_links=False)
