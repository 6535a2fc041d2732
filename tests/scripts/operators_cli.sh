#!/usr/bin/env bash
# What a sealing script sees of `cuzk prove` (docs/integration.md, docs/json-results.md): --json
# records (proven, failed with kind and exit code, skipped; a failure mid-run, one found by the up-front
# checks, several with --keep-going), the Prometheus file of a failed and of a
# successful run, progress lines in a log file (plain, rate-limited), --quiet, phases in run order in the
# report, and the example script docs/examples/c2-batch.sh on the CPU engine.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
src="${CUZK_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with `make demo` and porep_2kib_e2e.sh

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || fail "jq is not installed (run scripts/install-deps.sh)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"
export FIL_PROOFS_PARAMETER_CACHE="$params"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 21 --sector-id 31 --envelope -o "$tmp/a.json" || fail "gen-c1"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 22 --sector-id 32 --envelope -o "$tmp/b.json" || fail "gen-c1"
head -c 3000 "$tmp/b.json" >"$tmp/truncated.json"

# A C1 file that passes the up-front checks but whose witness does not satisfy the circuit (exit 7
# while synthesizing): a failure in the middle of a run.
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 23 --sector-id 33 -o "$tmp/c.json" || fail "gen-c1"
jq -c '.seed[0] |= (if . % 2 == 0 then . + 1 else . - 1 end)' "$tmp/c.json" >"$tmp/tampered.json"

# 1. A run that stops at its second input: one record per input, in order.
got=0
"$CUZK_BIN" prove --json --progress-interval 1 --metrics-file "$tmp/fail.prom" --report "$tmp/unused.json" \
  -o "$tmp/out1" "$tmp/a.json" "$tmp/tampered.json" "$tmp/b.json" >"$tmp/fail.jsonl" 2>"$tmp/fail.log" || got=$?
[ "$got" -eq 7 ] || { cat "$tmp/fail.log" >&2; fail "prove with an unsatisfiable input exited $got, expected 7"; }
[ "$(wc -l <"$tmp/fail.jsonl")" -eq 3 ] || { cat "$tmp/fail.jsonl" >&2; fail "expected 3 records"; }
jq -e 'select(.schema != "cuzk.prove.result/1")' "$tmp/fail.jsonl" >/dev/null && fail "a record without the schema tag"
rec() { sed -n "${1}p" "$tmp/${2:-fail}.jsonl"; }
rec 1 | jq -e --arg c1 "$tmp/a.json" --arg hex "$(od -An -tx1 -v "$tmp/out1/31.proof" | tr -d ' \n')" \
  '.status == "proven" and .c1 == $c1 and .sector == "31" and .partitions == 1 and .verified == true
   and .proof_hex == $hex and (.proof | endswith("/31.proof")) and .seconds > 0 and .proof_type == "StackedDrg2KiBV1_1"' \
  >/dev/null || fail "record 1: $(rec 1)"
rec 2 | jq -e --arg c1 "$tmp/tampered.json" \
  '.status == "failed" and .c1 == $c1 and .sector == null and .error.kind == "circuit" and .error.exit_code == 7
   and (.error.message | contains($c1))' >/dev/null || fail "record 2: $(rec 2)"
rec 3 | jq -e --arg c1 "$tmp/b.json" '.status == "skipped" and .c1 == $c1 and .error.kind == "not_attempted"' \
  >/dev/null || fail "record 3: $(rec 3)"
[ ! -e "$tmp/out1/32.proof" ] || fail "the skipped sector has a proof"
[ ! -e "$tmp/unused.json" ] || fail "a failed run wrote its --report"
# The metrics of the failed run (the format itself is checked in test_progress_metrics).
grep -q '^cuzk_last_run_success{engine="cpu",gpu=""} 0$' "$tmp/fail.prom" || fail "fail.prom: $(cat "$tmp/fail.prom")"
grep -q '^cuzk_sectors{result="proven",engine="cpu",gpu=""} 1$' "$tmp/fail.prom" || fail "fail.prom: proven count"
grep -q '^cuzk_sectors{result="failed",engine="cpu",gpu=""} 1$' "$tmp/fail.prom" || fail "fail.prom: failed count"
grep -q '^cuzk_sectors{result="skipped",engine="cpu",gpu=""} 1$' "$tmp/fail.prom" || fail "fail.prom: skipped count"
# The sector failed in its first partition: its partitions count as failed all the same (known from the
# up-front checks).
grep -q '^cuzk_partitions{result="failed",engine="cpu",gpu=""} 1$' "$tmp/fail.prom" || fail "fail.prom: failed partitions"
[ -z "$(find "$tmp" -maxdepth 1 -name '.*fail.prom*')" ] || fail "a temporary metrics file was left behind"

