#!/usr/bin/env bash
# Configures and builds one build tree. Usage: scripts/build.sh DIR BUILD_TYPE [cmake args...]
set -euo pipefail
dir=$1; type=$2; shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$root" -B "$root/$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
ninja -C "$root/$dir" -j"$(nproc)"
