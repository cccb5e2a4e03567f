"""``prereq init``, ``prereq new`` and ``prereq share``."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from prereq.cli.defaults import registry_folder
from prereq.registry.reporters import report_text
from prereq.scaffold.share import share
from prereq.scaffold.starter import ITEM_TYPES, Written, init_repository, new_item

INIT_HELP = """\
Make DIR (default: the current folder) a registry repository that works at once:

  prereq.yaml                  the site's name and address, where the registry is
  registry/owners.yaml         who may own items (you, and a team of you)
  registry/prerequisites/      one finished example item, hello-prereq
  .github/workflows/           pull requests validated and reviewed against their
                               base; the main branch built and deployed to Pages
  .pre-commit-config.yaml      the validator before each commit
  .gitignore, README.md        for contributors

Nothing is replaced: when one of these files exists, nothing is written.

example:
  git init team-registry && cd team-registry
  prereq init --name "Vision team prerequisites"
  prereq validate && prereq build"""

NEW_HELP = """\
Write registry/prerequisites/NAME.yaml: a valid starting item of TYPE whose
blanks are marked TODO (printed with their line numbers), with a first line
that points editors with the YAML language server at the item schema.

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
left are printed (exit 1) for you to fix before the pull request.

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


def _show(written: Written) -> None:
    for path in written.files:
        print(f"wrote {os.path.relpath(path)}")
    if written.todo:
        print("\nto fill in:")
        for path, line, text in written.todo:
            print(f"  {os.path.relpath(path)}:{line}: {text}")


def run_init(args: argparse.Namespace) -> int:
    written = init_repository(args.dir, name=args.name, owner=args.owner)
    _show(written)
    print("\nnext: prereq validate, then prereq build (the site lands in build/site)")
    return 0


def run_new(args: argparse.Namespace) -> int:
    written = new_item(registry_folder(args.registry), args.name, kind=args.kind, owner=args.owner)
    _show(written)
    print("\nthen: prereq validate")
    return 0


def run_share(args: argparse.Namespace) -> int:
    registry = registry_folder(args.registry)
    result = share(args.job, args.name, registry=registry, owner=args.owner, as_name=args.as_name)
    _show(result.written)
    if not result.validation.problems:
        print("\nit validates: open a pull request with it")
        return 0
    print("\nleft to fix:")
    print(report_text(result.validation, Path.cwd()))
    return 1 if result.validation.errors else 0
