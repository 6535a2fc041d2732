#!/usr/bin/env bash
# `cuzk circuit info`: per-partition circuit sizes from the command line, against rust-fil-proofs' published
# 32GiB figures (PR #1325: 130,278,541 constraints, 328 inputs) and the 40 inputs of the small sizes; the
# SnapDeals circuit against storage-proofs-update/tests/circuit.rs (2KiB: 1,705,039; 32GiB: 81,049,499).
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -qF -- "$1" "$tmp/out.txt" || { cat "$tmp/out.txt" >&2; fail "output lacks: $1"; }; }

"$CUZK_BIN" circuit info >"$tmp/out.txt" || fail "circuit info: exit $?"
[ "$(grep -cE '^(2KiB|8MiB|512MiB|32GiB|64GiB) ' "$tmp/out.txt")" -eq 5 ] || fail "circuit info: expected five sizes"
has "130,278,541"
"$CUZK_BIN" circuit info --sector-size 32GiB --json >"$tmp/out.txt" || fail "circuit info --json: exit $?"
has '"constraints": 130278541'
has '"inputs": 328'
has '"domain_size": 134217728'  # 2^27
"$CUZK_BIN" circuit info --sector-size 2048 --json >"$tmp/out.txt" || fail "circuit info 2048: exit $?"
has '"inputs": 40'
got=0
"$CUZK_BIN" circuit info --sector-size 4KiB >"$tmp/out.txt" 2>&1 || got=$?
[ "$got" -eq 2 ] || fail "circuit info rejects a test-only size: exit $got, expected 2"
"$CUZK_BIN" circuit info --circuit update >"$tmp/out.txt" || fail "circuit info --circuit update: exit $?"
[ "$(grep -cE '^(2KiB|8MiB|512MiB|32GiB|64GiB) ' "$tmp/out.txt")" -eq 5 ] || fail "update: expected five sizes"
has "1,705,039"
"$CUZK_BIN" circuit info --circuit update --sector-size 32GiB --json >"$tmp/out.txt" || fail "update --json: exit $?"
has '"circuit": "update"'
has '"constraints": 81049499'
has '"inputs": 5'
has '"partitions": 16'
has '"challenges_per_partition": 86'
has '"domain_size": 134217728'  # 2^27
echo "ok: circuit info"
