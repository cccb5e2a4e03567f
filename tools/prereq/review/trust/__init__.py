"""The trust part of a review: the files that decide who owns what and what runs where, and who may
change them.

- ``grants``: which changed paths are trust files (every one but an item's: owners.yaml, rights.yaml,
  the execution catalog, job templates, prereq.yaml, schema/, .github/, the site's sources) and what
  each change grants;
- ``admins``: PRQ210 (only an administrator, owners.yaml's admins team on the base, changes them; a
  self-managed team's members edit its member list), the author's grants to themselves, and
  ``review_trust``, which gathers it all for ``review``;
- ``suppressions``: the suppressions a pull request adds, and the credential findings an older one
  silences in a file it changes: listed, and never trivially safe.

May import: prereq.core, prereq.registry, prereq.execution, prereq.review (its result, mergebase, item_checks, rules).
"""
