#!/usr/bin/env bash
# Batches never lose good work, on 2KiB sectors with the test parameters of
# porep_2kib_e2e.sh: every input is checked before any heavy work (a malformed C1 file or a missing .vk
# ends the run before the first synthesis, nothing written); `--keep-going` proves every good sector of a
# batch that mixes good and bad ones, writes their proofs, lists each failed sector (which, why, exit
# code) in the report and exits with the first failure's code. Also: an unusable PCE cache (its folder a
# file, its path a directory) is rebuilt in memory with a warning unless --pce-readonly (exit 9), and the
# stale temporary files of killed runs are removed from the output folder.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with porep_2kib_e2e.sh and `make demo`
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v node >/dev/null 2>&1 || fail "node is not installed (run scripts/install-deps.sh)"

vk_name="$("$CUZK_BIN" params names --sector-size 2KiB | awk '/\.vk$/ {print $2}')"
params_name="$("$CUZK_BIN" params names --sector-size 2KiB | awk '/\.params$/ {print $2}')"
# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"
export CUZK_PCE_CACHE="$tmp/pce"  # one cache for the runs below that do not test the cache itself

"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 21 --sector-id 21 -o "$tmp/good1.json" >/dev/null 2>&1 || fail "gen-c1"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 22 --sector-id 22 --envelope -o "$tmp/good2.json" >/dev/null 2>&1 ||
  fail "gen-c1 --envelope"
head -c 3000 "$tmp/good1.json" >"$tmp/truncated.json"
node -e '
  const fs = require("fs");
  const c = JSON.parse(fs.readFileSync(process.argv[1]));
  c.seed[0] ^= 1;
  fs.writeFileSync(process.argv[2], JSON.stringify(c));' "$tmp/good1.json" "$tmp/tampered.json"
batch=("$tmp/good1.json" "$tmp/truncated.json" "$tmp/tampered.json" "$tmp/good2.json")

# Without --keep-going: the truncated file (second) ends the run before any synthesis; nothing is written.
got=0
"$CUZK_BIN" prove "${batch[@]}" -o "$tmp/strict" --params-dir "$params" >"$tmp/strict.txt" 2>&1 || got=$?
[ "$got" -eq 3 ] || { cat "$tmp/strict.txt" >&2; fail "a batch with a truncated file exited $got, expected 3"; }
grep -qF "$tmp/truncated.json" "$tmp/strict.txt" || fail "the error does not name the truncated file"
if grep -q "synthesizing" "$tmp/strict.txt"; then fail "synthesis started before every input was checked"; fi
[ -z "$(ls -A "$tmp/strict" 2>/dev/null)" ] || fail "the refused batch wrote $(ls "$tmp/strict")"

# A missing .vk is found up front too (it used to be found after a whole proof).
mkdir "$tmp/no-vk"
ln -s "$params/$params_name" "$tmp/no-vk/$params_name"
got=0
"$CUZK_BIN" prove "$tmp/good1.json" -o "$tmp/no-vk-out" --params-dir "$tmp/no-vk" >"$tmp/no-vk.txt" 2>&1 || got=$?
[ "$got" -eq 6 ] || { cat "$tmp/no-vk.txt" >&2; fail "a missing .vk exited $got, expected 6"; }
grep -qF "$vk_name" "$tmp/no-vk.txt" || fail "the error does not name the missing .vk"
if grep -q "synthesizing" "$tmp/no-vk.txt"; then fail "a missing .vk was found only after synthesis"; fi

# Stale temporaries of a killed run in the output folder: those of dead processes on this host go.
mkdir -p "$tmp/kg"
sh -c 'exit 0' &
dead=$!
wait "$dead"
stale=".good1.proof.tmp.$dead@$(uname -n).Ab12Cd"
live=".good1.proof.tmp.$$@$(uname -n).Ab12Cd"
echo partial >"$tmp/kg/$stale"
echo writing >"$tmp/kg/$live"

# --keep-going: both good sectors proven and written; the two bad ones reported; exit 3 (the first).
echo "not a folder" >"$tmp/pce-folder-is-a-file"
got=0
"$CUZK_BIN" prove "${batch[@]}" -o "$tmp/kg" --params-dir "$params" --keep-going --report "$tmp/kg.json" \
  --pce-cache-dir "$tmp/pce-folder-is-a-file" --gpu-price-per-hour 3.6 >"$tmp/kg.txt" 2>&1 || got=$?
[ "$got" -eq 3 ] || { cat "$tmp/kg.txt" >&2; fail "--keep-going exited $got, expected 3 (the first failure)"; }
[ "$(stat -c %s "$tmp/kg/good1.proof" 2>/dev/null)" = 192 ] || { cat "$tmp/kg.txt" >&2; fail "good1.proof missing"; }
[ "$(stat -c %s "$tmp/kg/22.proof" 2>/dev/null)" = 192 ] || fail "22.proof (good2) missing"
[ ! -e "$tmp/kg/truncated.proof" ] && [ ! -e "$tmp/kg/tampered.proof" ] || fail "a bad sector left a proof"
"$CUZK_BIN" verify "$tmp/kg/good1.proof" --c1 "$tmp/good1.json" --params-dir "$params" >/dev/null 2>&1 ||
  fail "good1.proof does not verify"
