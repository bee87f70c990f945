#!/usr/bin/env bash
# Runs pith's whole test suite on a fresh machine: installs the runners the integration tests
# drive for real (each ecosystem's scripts/setup/*.sh), then runs every crate's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

for setup in scripts/setup/*.sh; do
    echo "scripts/test.sh: $setup" >&2
    bash "$setup"
done
# Real runner reports from public projects, kept outside the repository.
if [ -z "${PITH_SAMPLES:-}" ] && [ -d ../shared/samples ]; then
    PITH_SAMPLES="$(cd ../shared/samples && pwd)"
    export PITH_SAMPLES
fi

cargo test --workspace --locked "$@"
