"""``prereq job add|remove|lock|resolve`` and ``prereq expression set|get|list|delete``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from prereq import jobs
from prereq.cli.defaults import registry_folder
from prereq.cli.execution_commands import WHO, who_parent
from prereq.core.errors import PrereqError
from prereq.jobs import expressions

INDEX_HELP = (
    "index: a build folder, its api/v1, or an http(s) URL (default: $PREREQ_INDEX, else the index "
    "the job records, else build/site)"
)

JOB_HELP = """\
Put registry prerequisites into an OpenPAI job file.

  add      add items and everything they require (requirements first), to the
           task role's prerequisites and the job's prerequisites
  remove   remove selected items, and the requirements nothing else needs
  lock     refresh the locked versions (--upgrade moves to the newest allowed)
  resolve  print the job ready for OpenPAI: expressions filled in, checked
           against the OpenPAI schema and the rest-server's checks

What prereq adds is recorded in the job under extras.prereq (the index used,
what was selected per task role, and a lock of every item's version and
digest).  Prerequisites not recorded there are yours and are never changed.
Edits keep your comments and layout; files are replaced atomically.

exit codes: 0 done, 1 the job has problems, 2 usage error or missing input,
3 internal error"""

ADD_HELP = f"""\
Add NAME or NAME@RANGE (npm semver: ^1.2, ~1.0, >=1 <2) and everything it
requires to a task role of JOB. Prints what it added and why.

--queue QUEUE puts the job's task roles (or --task-role's) on a queue of the
execution catalog, as 'prereq place' places a block: the queue's virtual
cluster (defaults.virtualCluster), resourcePerInstance of --slots (per
instance) x the queue's per-slot cpu, memory and GPUs, the environment's
docker image when the task role has none (--image: replace its own), and
what installs each --library and all it depends on.  Refused (exit 1) when
you have no slot there, the queue does not serve the environment, a library
does not work in it, or the slots are more than you have or one machine has.
Recorded in extras.prereq.queues: 'job lock' locks the items it selected,
'job remove' takes one out like any selection, and --queue again (this
queue or another) replaces what the last placement wrote.  The catalog is
the one published beside the index (api/v1/execution/catalog.json), or
--registry's.

{WHO}

