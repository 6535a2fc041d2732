#!/usr/bin/env bash
# "No usable GPU" is not a GPU fault: `cuzk prove --gpu` where no GPU can be used (this
# binary has no CUDA, or CUDA_VISIBLE_DEVICES hides every device) exits 8 with the error kind "no-device",
# which a script does not retry, never "gpu" (a CUDA error on a GPU that is there, worth a retry). With
# --keep-going every input gets a "failed" record of that kind (none "skipped"); without it the first input
# fails and the others are skipped. The metrics of such a run are the GPU engine's: engine="gpu".
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with porep_2kib_e2e.sh and `make demo`
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || fail "jq is not installed (run scripts/install-deps.sh)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export CUDA_VISIBLE_DEVICES=-1  # a CUDA build on a GPU host sees none either
export CUZK_PCE_CACHE="$tmp/pce"

# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"
for n in 31 32; do
  "$CUZK_BIN" gen-c1 --sector-size 2KiB --seed "$n" --sector-id "$n" -o "$tmp/$n.json" >/dev/null 2>&1 ||
    fail "gen-c1 $n"
done
batch=("$tmp/31.json" "$tmp/32.json")

# --keep-going: every input failed, kind no-device, exit 8; the message says that no GPU can be used.
got=0
"$CUZK_BIN" prove --gpu --keep-going --json --params-dir "$params" -o "$tmp/out" \
  --metrics-file "$tmp/kg.prom" "${batch[@]}" >"$tmp/kg.jsonl" 2>"$tmp/kg.log" || got=$?
[ "$got" -eq 8 ] || { cat "$tmp/kg.log" >&2; fail "--gpu without a usable GPU exited $got, expected 8"; }
[ "$(wc -l <"$tmp/kg.jsonl")" -eq 2 ] || fail "expected 2 records: $(cat "$tmp/kg.jsonl")"
jq -s -e --arg a "${batch[0]}" --arg b "${batch[1]}" '
  [.[].c1] == [$a, $b]
  and all(.[]; .schema == "cuzk.prove.result/1" and .status == "failed" and .sector == null
              and .error.kind == "no-device" and .error.exit_code == 8
              and (.error.message | test("no usable GPU")))' "$tmp/kg.jsonl" >/dev/null ||
  fail "--keep-going records: $(cat "$tmp/kg.jsonl")"
grep -q "no usable GPU" "$tmp/kg.log" || fail "the log does not say that no GPU can be used: $(cat "$tmp/kg.log")"
[ -z "$(ls -A "$tmp/out" 2>/dev/null)" ] || fail "a run without a GPU wrote $(ls "$tmp/out")"

# Its metrics: the GPU engine's run, both sectors failed, none skipped.
grep -qx 'cuzk_last_run_success{.*engine="gpu".*} 0' "$tmp/kg.prom" ||
  fail "the metrics do not say engine=\"gpu\": $(cat "$tmp/kg.prom")"
if grep -q 'engine="cpu"' "$tmp/kg.prom"; then fail "a --gpu run's metrics say engine=\"cpu\""; fi
grep -qx 'cuzk_sectors{result="failed",.*} 2' "$tmp/kg.prom" || fail "not 2 failed sectors: $(cat "$tmp/kg.prom")"
grep -qx 'cuzk_sectors{result="skipped",.*} 0' "$tmp/kg.prom" || fail "skipped sectors with --keep-going"

# Without --keep-going: the first input failed (no-device), the second skipped; exit 8.
got=0
"$CUZK_BIN" prove --gpu --json --params-dir "$params" -o "$tmp/out" "${batch[@]}" >"$tmp/stop.jsonl" \
  2>"$tmp/stop.log" || got=$?
[ "$got" -eq 8 ] || { cat "$tmp/stop.log" >&2; fail "--gpu without --keep-going exited $got, expected 8"; }
jq -s -e '
  length == 2 and .[0].status == "failed" and .[0].error.kind == "no-device" and .[0].error.exit_code == 8
  and .[1].status == "skipped" and .[1].error.kind == "not_attempted"' "$tmp/stop.jsonl" >/dev/null ||
  fail "records without --keep-going: $(cat "$tmp/stop.jsonl")"

# bench --gpu: the same exit code (it has no records).
got=0
"$CUZK_BIN" bench --gpu --reps 1 --params-dir "$params" "${batch[0]}" >"$tmp/bench.log" 2>&1 || got=$?
[ "$got" -eq 8 ] || { cat "$tmp/bench.log" >&2; fail "bench --gpu without a usable GPU exited $got, expected 8"; }
grep -q "no usable GPU" "$tmp/bench.log" || fail "bench: the log does not say that no GPU can be used"
echo "OK: no usable GPU is kind no-device, exit 8, failed records with --keep-going, engine=\"gpu\" metrics"
