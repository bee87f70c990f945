#!/usr/bin/env bash
# A JDK and Maven, and the Maven artifacts the JVM fixtures use (JUnit Jupiter, the compiler,
# resources and Surefire plugins with Surefire's JUnit Platform provider), fetched once into the
# local repository (~/.m2) so the integration tests run without downloading. Gradle is not
# installed: its adapter is tested on report files and argv building only.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v javac >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq default-jdk-headless maven >/dev/null
fi

# One marker per fixture build configuration: re-running is a no-op once everything resolved.
stamp="${HOME}/.m2/pith-fixtures-$(cat tests/fixtures/java/maven/green/pom.xml tests/fixtures/java/maven/multi/pom.xml | sha256sum | cut -c1-16)"
[ -f "$stamp" ] && exit 0

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# `test` on the green project resolves every plugin and Surefire's provider; the multi-module
# project resolves the reactor's view of the same.
for fixture in green multi; do
    cp -r "tests/fixtures/java/maven/$fixture" "$work/$fixture"
    (cd "$work/$fixture" && mvn -B -q -Dstyle.color=never -Dmaven.test.failure.ignore=true test >/dev/null) || {
        echo "scripts/setup/jvm.sh: mvn test failed in the $fixture fixture" >&2
        (cd "$work/$fixture" && mvn -B -Dstyle.color=never -Dmaven.test.failure.ignore=true test) >&2 || true
        exit 1
    }
done
mkdir -p "$(dirname "$stamp")"
touch "$stamp"
