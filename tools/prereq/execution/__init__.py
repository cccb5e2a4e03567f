"""The execution catalog: where blocks of an experiment can run, and who may use how much.

As Idiap's BEAT platform describes a cluster, with what its public code leaves out defined here:

- ``rules``: the catalog's rules (PRQ3xx: ids, messages, hints), written as the registry's are;
- ``catalog_records``: environments, queues, libraries, rights rows and the catalog they form
  (dataclasses);
- ``load``: ``registry/environments/<name>/<version>.yaml``, ``registry/queues/<name>.yaml``,
  ``registry/libraries/<name>/<version>.yaml`` and ``registry/rights.yaml`` read with positions
  through the registry loader's helpers (links and special files refused as everywhere), the schema
  and the file names checked (PRQ300-PRQ302);
- ``catalog_checks`` (look-alike names, references, library chains, credentials: PRQ303-PRQ306,
  PRQ317, PRQ318) and ``queue_checks`` (limits, rights, GPUs, what nothing uses: PRQ307-PRQ313,
  PRQ315), as ``rules/catalog_rules`` and ``rules/queue_rules`` word them; ``catalog_history`` (what
  the git history published: every version of environments and libraries, for the index, and
  PRQ314: a published version never changes);
- ``catalog_validation``: ``check_catalog`` and ``with_catalog``, which adds its problems to the
  registry's own ``ValidationResult`` (the CLI and ``prereq build`` call it; the registry layer cannot
  import us);
- ``rights``: a user's rights over their groups, reputation, the queues offered for a block;
- ``experiment``: an experiment file (blocks, dependencies, globals) checked and turned into an
  execution request (``request``: the JSON ``schema/execution-request.schema.json`` describes);
- ``schedule``: the scheduler's first strategy (FIFO by submission age) as a simulation;
- ``placement``: a block on a queue as an OpenPAI job, checked as the rest-server checks it;
- ``catalog_index``: the catalog's index file (``api/v1/execution/catalog.json``).

Nothing here prints; the CLI (``cli.execution_commands``) does.

May import: prereq.core, prereq.openpai, prereq.registry, prereq.index.
"""
