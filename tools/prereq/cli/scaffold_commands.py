"""``prereq init``, ``prereq new``, ``prereq share`` and ``prereq schema``."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from prereq import __version__
from prereq.cli.defaults import registry_folder
from prereq.core.errors import PrereqError
from prereq.core.gitrepo import Repository
from prereq.registry.checks.schemafile import ITEM_SCHEMA
from prereq.registry.reporters import report_text
from prereq.review.codeowners import registry_codeowners
from prereq.review.targets import write_codeowners
from prereq.scaffold.share import share
from prereq.scaffold.starter import ITEM_TYPES, Written, init_repository, new_item, refresh_schema

INIT_HELP = """\
Make DIR (default: the current folder) a registry repository that works at once:

  prereq.yaml                  the site's name and address, where the registry is
  registry/owners.yaml         who may own items (you, and a team of you)
  registry/prerequisites/      one finished example item, hello-prereq
  .github/workflows/           pull requests validated and reviewed against their
                               base; the default branch (origin's, else the current
                               one, else main) built and deployed to Pages
  .pre-commit-config.yaml      the validator before each commit
  .gitignore, README.md        for contributors: when they exist, the kit's lines
                               are appended (once)

Nothing else is replaced: when one of these files exists and differs, nothing
is written.  The pre-commit hook and both workflows install prereq from
--prereq-requirement (kept in prereq.yaml as kit.prereq): a release by default,
or a git URL or a wheel until there is one.

example:
  git clone https://github.com/ORG/team-registry && cd team-registry
  prereq init --name "Vision team prerequisites"
  prereq validate && prereq build

  # before the release is on PyPI, the kit installs prereq from git instead:
  prereq init --prereq-requirement git+https://github.com/ORG/prereq@COMMIT"""

NEW_HELP = """\
Write registry/prerequisites/NAME.yaml: a valid starting item of TYPE whose
blanks are marked TODO (printed with their line numbers), with a first line
that points editors with the YAML language server at the item schema.
When owners.yaml gives GitHub handles (github:), .github/CODEOWNERS is
rewritten to name the new item's owners (or the last line says to run
'prereq codeowners' when it cannot be written).

types:
  script       set things up before the job's commands (tools, environment)
  data         a dataset or a storage mount (needs a licence)
  output       upload the job's outputs after it succeeds
  dockerimage  the job's container image

example:
  prereq new imagenet-mirror --type data --owner vision-team"""


