#!/usr/bin/env bash
# `cuzk verify PROOF --update u.json`: an update (SnapDeals) proof is checked against the update circuit's
# .vk of the input's size (the shared 2KiB test parameters, tests/scripts/lib/shared_params.bash) and the
# public inputs from the input file's commitments. A real proof (made by `cuzk prove u.json`, which also
# refuses a truncated input with exit 3 writing nothing, and a mix with C1 files or --gpu with exit 2) is valid (exit 0) for cuzk and for @noble/curves
# (scripts/noble/verify.mjs), and INVALID (exit 5, noble exit 1) with a byte flipped or another sector's
# inputs. Without a valid proof: a
# well-formed proof of another circuit and one with the wrong partition count are INVALID (exit 5), a
# truncated proof is an encoding error (exit 4), bad input files exit 3 naming the file, a missing update .vk exits 6, and --update with
# the PoRep flags is a usage error (exit 2).
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
src="${CUZK_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
verify="$src/scripts/noble/verify.mjs"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with the other 2KiB script tests
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v node >/dev/null 2>&1 || fail "node is not installed (run scripts/install-deps.sh)"
[ -d "$src/scripts/noble/node_modules/@noble/curves" ] || fail "@noble/curves missing (run scripts/install-deps.sh)"
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

# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_update_params "$params" || fail "params setup --circuit update exited $?"
# The mixed run below proves a C1 file too: the PoRep 2KiB parameters (made here when no test made them yet).
shared_test_params "$params" >/dev/null 2>&1 || fail "params setup exited $?"
"$CUZK_BIN" gen-update --sector-size 2KiB --seed 5 --sector-id 3 -o "$tmp/u.json" >/dev/null || fail "gen-update"
# 192 bytes of valid curve points that prove another circuit (the demo's).
"$CUZK_BIN" selftest -o "$tmp/demo" >/dev/null 2>&1 || fail "selftest exited $?"
cp "$tmp/demo/demo.proof" "$tmp/other.proof"

run 5 "a proof of another circuit" "$CUZK_BIN" verify "$tmp/other.proof" --update "$tmp/u.json" --params-dir "$params"
has "proof INVALID"
cat "$tmp/other.proof" "$tmp/other.proof" >"$tmp/two.proof"
run 5 "two partition proofs for a one-partition sector" "$CUZK_BIN" verify "$tmp/two.proof" --update "$tmp/u.json" \
  --params-dir "$params"
has "2 partition proof(s), StackedDrg2KiBV1 has 1"
head -c 191 "$tmp/other.proof" >"$tmp/short.proof"
run 4 "a truncated proof (an encoding error, as for PoRep)" "$CUZK_BIN" verify "$tmp/short.proof" --update "$tmp/u.json" --params-dir "$params"

head -c 100 "$tmp/u.json" >"$tmp/truncated.json"
run 3 "a truncated update input file" "$CUZK_BIN" verify "$tmp/other.proof" --update "$tmp/truncated.json" \
  --params-dir "$params"
has "truncated.json"
run 3 "an absent update input file" "$CUZK_BIN" verify "$tmp/other.proof" --update "$tmp/absent.json" \
  --params-dir "$params"
has "absent.json"
# A C1 file is not an update input file.
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 1 -o "$tmp/c1.json" >/dev/null 2>&1 || fail "gen-c1"
run 3 "a C1 file given as --update" "$CUZK_BIN" verify "$tmp/other.proof" --update "$tmp/c1.json" \
  --params-dir "$params"
has "c1.json"

mkdir "$tmp/no-params"
run 6 "no update verifying key" "$CUZK_BIN" verify "$tmp/other.proof" --update "$tmp/u.json" \
  --params-dir "$tmp/no-params"
has "no verifying key for update 2KiB sectors"
has "$("$CUZK_BIN" params names --circuit update --sector-size 2KiB | awk '/\.vk$/ {print $2}')"

