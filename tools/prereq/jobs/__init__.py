"""Putting registry prerequisites into OpenPAI jobs: add, remove, lock, and prepare for OpenPAI.

A job records what prereq did in ``extras.prereq`` (OpenPAI leaves ``extras``
free-form)::

    extras:
      prereq:
        index: build/site                  # the index used
        selected:                          # what the user chose, per task role
          train: [mnist-data, output-dir@^1.0]
        lock:                              # every item prereq put in the job
          nfs-storage-1: {version: 1.0.2, digest: "sha256:..."}

Entries of the job's ``prerequisites`` whose names are in the lock are prereq's;
everything else is the user's own and is never changed.  An edit is a pure plan
(``plan``: what to add, remove and where) applied to the text (``apply``, through
``core.yamledit``), so comments and layout survive; files are replaced atomically.

Modules: ``records`` (the state and results), ``document`` (a job's text, checks and
positions), ``plan``, ``apply``, ``operations`` (add/remove/lock), ``prepare``
(``prereq job resolve``), ``expressions`` (the user's stored values).  The browser's
composer runs the same engine in JS (``site/assets/composer/``); the shared cases in
``tests/cases/jobs/`` hold both to the same texts and messages.

``queue`` and ``queue_edits`` (``prereq job add --queue``: task roles put on a queue of the
execution catalog, recorded in ``extras.prereq.queues``) are the CLI's only: the composer keeps
that record as it is, and this package does not import them (the catalog is not needed to edit).

May import: prereq.core, prereq.openpai, prereq.registry (rule hints), prereq.index, and for
``queue`` prereq.execution.
"""

from prereq.jobs.operations import add, add_to_text, lock, lock_text, remove, remove_from_text
from prereq.jobs.prepare import prepare, prepare_text
from prereq.jobs.records import ItemChange, JobEdit, JobState, Locked, PreparedJob

__all__ = [
    "ItemChange",
    "JobEdit",
    "JobState",
    "Locked",
    "PreparedJob",
    "add",
    "add_to_text",
    "lock",
    "lock_text",
    "prepare",
    "prepare_text",
    "remove",
    "remove_from_text",
]
