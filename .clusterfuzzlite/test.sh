#!/bin/bash
# Runs build.sh outside the fuzzing services, with the variables they set
# for a libFuzzer + AddressSanitizer build (as OSS-Fuzz's base-builder
# sets them, less -stdlib=libc++, which Debian's clang does not ship by
# default), then runs each built harness for SECONDS seconds (default 5) on
# its unpacked seed corpus with its dictionary and options.
# Usage: .clusterfuzzlite/test.sh [WORKDIR]   (make cflite-test)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(realpath -m "${1:-$here/build-cflite}")
seconds=${SECONDS_PER_HARNESS:-5}
mkdir -p "$work/out" "$work/work" "$work/run"

export CC=clang CXX=clang++
export SANITIZER=address FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64 FUZZING_LANGUAGE=c++
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION \
-fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS"
export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
export SRC=$work/src OUT=$work/out WORK=$work/work
export SCHEDCHECK_SRC=$here
mkdir -p "$SRC"
bash "$here/.clusterfuzzlite/build.sh"

status=0
for opts in "$OUT"/*.options; do
  name=$(basename "$opts" .options)
  bin=$OUT/$name
  [ -x "$bin" ] || { echo "cflite-test: $name: no binary next to $opts"; status=1; continue; }
  [ -f "$OUT/${name}_seed_corpus.zip" ] || { echo "cflite-test: $name: no seed corpus"; status=1; continue; }
  corpus=$work/run/$name
  rm -rf "$corpus" && mkdir -p "$corpus"
  unzip -q "$OUT/${name}_seed_corpus.zip" -d "$corpus"
  seeds=$(ls "$corpus" | wc -l)
  args=(-max_total_time="$seconds" -artifact_prefix="$work/run/$name-")
  maxlen=$(sed -n 's/^max_len *= *//p' "$opts")
  [ -n "$maxlen" ] && args+=(-max_len="$maxlen")
  [ -f "$OUT/$name.dict" ] && args+=(-dict="$OUT/$name.dict")
  # Reproducers a harness writes on a finding go to its run directory.
  if (cd "$work/run" && SCHEDCHECK_REPRO_DIR="$work/run" "$bin" "${args[@]}" "$corpus" >"$work/run/$name.log" 2>&1); then
    echo "cflite-test: $name: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$work/run/$name.log" | tail -1)," \
         "from $seeds seeds, corpus now $(ls "$corpus" | wc -l)"
  else
    echo "cflite-test: $name FAILED:"; tail -30 "$work/run/$name.log"; status=1
  fi
done
exit $status
