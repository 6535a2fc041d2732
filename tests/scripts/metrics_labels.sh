#!/usr/bin/env bash
# Metrics files of several processes in one collector folder must not collide: every
# series carries each `--metrics-label KEY=VALUE` (checked as Prometheus reads labels, escaped in the file;
# a bad one is a usage error before any work, with no records), failed sectors are counted by error kind
# (cuzk_failed_sectors{kind}), and prove's parts are not summed with it under cuzk_phase_seconds. Nothing is
# proven here: the runs fail up front (a truncated C1 file; --gpu without a usable GPU). The format itself is
# checked in test_progress_metrics.
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
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 61 --sector-id 61 -o "$tmp/61.json" >/dev/null 2>&1 || fail "gen-c1"
head -c 3000 "$tmp/61.json" >"$tmp/truncated.json"

# Two processes, as on two GPUs of one host: the same run but for --metrics-label. No series of one file is
# in the other (node_exporter would drop it).
for slot in 0 1; do
  got=0
  "$CUZK_BIN" prove --gpu --keep-going --json --params-dir "$params" -o "$tmp/out" \
    --metrics-file "$tmp/slot$slot.prom" --metrics-label "slot=$slot" --metrics-label 'role=sealer "a"\b' \
    "$tmp/truncated.json" "$tmp/61.json" >"$tmp/slot$slot.jsonl" 2>"$tmp/slot$slot.log" || got=$?
  [ "$got" -eq 8 ] || { cat "$tmp/slot$slot.log" >&2; fail "slot $slot exited $got, expected 8"; }
done
while IFS= read -r line; do
  case "$line" in '#'*) continue ;; esac
  [[ "$line" == *',slot="0",role="sealer \"a\"\\b"} '* ]] || fail "a series without the labels, escaped: $line"
done <"$tmp/slot0.prom"
series() { grep -v '^#' "$1" | sed 's/ [^ ]*$//' | sort; }
[ -z "$(comm -12 <(series "$tmp/slot0.prom") <(series "$tmp/slot1.prom"))" ] ||
  fail "series in both files: $(comm -12 <(series "$tmp/slot0.prom") <(series "$tmp/slot1.prom"))"

# The failed sectors by kind: with --gpu and no usable GPU, both inputs are no-device (the up-front checks
# never ran). Without --gpu, the truncated one is an input error, the good one would be proven: not run here.
grep -q '^cuzk_failed_sectors{kind="no-device",engine="gpu",gpu="",slot="0",.*} 2$' "$tmp/slot0.prom" ||
  fail "no cuzk_failed_sectors{kind=\"no-device\"} 2: $(cat "$tmp/slot0.prom")"
if grep -q '^cuzk_phase_seconds{phase="prove\.' "$tmp/slot0.prom"; then fail "prove's parts in cuzk_phase_seconds"; fi

# Without --gpu, the truncated input alone: kind input, found by the up-front checks.
got=0
"$CUZK_BIN" prove --keep-going --json --params-dir "$params" -o "$tmp/out" --metrics-file "$tmp/input.prom" \
  --metrics-label slot=2 "$tmp/truncated.json" >"$tmp/input.jsonl" 2>"$tmp/input.log" || got=$?
[ "$got" -eq 3 ] || { cat "$tmp/input.log" >&2; fail "a truncated input exited $got, expected 3"; }
grep -q '^cuzk_failed_sectors{kind="input",engine="cpu",gpu="",slot="2"} 1$' "$tmp/input.prom" ||
  fail "no cuzk_failed_sectors{kind=\"input\"} 1: $(cat "$tmp/input.prom")"
if grep -q 'gpu_uuid=' "$tmp/input.prom"; then fail "a CPU run's metrics have a gpu_uuid label"; fi

# Refused labels: exit 2 before any work, no records, no metrics file.
for bad in "9slot=x" "slot-id=x" "__name__=x" "engine=x" "gpu_uuid=x" "kind=x" "slot=" "slot" $'slot=\xff'; do
  got=0
  "$CUZK_BIN" prove --json --params-dir "$params" -o "$tmp/out" --metrics-file "$tmp/bad.prom" \
    --metrics-label "$bad" "$tmp/61.json" >"$tmp/bad.jsonl" 2>"$tmp/bad.log" || got=$?
  [ "$got" -eq 2 ] || { cat "$tmp/bad.log" >&2; fail "--metrics-label '$bad' exited $got, expected 2"; }
  [ ! -s "$tmp/bad.jsonl" ] || fail "--metrics-label '$bad' printed records"
  [ ! -e "$tmp/bad.prom" ] || fail "--metrics-label '$bad' wrote the metrics"
done
got=0
"$CUZK_BIN" prove --params-dir "$params" -o "$tmp/out" --metrics-file "$tmp/bad.prom" --metrics-label a=1 \
  --metrics-label a=2 "$tmp/61.json" >/dev/null 2>"$tmp/twice.log" || got=$?
[ "$got" -eq 2 ] || { cat "$tmp/twice.log" >&2; fail "a label given twice exited $got, expected 2"; }
got=0
"$CUZK_BIN" prove --params-dir "$params" -o "$tmp/out" --metrics-label a=1 "$tmp/61.json" >/dev/null 2>&1 || got=$?
[ "$got" -eq 2 ] || fail "--metrics-label without --metrics-file exited $got, expected 2"
[ ! -e "$tmp/out/61.proof" ] || fail "a refused run wrote a proof"
# A C1 file whose name is not UTF-8: its record, report and metrics are written all the
# same (the name with U+FFFD), with the input's own error.
bad_name="$tmp/$(printf 'bad-\xff')-name.json"
cp "$tmp/truncated.json" "$bad_name"
got=0
"$CUZK_BIN" prove --json --keep-going --params-dir "$params" -o "$tmp/out4" --report "$tmp/bad-name-report.json" \
  --metrics-file "$tmp/bad-name.prom" "$bad_name" >"$tmp/bad-name.jsonl" 2>"$tmp/bad-name.log" || got=$?
[ "$got" -eq 3 ] || { cat "$tmp/bad-name.log" >&2; fail "a non-UTF-8 C1 name exited $got, expected 3"; }
jq -e '.status == "failed" and .error.kind == "input" and (.c1 | contains("bad-\ufffd-name.json"))' \
  "$tmp/bad-name.jsonl" >/dev/null || fail "no record for a non-UTF-8 C1 name: $(cat "$tmp/bad-name.jsonl")"
jq -e '.failures[0].error.kind == "input"' "$tmp/bad-name-report.json" >/dev/null || fail "no report for a non-UTF-8 C1 name"
grep -q '^cuzk_last_run_success{.*} 0$' "$tmp/bad-name.prom" || fail "no metrics for a non-UTF-8 C1 name"
echo "OK: --metrics-label on every series, failed sectors by kind, no collision between processes, non-UTF-8 names"
