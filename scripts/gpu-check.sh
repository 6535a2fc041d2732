#!/usr/bin/env bash
# GPU check: configure + build the CUDA backend for sm_90 (H100/H200) in build-gpu-device, run the
# ctest label `gpu`, `cuzk info`, and the benchmark sweep (cuzk_bench_gpu); logs and JSON go to $OUT
# (default ./gpu-check-out); a table is printed last.
#
#   scripts/gpu-check.sh [full|quick|tests|bench] [extra cuzk_bench_gpu arguments...]
#     full   tests + the whole sweep (G1 MSM 2^20..2^27 random and witness-like, G2 MSM 2^20..2^25,
#            NTT 2^20..2^27, H 2^27)
#     quick  tests + a small sweep (2^20..2^21)
#     tests  tests only;  bench  the sweep only;  build  configure and build only
# Environment: CUZK_GPU_ARCH (default 90), CUZK_GPU_BUILD_DIR (default build-gpu-device),
#   CUZK_GPU_PREBUILT=1 to skip configure/build and run an existing build dir's binaries directly.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode="${1:-full}"
shift || true
out="${OUT:-$root/gpu-check-out}"
build="${CUZK_GPU_BUILD_DIR:-$root/build-gpu-device}"
arch="${CUZK_GPU_ARCH:-90}"
mkdir -p "$out"
jobs="$(nproc 2>/dev/null || echo 4)"

nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,driver_version --format=csv 2>&1 | tee "$out/nvidia-smi.txt" || true

if [ "${CUZK_GPU_PREBUILT:-0}" != 1 ]; then
  echo "== configure + build ($build, sm_$arch)"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON -DCUZK_BUILD_BENCH=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  targets=(cuzk cuzk_bench_gpu)
  for t in "$root"/tests/gpu/test_*.cu; do targets+=("gpu_$(basename "$t" .cu)"); done
  cmake --build "$build" -j "$jobs" --target "${targets[@]}" >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
fi

[ "$mode" = build ] && { echo "== built in $build"; exit 0; }

status=0
if [ "$mode" != bench ]; then
  echo "== cuzk info"
  "$build/cuzk" info 2>&1 | tee "$out/info.txt" || status=1
  echo "== gpu tests"
  if [ "${CUZK_GPU_PREBUILT:-0}" = 1 ]; then
    for t in "$build"/tests/gpu_test_*; do
      [ -x "$t" ] || continue
      "$t" --gtest_brief=1 2>&1 | tee -a "$out/tests.log" || status=1
    done
  else
    (cd "$build" && ctest -L gpu --output-on-failure 2>&1) | tee "$out/tests.log" || status=1
  fi
fi

if [ "$mode" != tests ]; then
  echo "== benchmark sweep"
  args=()
  [ "$mode" = quick ] && args+=(--quick)
  "$build/cuzk_bench_gpu" "${args[@]}" --json "$out/bench.json" "$@" 2>&1 | tee "$out/bench.log" || status=1
fi
echo "== gpu-check: $([ $status = 0 ] && echo PASS || echo FAIL) (logs in $out)"
exit $status
