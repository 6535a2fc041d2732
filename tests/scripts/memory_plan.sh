#!/usr/bin/env bash
# The run's memory plan (docs/large-sectors.md "Planning a run") on a machine without a GPU and
# without 32GiB parameters: `cuzk prove --dry-run` on a 32GiB C1 file prints the sectors and the device and
# host plans (80 GiB: every base vector resident; a 16 GiB card on a 64 GiB host: one synthesis worker fits;
# 4 GiB: exit 8 naming the numbers), needs a budget for --gpu when no GPU is visible (exit 2), and creates
# nothing; a real 2KiB run that does not fit the host (CUZK_TEST_MEM_AVAILABLE, test only) is refused with
# exit 8 before any synthesis, and a run that fits records its plan in the report.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with porep_2kib_e2e.sh and `make demo`
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || fail "jq is not installed (run scripts/install-deps.sh)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
gib=$((1 << 30))

# A valid 32GiB C1 file (the sparse construction: only the challenged nodes are materialized).
"$CUZK_BIN" gen-c1 --sector-size 32GiB --sector-id 7 --envelope -o "$tmp/s32.json" >/dev/null 2>&1 || fail "gen-c1 32GiB"
dry() { "$CUZK_BIN" prove --dry-run --params-dir "$tmp/no-params" --pce-cache-dir "$tmp/no-pce" -o "$tmp/out" "$@"; }

# 80 GiB, less the 1400 MiB that CUDA holds by the estimate where no GPU is visible: the constraints on the
# device and every base vector resident but b_g1 at most (3 of 44 GiB; the planner streams it rather than
# run the MSMs in ranges four times shorter); exit 0. Missing parameters are a note.
CUZK_TEST_MEM_AVAILABLE=256GiB dry --gpu --gpu-memory 80GiB --json "$tmp/s32.json" >"$tmp/80.json" 2>"$tmp/80.log" ||
  { cat "$tmp/80.log" >&2; fail "--dry-run at 80GiB exited $?"; }
[ "$(wc -l <"$tmp/80.json")" -eq 1 ] || fail "--dry-run --json printed more than one line: $(cat "$tmp/80.json")"
jq -e --arg c1 "$tmp/s32.json" --arg proof "$tmp/out/7.proof" --argjson gib "$gib" '
  .schema == "cuzk.prove.dry-run/1" and .fits == true
  and (.sectors | length) == 1 and .sectors[0].sector == "7" and .sectors[0].c1 == $c1
  and .sectors[0].sector_size == "32GiB" and .sectors[0].partitions == 10 and .sectors[0].proof_file == $proof
  and ([.device.vectors[].name] == ["h", "l", "a", "b_g1", "b_g2"])
  and ([.device.vectors[] | select(.resident | not) | .name] - ["b_g1"] | length) == 0
  and .device.budget_bytes == 80 * $gib - 1400 * 1048576 and .device.need_bytes <= .device.budget_bytes and .device.fits
  and .device.constraints_on_device and .device.vectors[0].count == 134217727
  and .host_bytes == .host.total and .host.fits and .host.synthesis_workers == 2
  and (.notes | any(test("no Groth16 parameters for 32GiB")))' "$tmp/80.json" >/dev/null ||
  fail "--dry-run at 80GiB: $(cat "$tmp/80.json")"
[ ! -e "$tmp/out" ] || fail "--dry-run created the output folder"
[ ! -e "$tmp/no-pce" ] || fail "--dry-run created the PCE cache folder"

# A 16 GiB card on a 64 GiB host: bases streamed, the H step in two buffers, one synthesis worker; the host
# plan fits 64 GiB.
CUZK_TEST_MEM_AVAILABLE=64GiB dry --gpu --gpu-memory 16GiB --json "$tmp/s32.json" >"$tmp/16.json" 2>"$tmp/16.log" ||
  { cat "$tmp/16.log" >&2; fail "--dry-run at 16GiB exited $?"; }
