#!/usr/bin/env bash
# pytest and pytest-xdist: the Python integration tests drive the real pytest.
set -euo pipefail
python3 -c 'import pytest, xdist' >/dev/null 2>&1 ||
    python3 -m pip install --quiet --disable-pip-version-check pytest pytest-xdist
