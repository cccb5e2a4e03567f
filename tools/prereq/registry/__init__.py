"""The registry: YAML files in, checked items and problems out.

- ``loader``: files → loaded items with positions (nothing judged);
- ``schemas``: the item and index JSON Schemas, readable errors;
- ``rules``: the registry's rules (PRQ1xx: stable ids, messages, hints), and ``Rule``, ``RuleTable``
  and ``Problem``, which every layer's rules are written in;
- ``checks``: small check functions by rule family, each declaring the ids it emits;
- ``validate``: the library API (a folder in, a ``ValidationResult`` out);
- ``reporters``: problems as text, JSON, GitHub annotations, chosen by name.

May import: prereq.core and prereq.openpai (to compile and check OpenPAI forms).
"""
