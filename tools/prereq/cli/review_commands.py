"""``prereq validate --base REF [--author USER] [--report FILE]``: the pull-request review.

``register`` runs after ``registry_commands`` and extends its ``validate`` parser with the review's
options, so there is one ``validate`` command whose help tells both."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from prereq.cli.defaults import registry_folder
from prereq.cli.registry_commands import validation_progress
from prereq.core.gitrepo import Repository
from prereq.registry.loader import OWNERS_FILE
from prereq.registry.reporters import REPORTERS, summary
from prereq.registry.settings import load_settings
from prereq.registry.validate import validate
from prereq.review.codeowners import codeowners
from prereq.review.item_checks import identity_note
from prereq.review.markdown import impact_markdown
from prereq.review.result import ReviewResult
from prereq.review.review import review
from prereq.review.rules import ALL_RULES
from prereq.review.targets import check_report_path, write_codeowners, write_report

REVIEW_HELP = """

reviewing a pull request (--base):
  With --base REF, the working tree is also compared with the merge base of
  HEAD and REF, as a pull request's check does: the added, modified, renamed
  and deleted items and templates; a changed item needs a higher version
  (changes only to description, title, tags, homepage or deprecated need
  none); a version published anywhere on REF's history (up to its tip, not
  only to the merge base) never comes back with other content; nothing may still require a deleted or renamed
  item; an item deleted and added again (or renamed to a name used before)
  continues above every version that name published; with --author, the
  author must own what they change (owners.yaml as the base has it; no live
  API). Rules PRQ200-PRQ210, see 'prereq rules'.

  Trust files (owners.yaml, rights.yaml, prereq.yaml, schema/, the
  execution catalog, .github/) change only by an administrator as
  --author: a member of owners.yaml's admins team on the base (PRQ210);
  a self-managed team's members may edit its member list. The report
  lists every trust change, and every suppression the change adds, above
  the item changes; neither is ever trivially safe.

  --author is a user, never a team (teams count through their members):
  '@LOGIN' is a GitHub login only, the user owners.yaml gives that handle
  (github:), or a user without a handle of that name; a bare NAME is that
  login too or, when no handle is that login, owners.yaml's user NAME even
  if they have a handle (a note says so: the check of a pull request knows
  them by their login). In GitHub Actions a bare --author is taken as
  '@LOGIN' (it is the pull request's login), so a stranger whose login is a
  user's local name is never taken for them. Hints name what owners: needs:
  the owners.yaml user, or the github: entry that maps a login.

  The verdict follows the same strictness as the exit code and 'prereq
  build' (prereq.yaml's validate.strict, default on): while strict, a
  warning fails the check and the change is not trivially safe.

  --report FILE writes the impact report (Markdown): the changes, their
  version bumps, every dependent with the range it uses and whether the new
  version satisfies it, the templates using them, the problems with fixes,
  and whether the change is trivially safe to merge. '-' prints it. Any file
  changed outside the registry's prerequisites/ folder (workflows,
  mkdocs.yml, prereq.yaml, templates, owners.yaml...) makes it need a review.
  The report is never written into the registry or .git, nor through a
  symbolic link in the repository (exit 2): write it to $RUNNER_TEMP or
  build/.

  The history must be complete: in a shallow clone (GitHub's default
  checkout) the review refuses to run (exit 2); fetch with
  'git fetch --unshallow' or actions/checkout's 'fetch-depth: 0'.

example:
  prereq validate --base origin/main --author alice --report impact.md"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.choices["validate"]
    parser.description = (parser.description or "") + REVIEW_HELP
    parser.add_argument("--base", metavar="REF", help="also review the change against the merge base of REF")
    parser.add_argument(
        "--author",
        metavar="USER",
        help="with --base: the change's author: @LOGIN (a GitHub login only), or an owners.yaml user's name or login",
    )
    parser.add_argument(
        "--report", metavar="FILE", help="with --base: write the impact report (Markdown) to FILE ('-': print it)"
    )
    plain: Callable[[argparse.Namespace], int] = parser.get_default("run")
    _register_codeowners(subparsers)
    parser.set_defaults(run=lambda args: run_review(args) if args.base is not None else _plain(args, plain))


def _plain(args: argparse.Namespace, plain: Callable[[argparse.Namespace], int]) -> int:
    if args.author is not None or args.report is not None:
        print("prereq: error: --author and --report need --base REF", file=sys.stderr)
        print("    hint: prereq validate --base origin/main --author USER --report impact.md", file=sys.stderr)
        return 2
    return plain(args)


