#!/usr/bin/env bash
# The concurrency tests under ThreadSanitizer: builds only openge_thread_tests (tests/threads and
# the Session's concurrent-run tests, on an instrumented engine library) in BUILD_DIR and runs
# it. Any TSan report fails the run (TSan's exit code 66).
# OMP_NUM_THREADS=1: libgomp (and oneDNN, which runs on it) is not instrumented, so TSan cannot
# see the barrier at the end of an OpenMP parallel region and would report every parallel loop
# as a race. With one OpenMP thread no team is started, and the only concurrency is the threads
# the tests start themselves, which TSan sees completely (CONTRIBUTING.md, "Sanitizers").
#
# Usage: tests/threads/run_tsan.sh [BUILD_DIR]     (BUILD_DIR defaults to build-tsan)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build-tsan}
# -g1: line tables are all a TSan report needs, and they build faster than full -g.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
  -DOPENGE_SANITIZE=thread -DOPENGE_PYTHON_PACKAGE=OFF >/dev/null
ninja -C "$build" -j"$(nproc)" openge_thread_tests
# The one test that asks for two OpenMP threads explicitly would start a team: left to the
# other suites.
# Run in the build folder, as ctest would: the logs and atrace files that sessions without HOME
# write under ./ascend stay out of the checkout.
cd "$build/tests"
OMP_NUM_THREADS=1 TSAN_OPTIONS="second_deadlock_stack=1 ${TSAN_OPTIONS:-}" ./openge_thread_tests \
  --gtest_brief=1 --gtest_filter=-Session.ThreadCountDoesNotChangeTheResultBeyondRounding
