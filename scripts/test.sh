#!/usr/bin/env bash
# Set up (including the headless browser) and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --test
exec .venv/bin/python -m pytest "$@"
