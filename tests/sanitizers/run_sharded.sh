#!/usr/bin/env bash
# Runs a gtest binary as SHARDS processes at once (gtest's own sharding: GTEST_TOTAL_SHARDS /
# GTEST_SHARD_INDEX), one per core by default: test.sh runs the whole unit suite under
# ASan+UBSan this way, as fast as the machine allows without one ctest process per test.
# Prints each failing shard's log; exits non-zero when any shard fails.
#
# Usage: tests/sanitizers/run_sharded.sh BINARY [gtest args...]     (env SHARDS, default nproc)
set -euo pipefail
binary=$1
shift
shards=${SHARDS:-$(nproc)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=()
for ((i = 0; i < shards; ++i)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$binary" --gtest_brief=1 "$@" >"$logs/$i.log" 2>&1 &
  pids+=($!)
done
failed=0
for ((i = 0; i < shards; ++i)); do
  if wait "${pids[$i]}"; then
    tail -n 3 "$logs/$i.log" | sed "s/^/[shard $i] /"
  else
    echo "[shard $i of $shards] FAILED (exit $?): $binary $*"
    cat "$logs/$i.log"
    failed=1
  fi
done
exit $failed
