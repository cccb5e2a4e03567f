"""The execution catalog's rules for queues and rights: limits, GPUs, who may use what, and what nothing
uses (PRQ307-PRQ313, PRQ315).

May import: prereq.registry.rules.table.
"""

from __future__ import annotations

from prereq.registry.rules.table import E, Rule, W

RULES = (
    Rule(
        "PRQ307",
        "limit-not-positive",
        E,
        "{key} is {value}; it must be at least {minimum}",
        "{fix}",
        "A queue's memory, time limit, cores per slot, slots per machine and total slots are positive "
        "(GPUs per slot may be 0); a right gives at least one slot and a priority of 0 or more.",
    ),
    Rule(
        "PRQ308",
        "slots-per-machine-over-total",
        E,
        "{per_machine} slots per machine, but the queue has {total} in total",
        "lower slots_per_machine to at most {total}, or raise total_slots",
        "A block runs on one machine, so a queue cannot have more slots on one machine than in total.",
    ),
    Rule(
        "PRQ309",
        "rights-duplicate",
        E,
        "queue {queue!r} and group {group!r} already have a row (line {first})",
        "keep one row per queue and group: merge the two",
        "Rights rows are unique per queue and group: with two, which one holds would depend on their order.",
    ),
    Rule(
        "PRQ310",
        "rights-over-total",
        E,
        "group {group!r} gets {slots} slots on {queue}, which has {total} in total",
        "give at most {total} slots, or raise the queue's total_slots",
        "A right cannot give more slots than the queue has.",
    ),
    Rule(
        "PRQ311",
        "gpu-queue-environment",
        E,
        "GPU queue {queue} serves {environment}, which lacks the gpu capability",
        "serve a GPU-capable environment here (capabilities: [gpu]), or move {environment} to a CPU queue",
        "A queue with GPUs per slot serves only environments whose capabilities include `gpu`: a block in "
        "another would hold GPUs it cannot use.",
    ),
    Rule(
        "PRQ312",
        "queue-unused",
        W,
        "no group has rights on queue {queue}",
        "add a row for {queue} to rights.yaml, or remove the queue",
        "A queue no group may use offers nothing to anyone.",
    ),
    Rule(
        "PRQ313",
        "environment-unserved",
        W,
        "no queue serves environment {environment}",
        "add {environment} to the environments of a queue, or remove it",
        "An environment no queue serves cannot run any block.",
    ),
    Rule(
        "PRQ315",
        "group-redefined",
        E,
        "group {group!r} is also a team of owners.yaml",
        "rename the group, or remove it and add its members to the team",
        "Groups come from owners.yaml's teams and from rights.yaml's groups; one name means one set of users.",
        guard=True,
    ),
)
