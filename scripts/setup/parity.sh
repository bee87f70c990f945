#!/usr/bin/env bash
# What the parity corpus (xtask/parity/corpus, `cargo xtask parity`) needs beyond the other
# setup scripts: its JavaScript tool sets (one node_modules per pinned version set, from each
# committed lockfile), its Python virtualenvs (pytest 8 and 7 with the plugins real projects
# use, from each frozen requirements file), and the Maven plugins its poms name (an older
# Surefire, Apache RAT), resolved once so that runs need no network. The set-ups of the oldest
# jest, vitest, mocha and node pith supports link the scenario rows' package sets instead
# (tests/fixtures/js/jest27, vitest1, mocha9, node18: scripts/setup/js.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/../.."
envs=xtask/parity/env

command -v node >/dev/null || { echo "parity.sh: node is not installed (apt-get install nodejs npm)" >&2; exit 1; }
for dir in "$envs"/node-*/; do
    dir="${dir%/}"
    stamp="$dir/node_modules/.parity-installed-lock"
    if [ -d "$dir/node_modules" ] && cmp -s "$dir/package-lock.json" "$stamp"; then
        continue
    fi
    echo "parity.sh: npm ci in $dir" >&2
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$dir/package-lock.json" "$stamp"
done

for dir in "$envs"/py-*/; do
    dir="${dir%/}"
    stamp="$dir/venv/.parity-installed-requirements"
    if [ -x "$dir/venv/bin/python" ] && cmp -s "$dir/requirements.txt" "$stamp"; then
        continue
    fi
    echo "parity.sh: virtualenv $dir/venv" >&2
    rm -rf "$dir/venv"
    python3 -m venv "$dir/venv"
    "$dir/venv/bin/pip" install --quiet --disable-pip-version-check -r "$dir/requirements.txt"
    cp "$dir/requirements.txt" "$stamp"
done

# Maven: `mvn test` once on each set-up with its own plugins resolves them into ~/.m2.
poms=(xtask/parity/corpus/jvm/maven_surefire2/pom.xml xtask/parity/corpus/jvm/maven_rat/pom.xml xtask/parity/corpus/jvm/maven_multi/pom.xml)
stamp="${HOME}/.m2/pith-parity-$(cat "${poms[@]}" | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    for pom in "${poms[@]}"; do
        setup="$(dirname "$pom")"
        name="$(basename "$setup")"
        cp -r "$setup" "$work/$name"
        rm -f "$work/$name/parity.json"
        (cd "$work/$name" && mvn -B -q -Dstyle.color=never test >/dev/null) || {
            echo "parity.sh: mvn test failed in $setup" >&2
            (cd "$work/$name" && mvn -B -Dstyle.color=never test) >&2 || true
            exit 1
        }
    done
    mkdir -p "$(dirname "$stamp")"
    touch "$stamp"
fi