# A real 2KiB update proof from `cuzk prove u.json c1.json` (the kind read from each file: one run proves an
# update input and a C1 file), its public inputs from --dump-public-inputs; one JSON record per sector.
mkdir "$tmp/real"
cp "$tmp/u.json" "$tmp/real/u.json"
"$CUZK_BIN" gen-update --sector-size 2KiB --seed 6 --sector-id 4 -o "$tmp/other-u.json" >/dev/null 2>&1 || fail "gen-update"
run 0 "cuzk prove u.json c1.json (a mixed run)" "$CUZK_BIN" prove "$tmp/real/u.json" "$tmp/c1.json" \
  -o "$tmp/real/out" --params-dir "$params" --pce-cache-dir "$tmp/pce" --dump-public-inputs --json
has '"status":"proven"'
has '"sector":"3"'
has '"sector":"c1"'
[ -f "$tmp/real/out/3.proof" ] || fail "cuzk prove wrote no 3.proof (named after the sector id)"
[ "$(stat -c %s "$tmp/real/out/3.proof")" -eq 192 ] || fail "3.proof is not 192 bytes (one partition)"
[ "$(stat -c %s "$tmp/real/out/c1.proof")" -eq 192 ] || fail "the mixed run's C1 proof is not 192 bytes"
run 0 "the mixed run's C1 proof" "$CUZK_BIN" verify "$tmp/real/out/c1.proof" --c1 "$tmp/c1.json" --params-dir "$params"
cp "$tmp/real/out/3.proof" "$tmp/real/u.proof"
cp "$tmp/real/out/3.inputs.json" "$tmp/real/u.inputs.json"
cp "$tmp/real/out/c1.proof" "$tmp/real/c1.proof"
# Re-runs with --skip-existing, one per slice of 2 (job/shard.hpp: sector 3, the update input's sector_id,
# sorts first and goes to slice 0; the raw C1 file, keyed by its stem, to slice 1): each proof verifies, so
# each slice skips its one sector and the files are untouched.
for slice in "0 3" "1 c1"; do
  set -- $slice
  run 0 "--skip-existing --shard $1/2 over a mixed run's proofs" "$CUZK_BIN" prove "$tmp/real/u.json" \
    "$tmp/c1.json" -o "$tmp/real/out" --params-dir "$params" --pce-cache-dir "$tmp/pce" --skip-existing \
    --shard "$1/2" --json
  [ "$(grep -c '"status":"skipped"' "$tmp/out.txt")" -eq 1 ] || { cat "$tmp/out.txt" >&2; fail "slice $1: not one sector skipped"; }
  has "\"sector\":\"$2\""
done
cmp -s "$tmp/real/out/3.proof" "$tmp/real/u.proof" || fail "--skip-existing rewrote the update proof"
cmp -s "$tmp/real/out/c1.proof" "$tmp/real/c1.proof" || fail "--skip-existing rewrote the C1 proof"
run 0 "--shard 1/2 of one update input: nothing to prove" "$CUZK_BIN" prove "$tmp/real/u.json" -o "$tmp/shard-out" \
  --params-dir "$params" --shard 1/2
[ -z "$(ls -A "$tmp/shard-out" 2>/dev/null)" ] || fail "an empty slice wrote files"
# Refused before any work, nothing written: a truncated update input (exit 3, named), an update input and a
# C1 file writing the same proof file, and --gpu (exit 2: not supported yet, never a silent CPU run).
run 3 "cuzk prove of a truncated update input" "$CUZK_BIN" prove "$tmp/truncated.json" -o "$tmp/bad-out" \
  --params-dir "$params" --pce-cache-dir "$tmp/pce"
has "truncated.json"
[ -z "$(ls -A "$tmp/bad-out" 2>/dev/null)" ] || fail "a refused update input left files in its output folder"
run 3 "--keep-going: the truncated input fails, the good one is proven" "$CUZK_BIN" prove "$tmp/truncated.json" \
  "$tmp/other-u.json" -o "$tmp/kg-out" --params-dir "$params" --pce-cache-dir "$tmp/pce" --keep-going --no-verify \
  --report "$tmp/kg-report.json"
