#!/usr/bin/env bash
# Go: the machine's own go runs the Go rows (installed with the machine, https://go.dev/doc/install);
# the newest end of pith's Go range is go1.27.3, which the go command fetches from the Go module
# proxy the first time GOTOOLCHAIN names it (https://go.dev/doc/toolchain, about 76 MB), fetched
# here once so that the `go_v127_*` scenario rows measure the tests, not the download. The
# version is the one `GO_NEWEST_VERSION` in crates/cli/tests/scenarios.rs names.
set -euo pipefail
newest=go1.27.3
command -v go >/dev/null 2>&1 || {
    echo "scripts/setup/go.sh: go is not installed: https://go.dev/doc/install" >&2
    exit 1
}
got="$(GOTOOLCHAIN="$newest" go env GOVERSION)"
if [ "$got" != "$newest" ]; then
    echo "scripts/setup/go.sh: GOTOOLCHAIN=$newest runs $got" >&2
    exit 1
fi
