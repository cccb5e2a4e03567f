"""The registry's rules (PRQ1xx), and what every layer's rules are written in.

Every problem prereq reports has a stable id, a message and a hint, kept in the table of the layer
whose code finds it: this package's ``RULES`` (PRQ100-PRQ199: one registry's files and items, in
``item_rules``, ``requirement_rules`` and ``command_rules``), ``prereq.review.rules`` (PRQ2xx: a
change against its base) and ``prereq.execution.rules`` (PRQ3xx: the execution catalog).
``prereq.review.rules.ALL_RULES`` joins them for ``prereq rules`` and the site's rule reference.
Messages and hints are ``str.format`` templates filled with the details of each finding; ``problem``
builds a finding of this table.  ``table`` holds the record types (``Rule``, ``RuleTable``,
``Problem``, ``Severity``) and the reference page.

May import: prereq.core.versions, prereq.openpai.runtime and prereq.registry.limits (what the
explanations quote and PRQ170's entry lists), and this package's modules.
"""

from __future__ import annotations

from prereq.registry.rules import command_rules, item_rules, requirement_rules
from prereq.registry.rules.table import Problem, Rule, RuleTable, Severity, rule_reference_markdown

RULES = RuleTable([*item_rules.RULES, *requirement_rules.RULES, *command_rules.RULES], owns="PRQ1")
problem = RULES.problem

__all__ = ["RULES", "Problem", "Rule", "RuleTable", "Severity", "problem", "rule_reference_markdown"]
