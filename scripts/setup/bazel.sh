#!/usr/bin/env bash
# Bazel (Debian's bazel-bootstrap 4.2.3), g++ and GoogleTest: the Bazel integration tests run
# `bazel test` on the workspaces in tests/fixtures/bazel, fully offline. Each fixture carries
# stand-ins for the repositories Bazel would otherwise download (third_party/), links the
# system GoogleTest; green pins py_test to /usr/bin/python3 and compiles its java_test with the
# local JDK against Debian's junit4 and hamcrest.
set -euo pipefail
have() { [ -e "$1" ]; }
if command -v bazel >/dev/null && have /usr/share/bazel/platforms/BUILD &&
    command -v g++ >/dev/null && have /usr/bin/python3 && command -v javac >/dev/null &&
    have /usr/include/gtest/gtest.h && ls /usr/lib/*/libgtest_main.a >/dev/null 2>&1 &&
    have /usr/share/java/junit4.jar && have /usr/share/java/hamcrest-core.jar; then
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq bazel-bootstrap bazel-platforms g++ python3 libgtest-dev \
    default-jdk-headless junit4 libhamcrest-java >/dev/null
