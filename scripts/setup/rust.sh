#!/usr/bin/env bash
# cargo-nextest: the Rust integration tests drive both nextest and plain cargo test.
set -euo pipefail
command -v cargo-nextest >/dev/null 2>&1 || cargo install cargo-nextest --locked
