#!/usr/bin/env bash
# PoRep C2 end to end on a 2KiB sector: gen-c1 (sealed for real) -> params setup (test
# parameters, cached in the build tree) -> prove -> verify with cuzk and with @noble/curves; then
# tampered C1 files (a label, a path element, the seed, a truncated file) are refused with their exit
# codes and leave no proof file behind; `--overlap on` (synthesis beside proving) gives verifying proofs
# and the same error order; `cuzk bench` and `cuzk compare` on the same sector.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
src="${CUZK_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
verify="$src/scripts/noble/verify.mjs"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with `make demo`; made once per build tree

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v node >/dev/null 2>&1 || fail "node is not installed (run scripts/install-deps.sh)"
[ -d "$src/scripts/noble/node_modules/@noble/curves" ] || fail "@noble/curves missing (run scripts/install-deps.sh)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"
# The streamed setup (pce/test_setup.hpp) writes the size that bellperson's densities give, the size the
# in-memory generate_parameters wrote for 2KiB before it.
params_file="$params/$("$CUZK_BIN" params names --sector-size 2KiB | awk '/\.params$/ {print $2}')"
[ "$(stat -c %s "$params_file")" -eq 1114707768 ] || fail "2KiB .params is $(stat -c %s "$params_file") bytes, not 1114707768"

"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 11 --sector-id 5 -o "$tmp/c1.json" || fail "gen-c1 exited $?"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 12 --sector-id 6 --envelope -o "$tmp/c1-env.json" || fail "gen-c1 --envelope"

"$CUZK_BIN" prove "$tmp/c1.json" "$tmp/c1-env.json" -o "$tmp/out" --params-dir "$params" --dump-public-inputs \
  --report "$tmp/report.json" >"$tmp/prove.txt" || fail "prove exited $?"
[ "$(stat -c %s "$tmp/out/c1.proof")" -eq 192 ] || fail "c1.proof is not 192 bytes"
[ "$(stat -c %s "$tmp/out/6.proof")" -eq 192 ] || fail "6.proof (envelope, sector 6) is not 192 bytes"
grep -q "^c1 $(od -An -tx1 -v "$tmp/out/c1.proof" | tr -d ' \n')\$" "$tmp/prove.txt" || fail "printed hex differs from the file"
grep -q '"verified": true' "$tmp/report.json" || fail "report does not say verified"
# The run report is comparable on its own: format, date, build, machine, environment, command line.
jq -e '.format == "cuzk-prove-1" and (.date | test("^20[0-9-]+T[0-9:]+Z$")) and (.commit | length > 0)
  and (.system.hardware_threads > 0) and (.system.load_average | length == 3) and (.system.host | length > 0)
  and (.environment | type == "object") and (.command_line | index("prove") != null)' "$tmp/report.json" >/dev/null ||
  fail "run report lacks its context: $(jq -c '{format, date, commit, system, environment, command_line}' "$tmp/report.json")"

"$CUZK_BIN" verify "$tmp/out/c1.proof" --c1 "$tmp/c1.json" --params-dir "$params" || fail "cuzk verify rejected the proof"
vk="$params/$("$CUZK_BIN" params names --sector-size 2KiB | awk '/\.vk$/ {print $2}')"
node "$verify" "$vk" "$tmp/out/c1.proof" "$tmp/out/c1.inputs.json" || fail "@noble/curves rejected the proof"
node "$verify" "$vk" "$tmp/out/6.proof" "$tmp/out/6.inputs.json" || fail "@noble/curves rejected the envelope proof"
# The proof of one sector must not verify against the other's inputs.
if node "$verify" "$vk" "$tmp/out/c1.proof" "$tmp/out/6.inputs.json" >/dev/null 2>&1; then
  fail "@noble/curves accepted a proof against another sector's inputs"
fi
if "$CUZK_BIN" verify "$tmp/out/c1.proof" --c1 "$tmp/c1-env.json" --params-dir "$params" >/dev/null 2>&1; then
  fail "cuzk verify accepted a proof against another sector"
