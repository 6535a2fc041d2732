#!/usr/bin/env bash
# lotus-bench envelopes that all say SectorNum 1: `lotus-bench simple commit1` writes 1
# into every envelope, so by default two of its files write the same 1.proof (exit 2, before any proving,
# with a message that names the way out); `cuzk prove --name-by stem` names each proof after its C1 file's
# stem (dry run, and a real run whose proofs verify). `gen-c1 --envelope` warns when --sector-id is left at 1.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with porep_2kib_e2e.sh and `make demo`
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || fail "jq is not installed (run scripts/install-deps.sh)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"

# Two envelopes as lotus-bench writes them: both SectorNum 1 (no --sector-id), and a warning each.
seed=50
for name in sealed-a sealed-b; do
  seed=$((seed + 1))
  "$CUZK_BIN" gen-c1 --sector-size 2KiB --seed "$seed" --envelope -o "$tmp/$name.json" \
    >/dev/null 2>"$tmp/$name.gen.log" || { cat "$tmp/$name.gen.log" >&2; fail "gen-c1 --envelope $name"; }
  grep -q 'warn.*SectorNum is 1.*--name-by stem' "$tmp/$name.gen.log" ||
    fail "gen-c1 --envelope without --sector-id did not warn: $(cat "$tmp/$name.gen.log")"
  grep -q '"SectorNum":1[,}]' "$tmp/$name.json" || fail "$name.json does not say SectorNum 1"
done
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 3 --sector-id 9 --envelope -o "$tmp/nine.json" >/dev/null \
  2>"$tmp/nine.gen.log" || fail "gen-c1 --sector-id 9"
if grep -q "SectorNum is 1" "$tmp/nine.gen.log"; then fail "gen-c1 --sector-id 9 warned about SectorNum 1"; fi
batch=("$tmp/sealed-a.json" "$tmp/sealed-b.json")

# By default (--name-by sector): both write 1.proof, exit 2 before any proving; the message says what to do.
got=0
"$CUZK_BIN" prove --params-dir "$params" -o "$tmp/default" "${batch[@]}" >"$tmp/default.log" 2>&1 || got=$?
[ "$got" -eq 2 ] || { cat "$tmp/default.log" >&2; fail "two SectorNum 1 envelopes exited $got, expected 2"; }
grep -q "another input also writes 1.proof.*--name-by stem" "$tmp/default.log" ||
  fail "the message does not name --name-by stem: $(cat "$tmp/default.log")"
if grep -q "synthesizing" "$tmp/default.log"; then fail "the clash was found after synthesis began"; fi

# A bad value is a usage error.
got=0
"$CUZK_BIN" prove --name-by number --params-dir "$params" -o "$tmp/bad" "${batch[@]}" >/dev/null 2>&1 || got=$?
[ "$got" -eq 2 ] || fail "--name-by number exited $got, expected 2"

# --name-by stem, dry run: each proof file named after its C1 file.
"$CUZK_BIN" prove --dry-run --json --name-by stem --params-dir "$params" -o "$tmp/out" "${batch[@]}" \
  >"$tmp/dry.json" 2>"$tmp/dry.log" || { cat "$tmp/dry.log" >&2; fail "--name-by stem --dry-run exited $?"; }
jq -e --arg out "$tmp/out" '
  [.sectors[] | [.sector, .proof_file]] == [["sealed-a", "\($out)/sealed-a.proof"], ["sealed-b", "\($out)/sealed-b.proof"]]' \
  "$tmp/dry.json" >/dev/null || fail "--name-by stem --dry-run: $(cat "$tmp/dry.json")"

# --name-by stem, proven: sealed-a.proof and sealed-b.proof, each verifying; the records name them.
"$CUZK_BIN" prove --json --name-by stem --params-dir "$params" -o "$tmp/out" "${batch[@]}" >"$tmp/stem.jsonl" \
  2>"$tmp/stem.log" || { cat "$tmp/stem.log" >&2; fail "--name-by stem exited $?"; }
jq -s -e --arg out "$tmp/out" '
  [.[] | [.status, .sector, .proof]] == [["proven", "sealed-a", "\($out)/sealed-a.proof"], ["proven", "sealed-b", "\($out)/sealed-b.proof"]]' \
  "$tmp/stem.jsonl" >/dev/null || fail "--name-by stem records: $(cat "$tmp/stem.jsonl")"
for name in sealed-a sealed-b; do
  "$CUZK_BIN" verify "$tmp/out/$name.proof" --c1 "$tmp/$name.json" --params-dir "$params" >/dev/null 2>&1 ||
    fail "$name.proof does not verify"
done
[ ! -e "$tmp/out/1.proof" ] || fail "--name-by stem wrote 1.proof"
echo "OK: --name-by stem names proofs after their C1 files; gen-c1 --envelope warns about SectorNum 1"
