#!/usr/bin/env bash
# Configures ./test.sh's ASan+UBSan tree: clang, Debug at -O1 -g1, with the libFuzzer targets.
# One tree serves the sanitized unit suite, the sanitized CLI of the hostile-model suite and the
# fuzzers, so the engine is compiled once for all three. -O1 is what ASan's authors advise (fast
# enough to fuzz, still exact reports); Debug keeps assertions on; -g1 gives the line tables a
# report needs and links far faster than full -g.
#
# Usage: tests/sanitizers/configure_asan.sh [BUILD_DIR]     (BUILD_DIR defaults to build-asan)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build-asan}
# A tree configured earlier with another compiler cannot switch: CMake keeps the first one.
if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' "$build/CMakeCache.txt"; then
  echo "configure_asan.sh: $build was configured with another compiler; configuring it afresh with clang++"
  rm -rf "$build"
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DOPENGE_SANITIZE=ON -DOPENGE_FUZZ=ON >/dev/null
