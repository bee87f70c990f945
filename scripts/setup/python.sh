#!/usr/bin/env bash
# pytest and pytest-xdist: the Python integration tests drive the real pytest.
# pytest-cov: a coverage threshold in addopts (--cov-fail-under) must fail a run pith answers.
# pytest-rerunfailures: a project's own retry policy (--reruns); a pass on a rerun is flaky.
# django: a Django project's `manage.py test` runs through pith's unittest runner (unittest_cli.rs).
# tblib: Django pickles a parallel worker's tracebacks with it (`manage.py test --parallel`); without
# it a failing test ends the whole run (unittest_cli.rs, the declared `--parallel 2` test).
# mcp: the official MCP Python SDK, the real client the `pith mcp` tests drive the server with.
# tests/fixtures/python/pytest7: pytest 7.0.0, the oldest of pith's pytest range, in a virtualenv
# of its own (gitignored, from the frozen requirements beside it) that the `pytest_v7_*` scenario
# rows activate; the other rows run the newest, python3's own pytest above.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -c 'import pytest, xdist, pytest_cov, pytest_rerunfailures' >/dev/null 2>&1 ||
    python3 -m pip install --quiet --disable-pip-version-check pytest pytest-xdist pytest-cov \
        pytest-rerunfailures
python3 -c 'import django, tblib' >/dev/null 2>&1 ||
    python3 -m pip install --quiet --disable-pip-version-check 'django>=4.2,<6' tblib
python3 -c 'import mcp.client.stdio' >/dev/null 2>&1 ||
    python3 -m pip install --quiet --disable-pip-version-check 'mcp>=2.3,<3'
for dir in tests/fixtures/python/pytest7; do
    # The requirements the venv was made from: changed requirements remake it.
    stamp="$dir/venv/.pith-installed-requirements"
    if [ -x "$dir/venv/bin/python" ] && cmp -s "$dir/requirements.txt" "$stamp"; then
        continue
    fi
    rm -rf "$dir/venv"
    python3 -m venv "$dir/venv"
    "$dir/venv/bin/pip" install --quiet --disable-pip-version-check -r "$dir/requirements.txt"
    cp "$dir/requirements.txt" "$stamp"
done