# 1b. A truncated third input is refused by the up-front checks before anything is proven: the failed
# record names it (not the first input), the others are skipped, nothing is written.
got=0
"$CUZK_BIN" prove --json --metrics-file "$tmp/check.prom" -o "$tmp/out1b" "$tmp/a.json" "$tmp/b.json" \
  "$tmp/truncated.json" >"$tmp/check.jsonl" 2>"$tmp/check.log" || got=$?
[ "$got" -eq 3 ] || { cat "$tmp/check.log" >&2; fail "prove with a truncated input exited $got, expected 3"; }
[ "$(jq -r '.status' "$tmp/check.jsonl" | tr '\n' ' ')" = "skipped skipped failed " ] ||
  { cat "$tmp/check.jsonl" >&2; fail "up-front check: records"; }
rec 3 check | jq -e --arg c1 "$tmp/truncated.json" \
  '.c1 == $c1 and .error.kind == "input" and .error.exit_code == 3 and (.error.message | contains($c1))' \
  >/dev/null || fail "up-front check: record 3: $(rec 3 check)"
[ -z "$(ls -A "$tmp/out1b" 2>/dev/null)" ] || fail "the refused batch wrote $(ls "$tmp/out1b")"
grep -q '^cuzk_sectors{result="skipped",engine="cpu",gpu=""} 2$' "$tmp/check.prom" || fail "check.prom: skipped count"

# 1c. --keep-going: both good sectors proven, then a "failed" record for each bad one (exit code each);
# the run exits with the first failure's code; the metrics count two proven and two failed.
got=0
"$CUZK_BIN" prove --json --keep-going --metrics-file "$tmp/kg.prom" -o "$tmp/out1c" "$tmp/a.json" \
  "$tmp/truncated.json" "$tmp/tampered.json" "$tmp/b.json" >"$tmp/kg.jsonl" 2>"$tmp/kg.log" || got=$?
[ "$got" -eq 3 ] || { cat "$tmp/kg.log" >&2; fail "--keep-going exited $got, expected 3 (the first failure)"; }
[ "$(jq -r '[.status, (.sector // "-"), (.error.exit_code // "-" | tostring)] | join(":")' "$tmp/kg.jsonl" | tr '\n' ' ')" = \
  "proven:31:- proven:32:- failed:-:3 failed:-:7 " ] || { cat "$tmp/kg.jsonl" >&2; fail "--keep-going records"; }
rec 4 kg | jq -e --arg c1 "$tmp/tampered.json" '.c1 == $c1 and .error.kind == "circuit"' >/dev/null ||
  fail "--keep-going record 4: $(rec 4 kg)"
grep -q '^cuzk_last_run_success{engine="cpu",gpu=""} 0$' "$tmp/kg.prom" || fail "kg.prom: $(cat "$tmp/kg.prom")"
grep -q '^cuzk_sectors{result="proven",engine="cpu",gpu=""} 2$' "$tmp/kg.prom" || fail "kg.prom: proven count"
grep -q '^cuzk_sectors{result="failed",engine="cpu",gpu=""} 2$' "$tmp/kg.prom" || fail "kg.prom: failed count"
grep -q '^cuzk_sectors{result="skipped",engine="cpu",gpu=""} 0$' "$tmp/kg.prom" || fail "kg.prom: skipped count"

# stderr went to a file: progress as plain log lines, never a control character.
grep -q 'progress: proving 1/' "$tmp/fail.log" || { cat "$tmp/fail.log" >&2; fail "no progress line in the log"; }
if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$tmp/fail.log"; then fail "control characters in the log"; fi

# 2. --quiet: stdout has the result line, stderr nothing; the metrics say success; the report lists the
# phases in the order they run.
"$CUZK_BIN" --quiet prove "$tmp/b.json" -o "$tmp/out2" --metrics-file "$tmp/ok.prom" --report "$tmp/report.json" \
  >"$tmp/quiet.out" 2>"$tmp/quiet.err" || fail "prove --quiet exited $?"
[ ! -s "$tmp/quiet.err" ] || { cat "$tmp/quiet.err" >&2; fail "--quiet wrote to stderr"; }
grep -qx "32 $(od -An -tx1 -v "$tmp/out2/32.proof" | tr -d ' \n')" "$tmp/quiet.out" || fail "--quiet result line"
grep -q '^cuzk_last_run_success{engine="cpu",gpu=""} 1$' "$tmp/ok.prom" || fail "ok.prom: $(cat "$tmp/ok.prom")"
grep -q '^cuzk_phase_seconds{phase="params.load",engine="cpu",gpu=""} ' "$tmp/ok.prom" || fail "ok.prom: no params.load"
order="$(jq -r '.sectors[0].phases | keys_unsorted | join(" ")' "$tmp/report.json")"
[ "$order" = "parse validate synthesize inputs satisfied prove prove.h prove.msm_g1 prove.msm_g2 verify write" ] ||
  fail "report phases not in run order: $order"