"$CUZK_BIN" verify "$tmp/kg/22.proof" --c1 "$tmp/good2.json" --params-dir "$params" >/dev/null 2>&1 ||
  fail "22.proof does not verify"
grep -q "PCE cache not written" "$tmp/kg.txt" || fail "no warning that the PCE cache could not be written"
[ ! -e "$tmp/kg/$stale" ] || fail "the stale temporary file was not removed"
[ -e "$tmp/kg/$live" ] || fail "the temporary file of a live process was removed"
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1]));
  const [dir] = process.argv.slice(2);
  const want = [[dir + "/truncated.json", "check", 3], [dir + "/tampered.json", "synthesize partition 0", 7]];
  // Failures in the shape of a --json record: error {kind, exit_code, message}.
  const got = r.failures.map(f => [f.c1, f.stage, f.error.exit_code]);
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    console.error("failures:", JSON.stringify(r.failures, null, 1)); process.exit(1);
  }
  if (!r.failures.every(f => f.error.message.includes(f.c1))) { console.error("an error does not name its file"); process.exit(1); }
  if (!r.failures.every(f => typeof f.error.kind === "string" && f.error.kind.length > 0)) {
    console.error("a failure without its kind"); process.exit(1);
  }
  if (r.failures[1].sector !== "tampered") { console.error("sector of the tampered file:", r.failures[1].sector); process.exit(1); }
  const proven = r.sectors.map(s => s.sector).join(",");
  if (proven !== "good1,22" || !r.sectors.every(s => s.verified)) { console.error("sectors:", proven); process.exit(1); }
' "$tmp/kg.json" "$tmp" || fail "the --keep-going report is wrong"
# A CPU run meters no GPU: the GPU figures are absent (not zero) with the reason; the cost is there, over the
# two proven sectors (docs/formats.md, "Run reports").
command -v jq >/dev/null 2>&1 || fail "jq is not installed (run scripts/install-deps.sh)"
jq -e '(has("gpu_busy") or has("energy_joules") or has("average_watts") | not)
       and .gpu_metrics.unavailable == "not applicable: the CPU engine proves"
       and (.sectors | all(has("energy_joules") | not))
       and .cost.usd_per_hour == 3.6 and (.cost.usd_per_proof - .cost.usd / 2 | fabs) < 1e-12
       and (.cost.usd - 3.6 * .total.wall_s / 3600 | fabs) < 1e-12' "$tmp/kg.json" >/dev/null ||
  fail "the GPU figures or the cost of a CPU run: $(jq -c '{gpu_metrics, cost}' "$tmp/kg.json")"

# --keep-going with --overlap on: the same outcome.
got=0
"$CUZK_BIN" prove "${batch[@]}" -o "$tmp/kg-overlap" --params-dir "$params" --keep-going --overlap on \
  >"$tmp/kg-overlap.txt" 2>&1 || got=$?
[ "$got" -eq 3 ] || { cat "$tmp/kg-overlap.txt" >&2; fail "--keep-going --overlap on exited $got, expected 3"; }
[ "$(ls "$tmp/kg-overlap" | tr '\n' ' ')" = "22.proof good1.proof " ] || fail "--overlap on wrote: $(ls -A "$tmp/kg-overlap")"

# The cache path is a directory: rebuilt in memory with a warning; exit 9 only with --pce-readonly.
mkdir -p "$tmp/pce-dir/stacked-drg-2KiB-c2-8-0-0.pce"
"$CUZK_BIN" prove "$tmp/good1.json" -o "$tmp/pce-dir-out" --params-dir "$params" --pce-cache-dir "$tmp/pce-dir" \
  >"$tmp/pce-dir.txt" 2>&1 || { cat "$tmp/pce-dir.txt" >&2; fail "a cache path that is a directory stopped the run"; }
grep -q "PCE cache not used" "$tmp/pce-dir.txt" || fail "no warning about the unusable cache path"
[ "$(stat -c %s "$tmp/pce-dir-out/good1.proof" 2>/dev/null)" = 192 ] || fail "no proof with an unusable cache path"
got=0
"$CUZK_BIN" prove "$tmp/good1.json" -o "$tmp/pce-ro-out" --params-dir "$params" --pce-cache-dir "$tmp/pce-dir" \
  --pce-readonly >"$tmp/pce-ro.txt" 2>&1 || got=$?
[ "$got" -eq 9 ] || { cat "$tmp/pce-ro.txt" >&2; fail "--pce-readonly with an unusable cache exited $got, expected 9"; }
echo "ok: keep-going, up-front checks, unusable caches, stale temporaries"
