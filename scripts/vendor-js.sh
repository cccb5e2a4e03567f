#!/usr/bin/env bash
# Reproduce site/assets/vendor/prereq-vendor.js, the one third-party bundle the job composer
# (site/assets/composer/) loads: the `yaml` library (eemeli/yaml, ISC), whose parser and composer
# the composer's YAML loader (yaml/yamlload.js) builds on and the JS tests parse with, and `semver`
# (npm/node-semver, ISC) for the same version ranges as the CLI
# (which uses node-semver's Python port).  Fetched from the npm registry at pinned versions and
# bundled by a pinned esbuild into one ES module, with both licenses at its top.
#
#   ./scripts/vendor-js.sh            rewrite the bundle
#   ./scripts/vendor-js.sh --check    fail when the committed bundle differs from a fresh one
set -euo pipefail
cd "$(dirname "$0")/.."

YAML_VERSION=2.9.1
SEMVER_VERSION=7.8.6
ESBUILD_VERSION=0.28.2
OUT=site/assets/vendor/prereq-vendor.js

check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

command -v npm >/dev/null || { echo "vendor-js: npm is needed (apt-get install npm)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(
  cd "$work"
  npm init -y >/dev/null
  npm install --no-audit --no-fund --save-exact --loglevel=error \
    "yaml@$YAML_VERSION" "semver@$SEMVER_VERSION" "esbuild@$ESBUILD_VERSION" >/dev/null
  cat > entry.js <<'JS'
// What the composer uses; esbuild keeps only these and what they need.
export { Composer, Parser, isAlias, isMap, isScalar, parseDocument } from "yaml";
import satisfies from "semver/functions/satisfies.js";
import compare from "semver/functions/compare.js";
import valid from "semver/functions/valid.js";
import validRange from "semver/ranges/valid.js";
export const semver = { satisfies, compare, valid, validRange };
JS
  ./node_modules/.bin/esbuild entry.js --bundle --format=esm --platform=browser --target=es2020 \
    --minify --legal-comments=none --log-level=warning --outfile=bundle.js
  {
    echo "/* prereq-vendor.js: yaml $YAML_VERSION and semver $SEMVER_VERSION for the job composer, bundled by"
    echo " * esbuild $ESBUILD_VERSION.  Do not edit: ./scripts/vendor-js.sh rewrites it from the npm registry."
    echo " *"
    echo " * yaml $YAML_VERSION (https://github.com/eemeli/yaml):"
    sed 's/^/ * /; s/ *$//' node_modules/yaml/LICENSE
    echo " *"
    echo " * semver $SEMVER_VERSION (https://github.com/npm/node-semver):"
    sed 's/^/ * /; s/ *$//' node_modules/semver/LICENSE
    echo " */"
    cat bundle.js
  } > vendor.js
)

if $check; then
  if cmp -s "$work/vendor.js" "$OUT"; then
    echo "vendor-js: $OUT is up to date"
  else
    echo "vendor-js: $OUT differs from a fresh bundle; run ./scripts/vendor-js.sh" >&2
    exit 1
  fi
else
  mkdir -p "$(dirname "$OUT")"
  cp "$work/vendor.js" "$OUT"
  echo "vendor-js: wrote $OUT ($(wc -c < "$OUT") bytes)"
fi
