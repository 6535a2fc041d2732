#!/usr/bin/env bash
# `cuzk prove --dry-run` and the memory plan for SnapDeals update inputs (docs/update.md "Planning a run"), on a
# machine without a GPU: a 32GiB update input planned at 80 and 16 GiB of device memory from the built-in
# update circuit figures (exit 0, nothing created), at 4 GiB and on the CPU of a 64 GiB host refused (exit 8);
# with the 2KiB update parameters there, their vector lengths equal the ones derived from the circuit; a mixed
# run lists both kinds; a damaged update input is refused (exit 3); a real update run that does not fit the
# host is refused before any synthesis (exit 8, nothing written) and one that fits records its plan.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with the other 2KiB script tests
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || fail "jq is not installed (run scripts/install-deps.sh)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
gib=$((1 << 30))

"$CUZK_BIN" gen-update --sector-size 32GiB --sector-id 9 -o "$tmp/u32.json" >/dev/null 2>&1 || fail "gen-update 32GiB"
dry() { "$CUZK_BIN" prove --dry-run --params-dir "$tmp/no-params" --pce-cache-dir "$tmp/no-pce" -o "$tmp/out" "$@"; }

# 80 GiB: the update circuit's 2^27 domain and 81 M aux variables from the built-in table; fits.
CUZK_TEST_MEM_AVAILABLE=256GiB dry --gpu --gpu-memory 80GiB --json "$tmp/u32.json" >"$tmp/80.json" 2>"$tmp/80.log" ||
  { cat "$tmp/80.log" >&2; fail "--dry-run of a 32GiB update input at 80GiB exited $?"; }
[ "$(wc -l <"$tmp/80.json")" -eq 1 ] || fail "--dry-run --json printed more than one line: $(cat "$tmp/80.json")"
jq -e --arg u "$tmp/u32.json" --arg proof "$tmp/out/9.proof" '
  .schema == "cuzk.prove.dry-run/1" and .fits == true and .circuit == "32GiB update"
  and (.sectors | length) == 1 and .sectors[0].sector == "9" and .sectors[0].c1 == $u
  and .sectors[0].proof_type == "StackedDrg32GiBV1" and .sectors[0].partitions == 16
  and .sectors[0].proof_file == $proof
  and ([.device.vectors[].name] == ["h", "l", "a", "b_g1", "b_g2"])
  and .device.vectors[0].count == 134217727 and .device.vectors[1].count == 80978488 and .device.fits
  and .host.synthesis_workers == 1 and .host_bytes == .host.total and .host.fits
  and (.notes | any(test("no update parameters for 32GiB")))
  and (.notes | any(test("32GiB update circuit: 81049499 constraints, 5 inputs, 80978488 aux from the built-in table")))' \
  "$tmp/80.json" >/dev/null || fail "--dry-run at 80GiB: $(cat "$tmp/80.json")"
[ ! -e "$tmp/out" ] || fail "--dry-run created the output folder"
[ ! -e "$tmp/no-pce" ] || fail "--dry-run created the PCE cache folder"

# 16 GiB on a 64 GiB host: some vector streamed, the plan within both.
CUZK_TEST_MEM_AVAILABLE=64GiB dry --gpu --gpu-memory 16GiB --json "$tmp/u32.json" >"$tmp/16.json" 2>"$tmp/16.log" ||
  { cat "$tmp/16.log" >&2; fail "--dry-run at 16GiB exited $?"; }
jq -e --argjson gib "$gib" '.fits and .host_bytes <= 64 * $gib and .device.need_bytes <= .device.budget_bytes
  and ([.device.vectors[] | select(.resident | not)] | length) > 0' "$tmp/16.json" >/dev/null ||
  fail "--dry-run at 16GiB: $(cat "$tmp/16.json")"

# 4 GiB: exit 8, the plan printed and the message naming the update circuit.
got=0
CUZK_TEST_MEM_AVAILABLE=256GiB dry --gpu --gpu-memory 4GiB "$tmp/u32.json" >"$tmp/4.txt" 2>"$tmp/4.log" || got=$?
[ "$got" -eq 8 ] || { cat "$tmp/4.log" >&2; fail "--dry-run at 4GiB exited $got, expected 8"; }
grep -q "GPU plan for 32GiB update sectors" "$tmp/4.txt" || fail "the plan at 4GiB is not printed: $(cat "$tmp/4.txt")"
grep -q "32GiB update circuit" "$tmp/4.log" || fail "the refusal does not name the circuit: $(cat "$tmp/4.log")"

# The CPU engine holds the decoded update parameters (~35 GiB): with two partitions beside them they do not
# fit a 32 GiB host.
got=0
CUZK_TEST_MEM_AVAILABLE=32GiB dry --json "$tmp/u32.json" >"$tmp/cpu.json" 2>"$tmp/cpu.log" || got=$?
[ "$got" -eq 8 ] || { cat "$tmp/cpu.log" >&2; fail "--dry-run on the CPU exited $got, expected 8"; }
jq -e '(has("device") | not) and (.fits | not) and .host.parts.parameters > 30 * 1073741824' "$tmp/cpu.json" \
  >/dev/null || fail "--dry-run on the CPU: $(cat "$tmp/cpu.json")"

