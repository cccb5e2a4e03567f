"""``prereq serve``: preview the marketplace site."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from prereq.cli.defaults import registry_folder
from prereq.marketplace.build import serve
from prereq.registry.reporters import report

SERVE_HELP = """\
Validate and index the registry, then serve the marketplace site with MkDocs'
live-reloading server.  Every edit rebuilds it: of the registry's items and
owners (indexed again first; while they have errors the site shows the last
valid index and the errors are logged), of site/, mkdocs.yml and prereq.yaml's
site.pages.  (A plain 'mkdocs serve' previews the last 'prereq build' instead.)

exit codes: 0 stopped, 1 the registry has errors, 2 usage error"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="preview the marketplace site locally",
        description=SERVE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--registry", type=Path, help="registry folder (default: prereq.yaml's, else the repository's registry/)"
    )
    parser.add_argument(
        "--allow-shallow", action="store_true", help="serve from a shallow clone, showing only the versions it holds"
    )
    parser.add_argument(
        "--dev-addr",
        default="127.0.0.1:8000",
        metavar="HOST:PORT",
        help="address to serve on (default: 127.0.0.1:8000)",
    )
    parser.set_defaults(run=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    registry = registry_folder(args.registry)
    result = serve(
        registry,
        dev_addr=args.dev_addr,
        allow_shallow=args.allow_shallow,
        progress=lambda message: print(f"serve: {message}", file=sys.stderr),
    )
    if not result.built:
        print(report(result.validation, base=Path.cwd()))
        print("prereq: the registry has errors: nothing to serve", file=sys.stderr)
        return 1
    return 0
