"""prereq: a registry, validator, index and marketplace for OpenPAI prerequisites."""

__version__ = "0.2.0.dev0"
