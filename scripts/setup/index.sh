#!/usr/bin/env bash
# ripgrep: the code index benchmark (`cargo bench -p pith-index`) compares `pith usages` with
# `rg -w NAME` on the same tree. Only the benchmark needs it, so a failed install is a warning.
set -uo pipefail
command -v rg >/dev/null 2>&1 && exit 0
if command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq ripgrep >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq ripgrep >/dev/null 2>&1; }
fi
command -v rg >/dev/null 2>&1 || echo "scripts/setup/index.sh: ripgrep not installed; the index benchmark will skip rg" >&2
exit 0
