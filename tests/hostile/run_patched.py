"""prereq's CLI with module constants set first, from $PREREQ_HOSTILE_PATCH ({"module.NAME": value}):
a hostile case shortens a deadline so that the suite stays quick, and runs otherwise as installed."""

from __future__ import annotations

import importlib
import json
import os
import sys

from prereq import cli

if __name__ == "__main__":
    for target, value in json.loads(os.environ["PREREQ_HOSTILE_PATCH"]).items():
        module, _, name = target.rpartition(".")
        assert hasattr(importlib.import_module(module), name), target  # a renamed constant fails loudly
        setattr(importlib.import_module(module), name, value)
    sys.exit(cli.main(sys.argv[1:]))
