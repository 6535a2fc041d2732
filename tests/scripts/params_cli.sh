#!/usr/bin/env bash
# `cuzk params names|check|info|setup` and `cuzk selftest` behaviour seen from the command line:
# output, files written and exit codes (cli/exit_codes.hpp: 3 input, 5 verification, 6 parameters).
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# run WANT LABEL CMD...: runs CMD, stdout+stderr to $tmp/out.txt, checks the exit status.
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

# Names: the full 2KiB names of rust-fil-proofs' parameters.json.
name2k="v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f"
run 0 "params names" "$CUZK_BIN" params names
has "$name2k.params"
has "$name2k.vk"
[ "$(wc -l <"$tmp/out.txt")" -eq 10 ] || fail "params names: expected 10 lines"
run 0 "params names --sector-size 2048" "$CUZK_BIN" params names --sector-size 2048
[ "$(wc -l <"$tmp/out.txt")" -eq 2 ] || fail "params names --sector-size: expected 2 lines"
run 2 "params names rejects a test-only size" "$CUZK_BIN" params names --sector-size 4KiB
# The update (SnapDeals) circuit's names (lotus parameters.json), alone or after the PoRep ones.
update32g="v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18"
run 0 "params names --circuit update" "$CUZK_BIN" params names --circuit update
has "$update32g.params"
has "$update32g.vk"
[ "$(wc -l <"$tmp/out.txt")" -eq 10 ] || fail "params names --circuit update: expected 10 lines"
! grep -q stacked-proof-of-replication "$tmp/out.txt" || fail "params names --circuit update lists PoRep names"
run 0 "params names --circuit all --sector-size 32GiB" "$CUZK_BIN" params names --circuit all --sector-size 32GiB
[ "$(wc -l <"$tmp/out.txt")" -eq 4 ] || fail "params names --circuit all --sector-size 32GiB: expected 4 lines"
has "32GiB   $update32g.vk"
run 2 "params names --circuit winning-post" "$CUZK_BIN" params names --circuit winning-post

# Check: an empty directory is all MISSING (fine unless a size is asked for), junk is a MISMATCH.
mkdir "$tmp/params"
run 0 "params check, nothing there" "$CUZK_BIN" params check --params-dir "$tmp/params"
has "0 ok, 0 mismatch, 10 missing"
run 6 "params check, requested size missing" "$CUZK_BIN" params check --params-dir "$tmp/params" --sector-size 2KiB
echo "not a verifying key" >"$tmp/params/$name2k.vk"
run 6 "params check, wrong digest" "$CUZK_BIN" params check --params-dir "$tmp/params"
has "MISMATCH"
has "expected dc1ade9929ade1708238f155343044ac"
FIL_PROOFS_PARAMETER_CACHE="$tmp/params" run 6 "params check honours FIL_PROOFS_PARAMETER_CACHE" "$CUZK_BIN" params check
has "parameter directory: $tmp/params"

# Setup: a banner, then demo.params/demo.vk whose structure `params info` reads back.
run 0 "params setup --circuit demo" "$CUZK_BIN" params setup --circuit demo -o "$tmp/setup"
has "NOT FOR PRODUCTION"
[ -s "$tmp/setup/demo.params" ] && [ -s "$tmp/setup/demo.vk" ] || fail "params setup wrote no files"
run 0 "params info demo.params" "$CUZK_BIN" params info "$tmp/setup/demo.params" --check-points --digest
# The demo circuit (prover/groth16/demo_circuit.hpp): 3 secrets x 50 rounds x 2 + 3 = 303 constraints,
# 3 public inputs: 303 + 4 input rows -> domain 512; 303 aux variables.
has "domain size:  512 = 2^9"
has "aux:          303"
has "inputs:       4 (ONE included)"
# --digest against coreutils' b2sum (an independent BLAKE2b-512), first 32 hex chars.
if command -v b2sum >/dev/null 2>&1; then
  has "digest:       $(b2sum "$tmp/setup/demo.params" | cut -c1-32)"
fi
run 0 "params info demo.vk" "$CUZK_BIN" params info "$tmp/setup/demo.vk"
has "ic:           4 points"
head -c 100000 "$tmp/setup/demo.params" >"$tmp/short.params"
run 6 "params info on a truncated .params (a parameter fault, docs/exit-codes.md)" "$CUZK_BIN" params info "$tmp/short.params"

# Selftest: a fresh run, then a run that reuses the parameters, then corrupted parameters.
run 0 "selftest" "$CUZK_BIN" selftest -o "$tmp/st"
has "result       VALID"
for f in demo.params demo.vk demo.proof demo.public.json; do [ -s "$tmp/st/$f" ] || fail "selftest did not write $f"; done
[ "$(stat -c %s "$tmp/st/demo.proof")" -eq 192 ] || fail "demo.proof is not 192 bytes"
proof_hex="$(od -An -v -tx1 "$tmp/st/demo.proof" | tr -d ' \n')"
has "proof        $proof_hex"
run 0 "selftest reuses demo.params" "$CUZK_BIN" selftest -o "$tmp/st"
has "reused"
has "result       VALID"
rm "$tmp/st/demo.vk"
run 0 "selftest rewrites a missing demo.vk" "$CUZK_BIN" selftest -o "$tmp/st"
cmp -s <(head -c "$(stat -c %s "$tmp/st/demo.vk")" "$tmp/st/demo.params") "$tmp/st/demo.vk" \
  || fail "demo.vk is not the vk block of demo.params"
head -c 5000 "$tmp/setup/demo.params" >"$tmp/st/demo.params"
run 6 "selftest with truncated demo.params" "$CUZK_BIN" selftest -o "$tmp/st"
# Parameters made by `params setup` for the same circuit are reused and the proof verifies.
cp "$tmp/setup/demo.params" "$tmp/st/demo.params"
run 0 "selftest with parameters from params setup" "$CUZK_BIN" selftest -o "$tmp/st"
# Without -o: a temporary directory, removed afterwards.
run 0 "selftest without -o" "$CUZK_BIN" selftest
echo "PASS: params and selftest commands"