# The update run's report carries its memory peaks as a C1 run's does (they once stayed 0).
grep -Eq '"peak_anon_bytes": *[1-9]' "$tmp/kg-report.json" || fail "the update run's report has no peak_anon_bytes"
[ "$(stat -c %s "$tmp/kg-out/4.proof")" -eq 192 ] || fail "--keep-going did not prove the good input"
[ "$(ls -A "$tmp/kg-out" | wc -l)" -eq 1 ] || fail "--keep-going wrote more than the good input's proof"
# Hostile commitments, mutated as C1 files are (the low bit of the first byte): comm_r_new moves the
# challenges, so the vanilla proofs no longer match them (exit 3); comm_d_new keeps them, so the witness does
# not satisfy the circuit (exit 7). Neither writes anything.
mutate() {  # mutate FIELD OUT: u.json with FIELD's first byte's low bit flipped
  local first
  first=$(grep -o "\"$1\":\[[0-9]*" "$tmp/u.json" | grep -o '[0-9]*$')
  sed "s/\"$1\":\[$first,/\"$1\":[$((first ^ 1)),/" "$tmp/u.json" >"$2"
  cmp -s "$tmp/u.json" "$2" && fail "$1 was not mutated"
  return 0
}
mutate comm_r_new "$tmp/bad-comm-r-new.json"
run 3 "an update input with comm_r_new mutated" "$CUZK_BIN" prove "$tmp/bad-comm-r-new.json" -o "$tmp/bad-out" \
  --params-dir "$params" --pce-cache-dir "$tmp/pce"
has "bad-comm-r-new.json: partition 0"
mutate comm_d_new "$tmp/bad-comm-d-new.json"
run 7 "an update input with comm_d_new mutated" "$CUZK_BIN" prove "$tmp/bad-comm-d-new.json" -o "$tmp/bad-out" \
  --params-dir "$params" --pce-cache-dir "$tmp/pce"
has "bad-comm-d-new.json partition 0: the witness does not satisfy constraint"
[ -z "$(ls -A "$tmp/bad-out" 2>/dev/null)" ] || fail "a mutated update input left files in its output folder"
# --skip-existing with a proof file there that is not the sector's: set aside (never overwritten or deleted),
# and the sector proven again (here it fails at its witness, exit 7, so no new proof is written).
mkdir -p "$tmp/skip-bad"
cp "$tmp/two.proof" "$tmp/skip-bad/3.proof"
run 7 "--skip-existing over a proof file of the wrong length" "$CUZK_BIN" prove "$tmp/bad-comm-d-new.json" \
  -o "$tmp/skip-bad" --params-dir "$params" --pce-cache-dir "$tmp/pce" --skip-existing
has "is not this sector's proof"
[ ! -e "$tmp/skip-bad/3.proof" ] || fail "the rejected proof file is still 3.proof"
ls "$tmp/skip-bad"/3.proof.rejected-* >/dev/null 2>&1 || fail "the rejected proof file was not set aside"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 2 --sector-id 3 --envelope -o "$tmp/env3.json" >/dev/null 2>&1 ||
  fail "gen-c1 --envelope"
run 2 "an update input and a C1 file of the same sector in one run" "$CUZK_BIN" prove "$tmp/u.json" \
  "$tmp/env3.json" -o "$tmp/bad-out" --params-dir "$params"
has "sector 3 is proven by another input of this run too"
# Update inputs are proven on one engine: several GPUs are a usage error.
run 2 "cuzk prove --gpu --devices 0,1 of an update input" "$CUZK_BIN" prove "$tmp/u.json" -o "$tmp/bad-out" \
  --gpu --devices 0,1 --params-dir "$params"
has "--devices"
# The two stages overlapped (synthesis of the next partition while this one is proven): a failed sector
# (--keep-going) does not stop the next one, whose proof is byte-identical to a run without overlap.
run 7 "--overlap on --keep-going: the mutated input fails, the good one is proven" "$CUZK_BIN" prove \
  "$tmp/bad-comm-d-new.json" "$tmp/other-u.json" -o "$tmp/overlap-on" --params-dir "$params" \
  --pce-cache-dir "$tmp/pce" --overlap on --keep-going --test-randomness 5
run 0 "--overlap off, the good input alone" "$CUZK_BIN" prove "$tmp/other-u.json" -o "$tmp/overlap-off" \
  --params-dir "$params" --pce-cache-dir "$tmp/pce" --overlap off --test-randomness 5
