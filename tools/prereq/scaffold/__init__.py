"""Starting points: a new registry repository (``prereq init``), a new item (``prereq new``), and an
item from a prerequisite written by hand in a job (``prereq share``).

- ``kit/``: the files written, with ``{{token}}`` blanks (package data, so an installed prereq
  writes them without this repository);
- ``starter``: deciding what to write where, refusing to replace anything, writing atomically;
- ``share``: a job's prerequisite entry turned into an item, then validated.

Both return what they wrote and what the author must fill in; the CLI prints it.

May import: prereq.core, prereq.registry (owners, settings, the item schema) and prereq.review.rules
(every layer's rules, which a suppression in a shared item may name).
"""