fi

# tamper NAME JS-EXPRESSION: writes $tmp/NAME.json, a copy of c1.json with one change.
tamper() {
  node -e '
    const fs = require("fs");
    const c = JSON.parse(fs.readFileSync(process.argv[1]));
    const p = c.vanilla_proofs.StackedDrg2KiBV1[0][0];
    eval(process.argv[3]);
    fs.writeFileSync(process.argv[2], JSON.stringify(c));' "$tmp/c1.json" "$tmp/$1.json" "$2"
}
# expect_refusal NAME CODE: prove must exit CODE and write nothing.
expect_refusal() {
  local got=0
  "$CUZK_BIN" prove "$tmp/$1.json" -o "$tmp/bad-$1" --params-dir "$params" >"$tmp/bad.txt" 2>&1 || got=$?
  [ "$got" -eq "$2" ] || { cat "$tmp/bad.txt" >&2; fail "$1: prove exited $got, expected $2"; }
  [ -z "$(ls -A "$tmp/bad-$1" 2>/dev/null)" ] || fail "$1: a file was left in the output directory"
  grep -q "$tmp/$1.json" "$tmp/bad.txt" || fail "$1: the error does not name the file"
}
tamper label 'p.replica_column_proofs.drg_parents[0].column.rows[0][0] ^= 1'
expect_refusal label 7
tamper path 'p.comm_r_last_proof.data.Single.path.path[0].hashes[0][0] ^= 1'
expect_refusal path 7
tamper seed 'c.seed[0] ^= 1'
expect_refusal seed 7
head -c 3000 "$tmp/c1.json" >"$tmp/truncated.json"
expect_refusal truncated 3

# --overlap on (here on the CPU): the second sector is synthesized while the first is proven. Both proofs
# verify and the report says it overlapped; an error in the second sector still comes after the first
# sector's proof is written, as it does without overlap.
"$CUZK_BIN" prove "$tmp/c1.json" "$tmp/c1-env.json" -o "$tmp/overlap" --params-dir "$params" --overlap on \
  --report "$tmp/overlap.json" >/dev/null 2>&1 || fail "prove --overlap on exited $?"
grep -q '"overlap": true' "$tmp/overlap.json" || fail "the --overlap report does not say overlap"
"$CUZK_BIN" verify "$tmp/overlap/c1.proof" --c1 "$tmp/c1.json" --params-dir "$params" >/dev/null 2>&1 ||
  fail "the --overlap proof of c1 does not verify"
"$CUZK_BIN" verify "$tmp/overlap/6.proof" --c1 "$tmp/c1-env.json" --params-dir "$params" >/dev/null 2>&1 ||
  fail "the --overlap proof of sector 6 does not verify"
got=0
"$CUZK_BIN" prove "$tmp/c1.json" "$tmp/seed.json" -o "$tmp/overlap-bad" --params-dir "$params" --overlap on \
  >"$tmp/overlap-bad.txt" 2>&1 || got=$?
[ "$got" -eq 7 ] || { cat "$tmp/overlap-bad.txt" >&2; fail "--overlap with a tampered second sector exited $got, expected 7"; }
[ "$(stat -c %s "$tmp/overlap-bad/c1.proof" 2>/dev/null)" = 192 ] || fail "--overlap: the first sector's proof was not written"
[ ! -e "$tmp/overlap-bad/seed.proof" ] || fail "--overlap: the tampered sector left a proof"
grep -q "$tmp/seed.json" "$tmp/overlap-bad.txt" || fail "--overlap: the error does not name the tampered file"
# Three partitions synthesized at once (--synthesis-workers 3) with overlap: the same verifying proofs, in
# order, and the same error order (the first sector's proof written, the tampered one named, exit 7).
"$CUZK_BIN" prove "$tmp/c1.json" "$tmp/c1-env.json" -o "$tmp/workers" --params-dir "$params" --overlap on \
  --synthesis-workers 3 --report "$tmp/workers.json" >"$tmp/workers.txt" 2>/dev/null ||
  fail "prove --synthesis-workers 3 exited $?"
