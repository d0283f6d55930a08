#!/bin/bash
# `make bench`: the time of `schedcheck review` for two one-line patches
# made here from Debian's linux-source-6.1 tarball (nothing of the kernel is
# kept): one to ___update_load_sum() in pelt.c (the PELT invariants are
# proved on both images) and one to _task_util_est() in fair.c (the
# util_est ones).  The goal is 90 s each, oracle builds included, no
# fuzzing.  The figures come from the review's own JSON ("seconds").
#
# usage: tests/bench_review.sh SCHEDCHECK
set -euo pipefail
bin=$(realpath "$1")
tarball=/usr/src/linux-source-6.1.tar.xz
if [ ! -f "$tarball" ]; then
    echo "review: no $tarball, skipped"
    exit 0
fi
work=$(mktemp -d /tmp/schedcheck-bench-review-XXXXXX)
trap 'rm -rf "$work"' EXIT
tar -xf "$tarball" -C "$work" --strip-components=1 --wildcards \
    '*/Makefile' '*/kernel/sched/*' '*/include/linux/sched.h'

one() { # ID LABEL FILE SED
    local name=$2 file=$3 sed=$4 d="$work/$1"
    mkdir -p "$d/a/$(dirname "$file")" "$d/b/$(dirname "$file")"
    cp "$work/$file" "$d/a/$file"
    cp "$work/$file" "$d/b/$file"
    sed -i "$sed" "$d/b/$file"
    (cd "$d" && diff -u "a/$file" "b/$file" >patch) && { echo "review: $name: the edit changed nothing" >&2; exit 1; }
    local rc=0
    "$bin" review --patch "$d/patch" --kernel "$work" --json >"$d/review.json" 2>"$d/review.err" || rc=$?
    if [ "$rc" != 1 ]; then
        echo "review: $name: exit $rc, expected 1 (a regression)" >&2
        tail -5 "$d/review.err" >&2
        exit 1
    fi
    python3 - "$name" "$d/review.json" <<'EOF'
import json, sys
name, path = sys.argv[1], sys.argv[2]
s = json.load(open(path))["seconds"]
verdict = "met" if s["total"] <= 90 else "NOT met"
print(f"  {name:28s} {s['total']:6.1f} s (build {s['build']:.1f} s, prove {s['prove']:.1f} s, "
      f"compare {s['equiv']:.1f} s): goal <= 90 s {verdict}")
EOF
}

echo "review of a one-line patch to a 6.1 tree (oracle build included, no fuzzing):"
one pelt "pelt.c (___update_load_sum)" kernel/sched/pelt.c 's/last_update_time += delta << 10;/last_update_time = now;/'
one utilest "fair.c (_task_util_est)" kernel/sched/fair.c 's/(ue.enqueued & ~UTIL_AVG_UNCHANGED));/ue.enqueued);/'
