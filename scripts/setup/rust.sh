#!/usr/bin/env bash
# cargo-nextest: the Rust integration tests drive both nextest and plain cargo test.
set -euo pipefail
command -v cargo-nextest >/dev/null 2>&1 || cargo install cargo-nextest --locked

# tests/fixtures/rust/nextest_old/root: cargo-nextest 0.9.143, the oldest of pith's nextest
# range (docs/runners.md), for the scenario rows that put it first on PATH. Built from source once
# (minutes); kept while it answers with that version.
old=0.9.143
root="$(cd "$(dirname "$0")/../.." && pwd)/tests/fixtures/rust/nextest_old/root"
if ! "$root/bin/cargo-nextest" nextest --version 2>/dev/null | grep -q "^cargo-nextest $old "; then
    cargo install cargo-nextest --version "=$old" --locked --force --root "$root"
fi
