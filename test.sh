#!/usr/bin/env bash
# Set-up, builds, and the whole test suite: unit tests, conformance and hostile models on the
# Release build; the whole unit suite again under ASan+UBSan; the concurrency tests under TSan;
# libFuzzer on the loader and on each option-file parser.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
# Every include follows the layer table of docs/ARCHITECTURE.md (seconds; before the long builds).
python3 scripts/check_layers.py
# No issue numbers in code comments: they say the reason instead.
python3 scripts/check_comments.py
# Every C++ file formatted as .clang-format says (scripts/check_format.py --fix formats them).
python3 scripts/check_format.py
# Sanitizer build first: the Release tree's hostile-model suite also runs this CLI. One clang
# ASan+UBSan tree serves the unit suite and the libFuzzer targets, so the engine is compiled once
# for both (-O1, as ASan's authors advise: fast enough to fuzz, asserts still on).
tests/sanitizers/configure_asan.sh build-asan
ninja -C build-asan -j"$(nproc)" openge openge_tests fuzz_targets
scripts/build.sh build Release -DOPENGE_SANITIZED_CLI="$PWD/build-asan/openge"
ctest --test-dir build --output-on-failure -j"$(nproc)"
# The whole unit suite under ASan+UBSan, one gtest shard per core, in the build folder (as ctest
# runs it) so that the files failing cases write (logs, check_result.json) stay out of the checkout.
(cd build-asan/tests && ASAN_OPTIONS=detect_leaks=1 ../../tests/sanitizers/run_sharded.sh ./openge_tests)
# The concurrency tests under ThreadSanitizer (its own build of the engine and those tests).
tests/threads/run_tsan.sh build-tsan
# Every libFuzzer target (loader, tensor readers, option parsers), one per core at a time.
tests/fuzz/run_fuzz.sh "${FUZZ_SECONDS:-60}" build-asan
