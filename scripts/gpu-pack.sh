#!/usr/bin/env bash
# Builds the GPU test and benchmark binaries here (no GPU needed) for one architecture and packs them,
# with the shared libraries a GPU machine's image may lack in these versions, into a folder that can be
# carried to that machine and run there without building: a device session then spends its minutes on
# tests and measurements, not on a three-minute build.
#
#   scripts/gpu-pack.sh [DIR]          # default DIR: gpu-pack; also writes DIR.tar.gz (both git-ignored)
#   # on the GPU machine, from the repository root (the tarball keeps the carried tree small: ~47 MB
#   # with cuzk and the GPU tests, against ~100 MB unpacked; the device tool carries at most 64 MiB):
#   tar xzf gpu-pack.tar.gz && gpu-pack/run.sh [cuzk_bench_gpu arguments]
#   # or gpu-check.sh's tests (cuzk info, the GPU tests, 2KiB sectors proven with and without --gpu) from it:
#   CUZK_GPU_PREBUILT=1 CUZK_GPU_BUILD_DIR=$PWD/gpu-pack LD_LIBRARY_PATH=$PWD/gpu-pack/lib \
#     OUT=<dir> scripts/gpu-check.sh tests
#
# Environment: CUZK_GPU_ARCH (default 90), CUZK_GPU_BUILD_DIR (default build-gpu-pack), CUZK_PACK_BENCH=0 to
# leave out cuzk_bench_gpu (the slowest binary to build) when only the tests and cuzk are needed,
# CUZK_PACK_TESTS="test_a test_b" to pack only those GPU tests (names of tests/gpu/*.cu without .cu).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-$root/gpu-pack}"
build="${CUZK_GPU_BUILD_DIR:-$root/build-gpu-pack}"
arch="${CUZK_GPU_ARCH:-90}"

tests=()
if [ -n "${CUZK_PACK_TESTS:-}" ]; then
  for t in $CUZK_PACK_TESTS; do tests+=("gpu_$t"); done  # e.g. "test_fixed_base test_parameter_upload"
else
  for t in "$root"/tests/gpu/test_*.cu; do tests+=("gpu_$(basename "$t" .cu)"); done
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON -DCUZK_BUILD_BENCH=OFF \
  -DCMAKE_CUDA_ARCHITECTURES="$arch" >/dev/null
bins=(cuzk)
[ "${CUZK_PACK_BENCH:-1}" = 0 ] || bins+=(cuzk_bench_gpu)
cmake --build "$build" -j "$(nproc)" --target "${bins[@]}" "${tests[@]}" gpu_partition_equality

rm -rf "$dir"
mkdir -p "$dir/lib"
for b in "${bins[@]}"; do cp "$build/$b" "$dir/"; done
for t in "${tests[@]}"; do cp "$build/tests/$t" "$dir/"; done
cp "$build/tests/gpu_partition_equality" "$dir/"  # scripts/scale-run.sh's CUZK_SCALE_EQUALITY
strip --strip-debug "$dir"/cuzk* "$dir"/gpu_* 2>/dev/null || true
# Every non-system library the binaries load (resolved here), so that other versions there do not matter.
for lib in $(ldd "$dir"/cuzk* "$dir"/gpu_* | awk '/=> \// {print $3}' | sort -u); do
  case "$(basename "$lib")" in
    libc.so* | libm.so* | libdl.so* | librt.so* | libpthread.so* | libgcc_s.so* | libstdc++.so* | ld-linux*) ;;
    *) cp -L "$lib" "$dir/lib/" ;;
  esac
done
cat >"$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the packed GPU tests, then the benchmark with the given arguments (if any).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
status=0
for t in "$here"/gpu_test_*; do
  echo "== $(basename "$t")"
  log="$("$t" --gtest_brief=1 2>&1)" || status=1
  echo "$log"
  # This runs on the GPU machine: a test skipped for want of a GPU is a failure here.
  if grep -q "SKIPPED \]" <<<"$log"; then echo "(skipped tests: no usable GPU?)"; status=1; fi
done
if [ $# -gt 0 ]; then
  echo "== cuzk_bench_gpu $*"
  "$here/cuzk_bench_gpu" "$@" || status=1
fi
echo "== gpu-pack run: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
RUN
chmod +x "$dir/run.sh"
tar -C "$(dirname "$dir")" -czf "$dir.tar.gz" "$(basename "$dir")"
du -sh "$dir" "$dir.tar.gz"
echo "packed: carry $(basename "$dir").tar.gz; there: tar xzf $(basename "$dir").tar.gz && $(basename "$dir")/run.sh [bench args]"