examples:
  prereq job add job.yaml mnist-data output-dir
  prereq job add job.yaml --queue gpu-1d-32g --slots 2 --user erin \\
      --library vision-transforms@1.0.0"""

EXPRESSION_HELP = """\
Your own values for <% expression.KEY %> in jobs, so one job works for many
users.  They are stored in $XDG_CONFIG_HOME/prereq/expressions.yaml (default
~/.config/prereq/), readable by you only; 'prereq job resolve' fills them in."""


def _parents() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """What every job action takes (JOB.yaml, --index), and what the editing ones add (--dry-run)."""
    job_file = argparse.ArgumentParser(add_help=False)
    job_file.add_argument("job", metavar="JOB.yaml")
    job_file.add_argument("--index", help=INDEX_HELP)
    dry_run = argparse.ArgumentParser(add_help=False)
    dry_run.add_argument("--dry-run", action="store_true", help="print the change as a diff; write nothing")
    return job_file, dry_run


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "job",
        help="add prerequisites to OpenPAI jobs, lock and resolve them",
        description=JOB_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="job_command", metavar="ACTION", parser_class=type(parser))
    commands.required = True
    job_file, dry_run = _parents()

    add = commands.add_parser(
        "add",
        help="add items and their requirements to a job, or put it on a queue",
        parents=[job_file, dry_run, who_parent()],
        description=ADD_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add.add_argument("names", nargs="*", metavar="NAME[@RANGE]")
    add.add_argument(
        "--task-role",
        metavar="ROLE",
        action="append",
        help="the task role (needed when the job has several); repeat it to add to several at once, as task "
        "roles that share a YAML anchor (&name, *name, <<: *name) must be",
    )
    add.add_argument("--bind", action="store_true", help="also set the task role's data:/script:/output: to each item")
    _register_queue(add)
    add.set_defaults(run=run_add)

    _register_remove(commands, [job_file, dry_run])
    lock = commands.add_parser(
        "lock",
        help="refresh the job's locked versions",
        parents=[job_file, dry_run],
        description="Rewrite the lock in extras.prereq: locked versions that still meet "
        "the ranges are kept; --upgrade moves every item (or the NAMEs given) to the "
        "newest version the ranges allow.",
    )
    lock.add_argument("--upgrade", nargs="*", metavar="NAME", help="upgrade all items, or only these")
    lock.set_defaults(run=run_lock)

    resolve = commands.add_parser(
        "resolve",
        help="print the job ready for OpenPAI",
        parents=[job_file],
        description="The job ready for OpenPAI: names that only the task roles mention "
        "are filled in from the index (with their requirements), <% expression.KEY %> "
        "from your stored expressions; $-templates are left for OpenPAI. The result is "
        "checked against the OpenPAI schema and the rest-server's checks.",
    )
    resolve.add_argument("-o", "--output", metavar="OUT", help="write to OUT (atomically) instead of stdout")
    resolve.set_defaults(run=run_resolve)
    _register_expression(subparsers)


def _register_remove(commands: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    remove = commands.add_parser(
        "remove",
        help="remove selected items and what only they needed",
        parents=parents,
        description="Remove selected items from JOB, and the requirements that nothing "
        "still selected needs. Items you wrote yourself are never removed. With --unbind, "
        "the items stay: only the task role's data:/script:/output: that 'job add --bind' set is cleared.",
    )
    remove.add_argument("names", nargs="+", metavar="NAME")
    remove.add_argument(
        "--task-role",
        metavar="ROLE",
        action="append",
        help="the task role (when several select the item); repeat it for several, as task roles that share a "
        "YAML anchor must be",
    )
    remove.add_argument(
        "--unbind", action="store_true", help="keep the items; only clear the data:/script:/output: that --bind set"
    )
    remove.set_defaults(run=run_remove)


def _register_queue(add: argparse.ArgumentParser) -> None:
    queue = add.add_argument_group("putting the job on a queue of the execution catalog")
    queue.add_argument("--queue", metavar="QUEUE", help="put the task roles (or --task-role's) on QUEUE")
    queue.add_argument("--slots", type=int, default=None, metavar="N", help="slots per instance (default: 1)")
    queue.add_argument("--environment", metavar="NAME@VERSION", help="default: the queue's one that fits")
    queue.add_argument("--library", action="append", default=[], metavar="NAME@VERSION", help="a library (repeat)")
    queue.add_argument(
        "--image", action="store_true", help="replace the task role's own dockerImage by the environment's"
    )
    queue.add_argument("--registry", type=Path, help="the catalog of this registry folder (default: the index's)")


def _register_expression(subparsers: argparse._SubParsersAction) -> None:
    expression = subparsers.add_parser(
        "expression",
        help="your stored values for <%% expression.KEY %%>",
        description=EXPRESSION_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = expression.add_subparsers(dest="expression_command", metavar="ACTION", parser_class=type(expression))
    actions.required = True
    set_ = actions.add_parser("set", help="store a value", description="Store VALUE for KEY.")
    set_.add_argument("key", metavar="KEY")
    set_.add_argument("value", metavar="VALUE")
    set_.set_defaults(run=run_expression_set)
    get = actions.add_parser("get", help="print a stored value", description="Print the value stored for KEY.")
    get.add_argument("key", metavar="KEY")
    get.set_defaults(run=run_expression_get)
    list_ = actions.add_parser("list", help="list stored values", description="Print every KEY=VALUE stored.")
    list_.add_argument("--keys", action="store_true", help="print only the keys")
    list_.set_defaults(run=run_expression_list)
    delete = actions.add_parser("delete", help="forget a value", description="Delete the value stored for KEY.")
    delete.add_argument("key", metavar="KEY")
    delete.set_defaults(run=run_expression_delete)


def _report(result: jobs.JobEdit, dry_run: bool) -> int:
    out = sys.stderr if dry_run else sys.stdout
    for change in result.changes:
        print(change.describe(dry_run=dry_run), file=out)
    for warning in result.warnings:
        print(f"prereq: warning: {warning}", file=sys.stderr)
    for note in result.notes:
        print(f"prereq: note: {note}", file=sys.stderr)
    if not result.changed:
        print(f"{result.path}: nothing to change", file=out)
    elif dry_run:
        sys.stdout.write(result.diff())
    return 0


QUEUE_ONLY = ("slots", "environment", "library", "image", "registry", "user", "groups")


def run_add(args: argparse.Namespace) -> int:
    if args.queue is not None:
        return _run_add_queue(args)
    given = [f"--{name}" for name in QUEUE_ONLY if getattr(args, name) not in (None, [], False)]
    if given:
        raise PrereqError(f"{', '.join(given)} only go with --queue QUEUE", hint="add --queue QUEUE, or leave them out")
    if not args.names:
        raise PrereqError(
            "name the items to add, or a queue to put the job on", hint="e.g. prereq job add job.yaml mnist-data"
        )
    result = jobs.add(
        args.job, args.names, task_role=args.task_role, bind=args.bind, index=args.index, dry_run=args.dry_run
    )
    return _report(result, args.dry_run)


def _run_add_queue(args: argparse.Namespace) -> int:
    # The catalog's modules only for --queue: a plain `job add` does not import them.
    from prereq.execution.catalog_validation import open_catalog
    from prereq.jobs.queue import QueueChoice, add_queue

    if args.bind:
        raise PrereqError(
            "--bind goes with items, not with --queue", hint="add the items to bind in a command of their own"
        )
    choice = QueueChoice(
        queue=args.queue,
        slots=1 if args.slots is None else args.slots,
        environment=args.environment,
        libraries=tuple(args.library),
        image=args.image,
        user=args.user,
        groups=args.groups,
        reputation=args.reputation,
    )
    catalog = open_catalog(registry_folder(args.registry)) if args.registry is not None else None
    placed = add_queue(
        args.job,
        choice,
        names=args.names,
        catalog=catalog,
        index=args.index,
        task_role=args.task_role,
        dry_run=args.dry_run,
    )
    for line in placed.describe(dry_run=args.dry_run):
        print(line, file=sys.stderr if args.dry_run else sys.stdout)
    return _report(placed.edit, args.dry_run)


def run_remove(args: argparse.Namespace) -> int:
    result = jobs.remove(
        args.job, args.names, task_role=args.task_role, index=args.index, dry_run=args.dry_run, unbind=args.unbind
    )
    return _report(result, args.dry_run)


def run_lock(args: argparse.Namespace) -> int:
    # --upgrade alone upgrades every item; --upgrade NAME... only those.
    result = jobs.lock(
        args.job, upgrade_all=args.upgrade == [], upgrade=args.upgrade or (), index=args.index, dry_run=args.dry_run
    )
    return _report(result, args.dry_run)


def run_resolve(args: argparse.Namespace) -> int:
    result = jobs.prepare(args.job, index=args.index, output=args.output)
    for change in result.changes:
        print(change.describe(), file=sys.stderr)
    for warning in result.warnings:
        print(f"prereq: warning: {warning}", file=sys.stderr)
    if args.output is None:
        sys.stdout.write(result.text)
    else:
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


def run_expression_set(args: argparse.Namespace) -> int:
    path = expressions.set_expression(args.key, args.value)
    print(f"stored {args.key} in {path}", file=sys.stderr)
    return 0


def run_expression_get(args: argparse.Namespace) -> int:
    print(expressions.get_expression(args.key))
    return 0


def run_expression_list(args: argparse.Namespace) -> int:
    values = expressions.load_expressions()
    for key in sorted(values):
        print(key if args.keys else f"{key}={values[key]}")
    if not values:
        print(f"no stored expressions ({expressions.store_path()})", file=sys.stderr)
    return 0


def run_expression_delete(args: argparse.Namespace) -> int:
    expressions.delete_expression(args.key)
    print(f"deleted {args.key}", file=sys.stderr)
    return 0
