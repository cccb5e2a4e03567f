"""The execution catalog's rules (PRQ3xx): ``RULES``, from ``catalog_rules`` (its files, names,
references, published versions and credentials) and ``queue_rules`` (queues and rights), and
``problem``, which builds a finding of them (``at``: one at a position of a catalog file).  Written as
the registry's are (``prereq.registry.rules``); ``prereq.review.rules.ALL_RULES`` joins every layer's
table.

May import: prereq.registry.rules.
"""

from __future__ import annotations

from prereq.execution.rules import catalog_rules, queue_rules
from prereq.registry.rules import RuleTable

RULES = RuleTable([*catalog_rules.RULES, *queue_rules.RULES], owns="PRQ3")
problem = RULES.problem
at = RULES.at
