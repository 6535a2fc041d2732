#!/usr/bin/env bash
# Sanitizers and fuzzing, run by .ci/run after `make test` (and by `make sanitize`):
#  1. $SANITIZE_BUILD_DIR (build-sanitize): clang with -fsanitize=address,undefined (and fuzzer-no-link);
#     the fast CPU unit tests run under AddressSanitizer + UndefinedBehaviorSanitizer;
#  2. the libFuzzer targets of tests/fuzz (C1 reader, .vk/.params reader, proof reader, PCE cache reader,
#     the report readers of `compare` and `report timeline`, the update vanilla-proof and input-file readers),
#     each for $FUZZ_SECONDS (default 50) from its committed seed corpus tests/fuzz/corpus/<target>, whose
#     inputs (the regression cases) are all run first;
#  3. the two-stage pipeline tests (tests/test_two_stage.cpp) under ThreadSanitizer.
# Any sanitizer report, failing test or fuzz finding fails the script. A finding is saved as
# $SANITIZE_BUILD_DIR/fuzz-findings/<target>-crash-<sha1>; once fixed, commit it to the target's corpus.
# About 15 min on a 2-core machine from scratch (no ccache), most of it the instrumented build.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${SANITIZE_BUILD_DIR:-build-sanitize}"
seconds="${FUZZ_SECONDS:-50}"
jobs="${JOBS:-$(nproc)}"
cxx="${SANITIZE_CXX:-clang++}"
command -v "$cxx" >/dev/null || { echo "sanitize-and-fuzz: $cxx not found (scripts/install-deps.sh)" >&2; exit 1; }
start=$SECONDS
stamp() { echo "sanitize-and-fuzz: $* ($((SECONDS - start)) s)"; }

# The fast unit tests (seconds each without sanitizers): parsers, encodings, files, caches, the pipeline.
unit_tests=(test_reliability test_c1_file test_proof_file test_param_names test_encoding test_field test_curve
            test_domain test_r1cs test_pce_cache test_pce_cache_file test_pce_compact test_pce_evaluate
            test_timing_report test_two_stage test_update_input)
fuzz_targets=(c1 params proof pce_header reports update_vanilla update_input)

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
mkdir -p "$build"
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only" -DCUZK_CUDA=OFF -DCUZK_BUILD_BENCH=OFF \
  -DCUZK_SANITIZE=address,undefined -DCUZK_FUZZ=ON "${launcher[@]}" >/dev/null
cmake --build "$build" -j "$jobs" --target "${unit_tests[@]}" "${fuzz_targets[@]/#/fuzz_}" >"$build/build.log" 2>&1 ||
  { tail -50 "$build/build.log" >&2; echo "sanitize-and-fuzz: the instrumented build failed" >&2; exit 1; }
stamp "built"

# halt_on_error: the first report fails the run. detect_leaks: the tests own everything they allocate.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"  # the OpenMP runtime's own buffers
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
for t in "${unit_tests[@]}"; do
  "$build/tests/$t" --gtest_brief=1 >"$build/$t.log" 2>&1 ||
    { tail -60 "$build/$t.log" >&2; echo "sanitize-and-fuzz: $t failed under ASan+UBSan" >&2; exit 1; }
done
stamp "unit tests passed under ASan + UBSan"

mkdir -p "$build/fuzz-findings"
for t in "${fuzz_targets[@]}"; do
  work="$build/fuzz-corpus/$t"  # new inputs go here; the committed seeds stay as they are
  mkdir -p "$work"
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 -max_len=262144 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-findings/$t-" "$work" "tests/fuzz/corpus/$t" \
    >"$build/fuzz-$t.log" 2>&1 ||
    { tail -60 "$build/fuzz-$t.log" >&2; echo "sanitize-and-fuzz: fuzz_$t found a failing input:" \
        "$(ls "$build/fuzz-findings" | grep "^$t-")" >&2; exit 1; }
  stamp "fuzz_$t: $(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$build/fuzz-$t.log" | awk '{print $2}') runs, no finding"
done

# ThreadSanitizer: job/two_stage.hpp is header-only, so its tests build alone in seconds.
mkdir -p "$build/tsan"
"$cxx" -std=c++20 -O1 -g -fsanitize=thread -I. tests/test_two_stage.cpp -o "$build/tsan/test_two_stage" \
  -lgtest -lgtest_main -pthread
TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" "$build/tsan/test_two_stage" --gtest_brief=1 \
  >"$build/tsan.log" 2>&1 || { tail -60 "$build/tsan.log" >&2; echo "sanitize-and-fuzz: TSan report" >&2; exit 1; }
stamp "two-stage tests passed under TSan"
echo "sanitize-and-fuzz: OK in $((SECONDS - start)) s"
