#!/usr/bin/env bash
# Replaces the option table at the end of docs/OPTIONS.md with what `openge options --markdown`
# prints from the option table (tests/options/options_cli_test.cpp checks they are equal).
# Usage: scripts/update_options_doc.sh [BUILD_DIR]      (BUILD_DIR defaults to build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
doc=$root/docs/OPTIONS.md
table=$("$build/openge" options --markdown)
tmp=$(mktemp "$doc.XXXXXX")
# Everything before the table's header row, then the fresh table.
awk '/^\| option \| type \|/ {exit} {print}' "$doc" >"$tmp"
printf '%s\n' "$table" >>"$tmp"
mv "$tmp" "$doc"