# A damaged update input: the same up-front refusal as a real run (exit 3, naming the file).
head -c 3000 "$tmp/u32.json" >"$tmp/truncated.json"
got=0
dry --gpu --gpu-memory 80GiB "$tmp/truncated.json" >/dev/null 2>"$tmp/trunc.log" || got=$?
[ "$got" -eq 3 ] || { cat "$tmp/trunc.log" >&2; fail "--dry-run of a truncated update input exited $got, expected 3"; }
grep -q "truncated.json" "$tmp/trunc.log" || fail "the refusal does not name the file: $(cat "$tmp/trunc.log")"

# With the real 2KiB update parameters: their lengths are the plan's, and equal the derived ones.
# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_update_params "$params" || fail "params setup --circuit update exited $?"
shared_test_params "$params" >/dev/null 2>&1 || fail "params setup exited $?"
"$CUZK_BIN" gen-update --sector-id 11 --seed 3 -o "$tmp/u2.json" >/dev/null 2>&1 || fail "gen-update 2KiB"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 4 -o "$tmp/c1.json" >/dev/null 2>&1 || fail "gen-c1 2KiB"
CUZK_TEST_MEM_AVAILABLE=64GiB dry --gpu --gpu-memory 16GiB --json "$tmp/u2.json" >"$tmp/derived.json" ||
  fail "--dry-run of the 2KiB update input without parameters"
CUZK_TEST_MEM_AVAILABLE=64GiB "$CUZK_BIN" prove --dry-run --params-dir "$params" --pce-cache-dir "$tmp/no-pce" \
  -o "$tmp/out" --gpu --gpu-memory 16GiB --json "$tmp/u2.json" >"$tmp/real.json" ||
  fail "--dry-run of the 2KiB update input with its parameters"
jq -e '.notes | any(test("base vectors from .*empty-sector-update.*\\.params"))' "$tmp/real.json" >/dev/null ||
  fail "the plan does not take the .params lengths: $(cat "$tmp/real.json")"
[ "$(jq -c '[.device.vectors[] | .count]' "$tmp/real.json")" = "$(jq -c '[.device.vectors[] | .count]' "$tmp/derived.json")" ] ||
  fail "the 2KiB update .params lengths differ from the derived ones: $(jq -c .device.vectors "$tmp/real.json") against $(jq -c .device.vectors "$tmp/derived.json")"

# A mixed run: both sectors listed (the C1 file's first, as they are proven), the PoRep circuit the larger
# host plan at 2KiB; an update input and a C1 file that write the same proof file are refused (exit 2).
CUZK_TEST_MEM_AVAILABLE=64GiB "$CUZK_BIN" prove --dry-run --params-dir "$params" -o "$tmp/out" --json \
  "$tmp/u2.json" "$tmp/c1.json" >"$tmp/mixed.json" || fail "--dry-run of a mixed run exited $?"
jq -e '(.sectors | map(.sector)) == ["c1", "11"] and .fits and (.notes | length) >= 2' "$tmp/mixed.json" \
  >/dev/null || fail "--dry-run of a mixed run: $(cat "$tmp/mixed.json")"
"$CUZK_BIN" gen-update --sector-id 1 --seed 3 -o "$tmp/u_same.json" >/dev/null 2>&1 || fail "gen-update sector 1"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 4 --sector-id 1 --envelope -o "$tmp/c1_same.json" >/dev/null 2>&1 ||
  fail "gen-c1 sector 1"
got=0
"$CUZK_BIN" prove --dry-run --params-dir "$params" -o "$tmp/out" "$tmp/u_same.json" "$tmp/c1_same.json" \
  >/dev/null 2>"$tmp/same.log" || got=$?
[ "$got" -eq 2 ] || { cat "$tmp/same.log" >&2; fail "a mixed dry run writing one proof twice exited $got, expected 2"; }

# A real update run on a host that does not hold it: exit 8 before any synthesis, nothing written; on the
# real host it is proven and its plan is in the report.
export CUZK_PCE_CACHE="$tmp/pce"
got=0
CUZK_TEST_MEM_AVAILABLE=256MiB "$CUZK_BIN" prove --params-dir "$params" -o "$tmp/small" "$tmp/u2.json" \
  >"$tmp/small.txt" 2>&1 || got=$?
[ "$got" -eq 8 ] || { cat "$tmp/small.txt" >&2; fail "an update run that does not fit the host exited $got, expected 8"; }
grep -q "2KiB update circuit needs about" "$tmp/small.txt" || fail "the refusal: $(cat "$tmp/small.txt")"
if grep -q "synthesizing" "$tmp/small.txt"; then fail "the refused update run started synthesis"; fi
[ ! -e "$tmp/small/11.proof" ] || fail "the refused update run wrote a proof"
"$CUZK_BIN" prove --params-dir "$params" -o "$tmp/ok" --report "$tmp/ok.json" "$tmp/u2.json" >/dev/null 2>"$tmp/ok.log" ||
  { cat "$tmp/ok.log" >&2; fail "the 2KiB update run failed"; }
jq -e '.memory_plan.sector_size == "2KiB update" and .memory_plan.fits and .memory_plan.host.synthesis_workers == 1
  and (.memory_plan | has("device") | not)' "$tmp/ok.json" >/dev/null ||
  fail "the report's memory_plan: $(jq -c .memory_plan "$tmp/ok.json")"
grep -q "memory plan, 2KiB update host" "$tmp/ok.log" || fail "the plan is not logged"
[ -s "$tmp/ok/11.proof" ] || fail "the update run wrote no proof"
echo "ok: update dry runs at 80, 16 and 4 GiB and on the CPU, .params lengths, mixed runs, refused and recorded real runs"
