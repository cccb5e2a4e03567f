#!/usr/bin/env bash
# Set up (including the headless browser and Node.js) and run every check and test:
# ruff (lint, format), mypy, Node's test runner on the composer's JS engine, pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --test
echo "test: ruff" >&2
.venv/bin/ruff check --quiet tools tests bench
.venv/bin/ruff format --quiet --check tools tests bench
echo "test: mypy" >&2
.venv/bin/mypy
echo "test: node --test tests/js" >&2
node --test --test-reporter=dot tests/js
echo "test: pytest" >&2
exec .venv/bin/python -m pytest "$@"
