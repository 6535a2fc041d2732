#!/usr/bin/env bash
# SIGTERM and SIGINT in the middle of `cuzk prove` (cli/signals.hpp): the run stops at its
# next safe point and ends like a failed run: a log line, `failed` records of kind "interrupted" for every
# sector not proven, the metrics (success 0, replacing an earlier run's 1), no temporary file left in the
# output folder, exit 143 (SIGTERM) or 130 (SIGINT).
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with `make demo` and porep_2kib_e2e.sh

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || fail "jq is not installed (run scripts/install-deps.sh)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"
export FIL_PROOFS_PARAMETER_CACHE="$params"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 51 --sector-id 51 --envelope -o "$tmp/a.json" >/dev/null 2>&1 || fail "gen-c1"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 52 --sector-id 52 --envelope -o "$tmp/b.json" >/dev/null 2>&1 || fail "gen-c1"

# A metrics file of an earlier, successful run: the interrupted run must replace it.
printf 'cuzk_last_run_success{engine="cpu",gpu=""} 1\n' >"$tmp/run.prom"

for signal in TERM INT; do
  expected=$([ $signal = TERM ] && echo 143 || echo 130)
  out="$tmp/out-$signal"
  # The signal comes once the first partition is being proven (the log says so).
  "$CUZK_BIN" prove --json --keep-going --progress-interval 1 --metrics-file "$tmp/run.prom" -o "$out" \
    "$tmp/a.json" "$tmp/b.json" >"$tmp/$signal.jsonl" 2>"$tmp/$signal.log" &
  pid=$!
  for _ in $(seq 1 600); do
    grep -q "proving $tmp/a.json partition 0" "$tmp/$signal.log" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  grep -q "proving $tmp/a.json partition 0" "$tmp/$signal.log" || { cat "$tmp/$signal.log" >&2; fail "the run never began proving"; }
  kill -s "$signal" "$pid"
  got=0
  wait "$pid" || got=$?
  [ "$got" -eq "$expected" ] || { cat "$tmp/$signal.log" >&2; fail "SIG$signal: exit $got, expected $expected"; }
  grep -q "SIG$signal: stopping at the next safe point" "$tmp/$signal.log" || { cat "$tmp/$signal.log" >&2; fail "SIG$signal: no log line"; }
  grep -q "interrupted by SIG$signal" "$tmp/$signal.log" || { cat "$tmp/$signal.log" >&2; fail "SIG$signal: the error is not logged"; }
  [ "$(wc -l <"$tmp/$signal.jsonl")" -eq 2 ] || { cat "$tmp/$signal.jsonl" >&2; fail "SIG$signal: expected 2 records"; }
  jq -e --argjson code "$expected" 'select(.status != "failed" or .error.kind != "interrupted" or .error.exit_code != $code)' \
    "$tmp/$signal.jsonl" >/dev/null && { cat "$tmp/$signal.jsonl" >&2; fail "SIG$signal: a record that is not failed/interrupted"; }
  grep -q '^cuzk_last_run_success{.*} 0$' "$tmp/run.prom" || { cat "$tmp/run.prom" >&2; fail "SIG$signal: the metrics still say success"; }
  if ls -A "$out" 2>/dev/null | grep -q .; then ls -la "$out" >&2; fail "SIG$signal: files left in the output folder"; fi
done
echo "signals: PASS"
