#!/usr/bin/env bash
# jest and vitest for the JavaScript integration tests: installed once, from the committed
# lockfile, into tests/fixtures/js/node_modules (each test links it into its fixture copy).
# node's own test runner needs only node itself.
set -euo pipefail
cd "$(dirname "$0")/../../tests/fixtures/js"
command -v node >/dev/null || { echo "js.sh: node is not installed (apt-get install nodejs npm)" >&2; exit 1; }
# The lockfile the tree was installed from: a changed lockfile reinstalls.
stamp=node_modules/.pith-installed-lock
if [ -x node_modules/.bin/jest ] && [ -x node_modules/.bin/vitest ] && cmp -s package-lock.json "$stamp"; then
    exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$stamp"
