#!/bin/bash -eu
# Builds every harness in fuzz/ the way ClusterFuzzLite and OSS-Fuzz do:
# with $CC, $CXX, $CFLAGS, $CXXFLAGS and $LIB_FUZZING_ENGINE, into $OUT,
# each with <harness>_seed_corpus.zip, <harness>.dict (where the corpus has
# a dictionary) and <harness>.options.  .clusterfuzzlite/test.sh runs it
# outside the services with the same variables set.
SRC_DIR=${SCHEDCHECK_SRC:-$SRC/schedcheck}
OUT=$(realpath -m "$OUT")
BUILD_DIR=${WORK:-/tmp}/schedcheck-build
# The build-time oracle generator is compiled with the sanitizer flags
# too; its leaks at exit are of no interest here.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

cmake -S "$SRC_DIR" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DSCHEDCHECK_TESTS=OFF -DSCHEDCHECK_FUZZ=ON -DSCHEDCHECK_FUZZ_ENGINE="$LIB_FUZZING_ENGINE"

# harness binary (fuzz/), name in $OUT, corpus directory, dictionary, max_len
HARNESSES=(
  "cpuload_property_fuzz  cpuload_property   cpuload            cpuload.dict            4096"
  "differential_fuzz      differential       differential       -                       4096"
  "idlebal_differential_fuzz idlebal_differential idlebal_differential - 4096"
  "wakeaffine_differential_fuzz wakeaffine_differential wakeaffine_differential - 4096"
  "cfsrq_differential_fuzz cfsrq_differential cfsrq_differential - 4096"
  "invariant_points_fuzz  invariant_points   invariant_points   -                       4096"
  "reproducer_reader_fuzz reproducer_reader  reproducer_reader  reproducer_reader.dict  16384"
  "expected_reader_fuzz   expected_reader    expected_reader    -                       16384"
  "patch_series_fuzz      patch_series       patch_series       -                       65536"
  "c_definitions_fuzz     c_definitions      c_definitions      -                       65536"
  "simulate_input_fuzz    simulate_input     simulate_input     -                       16384"
  "oracle_manifest_fuzz   oracle_manifest    oracle_manifest    -                       4096"
)
targets=()
for h in "${HARNESSES[@]}"; do
  read -r bin _ _ _ _ <<<"$h"
  targets+=("$bin")
done
cmake --build "$BUILD_DIR" -j "$(nproc)" --target "${targets[@]}"

for h in "${HARNESSES[@]}"; do
  read -r bin name corpus dict maxlen <<<"$h"
  cp "$BUILD_DIR/fuzz/$bin" "$OUT/$name"
  rm -f "$OUT/${name}_seed_corpus.zip"
  (cd "$SRC_DIR/corpora/$corpus" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  {
    echo "[libfuzzer]"
    echo "max_len = $maxlen"
  } >"$OUT/$name.options"
  if [ "$dict" != "-" ]; then
    cp "$SRC_DIR/corpora/$dict" "$OUT/$name.dict"
  fi
done
echo "schedcheck: built ${#HARNESSES[@]} harnesses into $OUT"
