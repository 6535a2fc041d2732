#!/usr/bin/env bash
# `cuzk params setup --sector-size` flags: --gpu never falls back to the CPU (exit 8 before any
# work, nothing written), --seed is announced as TEST ONLY, bad flag combinations are usage errors. The
# files themselves are checked byte for byte against generate_parameters in tests/test_streaming_setup.cpp
# and by the 2KiB end-to-end script (tests/scripts/porep_2kib_e2e.sh), which proves against them.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
run() {
  local want="$1" label="$2" got=0
  shift 2
  "$@" >"$tmp/out.txt" 2>&1 || got=$?
  if [ "$got" -ne "$want" ]; then
    cat "$tmp/out.txt" >&2
    fail "$label: exit $got, expected $want"
  fi
  echo "ok: $label (exit $got)"
}
has() { grep -qF -- "$1" "$tmp/out.txt" || { cat "$tmp/out.txt" >&2; fail "output lacks: $1"; }; }

"$CUZK_BIN" info --json >"$tmp/info.json" 2>/dev/null || fail "cuzk info --json failed"
if grep -q '"no_gpu_reason"' "$tmp/info.json"; then
  run 8 "params setup --gpu without a GPU" "$CUZK_BIN" params setup --sector-size 2KiB --gpu --seed 1 \
    --params-dir "$tmp/p" --pce-cache-dir "$tmp/pce"
  [ ! -e "$tmp/pce" ] || fail "--gpu without a GPU built a constraint cache"
  [ -z "$(ls -A "$tmp/p" 2>/dev/null)" ] || fail "--gpu without a GPU wrote files"
else
  echo "skip: a GPU is visible here; --gpu without one is not testable"
fi

run 2 "params setup --seed needs --sector-size" "$CUZK_BIN" params setup --circuit demo -o "$tmp/d" --seed 3
run 2 "params setup --gpu needs --sector-size" "$CUZK_BIN" params setup --circuit demo -o "$tmp/d" --gpu
run 2 "params setup --seed must be a number" "$CUZK_BIN" params setup --sector-size 2KiB --seed x \
  --params-dir "$tmp/p"
# Unsigned flags are checked as the other commands check them (cli/job_flags.cpp): CLI11 alone would wrap -1.
run 2 "params setup --seed -1 is refused" "$CUZK_BIN" params setup --sector-size 2KiB --seed=-1 \
  --params-dir "$tmp/p"
run 2 "params setup --threads beyond 4x the hardware threads" "$CUZK_BIN" params setup --sector-size 2KiB \
  --threads 100000 --params-dir "$tmp/p"
[ -z "$(ls -A "$tmp/p" 2>/dev/null)" ] || fail "a refused params setup wrote files"
