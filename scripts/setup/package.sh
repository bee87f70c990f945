#!/usr/bin/env bash
# The packaging tools scripts/package.sh uses, in a virtualenv of their own (not the Python the
# integration tests run pytest from): maturin builds the wheel, uv installs it as a tool the
# way a user would (`uv tool install`). node and npm pack and install the npm packages
# (scripts/setup/js.sh checks for them).
set -euo pipefail
venv="${PITH_PACKAGING_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/pith/packaging-venv}"
if [ -x "$venv/bin/maturin" ] && [ -x "$venv/bin/uv" ]; then
    exit 0
fi
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'maturin>=1.9,<2' 'uv>=0.5'
