#!/usr/bin/env bash
# pytest and pytest-xdist: the Python integration tests drive the real pytest.
# pytest-cov: a coverage threshold in addopts (--cov-fail-under) must fail a run pith answers.
# mcp: the official MCP Python SDK, the real client the `pith mcp` tests drive the server with.
set -euo pipefail
python3 -c 'import pytest, xdist, pytest_cov' >/dev/null 2>&1 ||
    python3 -m pip install --quiet --disable-pip-version-check pytest pytest-xdist pytest-cov
python3 -c 'import mcp.client.stdio' >/dev/null 2>&1 ||
    python3 -m pip install --quiet --disable-pip-version-check 'mcp>=2.3,<3'