jq -e --argjson gib "$gib" '.fits and .host_bytes <= 64 * $gib and .host.synthesis_workers == 1
  and ([.device.vectors[] | select(.name == "h")][0].resident | not) and .device.h_step_buffers == 2' \
  "$tmp/16.json" >/dev/null ||
  fail "--dry-run at 16GiB: $(cat "$tmp/16.json")"

# --host-memory caps the host plan below MemAvailable: at 24 GiB on a 125 GiB host capped at 64 GiB, one
# synthesis worker and the partitions unpaired, within the cap; capped at 16 GiB, exit 8 naming the flag;
# a cap that is not a size is a usage error.
CUZK_TEST_MEM_AVAILABLE=125GiB dry --gpu --gpu-memory 24GiB --host-memory 64GiB --json "$tmp/s32.json" \
  >"$tmp/capped.json" 2>"$tmp/capped.log" || { cat "$tmp/capped.log" >&2; fail "--host-memory 64GiB exited $?"; }
jq -e --argjson gib "$gib" '.fits and .host.available == 64 * $gib and .host_bytes <= 64 * $gib
  and .host.synthesis_workers == 1 and .device.witness_batch == 1' "$tmp/capped.json" >/dev/null ||
  fail "--host-memory 64GiB: $(cat "$tmp/capped.json")"
got=0
CUZK_TEST_MEM_AVAILABLE=125GiB dry --gpu --gpu-memory 24GiB --host-memory 16GiB "$tmp/s32.json" >/dev/null \
  2>"$tmp/cap16.log" || got=$?
[ "$got" -eq 8 ] || { cat "$tmp/cap16.log" >&2; fail "--host-memory 16GiB exited $got, expected 8"; }
grep -q "are available (--host-memory)" "$tmp/cap16.log" || fail "the refusal does not name --host-memory: $(cat "$tmp/cap16.log")"
got=0
dry --host-memory lots "$tmp/s32.json" >/dev/null 2>&1 || got=$?
[ "$got" -eq 2 ] || fail "--host-memory lots exited $got, expected 2"

# 4 GiB holds not even the H step: exit 8, the message naming what is needed and the budget (4 GiB less
# CUDA's 1400 MiB).
got=0
CUZK_TEST_MEM_AVAILABLE=256GiB dry --gpu --gpu-memory 4GiB "$tmp/s32.json" >"$tmp/4.txt" 2>"$tmp/4.log" || got=$?
[ "$got" -eq 8 ] || { cat "$tmp/4.log" >&2; fail "--dry-run at 4GiB exited $got, expected 8"; }
grep -q "does NOT fit" "$tmp/4.txt" || fail "the plan at 4GiB is not printed: $(cat "$tmp/4.txt")"
grep -q "the budget is 2.6 GiB (2826960896 bytes, --gpu-memory less 1.37 GiB that CUDA holds" "$tmp/4.log" ||
  fail "the message does not name the budget: $(cat "$tmp/4.log")"
grep -qE "needs at least [0-9]+\.[0-9] GiB" "$tmp/4.log" || fail "the message does not name the need: $(cat "$tmp/4.log")"
grep -qE -- "--gpu-memory [0-9]+GiB or more" "$tmp/4.log" || fail "the message does not say what would fit: $(cat "$tmp/4.log")"

# --gpu without a budget and without a visible GPU: a usage error.
if ! "$CUZK_BIN" info --json | jq -e '.gpus | length > 0' >/dev/null 2>&1; then
  got=0
  dry --gpu "$tmp/s32.json" >/dev/null 2>"$tmp/nobudget.log" || got=$?
  [ "$got" -eq 2 ] || { cat "$tmp/nobudget.log" >&2; fail "--dry-run --gpu without a budget exited $got, expected 2"; }
  grep -q -- "--gpu-memory" "$tmp/nobudget.log" || fail "the usage error does not ask for --gpu-memory"
fi

# The CPU engine: the decoded parameters count; ~100 GiB at 32GiB does not fit a 64 GiB host.
got=0
CUZK_TEST_MEM_AVAILABLE=64GiB dry --json "$tmp/s32.json" >"$tmp/cpu.json" 2>"$tmp/cpu.log" || got=$?
[ "$got" -eq 8 ] || { cat "$tmp/cpu.log" >&2; fail "--dry-run on the CPU at 32GiB exited $got, expected 8"; }
jq -e '(has("device") | not) and (.fits | not) and .host.parts.parameters > 0' "$tmp/cpu.json" >/dev/null ||
  fail "--dry-run on the CPU: $(cat "$tmp/cpu.json")"

