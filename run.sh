#!/usr/bin/env bash
# Set-up, Release build, and the demo: runs the bundled demo model through `openge run`.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
scripts/build.sh build Release
./build/openge run "$@"