cmp -s "$tmp/overlap-on/4.proof" "$tmp/overlap-off/4.proof" || fail "--overlap on and off gave other proofs"
[ "$(ls -A "$tmp/overlap-on" | wc -l)" -eq 1 ] || fail "--overlap on wrote more than the good input's proof"
if "$CUZK_BIN" info --json 2>/dev/null | grep -q '"no_gpu_reason"'; then
  run 8 "cuzk prove --gpu of an update input without a GPU" "$CUZK_BIN" prove "$tmp/u.json" -o "$tmp/bad-out" \
    --gpu --params-dir "$params"
else
  echo "skip: a GPU is visible here; --gpu without one is not testable (scripts/device/update-gpu-run.sh)"
fi
[ -z "$(ls -A "$tmp/bad-out" 2>/dev/null)" ] || fail "a refused run left files in its output folder"
run 0 "a real update proof" "$CUZK_BIN" verify "$tmp/real/u.proof" --update "$tmp/real/u.json" --params-dir "$params"
has "proof valid"
run 5 "the real proof against another sector's input file" "$CUZK_BIN" verify "$tmp/real/u.proof" \
  --update "$tmp/other-u.json" --params-dir "$params"
# The low bit of C's x coordinate (the last byte): a point off the curve or another point, never valid.
cp "$tmp/real/u.proof" "$tmp/flipped.proof"
printf "\\x$(printf %02x $(( $(od -An -tu1 -j191 -N1 "$tmp/real/u.proof") ^ 1 )))" |
  dd of="$tmp/flipped.proof" bs=1 seek=191 conv=notrunc status=none
cmp -s "$tmp/real/u.proof" "$tmp/flipped.proof" && fail "the byte was not flipped"
got=0
"$CUZK_BIN" verify "$tmp/flipped.proof" --update "$tmp/real/u.json" --params-dir "$params" >"$tmp/out.txt" 2>&1 || got=$?
[ "$got" -eq 5 ] || [ "$got" -eq 4 ] || { cat "$tmp/out.txt" >&2; fail "a flipped proof byte: exit $got, expected 5 (or 4 off the curve)"; }
echo "ok: a flipped proof byte (exit $got)"
# The sign bit of A (0x20 of byte 0) gives -A, still a valid point: INVALID, exit 5 exactly.
cp "$tmp/real/u.proof" "$tmp/neg_a.proof"
printf "\\x$(printf %02x $(( $(od -An -tu1 -N1 "$tmp/real/u.proof") ^ 0x20 )))" |
  dd of="$tmp/neg_a.proof" bs=1 seek=0 conv=notrunc status=none
run 5 "the real proof with A negated" "$CUZK_BIN" verify "$tmp/neg_a.proof" --update "$tmp/real/u.json" --params-dir "$params"
has "proof INVALID"

vk="$params/$("$CUZK_BIN" params names --circuit update --sector-size 2KiB | awk '/\.vk$/ {print $2}')"
node "$verify" "$vk" "$tmp/real/u.proof" "$tmp/real/u.inputs.json" >"$tmp/out.txt" 2>&1 ||
  { cat "$tmp/out.txt" >&2; fail "@noble/curves rejected the update proof"; }
echo "ok: @noble/curves accepts the update proof"
got=0
node "$verify" "$vk" "$tmp/neg_a.proof" "$tmp/real/u.inputs.json" >"$tmp/out.txt" 2>&1 || got=$?
[ "$got" -eq 1 ] || { cat "$tmp/out.txt" >&2; fail "@noble/curves on the negated proof: exit $got, expected 1"; }
echo "ok: @noble/curves rejects the update proof with A negated"

run 2 "--update with --c1" "$CUZK_BIN" verify "$tmp/other.proof" --update "$tmp/u.json" --c1 "$tmp/c1.json"
run 2 "--update with --comm-r" "$CUZK_BIN" verify "$tmp/other.proof" --update "$tmp/u.json" --comm-r 00
echo "PASS: cuzk verify --update gives its verdicts and exit codes"