# A malformed C1 file is refused by the same up-front checks as a real run.
head -c 3000 "$tmp/s32.json" >"$tmp/truncated.json"
got=0
dry --gpu --gpu-memory 80GiB "$tmp/truncated.json" >/dev/null 2>&1 || got=$?
[ "$got" -eq 3 ] || fail "--dry-run of a truncated C1 file exited $got, expected 3"

# A real 2KiB run on a host that does not hold it: exit 8 before any synthesis, nothing written.
# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"
# bellperson's layout rule (job/prover_shape.hpp) against these real 2KiB parameters: the unit test that
# ctest may have run (and skipped) before they existed, now required to run.
shape_test="${CUZK_BINARY_DIR:-}/tests/test_prover_shape"
[ -x "$shape_test" ] || fail "$shape_test is not built"
CUZK_REQUIRE_TEST_PARAMS=1 "$shape_test" --gtest_filter=ProverShape.DerivedLengthsMatchThe2KiBTestParameters   >"$tmp/shape.txt" 2>&1 || { cat "$tmp/shape.txt" >&2; fail "the 2KiB parameter lengths differ from the derived ones"; }
grep -q "\[  PASSED  \] 1 test" "$tmp/shape.txt" || { cat "$tmp/shape.txt" >&2; fail "the layout test did not run"; }
export CUZK_PCE_CACHE="$tmp/pce"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 25 -o "$tmp/s2.json" >/dev/null 2>&1 || fail "gen-c1 2KiB"
got=0
CUZK_TEST_MEM_AVAILABLE=256MiB "$CUZK_BIN" prove --params-dir "$params" -o "$tmp/small" "$tmp/s2.json" \
  >"$tmp/small.txt" 2>&1 || got=$?
[ "$got" -eq 8 ] || { cat "$tmp/small.txt" >&2; fail "a run that does not fit the host exited $got, expected 8"; }
grep -qE "needs about [0-9.]+ GiB .*, 0.2 GiB \(268435456 bytes\) are available" "$tmp/small.txt" ||
  fail "the refusal does not name both numbers: $(cat "$tmp/small.txt")"
if grep -q "synthesizing" "$tmp/small.txt"; then fail "the refused run started synthesis"; fi
[ ! -e "$tmp/small/s2.proof" ] || fail "the refused run wrote a proof"

# The same run on the real host: proven, its plan in the report (one worker on the CPU).
"$CUZK_BIN" prove --params-dir "$params" -o "$tmp/ok" --report "$tmp/ok.json" "$tmp/s2.json" >/dev/null 2>"$tmp/ok.log" ||
  { cat "$tmp/ok.log" >&2; fail "the 2KiB run failed"; }
jq -e '.memory_plan.sector_size == "2KiB" and .memory_plan.fits and .memory_plan.host.synthesis_workers == 1
  and (.memory_plan | has("device") | not) and .synthesis_workers == 1' "$tmp/ok.json" >/dev/null ||
  fail "the report's memory_plan: $(jq -c .memory_plan "$tmp/ok.json")"
grep -q "memory plan, 2KiB host" "$tmp/ok.log" || fail "the plan is not logged"
# The memory series: [t_s, anon_bytes, device_bytes] rows in time order, anonymous memory in use, none above
# the run's peak.
jq -e '(.memory_series | length) >= 1 and all(.memory_series[]; length == 3 and .[1] > 0 and .[1] <= $peak)
  and ([.memory_series[][0]] == ([.memory_series[][0]] | sort))' --argjson peak "$(jq .peak_anon_bytes "$tmp/ok.json")" \
  "$tmp/ok.json" >/dev/null || fail "the report's memory_series: $(jq -c .memory_series "$tmp/ok.json")"
echo "ok: dry-run plans at 80, 16 and 4 GiB, CPU plan, refused and recorded real runs"
