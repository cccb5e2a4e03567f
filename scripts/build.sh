#!/usr/bin/env bash
# The main job: set up, validate the bundled registry strictly, build the index and site.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
.venv/bin/prereq validate --strict registry
.venv/bin/prereq build --registry registry --out build/site
