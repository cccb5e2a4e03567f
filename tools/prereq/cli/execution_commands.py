"""``prereq rights``, ``prereq queues``, ``prereq request``, ``prereq schedule`` and ``prereq place``:
the execution catalog (``prereq.execution``) asked what a user may run where."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prereq.cli.defaults import registry_folder
from prereq.core.errors import PrereqError
from prereq.execution.catalog_records import FULL_REPUTATION

if TYPE_CHECKING:
    from prereq.execution.catalog_records import Catalog, Ref
    from prereq.execution.rights import QueueRight
    from prereq.registry.loader import Owners

# Each command imports the catalog's modules when it runs: `prereq job` reads WHO and who_parent from
# here and should not pay for them (prereq.cli loads only the modules a command needs).

WHO = """\
who: --user NAME takes the user's groups from owners.yaml's teams and
rights.yaml's groups; --groups A,B names groups directly.  A user's right on
a queue is, over their groups, the most slots and the highest priority.
--reputation PERCENT multiplies the slots (100 is x1, 200 x2; rounded down,
at most the queue's total, and never below one slot for a user with one)."""

RIGHTS_HELP = f"""\
Show queue rights: every row of rights.yaml, or, for a user or a set of
groups, the slots and priority they get on each queue.

{WHO}

examples:
  prereq rights
  prereq rights --groups default,super --reputation 200
  prereq rights --user erin --format json"""

QUEUES_HELP = f"""\
Which queues a block may run on: those where the user has a slot, that serve
the block's environment, and where every library it uses (with all they
depend on) works in that environment; a block takes at most the user's slots
and one machine's.  The other queues are listed with the reason.

{WHO}

example:
  prereq queues --user erin --environment pytorch-gpu@1.0.0 --library vision-transforms@1.0.0"""

REQUEST_HELP = f"""\
Check an experiment and write its execution request (JSON, described by
schema/execution-request.schema.json): the toolchain, each block's queue,
environment, libraries and slots, the user and the rights computed for them.

An experiment is YAML; blocks fall back to globals for what they leave out:

  name: vision-benchmark
  globals: {{environment: python@1.1.0, queue: python-3h-4g}}
  blocks:
    prepare:
      libraries: [hf-datasets@1.0.0]
      duration_minutes: 20            # the estimate 'prereq schedule' runs it for
      commands: [python prepare.py]
    train:
      after: [prepare]
      environment: pytorch-gpu@1.0.0
      queue: gpu-1d-32g
      slots: 2
      commands: [python train.py]

{WHO}

exit codes: 0 written, 1 the experiment has problems (each with its line and
fix) or the catalog has errors, 2 usage error or missing input

example:
  prereq request vision.yaml --user erin -o vision.request.json"""

SCHEDULE_HELP = """\
Simulate the scheduler's first strategy on execution requests: FIFO by
submission age, a block starting once the blocks it runs after are done,
never more running slots per user and queue than their rights, never more
than a machine's slots or the queue's total.  A second request of a user
updates that user's rights.  Prints the order and the slot occupation over
time (h:mm from the first submission), so a rights change can be tried on
real requests before it is merged.

--machines FILE (YAML) says how many machines of a queue are up, e.g.
  gpu-1d-32g: 2

example:
  prereq schedule alice.request.json erin.request.json --machines machines.yaml"""

PLACE_HELP = """\
Turn a block of an execution request into the OpenPAI job that runs it: one
task role on the queue's virtual cluster with the environment's docker image,
resourcePerInstance of slots x the queue's per-slot cpu, memory and GPUs, and
the prerequisites installing its libraries (from the published index, as
'prereq job add' takes them).  The job is checked as the rest-server checks
it.  Without --block, every block; -o DIR writes one JOB.yaml per block.

example:
  prereq place vision.request.json --block train --index build/site > train.yaml"""


def who_parent() -> argparse.ArgumentParser:
    """--user, --groups and --reputation: whose rights (``prereq job add --queue`` takes them too)."""
    who = argparse.ArgumentParser(add_help=False)
    who.add_argument("--user", help="a user of owners.yaml: their groups")
    who.add_argument("--groups", help="groups, comma-separated (teams of owners.yaml, rights.yaml's groups)")
    who.add_argument("--reputation", type=int, default=FULL_REPUTATION, metavar="PERCENT", help="default: 100")
    return who


def register(subparsers: argparse._SubParsersAction) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--registry", type=Path, help="registry folder (default: as for validate)")
    common.add_argument("--format", choices=["text", "json"], default="text", help="output format (default: text)")
    who = who_parent()

    def add(name: str, text: str, description: str, parents: list[argparse.ArgumentParser]) -> argparse.ArgumentParser:
        return subparsers.add_parser(
            name,
            help=text,
            description=description,
            parents=parents,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    add("rights", "show queue rights by group, or a user's", RIGHTS_HELP, [common, who]).set_defaults(run=run_rights)
    queues = add("queues", "show the queues offered for a block", QUEUES_HELP, [common, who])
    queues.add_argument("--environment", required=True, metavar="NAME@VERSION", help="the block's environment")
    queues.add_argument("--library", action="append", default=[], metavar="NAME@VERSION", help="a library (repeat)")
    queues.set_defaults(run=run_queues)
    request = add("request", "check an experiment and write its execution request", REQUEST_HELP, [common, who])
    request.add_argument("experiment", type=Path, metavar="EXPERIMENT.yaml")
    request.add_argument("--submitted", metavar="ISO-8601", help="submission time (default: now, UTC)")
    request.add_argument("-o", "--output", type=Path, metavar="FILE", help="write the request to FILE")
    request.set_defaults(run=run_request)
    schedule = add("schedule", "simulate the FIFO scheduler on requests", SCHEDULE_HELP, [])
    schedule.add_argument("requests", nargs="+", type=Path, metavar="REQUEST.json")
    schedule.add_argument("--machines", type=Path, metavar="FILE", help="machines up per queue (YAML)")
    schedule.add_argument("--format", choices=["text", "json"], default="text", help="output format (default: text)")
    schedule.set_defaults(run=run_schedule)
    place = add("place", "turn a requested block into its OpenPAI job", PLACE_HELP, [])
    place.add_argument("request", type=Path, metavar="REQUEST.json")
    place.add_argument("--block", help="the block (default: every block)")
    place.add_argument("--registry", type=Path, help="registry folder (default: as for validate)")
    place.add_argument("--index", help="the published index (default: $PREREQ_INDEX, else build/site)")
    place.add_argument("-o", "--output", type=Path, metavar="DIR", help="write DIR/<job name>.yaml per block")
    place.set_defaults(run=run_place)


def _who(args: argparse.Namespace, catalog: Catalog, owners: Owners) -> list[str]:
    from prereq.execution.rights import groups_of

    return groups_of(catalog, owners, user=args.user, groups=args.groups)


def _ref(text: str, what: str) -> Ref:
    from prereq.execution.catalog_records import Ref

    ref = Ref.parse(text)
    if not ref.name or not ref.version:
        raise PrereqError(f"{what} {text!r} is not NAME@VERSION", hint=f"e.g. --{what} python@1.0.0")
    return ref


def _right_json(right: QueueRight, catalog: Catalog) -> dict[str, Any]:
    queue = catalog.queues[right.queue]
    return {
        "queue": right.queue,
        "title": queue.title,
        "slots": right.slots,
        "priority": right.priority,
        "group_slots": right.group_slots,
        "groups": list(right.groups),
        "max_slots_per_block": min(right.slots, queue.slots_per_machine),
    }


def run_rights(args: argparse.Namespace) -> int:
    from prereq.execution.catalog_validation import open_catalog
    from prereq.execution.rights import user_rights

    catalog, owners = open_catalog(registry_folder(args.registry))
    if not (args.user or args.groups):
        rows = [{"queue": r.queue, "group": r.group, "slots": r.slots, "priority": r.priority} for r in catalog.rights]
        if args.format == "json":
            print(json.dumps({"rights": rows}, indent=2))
            return 0
        print(f"{'queue':<20} {'group':<20} {'slots':>5} {'priority':>8}")
        for row in rows:
            print(f"{row['queue']:<20} {row['group']:<20} {row['slots']:>5} {row['priority']:>8}")
        return 0
    groups = _who(args, catalog, owners)
    rights = user_rights(catalog, groups, reputation=args.reputation)
    if args.format == "json":
        shown = [_right_json(right, catalog) for right in rights]
        print(json.dumps({"groups": groups, "reputation": args.reputation, "rights": shown}, indent=2))
        return 0
    print(f"rights of {', '.join(groups) or 'no group'} (reputation {args.reputation}%):")
    for right in rights:
        title, given = catalog.queues[right.queue].title, ", ".join(right.groups)
        print(f"  {right.queue:<16} {right.slots:>3} slot(s), priority {right.priority}  {title}  (from {given})")
    if not rights:
        print("  no slot on any queue")
    return 0 if rights else 1


def run_queues(args: argparse.Namespace) -> int:
    from prereq.execution.catalog_validation import open_catalog
    from prereq.execution.rights import offered_queues, user_rights

    catalog, owners = open_catalog(registry_folder(args.registry))
    groups = _who(args, catalog, owners)
    rights = user_rights(catalog, groups, reputation=args.reputation)
    env = _ref(args.environment, "environment")
    libraries = [_ref(text, "library") for text in args.library]
    offers, refusals = offered_queues(catalog, rights, env=env, libraries=libraries)
    if args.format == "json":
        document = {
            "groups": groups,
            "reputation": args.reputation,
            "environment": str(env),
            "libraries": [str(ref) for ref in libraries],
            "offered": [
                {"queue": o.queue, "title": o.title, "max_slots": o.max_slots, "priority": o.priority} for o in offers
            ],
            "not_offered": [{"queue": r.queue, "title": r.title, "reason": r.reason} for r in refusals],
        }
        print(json.dumps(document, indent=2))
        return 0 if offers else 1
    using = f" with {', '.join(str(ref) for ref in libraries)}" if libraries else ""
    print(f"queues for a block in {env}{using}, for {', '.join(groups)} (reputation {args.reputation}%):")
    for offer in offers:
        print(f"  {offer.queue:<16} up to {offer.max_slots} slot(s), priority {offer.priority}  {offer.title}")
    if not offers:
        print("  none")
    if refusals:
        print("not offered:")
    for refusal in refusals:
        print(f"  {refusal.queue:<16} {refusal.reason}")
    return 0 if offers else 1


def _submitted(text: str | None) -> datetime:
    if text is None:
        return datetime.now(timezone.utc).replace(microsecond=0)
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise PrereqError(
            f"--submitted {text!r} is not an ISO 8601 time that exists ({exc})", hint="e.g. 2026-01-05T09:30:00Z"
        ) from None
    offset = when.utcoffset()
    if offset is not None and offset.total_seconds() % 60:  # a request's time zone is whole minutes (its schema)
        raise PrereqError(f"--submitted {text!r} has a time zone of seconds", hint="write it as +HH:MM, e.g. +05:30")
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def run_request(args: argparse.Namespace) -> int:
    from prereq.core.files import write_atomic
    from prereq.execution.catalog_validation import open_catalog
    from prereq.execution.experiment import check_experiment
    from prereq.execution.request import Submitter, build_request, request_problems
    from prereq.execution.rights import user_rights

    if not args.user:
        raise PrereqError("say who submits: --user NAME", hint="the request records the user and their rights")
    catalog, owners = open_catalog(registry_folder(args.registry))
    groups = _who(args, catalog, owners)
    rights = user_rights(catalog, groups, reputation=args.reputation)
    checked = check_experiment(args.experiment, shown=str(args.experiment), catalog=catalog, rights=rights)
    if checked.experiment is None:
        for finding in checked.findings:
            where = f"{finding.file}:{finding.line}:{finding.column}" if finding.line else finding.file
            print(f"{where}: error: {finding.message}\n    hint: {finding.hint}")
        print(f"{len(checked.findings)} problem(s): no request written", file=sys.stderr)
        return 1
    submitter = Submitter(args.user, tuple(groups), args.reputation, _submitted(args.submitted))
    request = build_request(checked.experiment, submitter=submitter, rights=rights, catalog=catalog)
    broken = request_problems(request)
    if broken:  # what we write must be what 'prereq schedule' reads
        raise RuntimeError(f"the request does not match its schema: {broken[0]}")
    text = json.dumps(request, indent=2) + "\n"
    if args.output is not None:
        write_atomic(args.output, text)
    if args.format == "json":
        print(text, end="")
        return 0
    for block in checked.experiment.blocks:
        config = request["configuration"][block.name]
        after = f" after {', '.join(block.after)}" if block.after else ""
        print(f"{block.name:<12} {config['queue']} x{config['slots']}, {config['environment']}{after}")
    print(f"wrote {args.output}" if args.output else "checked: pass -o FILE to write the request, or --format json")
    return 0


def _machines(path: Path | None) -> dict[str, int]:
    from prereq.core.yamlload import YamlLoadError, load_yaml

    if path is None:
        return {}
    try:
        data = load_yaml(path.read_bytes()).data
    except OSError as exc:
        raise PrereqError(f"cannot read {path}: {exc.strerror}", hint="pass a YAML file of queue: machines") from None
    except YamlLoadError as exc:
        raise PrereqError(
            f"{path} is not valid YAML: {exc.issues[0].message}", hint="write queue: machines lines"
        ) from None
    if not isinstance(data, dict) or not all(isinstance(v, int) and not isinstance(v, bool) for v in data.values()):
        raise PrereqError(f"{path} must map queues to numbers of machines", hint="e.g. gpu-1d-32g: 2")
    return {str(queue): count for queue, count in data.items()}


def run_schedule(args: argparse.Namespace) -> int:
    from prereq.execution.request import read_request
    from prereq.execution.schedule import render_text, simulate

    requests = [read_request(path, shown=str(path)) for path in args.requests]
    schedule = simulate(requests, machines=_machines(args.machines))
    if args.format == "json":
        print(json.dumps(schedule.as_dict(), indent=2))
    else:
        print(render_text(schedule), end="")
    return 1 if schedule.never_ran else 0


def run_place(args: argparse.Namespace) -> int:
    from prereq.core.files import write_atomic
    from prereq.core.yamlload import dump_yaml
    from prereq.execution.catalog_validation import open_catalog
    from prereq.execution.placement import place_block
    from prereq.execution.request import read_request
    from prereq.index.reader import Index, index_source

    request = read_request(args.request, shown=str(args.request))
    catalog, _ = open_catalog(registry_folder(args.registry))
    try:
        index: Index | None = Index.load(index_source(args.index))
    except PrereqError:
        index = None  # needed only for registry items; place_block says so when it is
    blocks = [args.block] if args.block else [block["name"] for block in request["toolchain"]["blocks"]]
    placed = [place_block(request, block, catalog=catalog, index=index) for block in blocks]
    refused = [(job.block, problem) for job in placed for problem in job.problems]
    for block, problem in refused:
        print(f"prereq: {block}: OpenPAI would refuse the job: {problem.where()}: {problem.message}", file=sys.stderr)
    if args.output is not None:
        args.output.mkdir(parents=True, exist_ok=True)
        for job in placed:
            write_atomic(args.output / f"{job.job['name']}.yaml", dump_yaml(job.job))
            print(f"wrote {args.output / (job.job['name'] + '.yaml')}")
    else:
        print("---\n".join(dump_yaml(job.job) for job in placed), end="")
    return 1 if refused else 0
