#!/usr/bin/env bash
# Set up everything prereq needs on a fresh machine: a virtualenv with the
# package installed in editable mode.  With --test, also the test extras, Node.js
# (the composer's engine is tested under Node's own runner) and Debian's headless
# Chromium for the browser tests (no browser download).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv" >&2
  python3 -m venv .venv
fi
extras=""
if [ "${1:-}" = "--test" ]; then
  extras="[test]"
  if ! command -v node >/dev/null 2>&1; then
    echo "setup: installing Debian's Node.js for the composer engine's tests" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs >/dev/null
  fi
  if ! command -v chromium >/dev/null 2>&1; then
    echo "setup: installing Debian's chromium for the browser tests" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  fi
fi
# Reinstall only when pyproject.toml changed since the last install.
stamp=".venv/.prereq-installed${extras}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing prereq${extras} into .venv" >&2
  .venv/bin/python -m pip install -q --disable-pip-version-check -e ".${extras}"
  touch "$stamp"
fi
