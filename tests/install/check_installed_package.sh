#!/usr/bin/env bash
# The C++ package as a user gets it: `cmake --install` of this build (component openge_dev) into
# a fresh prefix, then examples/cpp configured with find_package(OpenGE) against that prefix only,
# built, and run on the bundled demo model. Usage: check_installed_package.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1; build=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" --component openge_dev >/dev/null
test -f "$work/prefix/include/openge/session.h"
test -f "$work/prefix/lib/cmake/OpenGE/OpenGEConfig.cmake"
# Only the public headers are installed: no engine header leaks into the package.
if find "$work/prefix/include" -type f ! -path "*/include/openge/*" | grep -q .; then
  echo "headers outside include/openge were installed"; exit 1
fi
# Every installed header stands alone: it compiles by itself against the prefix (nothing it needs
# was left out of the package).
for h in "$work"/prefix/include/openge/*.h; do
  echo "#include <openge/$(basename "$h")>" | ${CXX:-c++} -std=c++20 -fsyntax-only -x c++ -I"$work/prefix/include" - \
    || { echo "installed header $(basename "$h") does not compile by itself"; exit 1; }
done
cmake -S "$src/examples/cpp" -B "$work/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/example" >/dev/null
out=$("$work/example/classify" "$src/models/demo.onnx" 1)
echo "$out"
# The demo model classifies into 10 classes: one output of shape 1x10 with an argmax.
echo "$out" | grep -Eq '^[^:]+: \[1x10\] argmax [0-9]$'
# A model that cannot be opened is an error with a message, not a crash.
if "$work/example/classify" "$work/missing.onnx" 2>"$work/err.txt"; then echo "a missing model ran"; exit 1; fi
grep -q "error:" "$work/err.txt"
echo "examples/cpp built against the installed package and ran"
