#!/usr/bin/env bash
# Runs pith's whole test suite on a fresh machine: installs the runners the integration tests
# drive for real (each ecosystem's scripts/setup/*.sh), then runs every crate's tests.
set -euo pipefail

# Real runner reports from public projects, kept outside the repository: an extra corpus the
# tests read wherever it is ($PITH_SAMPLES, else ../shared/samples beside the checkout; the
# tests find it the same way, tests/fixtures/reports/samples.rs). Settled before the long
# set-up, so that a wrong PITH_SAMPLES fails at once; a relative one is the caller's.
if [ -n "${PITH_SAMPLES:-}" ]; then
    if [ ! -d "$PITH_SAMPLES" ]; then
        echo "scripts/test.sh: PITH_SAMPLES=$PITH_SAMPLES is not a directory" >&2
        exit 2
    fi
    PITH_SAMPLES="$(cd "$PITH_SAMPLES" && pwd)"
    export PITH_SAMPLES
fi
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
samples_note=""
if [ -z "${PITH_SAMPLES:-}" ]; then
    if [ -d ../shared/samples ]; then
        PITH_SAMPLES="$(cd ../shared/samples && pwd)"
        export PITH_SAMPLES
    elif [ -n "${PITH_REQUIRE_SAMPLES:-}" ] && [ "$PITH_REQUIRE_SAMPLES" != 0 ]; then
        echo "scripts/test.sh: PITH_REQUIRE_SAMPLES is set but the report samples are not at ../shared/samples: set PITH_SAMPLES to their directory" >&2
        exit 2
    else
        samples_note="scripts/test.sh: external report samples not found (../shared/samples, or set PITH_SAMPLES): the sample corpus was not run"
    fi
fi

for setup in scripts/setup/*.sh; do
    echo "scripts/test.sh: $setup" >&2
    bash "$setup"
done

status=0
cargo test --workspace --locked "$@" || status=$?
# The quick half of the parity corpus: the project's own test command against `pith test` on
# the most telling set-ups of each ecosystem (`cargo xtask parity` runs the whole).
cargo xtask parity --quick || status=$?
# pith's packages (wheel, npm, cargo install), built once from the dist profile and each run
# from a scratch install (scripts/package.sh; PITH_PACKAGE=0 skips it).
if [ "${PITH_PACKAGE:-1}" != 0 ]; then
    scripts/package.sh || status=$?
fi
# Every parser fuzzed for a bounded time each (scripts/fuzz.sh; PITH_FUZZ_SECONDS=0 skips it).
scripts/fuzz.sh "${PITH_FUZZ_SECONDS:-20}" || status=$?
# Said after cargo's own summary, where it is seen: a green run without the corpus says so.
if [ -n "$samples_note" ]; then
    echo "$samples_note" >&2
fi
exit "$status"
