#!/usr/bin/env bash
# The quick half of pith's test suite, for the edit loop: every crate's unit tests, and one
# integration test file per ecosystem that drives the real runner through the real `pith`
# binary (pytest, cargo/nextest, go, jest/vitest/node, Maven/Gradle, CTest). Leaves out the
# adapter suites, the verdict corpus, the state and MCP suites and fuzzing: scripts/test.sh
# (what CI runs) has them all, and the packaging checks. Installs the same runners, but not the
# fuzzing toolchain nor the packaging tools. Then the quick half of the parity corpus (`cargo
# xtask parity --quick`: the most telling set-ups per ecosystem, raw command against pith).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

for setup in scripts/setup/*.sh; do
    case "$setup" in scripts/setup/fuzz.sh | scripts/setup/package.sh) continue ;; esac
    echo "scripts/quick.sh: $setup" >&2
    bash "$setup"
done

cargo test --workspace --locked --lib --bins "$@"
cargo test --locked -p pith --test integration -- contract:: python_cli:: rust_cli:: go_cli:: \
    js_cli:: jvm_cli:: cpp_cli:: "$@"
cargo xtask parity --quick
