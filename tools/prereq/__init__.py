"""prereq: a registry, validator, index and marketplace for OpenPAI prerequisites."""

__version__ = "0.1.0"
