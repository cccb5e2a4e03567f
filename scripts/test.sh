#!/usr/bin/env bash
# Set up (including the headless browser and Node.js) and run every check and test:
# ruff (lint, format), mypy, Node's test runner on the composer's JS engine, pytest.
# Node's runner runs tests/js once: its TAP report goes to a file that tests/test_house.py reads
# ($PREREQ_JS_TAP) to hold both engines to the shared cases, instead of running the suite again.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --test
echo "test: ruff" >&2
.venv/bin/ruff check --quiet tools tests bench scripts
.venv/bin/ruff format --quiet --check tools tests bench scripts
echo "test: mypy" >&2
.venv/bin/mypy
report="$(mktemp -d)"
trap 'rm -rf "$report"' EXIT
echo "test: node --test tests/js" >&2
node_status=0
node --test --test-reporter=dot --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$report/tests-js.tap" tests/js || node_status=$?
# pytest runs even when a JS test failed, so that one run shows every failure.
echo "test: pytest" >&2
pytest_status=0
PREREQ_JS_TAP="$report/tests-js.tap" .venv/bin/python -m pytest "$@" || pytest_status=$?
if [ "$pytest_status" -ne 0 ]; then exit "$pytest_status"; fi
exit "$node_status"
