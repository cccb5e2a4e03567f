"""``prereq build``, ``prereq search`` and ``prereq show``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from prereq.cli.defaults import output_folder, registry_folder
from prereq.core.yamlload import dump_yaml
from prereq.index import sshsig
from prereq.index.reader import Index, index_source
from prereq.index.trust import SIGN_KEY_VARIABLE, sign_index, trust_setting
from prereq.jobs.operations import unknown_item
from prereq.marketplace.build import build
from prereq.registry.reporters import report

BUILD_HELP = """\
Validate the registry, then publish it: the JSON index under OUT/api/v1 and
the marketplace site in OUT.  A registry with errors is not published, and a
failed build leaves the previous OUT untouched (everything is written to a
temporary folder and moved into place at the end).  Warnings stop it too while
validation is strict: prereq.yaml's validate: {strict: ...}, on by default, the
same setting the pull-request check and pre-commit read, so what the check
passes is what publish builds; --strict/--no-strict override it for one run.

Every version an item's file has carried in git history stays published, so
jobs that pinned an older version still resolve.  That needs the whole
history: a shallow clone (GitHub's default checkout) is refused unless
--allow-shallow says to publish only what it holds.

The site is prereq's own, customised by the repository's prereq.yaml (title,
address, extra pages, logo); a repository with its own mkdocs.yml at its root
builds that one instead.

--sign-key KEY (or $PREREQ_SIGN_KEY) signs the root of the index with an SSH
key, as git's SSH signing does: OUT/api/v1/index.json.sig, an SSHSIG under the
namespace prereq-index.  KEY is a private key file, or the .pub of a key that
ssh-agent holds; a key with a passphrase needs a terminal or ssh-agent.
'prereq job' then verifies the index wherever $PREREQ_TRUST or prereq.yaml's
trust: {allowed_signers: FILE} names the allowed signers (ssh-keygen's
format: 'PRINCIPAL namespaces="prereq-index" ssh-ed25519 AAAA...').

examples:
  prereq build                      # ./registry -> build/site of this repository
  prereq build --no-site --out idx  # only the JSON index
  prereq build --sign-key ~/.ssh/prereq_index   # and sign it

exit codes: 0 built, 1 the registry has errors (or warnings, while strict), 2 usage
error, 3 internal error"""

INDEX_HELP = "index: a build folder, its api/v1, or an http(s) URL (default: $PREREQ_INDEX, else build/site)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "build",
        help="publish the index and the marketplace site",
        description=BUILD_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--registry", type=Path, help="registry folder (default: prereq.yaml's, else the repository's registry/)"
    )
    parser.add_argument("--out", type=Path, help="output folder (default: build/site at the repository root)")
    parser.add_argument("--no-site", action="store_true", help="write only the JSON index")
    parser.add_argument(
        "--allow-shallow", action="store_true", help="build from a shallow clone, publishing only the versions it holds"
    )
    parser.add_argument(
        "--sign-key",
        type=Path,
        metavar="KEY",
        default=os.environ.get(SIGN_KEY_VARIABLE) or None,
        help=f"sign api/v1/index.json with this SSH key (default: ${SIGN_KEY_VARIABLE}; none: unsigned)",
    )
    parser.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        help="refuse to publish on warnings too, or not (default: prereq.yaml's validate.strict, else strict)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    parser.set_defaults(run=run_build)

    search = subparsers.add_parser(
        "search",
        help="find prerequisites in the index",
        description="Find prerequisites whose name, title, summary or tags contain "
        "every word of QUERY; name matches are listed first.",
    )
    search.add_argument("query", nargs="+", help="words to look for")
    search.add_argument("--index", help=INDEX_HELP)
    search.add_argument("--json", action="store_true", help="print the matching index entries as JSON")
    search.set_defaults(run=run_search)

    show = subparsers.add_parser(
        "show",
        help="show one prerequisite and its OpenPAI form",
        description="Show an item's description, versions, requirements and the "
        "prerequisites it puts into a job (its closure, in order).",
    )
    show.add_argument("item", metavar="NAME[@VERSION]", help="the item, optionally at a published version")
    show.add_argument("--index", help=INDEX_HELP)
    show.add_argument("--json", action="store_true", help="print the version's index document as JSON")
    show.set_defaults(run=run_show)


def run_build(args: argparse.Namespace) -> int:
    registry = registry_folder(args.registry)
    if args.sign_key is not None:
        sshsig.check_key(args.sign_key)  # before the build: a wrong path should not cost a whole build

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"build: {message}", file=sys.stderr)

    key = args.sign_key

    def sign(api: Path) -> None:
        signature = sign_index(api, key=key, interactive=sys.stdin.isatty())
        progress(f"signed the index: {signature.name}")

    result = build(
        registry,
        output_folder(args.out, registry),
        with_site=not args.no_site,
        allow_shallow=args.allow_shallow,
        strict=args.strict,
        sign=sign if key is not None else None,
        progress=progress,
    )
    if result.problems and (not result.built or not args.quiet):
        print(report(result.validation, base=Path.cwd()))
    if result.index is None:
        why = "errors" if result.validation.errors else "warnings and validation is strict (prereq.yaml's validate)"
        print(f"prereq: the registry has {why}: nothing was published", file=sys.stderr)
        return 1
    for warning in result.warnings:
        print(f"build: warning: {warning}", file=sys.stderr)
    root = result.index.root
    if not args.quiet:
        count = len(root["items"])
        print(
            f"published {count} item{'s' * (count != 1)} to {result.out} "
            f"(commit {(root['commit'] or 'none')[:10]}{', dirty' if root['dirty'] else ''})"
        )
    return 0


def run_search(args: argparse.Namespace) -> int:
    index = Index.load(index_source(args.index), trust=trust_setting())
    answer = index.find(" ".join(args.query))
    found = answer.entries
    if answer.corrected:
        print(f"nothing matches {' '.join(answer.words)}; showing {' '.join(answer.corrected)}", file=sys.stderr)
    if args.json:
        print(json.dumps(found, indent=2))
    else:
        for entry in found:
            flag = " (deprecated)" if entry["deprecated"] else ""
            print(f"{entry['name']:<28} {entry['version']:<9} {entry['type']:<11} {entry['title']}{flag}")
        if not found:
            print("no prerequisite matches", file=sys.stderr)
    return 0 if found else 1


def run_show(args: argparse.Namespace) -> int:
    index = Index.load(index_source(args.index), trust=trust_setting())
    name, _, version = args.item.partition("@")
    if name not in index.entries:
        raise unknown_item(index, name)
    document = index.version(name, version or None)
    if args.json:
        print(json.dumps(document, indent=2))
        return 0
    item = document["item"]
    print(f"{name} {document['version']} ({item['type']}): {item['title']}")
    if item.get("deprecated"):
        replacement = item["deprecated"].get("replacement")
        print(f"DEPRECATED: {item['deprecated']['reason']}" + (f" Use {replacement}." if replacement else ""))
    if item.get("description"):
        print("\n" + item["description"].strip())
    print(f"\nversions: {', '.join(index.versions(name))}")
    print(f"owners: {', '.join(item.get('owners', []))}")
    if document["requires"]:
        print("requires: " + ", ".join(f"{r['name']}@{r['range']} -> {r['version']}" for r in document["requires"]))
    required_by = index.document(name)["required_by"]
    if required_by:
        print("required by: " + ", ".join(required_by))
    print("\nin a job (requirements first):")
    closure = [index.version(c["name"], c["version"])["openpai"] for c in document["closure"]]
    print(dump_yaml({"prerequisites": closure}), end="")
    return 0