# Its timeline, drawn: one box per step (two partitions: synthesize, inputs, satisfied, three prove steps).
"$CUZK_BIN" report timeline "$tmp/workers.json" -o "$tmp/workers.svg" >/dev/null || fail "report timeline exited $?"
[ "$(grep -c "<title>synthesize " "$tmp/workers.svg")" -eq 2 ] || fail "the timeline lacks the two synthesis boxes"
[ "$(grep -c "<title>prove.msm_g1 " "$tmp/workers.svg")" -eq 2 ] || fail "the timeline lacks the two MSM boxes"
[ "$(awk '{print $1}' "$tmp/workers.txt" | tr '\n' ' ')" = "c1 6 " ] || fail "--synthesis-workers: outputs out of order"
"$CUZK_BIN" verify "$tmp/workers/c1.proof" --c1 "$tmp/c1.json" --params-dir "$params" >/dev/null 2>&1 ||
  fail "the --synthesis-workers proof of c1 does not verify"
"$CUZK_BIN" verify "$tmp/workers/6.proof" --c1 "$tmp/c1-env.json" --params-dir "$params" >/dev/null 2>&1 ||
  fail "the --synthesis-workers proof of sector 6 does not verify"
got=0
"$CUZK_BIN" prove "$tmp/c1.json" "$tmp/seed.json" -o "$tmp/workers-bad" --params-dir "$params" --overlap on \
  --synthesis-workers 3 >"$tmp/workers-bad.txt" 2>&1 || got=$?
[ "$got" -eq 7 ] || { cat "$tmp/workers-bad.txt" >&2; fail "--synthesis-workers with a tampered second sector exited $got, expected 7"; }
[ "$(stat -c %s "$tmp/workers-bad/c1.proof" 2>/dev/null)" = 192 ] || fail "--synthesis-workers: the first sector's proof was not written"
[ ! -e "$tmp/workers-bad/seed.proof" ] || fail "--synthesis-workers: the tampered sector left a proof"
# --gpu never falls back to the CPU: without a usable GPU (or CUDA) it is exit 8 and nothing is written;
# with one, the proof must verify like the CPU's.
if "$CUZK_BIN" info --json | node -e 'const j = JSON.parse(require("fs").readFileSync(0)); process.exit(j.gpus.length ? 0 : 1)'; then
  "$CUZK_BIN" prove "$tmp/c1.json" -o "$tmp/gpu" --params-dir "$params" >/dev/null 2>&1 --gpu || fail "prove --gpu exited $?"
  "$CUZK_BIN" verify "$tmp/gpu/c1.proof" --c1 "$tmp/c1.json" --params-dir "$params" || fail "the --gpu proof does not verify"
else
  got=0
  "$CUZK_BIN" prove "$tmp/c1.json" -o "$tmp/gpu" --params-dir "$params" --gpu >"$tmp/gpu.txt" 2>&1 || got=$?
  [ "$got" -eq 8 ] || { cat "$tmp/gpu.txt" >&2; fail "prove --gpu without a GPU exited $got, expected 8"; }
  grep -qi "gpu" "$tmp/gpu.txt" || fail "prove --gpu without a GPU did not say why"
  [ -z "$(ls -A "$tmp/gpu" 2>/dev/null)" ] || fail "prove --gpu without a GPU left a file behind"
fi

# Regression runs: `cuzk bench` proves again (one counted run) and writes a report that `cuzk compare`
# reads, as it reads prove's report; a phase made 50% slower is a regression (exit 10), a file that is
# not a report is an input error (exit 3).
"$CUZK_BIN" bench "$tmp/c1.json" --params-dir "$params" --reps 1 --warmup 0 --report "$tmp/bench.json" \
  >"$tmp/bench.txt" || fail "bench exited $?"
