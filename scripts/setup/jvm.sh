#!/usr/bin/env bash
# A JDK, Maven and Gradle, and the artifacts the JVM fixtures use, fetched once so the
# integration tests run without downloading: for Maven, JUnit Jupiter, the compiler, resources
# and Surefire plugins with Surefire's JUnit Platform provider, into ~/.m2, and the other
# Surefire and JUnit versions the scenario matrix pins (tests/fixtures/java/maven/surefire.tsv:
# the oldest and newest Surefire pith supports, and one outside the range); for Gradle, JUnit 4
# into ~/.gradle. Gradle is Debian's (4.4.1, patched to run on the default JDK): a wrapper's
# distribution comes from services.gradle.org, which a machine that reaches only package
# registries cannot download.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
updated=
apt_install() {
    if [ -z "$updated" ]; then
        $sudo apt-get update -qq
        updated=1
    fi
    $sudo apt-get install -y -qq "$@" >/dev/null
}

if ! command -v javac >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
    apt_install default-jdk-headless maven
fi
if ! command -v gradle >/dev/null 2>&1; then
    apt_install --no-install-recommends gradle
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# One marker per fixture build configuration: re-running is a no-op once everything resolved.
maven_stamp="${HOME}/.m2/pith-fixtures-$(cat tests/fixtures/java/maven/green/pom.xml tests/fixtures/java/maven/multi/pom.xml tests/fixtures/java/maven/surefire.tsv | sha256sum | cut -c1-16)"
if [ ! -f "$maven_stamp" ]; then
    # `test` on the green project resolves every plugin and Surefire's provider; the
    # multi-module project resolves the reactor's view of the same.
    for fixture in green multi; do
        cp -r "tests/fixtures/java/maven/$fixture" "$work/maven-$fixture"
        (cd "$work/maven-$fixture" && mvn -B -q -Dstyle.color=never -Dmaven.test.failure.ignore=true test >/dev/null) || {
            echo "scripts/setup/jvm.sh: mvn test failed in the $fixture fixture" >&2
            (cd "$work/maven-$fixture" && mvn -B -Dstyle.color=never -Dmaven.test.failure.ignore=true test) >&2 || true
            exit 1
        }
    done
    # Each pinned set: the green project with its versions in the pom, as the scenario rows
    # pin them (the `<version>` line after each `<artifactId>`), run once.
    while IFS=$'\t' read -r set surefire junit; do
        case "$set" in '#'* | '') continue ;; esac
        dir="$work/maven-surefire-$set"
        cp -r tests/fixtures/java/maven/green "$dir"
        sed -i -e "/<artifactId>maven-surefire-plugin<\/artifactId>/{n;s#<version>[^<]*</version>#<version>$surefire</version>#}" \
            -e "/<artifactId>junit-jupiter<\/artifactId>/{n;s#<version>[^<]*</version>#<version>$junit</version>#}" "$dir/pom.xml"
        grep -q "<version>$surefire</version>" "$dir/pom.xml" && grep -q "<version>$junit</version>" "$dir/pom.xml" || {
            echo "scripts/setup/jvm.sh: could not pin Surefire $surefire and JUnit $junit in the green fixture" >&2
            exit 1
        }
        (cd "$dir" && mvn -B -q -Dstyle.color=never -Dmaven.test.failure.ignore=true test >/dev/null) || {
            echo "scripts/setup/jvm.sh: mvn test failed with Surefire $surefire and JUnit $junit" >&2
            (cd "$dir" && mvn -B -Dstyle.color=never -Dmaven.test.failure.ignore=true test) >&2 || true
            exit 1
        }
    done < tests/fixtures/java/maven/surefire.tsv
    mkdir -p "$(dirname "$maven_stamp")"
    touch "$maven_stamp"
fi

# The real-Gradle fixtures (all but the stand-in `fake`) declare the same dependencies: `test`
# on the green one resolves them all. No daemon: nothing is left running after setup.
gradle_builds=(tests/fixtures/java/gradle/green/build.gradle tests/fixtures/java/gradle/single/build.gradle tests/fixtures/java/gradle/compile_error/build.gradle)
gradle_stamp="${HOME}/.gradle/pith-fixtures-$(cat "${gradle_builds[@]}" | sha256sum | cut -c1-16)"
if [ ! -f "$gradle_stamp" ]; then
    cp -r tests/fixtures/java/gradle/green "$work/gradle-green"
    (cd "$work/gradle-green" && gradle --no-daemon -q --console=plain test >/dev/null 2>&1) || {
        echo "scripts/setup/jvm.sh: gradle test failed in the green fixture" >&2
        (cd "$work/gradle-green" && gradle --no-daemon --console=plain test) >&2 || true
        exit 1
    }
    mkdir -p "$(dirname "$gradle_stamp")"
    touch "$gradle_stamp"
fi
