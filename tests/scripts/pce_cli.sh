#!/usr/bin/env bash
# `cuzk pce build|info` from the command line: the demo and 2KiB caches are built once and then found
# valid, `info` verifies them (2,687,921 constraints for 2KiB: docs/circuit.md §9), a corrupted cache makes `info`
# exit with kCacheError (9) and `build` rebuild it, and CUZK_PCE_CACHE picks the directory.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -qF -- "$1" "$tmp/out.txt" || { cat "$tmp/out.txt" >&2; fail "output lacks: $1"; }; }

"$CUZK_BIN" pce build --circuit demo --cache-dir "$tmp/pce" >"$tmp/out.txt" 2>&1 || fail "pce build demo: exit $?"
has "built and written"
"$CUZK_BIN" pce build --circuit demo --cache-dir "$tmp/pce" >"$tmp/out.txt" 2>&1 || fail "pce build demo again: exit $?"
has "valid, loaded"
"$CUZK_BIN" pce info "$tmp/pce/demo.pce" >"$tmp/out.txt" 2>&1 || fail "pce info demo: exit $?"
has "constraints:   303"
has "checksums:     OK"

CUZK_PCE_CACHE="$tmp/env" "$CUZK_BIN" pce build --sector-size 2KiB >"$tmp/out.txt" 2>&1 || fail "pce build 2KiB: exit $?"
file="$tmp/env/stacked-drg-2KiB-c2-8-0-0.pce"
[ -f "$file" ] || fail "CUZK_PCE_CACHE not used: no $file"
"$CUZK_BIN" pce info "$file" >"$tmp/out.txt" 2>&1 || fail "pce info 2KiB: exit $?"
has "constraints:   2687921"
has "inputs:        40 (including ONE)"
has "stacked-drg r1 nodes=64 layers=2 challenges=2 arities=8-0-0"

# One byte in the middle of the file flipped: info refuses it (exit 9), build replaces it.
size=$(stat -c %s "$file")
printf '\x5a' | dd of="$file" bs=1 seek=$((size / 2)) conv=notrunc status=none
got=0
"$CUZK_BIN" pce info "$file" >"$tmp/out.txt" 2>&1 || got=$?
[ "$got" -eq 9 ] || { cat "$tmp/out.txt" >&2; fail "pce info on a corrupt cache: exit $got, expected 9"; }
has "checksum mismatch"
CUZK_PCE_CACHE="$tmp/env" "$CUZK_BIN" pce build --sector-size 2KiB >"$tmp/out.txt" 2>&1 || fail "rebuild: exit $?"
has "rebuilding it"
"$CUZK_BIN" pce info "$file" >"$tmp/out.txt" 2>&1 || fail "pce info after the rebuild: exit $?"

got=0
"$CUZK_BIN" pce info "$tmp/absent.pce" >"$tmp/out.txt" 2>&1 || got=$?
[ "$got" -eq 9 ] || fail "pce info on a missing file: exit $got, expected 9"
got=0
"$CUZK_BIN" pce build --cache-dir "$tmp/pce" >"$tmp/out.txt" 2>&1 || got=$?
[ "$got" -eq 2 ] || fail "pce build without a circuit: exit $got, expected 2"
echo "ok: pce build/info"