grep -q '"format": "cuzk-bench-1"' "$tmp/bench.json" || fail "bench report has no format tag"
grep -q '^prove.msm_g1 ' "$tmp/bench.txt" || fail "bench printed no prove.msm_g1 row"
"$CUZK_BIN" compare "$tmp/report.json" "$tmp/bench.json" --threshold 1000 >/dev/null || fail "compare prove vs bench exited $?"
node -e '
  const fs = require("fs");
  const j = JSON.parse(fs.readFileSync(process.argv[1]));
  j.phases["prove.msm_g1"].median_s *= 1.5;
  fs.writeFileSync(process.argv[2], JSON.stringify(j));' "$tmp/bench.json" "$tmp/bench-slow.json"
# One run a side is noise: shown and warned about, not judged (exit 0), unless asked for.
"$CUZK_BIN" compare "$tmp/bench.json" "$tmp/bench-slow.json" --threshold 10 >"$tmp/compare.txt" 2>&1 ||
  { cat "$tmp/compare.txt" >&2; fail "compare of single runs judged them (exit $?)"; }
grep -q "not judged: 1 run(s) against 1" "$tmp/compare.txt" || { cat "$tmp/compare.txt" >&2; fail "compare of single runs gave no warning"; }
grep -q "prove.msm_g1.*(slower)" "$tmp/compare.txt" || fail "compare did not show the slower phase"
got=0
"$CUZK_BIN" compare "$tmp/bench.json" "$tmp/bench-slow.json" --threshold 10 --judge-single-runs >"$tmp/compare.txt" 2>&1 || got=$?
[ "$got" -eq 10 ] || { cat "$tmp/compare.txt" >&2; fail "compare --judge-single-runs of a 50% slower phase exited $got, expected 10"; }
grep -q "prove.msm_g1.*REGRESSION" "$tmp/compare.txt" || fail "compare did not name the slower phase"
"$CUZK_BIN" compare "$tmp/bench.json" "$tmp/bench.json" >/dev/null || fail "compare of a report with itself exited $?"
# Five runs a side: the Mann-Whitney U test judges too. Run-to-run noise whose medians differ by 8% is not a
# regression; every run 20% slower is (p = 2/252).
node -e '
  const fs = require("fs");
  const report = (samples) => ({tool: "cuzk", format: "cuzk-bench-1", phases: Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [k, {median_s: [...v].sort()[2], samples_s: v}]))});
  fs.writeFileSync(process.argv[1], JSON.stringify(report({prove: [1.0, 1.2, 0.9, 1.1, 1.01]})));
  fs.writeFileSync(process.argv[2], JSON.stringify(report({prove: [1.06, 0.95, 1.15, 1.09, 1.2]})));
  fs.writeFileSync(process.argv[3], JSON.stringify(report({prove: [1.3, 1.45, 1.25, 1.35, 1.33]})));
' "$tmp/runs-base.json" "$tmp/runs-noisy.json" "$tmp/runs-slow.json"
"$CUZK_BIN" compare "$tmp/runs-base.json" "$tmp/runs-noisy.json" >"$tmp/compare.txt" 2>&1 ||
  { cat "$tmp/compare.txt" >&2; fail "compare flagged run-to-run noise (exit $?)"; }
grep -q "^prove .*p=" "$tmp/compare.txt" || fail "compare printed no U-test p-value for five runs a side"
got=0
"$CUZK_BIN" compare "$tmp/runs-base.json" "$tmp/runs-slow.json" >"$tmp/compare.txt" 2>&1 || got=$?
[ "$got" -eq 10 ] || { cat "$tmp/compare.txt" >&2; fail "compare of five clearly slower runs exited $got, expected 10"; }
grep -q "^prove .*p=0.008.*REGRESSION" "$tmp/compare.txt" || fail "compare did not flag the slower runs with their p-value"
got=0
"$CUZK_BIN" compare "$tmp/c1.json" "$tmp/bench.json" >"$tmp/compare.txt" 2>&1 || got=$?
[ "$got" -eq 3 ] || fail "compare of a C1 file exited $got, expected 3"
echo "2KiB end to end OK"
