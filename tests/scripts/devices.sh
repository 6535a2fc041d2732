#!/usr/bin/env bash
# Several engines in one process (issue 29): `--devices LIST|all` with --gpu, and `--cpu-engines N`, its
# stand-in on machines without a GPU. A bad list is a usage error (exit 2); a GPU that is not visible is
# "no-device" (exit 8) before any work; N CPU engines prove the same bytes as one (--test-randomness), in the
# same order, every engine proving some partitions, with a lane per engine in the report and the metrics.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with porep_2kib_e2e.sh and `make demo`
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || fail "jq is not installed (run scripts/install-deps.sh)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export CUZK_PCE_CACHE="$tmp/pce"

# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"
batch=()
for n in 41 42 43; do
  "$CUZK_BIN" gen-c1 --sector-size 2KiB --seed "$n" --sector-id "$n" -o "$tmp/$n.json" >/dev/null 2>&1 ||
    fail "gen-c1 $n"
  batch+=("$tmp/$n.json")
done

expect_exit() {  # code, what, cuzk arguments...
  local want="$1" what="$2" got=0
  shift 2
  "$CUZK_BIN" "$@" >"$tmp/out.txt" 2>&1 || got=$?
  [ "$got" -eq "$want" ] || { cat "$tmp/out.txt" >&2; fail "$what exited $got, expected $want"; }
}
for bad in "0,x" "0," ",1" "-1" "0;1" "1000" "0,,1"; do
  expect_exit 2 "--devices '$bad'" prove --gpu --devices "$bad" --params-dir "$params" -o "$tmp/bad" "${batch[0]}"
  grep -q -- "--devices" "$tmp/out.txt" || fail "the error for --devices '$bad' does not name the flag"
done
expect_exit 2 "--devices without --gpu" prove --devices 0 --params-dir "$params" -o "$tmp/bad" "${batch[0]}"
expect_exit 2 "--cpu-engines with --gpu" prove --gpu --cpu-engines 2 --params-dir "$params" -o "$tmp/bad" "${batch[0]}"
expect_exit 2 "--cpu-engines 0" prove --cpu-engines 0 --params-dir "$params" -o "$tmp/bad" "${batch[0]}"
# CUDA ordinals count after CUDA_VISIBLE_DEVICES: with it hiding every GPU, GPU 0 is not visible either.
got=0
CUDA_VISIBLE_DEVICES=-1 "$CUZK_BIN" prove --gpu --devices 0,1 --json --params-dir "$params" -o "$tmp/none" \
  "${batch[0]}" >"$tmp/none.jsonl" 2>"$tmp/none.log" || got=$?
[ "$got" -eq 8 ] || { cat "$tmp/none.log" >&2; fail "--devices 0,1 with no GPU visible exited $got, expected 8"; }
jq -e 'select(.status == "failed") | .error.kind == "no-device"' "$tmp/none.jsonl" >/dev/null ||
  { cat "$tmp/none.jsonl" "$tmp/none.log" >&2; fail "no failed record of kind no-device"; }
[ ! -e "$tmp/none" ] || [ -z "$(ls -A "$tmp/none")" ] || fail "a run without its GPUs wrote something"

# One CPU engine, then three: the same proof files, byte for byte, and each engine proved some partitions.
"$CUZK_BIN" prove --test-randomness 7 --params-dir "$params" -o "$tmp/one" "${batch[@]}" >/dev/null 2>&1 ||
  fail "one engine exited $?"
"$CUZK_BIN" prove --test-randomness 7 --cpu-engines 3 --params-dir "$params" -o "$tmp/three" --json \
  --report "$tmp/three-report.json" --metrics-file "$tmp/three.prom" "${batch[@]}" >"$tmp/three.jsonl" \
  2>"$tmp/three.log" || { cat "$tmp/three.log" >&2; fail "three engines exited $?"; }
for n in 41 42 43; do
  cmp "$tmp/one/$n.proof" "$tmp/three/$n.proof" || fail "sector $n: three engines wrote another proof"
done
[ "$(jq -r 'select(.status == "proven") | .sector' "$tmp/three.jsonl" | tr '\n' ' ')" = "41 42 43 " ] ||
  fail "the records are not in input order: $(cat "$tmp/three.jsonl")"
jq -e '.engines | length == 3 and all(.partitions >= 1) and (map(.partitions) | add) == 3' \
  "$tmp/three-report.json" >/dev/null || fail "the report's engines: $(jq -c .engines "$tmp/three-report.json")"
jq -e '.engine_config.engines == 3' "$tmp/three-report.json" >/dev/null || fail "engine_config.engines is not 3"
for lane in 0 1 2; do
  grep -q "^cuzk_engine_partitions{lane=\"$lane\",device=\"\"," "$tmp/three.prom" ||
    fail "no cuzk_engine_partitions of lane $lane: $(grep engine_ "$tmp/three.prom")"
done
echo "PASS: devices"
