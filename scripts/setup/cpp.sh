#!/usr/bin/env bash
# cmake (with ctest), ninja, g++ and GoogleTest: the C++ integration tests build real CMake
# projects and run them under CTest.
set -euo pipefail
have_gtest() {
    [ -f /usr/lib/x86_64-linux-gnu/cmake/GTest/GTestConfig.cmake ] ||
        [ -f /usr/lib/cmake/GTest/GTestConfig.cmake ] ||
        ls /usr/lib/*/cmake/GTest/GTestConfig.cmake >/dev/null 2>&1
}
if command -v cmake >/dev/null && command -v ctest >/dev/null && command -v ninja >/dev/null &&
    command -v g++ >/dev/null && have_gtest; then
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq cmake ninja-build g++ libgtest-dev >/dev/null
