"""prereq: a registry, validator, index and marketplace for OpenPAI prerequisites.

Holds the version only, which any package may read.  May import: nothing of prereq.
"""

__version__ = "0.2.0.dev0"