[ "$(jq -r '.shared_phases | keys_unsorted[0:2] | join(" ")' "$tmp/report.json")" = "inputs.check params.header" ] ||
  fail "shared phases order: $(jq -c '.shared_phases | keys_unsorted' "$tmp/report.json")"

# An unusable --metrics-file path: exit 3 before any work, with a record per input all the same.
got=0
"$CUZK_BIN" prove --json --metrics-file "$tmp/no-such-dir/x.prom" -o "$tmp/out5" "$tmp/a.json" "$tmp/b.json" \
  >"$tmp/nometrics.jsonl" 2>"$tmp/nometrics.log" || got=$?
[ "$got" -eq 3 ] || { cat "$tmp/nometrics.log" >&2; fail "prove with an unusable --metrics-file exited $got, expected 3"; }
[ "$(wc -l <"$tmp/nometrics.jsonl")" -eq 2 ] || { cat "$tmp/nometrics.jsonl" >&2; fail "expected 2 records for an unusable --metrics-file"; }
sed -n 1p "$tmp/nometrics.jsonl" | jq -e '.status == "failed" and .error.exit_code == 3' >/dev/null ||
  fail "first record: $(sed -n 1p "$tmp/nometrics.jsonl")"

# 3. The example script of docs/integration.md, on the CPU, as documented, from a clean folder (its log and
# metrics folders do not exist yet): one good sector and a truncated one (not retried: kind "input"), exit 1
# with the bad one listed.
clean="$tmp/clean"
got=0
GPU=cpu CUZK="$CUZK_BIN" LOG_DIR="$clean/logs" METRICS_DIR="$clean/metrics" MAX_ATTEMPTS=2 \
  bash "$src/docs/examples/c2-batch.sh" "$clean/out" "$tmp/a.json" "$tmp/truncated.json" >"$tmp/batch.out" 2>&1 || got=$?
[ "$got" -eq 1 ] || { cat "$tmp/batch.out" "$clean/logs/c2-cpu.log" >&2; fail "c2-batch.sh exited $got, expected 1"; }
grep -q "^proven $tmp/a.json -> .*/31.proof$" "$tmp/batch.out" || { cat "$tmp/batch.out" >&2; fail "c2-batch.sh did not report the proof"; }
grep -qx "$tmp/truncated.json input" "$clean/out/failed.txt" || fail "c2-batch.sh failed.txt: $(cat "$clean/out/failed.txt")"
[ ! -e "$clean/out/results-2.jsonl" ] || fail "c2-batch.sh retried an input error"
[ -s "$clean/metrics/cuzk-c2-cpu.prom" ] || fail "c2-batch.sh wrote no metrics"
"$CUZK_BIN" verify "$clean/out/31.proof" --c1 "$tmp/a.json" >/dev/null 2>&1 || fail "c2-batch.sh proof does not verify"
# cuzk refusing its arguments (exit 2, no record) is final: no second attempt, no pause, the exit status as
# the reason.
got=0
start=$(date +%s)
GPU=cpu CUZK="$CUZK_BIN" LOG_DIR="$tmp/logs2" CUZK_FLAGS="--no-such-flag" MAX_ATTEMPTS=3 \
  bash "$src/docs/examples/c2-batch.sh" "$tmp/out4" "$tmp/a.json" >"$tmp/batch2.out" 2>&1 || got=$?
[ "$got" -eq 1 ] || { cat "$tmp/batch2.out" >&2; fail "c2-batch.sh with a refused flag exited $got, expected 1"; }
grep -qx "$tmp/a.json exit 2" "$tmp/out4/failed.txt" || fail "c2-batch.sh failed.txt after exit 2: $(cat "$tmp/out4/failed.txt")"
[ ! -e "$tmp/out4/results-2.jsonl" ] || fail "c2-batch.sh retried after exit 2"
(($(date +%s) - start < 10)) || fail "c2-batch.sh paused after a final failure"
# docs/integration.md shows the script: its copy is the file.
awk '/^```bash$/ {on = 1; next} on && /^```$/ {exit} on' "$src/docs/integration.md" >"$tmp/doc-copy.sh"
cmp -s "$tmp/doc-copy.sh" "$src/docs/examples/c2-batch.sh" || {
  diff "$tmp/doc-copy.sh" "$src/docs/examples/c2-batch.sh" >&2
  fail "docs/integration.md's copy of c2-batch.sh differs from the file"
}
echo "operators CLI OK"
