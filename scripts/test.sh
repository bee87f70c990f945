#!/usr/bin/env bash
# Runs pith's whole test suite on a fresh machine: installs the runners the integration tests
# drive for real (cargo-nextest, pytest, pytest-xdist), then runs every crate's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

if ! command -v cargo-nextest >/dev/null 2>&1; then
    echo "scripts/test.sh: installing cargo-nextest" >&2
    cargo install cargo-nextest --locked
fi
if ! python3 -c 'import pytest, xdist' >/dev/null 2>&1; then
    echo "scripts/test.sh: installing pytest and pytest-xdist" >&2
    python3 -m pip install --quiet --disable-pip-version-check pytest pytest-xdist
fi
# Real runner reports from public projects, kept outside the repository.
if [ -z "${PITH_SAMPLES:-}" ] && [ -d ../shared/samples ]; then
    PITH_SAMPLES="$(cd ../shared/samples && pwd)"
    export PITH_SAMPLES
fi

cargo test --workspace --locked "$@"