def _output(reviewed: ReviewResult, fmt: str, repo_root: Path) -> str:
    if fmt == "json":
        return json.dumps({"items": len(reviewed.result.items), **reviewed.as_dict()}, indent=2)
    if fmt == "markdown":  # the review's report is the Markdown one
        return impact_markdown(reviewed).rstrip("\n")
    # Paths from the repository for annotations, from the current folder for people, as plain validate shows them.
    text = REPORTERS[fmt](reviewed.result, repo_root if fmt == "github" else Path.cwd())
    if fmt != "text":
        return text
    impact = reviewed.impact
    verdict = "trivially safe" if impact.trivially_safe else "needs a review"
    moved = len(impact.catalog.changes) + len(impact.catalog.rights)
    catalog = f"{moved} in the execution catalog, " if moved else ""
    lines = [
        text.removesuffix(summary(reviewed.result)).rstrip("\n"),
        f"reviewed against {reviewed.ref} ({reviewed.base_commit[:10]}): {len(impact.changes)} changed, {catalog}"
        f"{len(impact.dependents)} dependent{'s' * (len(impact.dependents) != 1)}, {verdict}",
        *[f"    note: {note}" for note in reviewed.notes],
        summary(reviewed.result),
    ]
    return "\n".join(line for line in lines if line)


def run_review(args: argparse.Namespace) -> int:
    root = registry_folder(args.path)
    if args.report not in (None, "-"):
        check_report_path(Path(args.report), root)  # before the review: a refused path costs nothing
    strict = load_settings(root).strictness(args.strict)
    author = _author(args.author)
    with validation_progress(args) as progress:
        reviewed = review(root, base=args.base, author=author, strict=strict, progress=progress)
    note = identity_note(author, reviewed.result.owners) if author is not None else None
    if note is not None:
        reviewed = dataclasses.replace(reviewed, notes=[*reviewed.notes, note])
    repo = Repository.find(root)
    print(_output(reviewed, args.format, repo.root if repo else Path.cwd()))
    if args.report == "-":
        print(impact_markdown(reviewed), end="")
    elif args.report is not None:
        write_report(Path(args.report), impact_markdown(reviewed), root)
    return 1 if reviewed.failed(strict=strict) else 0


def _author(given: str | None) -> str | None:
    """In GitHub Actions the author is the pull request's login: taken as one ('@'), never as a local
    name that a stranger could hold as their login."""
    if given is not None and os.environ.get("GITHUB_ACTIONS") == "true" and not given.startswith("@"):
        return "@" + given
    return given


CODEOWNERS_HELP = """\
Write .github/CODEOWNERS from the items' owners and the GitHub handles that
registry/owners.yaml gives them, so that GitHub asks an item's owners to
review every pull request changing it:

  github:
    alice: "@alice-gh"
    data-team: "@openpai/data-team"

Owners without a handle are left out. Everything but the items (owners.yaml,
rights.yaml, the execution catalog, job templates, prereq.yaml, schema/,
.github/, CODEOWNERS itself, the site's sources) goes to the administrators,
in a first line '*' that each item's own line overrides: the handle of
owners.yaml's admins team, else its members' handles. A file name that
cannot be written safely as a CODEOWNERS path (a space, newline, '#',
'*', '[', '!', '\\'...) is refused (exit 2), never written.
'prereq validate --base' fails
(PRQ207) while the file is out of date. When owners.yaml gives no handle
at all there is no CODEOWNERS to write or check: it says so and exits 0,
leaving any file there alone. A .github or CODEOWNERS that is a symbolic
link is refused (exit 2): nothing is written through it.

exit codes: 0 written, up to date (--check), or nothing to write (no
handles); 1 out of date (--check) or the registry has errors; 2 no
registry, no repository, a link in the way, or a path CODEOWNERS cannot
hold safely

example:
  prereq codeowners && git add .github/CODEOWNERS"""


def _register_codeowners(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "codeowners",
        help="write .github/CODEOWNERS from the items' owners",
        description=CODEOWNERS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", nargs="?", type=Path, help="registry folder (default: as for validate)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the file is out of date")
    parser.set_defaults(run=run_codeowners)


def run_codeowners(args: argparse.Namespace) -> int:
    root = registry_folder(args.path)
    result = validate(root, rules=ALL_RULES)
    if result.errors:
        print(f"prereq: error: the registry has errors ({summary(result)}); run 'prereq validate'", file=sys.stderr)
        return 1
    repo = Repository.find(root)
    if repo is None:
        print(f"prereq: error: {root} is not in a git repository: there is no .github/CODEOWNERS", file=sys.stderr)
        print("    hint: run 'prereq codeowners' in a clone of the registry's repository", file=sys.stderr)
        return 2
    found = codeowners(root, result.items, result.owners)
    if found is None:  # no handles: GitHub could not be told anyone, so there is nothing to keep in step
        action = "check" if args.check else "write"
        print(f"{root / OWNERS_FILE}: no GitHub handles (github:), so no CODEOWNERS to {action}")
        return 0
    found.check_safe()  # a path it cannot write is an error (exit 2), not "out of date"
    if args.check:
        print(f"{found.path}: {'up to date' if found.up_to_date else 'out of date: run prereq codeowners'}")
        return 0 if found.up_to_date else 1
    write_codeowners(found, repo.root)
    print(f"wrote {found.path}")
    return 0
