#!/usr/bin/env bash
# Runs the parser harnesses under libFuzzer (the ASan+UBSan build of
# `make corpus-replay`), JOBS at a time, each for SECONDS of wall time, and
# prints each one's CPU time, executions and what it found.
#
#   fuzz/run-parsers.sh BUILD_DIR SECONDS JOBS HARNESS...
#
# Each harness mutates a working copy of its seed corpus
# (BUILD_DIR/corpus-<name>); corpora/<name> is only read, so a run adds
# nothing to the repository by itself.  A crash, leak or timeout input is
# written to BUILD_DIR/<name>-crash-* (-timeout-*, -leak-*), and the script
# exits 1.
set -u
build=$1 seconds=$2 jobs=$3
shift 3
export TIMEFORMAT='%U %S'
pids=()
for h in "$@"; do
    name=${h%_fuzz}
    mkdir -p "$build/corpus-$name"
    cp -n "corpora/$name"/* "$build/corpus-$name/" 2>/dev/null
    args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
          -artifact_prefix="$build/$name-")
    [ -f "corpora/$name.dict" ] && args+=(-dict="corpora/$name.dict")
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
    (
        { time "./$build/fuzz/$h" "${args[@]}" "$build/corpus-$name" "corpora/$name" \
              >"$build/fuzz-$name.log" 2>&1; } 2>"$build/fuzz-$name.cpu"
    ) &
    pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
printf '%-24s %10s %12s %8s  %s\n' harness "CPU s" executions corpus found
for h in "$@"; do
    name=${h%_fuzz}
    read -r user sys <"$build/fuzz-$name.cpu"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.0f", u + s }')
    runs=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$build/fuzz-$name.log")
    found=$(ls "$build/$name"-crash-* "$build/$name"-timeout-* "$build/$name"-leak-* \
                "$build/$name"-oom-* 2>/dev/null | wc -l)
    printf '%-24s %10s %12s %8s  %s\n' "$name" "$cpu" "${runs:-?}" \
        "$(ls "$build/corpus-$name" | wc -l)" "$found input(s)"
done
exit $rc
