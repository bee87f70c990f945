#!/usr/bin/env bash
# cargo-fuzz and the nightly toolchain it needs (libFuzzer's sanitizer flags are nightly-only):
# scripts/fuzz.sh runs the parser fuzz targets under fuzz/. Quick when both are installed.
set -euo pipefail
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
fi
# `cargo fuzz` builds the pinned sanitizer runtime itself; only the subcommand is installed.
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
