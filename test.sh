#!/usr/bin/env bash
# Set-up, builds, and the whole test suite: unit tests, conformance and hostile models on the
# Release build; the untrusted-input parsers again under ASan+UBSan; libFuzzer on the loader and on each option-file parser.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
# Sanitizer build first: the Release tree's hostile-model suite also runs this CLI.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DOPENGE_SANITIZE=ON >/dev/null
ninja -C build-asan -j"$(nproc)" openge openge_tests
scripts/build.sh build Release -DOPENGE_SANITIZED_CLI="$PWD/build-asan/openge"
ctest --test-dir build --output-on-failure -j"$(nproc)"
# Parsers of untrusted input (model files, tensor files) under ASan+UBSan.
ASAN_OPTIONS=detect_leaks=1 ./build-asan/tests/openge_tests --gtest_filter='Loader*:Npy*:TensorProto*:Half*:Graph*'
tests/fuzz/run_fuzz.sh "${FUZZ_SECONDS:-60}"
tests/options_fuzz/run_options_fuzz.sh "${FUZZ_SECONDS:-60}"