SHARE_HELP = """\
Save a prerequisite written by hand in JOB as a registry item, so others can
use it: registry/prerequisites/NAME.yaml gets the entry's type, plugin,
failure policy, callbacks, uri and parameters as written, version 1.0.0, you
as its owner, and TODO marks where the job says nothing (title, description,
tags, a dataset's licence).  The new file is validated at once: the problems
left are printed (exit 1) for you to fix before the pull request, and so is
the count of problems elsewhere in the registry.  When owners.yaml gives
GitHub handles, .github/CODEOWNERS is kept in step as 'prereq new' keeps it.

example:
  prereq share job.yaml my-setup --as team-setup
  prereq validate && git add registry && git commit -m "Share team-setup"
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    init = subparsers.add_parser(
        "init",
        help="start a registry repository",
        description=INIT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    init.add_argument("dir", nargs="?", type=Path, default=Path("."), help="the repository folder (default: .)")
    init.add_argument("--name", help="the site's title (default: '<folder name> prerequisites')")
    init.add_argument("--owner", help="the first user of owners.yaml (default: your login name)")
    init.add_argument(
        "--prereq-requirement",
        metavar="SPEC",
        help="what pip installs prereq from in the kit: a requirement, a git URL, a wheel's path or URL "
        f"(default: openpai-prereq=={__version__}, or what prereq.yaml's kit.prereq says)",
    )
    init.set_defaults(run=run_init)

    new = subparsers.add_parser(
        "new",
        help="write a starting item to fill in",
        description=NEW_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    new.add_argument("name", help="the item's name (letters, digits, '-' and '_')")
    new.add_argument("--type", required=True, choices=ITEM_TYPES, dest="kind", help="the item's type")
    new.add_argument("--owner", help="a user or team of owners.yaml (default: you, or your first team)")
    new.add_argument("--registry", type=Path, help="registry folder (default: the repository's)")
    new.set_defaults(run=run_new)

    shared = subparsers.add_parser(
        "share",
        help="save a job's hand-written prerequisite as an item",
        description=SHARE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    shared.add_argument("job", type=Path, help="the job file (JOB.yaml)")
    shared.add_argument("name", help="the name of the prerequisite in the job")
    shared.add_argument("--as", dest="as_name", metavar="NAME", help="the item's name in the registry (default: NAME)")
    shared.add_argument("--owner", help="a user or team of owners.yaml (default: you, or your first team)")
    shared.add_argument("--registry", type=Path, help="registry folder (default: the repository's)")
    shared.set_defaults(run=run_share)

    schema = subparsers.add_parser(
        "schema",
        help=f"write the item schema editors read to {ITEM_SCHEMA}",
        description=f"Write the item schema this prereq checks items with to {ITEM_SCHEMA} at the "
        "repository's root, where new items' modelines point editors, when it is missing or differs "
        "(validate says so: PRQ115).  Commit it.",
    )
    schema.add_argument("--registry", type=Path, help="registry folder (default: the repository's)")
    schema.set_defaults(run=run_schema)


def _show(written: Written) -> None:
    for path in written.files:
        print(f"wrote {os.path.relpath(path)}")
    if written.todo:
        print("\nto fill in:")
        for path, line, text in written.todo:
            print(f"  {os.path.relpath(path)}:{line}: {text}")


def run_init(args: argparse.Namespace) -> int:
    written = init_repository(args.dir, name=args.name, owner=args.owner, requirement=args.prereq_requirement)
    _show(written)
    for path in written.appended:
        print(f"added prereq's lines to {os.path.relpath(path)}")
    if not written.files and not written.appended:
        print("nothing to write: the registry repository is in place already")
    print("\nnext: prereq validate, then prereq build (the site lands in build/site)")
    step = keep_codeowners(args.dir / "registry")  # an owners.yaml of the repository's, with handles
    if step:
        print(step)
    return 0


def keep_codeowners(registry: Path) -> str | None:
    """new, share and init keep .github/CODEOWNERS in step when owners.yaml gives GitHub handles (the
    file is generated, and a stale one fails validation, PRQ207): what was done, or the exact command
    to run when it could not be written; None when there is nothing to do."""
    found = registry_codeowners(registry)
    repo = Repository.find(registry)
    if found is None or repo is None or found.up_to_date:
        return None
    try:
        write_codeowners(found, repo.root)
    except PrereqError as exc:  # a link in the way, a path it cannot name: the command says why again
        return f"then: prereq codeowners (.github/CODEOWNERS is out of date and was not written: {exc.message})"
    return f"updated {os.path.relpath(found.path)}: commit it with the item"


def run_new(args: argparse.Namespace) -> int:
    registry = registry_folder(args.registry)
    written = new_item(registry, args.name, kind=args.kind, owner=args.owner)
    _show(written)
    step = keep_codeowners(registry)  # last: when it could not write, the command to run ends the output
    print("\nthen: prereq validate" + (f"\n{step}" if step else ""))
    return 0


def run_share(args: argparse.Namespace) -> int:
    registry = registry_folder(args.registry)
    result = share(args.job, args.name, registry=registry, owner=args.owner, as_name=args.as_name)
    _show(result.written)
    step = keep_codeowners(registry)
    if result.validation.problems:
        print("\nleft to fix:")
        print(report_text(result.validation, Path.cwd()))
    others = result.others
    if others:  # not this file's, but 'prereq validate' reports them: "it validates" would not be true
        print(f"\nthe registry has {others} other problem{'s' * (others != 1)}: run prereq validate")
    elif not result.validation.problems:
        print("\nit validates: open a pull request with it")
    if step:  # last: when it could not write, the command to run ends the output
        print(step)
    return 1 if result.validation.errors else 0


def run_schema(args: argparse.Namespace) -> int:
    written = refresh_schema(registry_folder(args.registry))
    _show(Written(files=written))
    if not written:
        print(f"{ITEM_SCHEMA} is this prereq's item schema already")
    return 0
