"""The published index (``api/v1``): building it, reading it, and choosing versions from it.

- ``builder``: a checked registry and its git history → the index files; ``packs``: item files grouped
  so that a reader fetches a closure in a few requests;
- ``reader``: ``Index``, the API job editing, the CLI and the site read an index with; ``fetch``: an
  index file over http(s), within a total deadline and a size cap;
- ``resolver``: one version per item for a set of requests (npm ranges, locks), requirements first;
- ``names``: where a file named after data (a name, a version, a tag) may be written: checked again, and inside;
- ``trust``: signing the root and the trust setting a reader verifies it with; ``sshsig``: ssh-keygen.

May import: prereq.core, prereq.openpai, prereq.registry.
"""
