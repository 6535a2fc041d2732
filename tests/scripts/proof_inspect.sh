#!/usr/bin/env bash
# `cuzk proof inspect` on a real Filecoin proof: a 32 GiB sector's 10-partition proof (1920 bytes) from
# rust-fil-proofs' seal_regression_records-v16.json (../shared/testdata/filecoin/). The untouched file
# exits 0 (text and --json), a flipped bit exits 4 (kEncodingError), a truncated, empty or missing file
# exits 3 (kInputError). Exit 77 (ctest: skipped) when the shared test data is absent.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
src="${CUZK_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
shared="${CUZK_SHARED_DIR:-$src/../shared}"
records="$shared/testdata/filecoin/seal_regression_records-v16.json"

fail() { echo "FAIL: $*" >&2; exit 1; }
if [ ! -f "$records" ]; then
  echo "SKIP: $records not found (the shared test data is absent)"
  exit 77
fi
command -v python3 >/dev/null 2>&1 || fail "python3 is needed to extract a proof from the JSON records"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The first record with 10 partitions (JSON Lines; `proof` is a byte array).
python3 - "$records" "$tmp/sector.proof" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    for line in f:
        if not line.strip():
            continue
        rec = json.loads(line)
        if rec["porep_config"]["partitions"] == 10:
            proof = bytes(rec["proof"])
            assert len(proof) == 1920, len(proof)
            open(sys.argv[2], "wb").write(proof)
            break
    else:
        sys.exit("no 10-partition record found")
PY
[ "$(stat -c %s "$tmp/sector.proof")" -eq 1920 ] || fail "extracted proof is not 1920 bytes"

# expect CODE LABEL FILE [FLAGS...]: runs `cuzk proof inspect` and checks its exit code.
expect() {
  local want="$1" label="$2" got=0
  shift 2
  "$CUZK_BIN" proof inspect "$@" >"$tmp/out.txt" 2>"$tmp/err.txt" || got=$?
  if [ "$got" -ne "$want" ]; then
    cat "$tmp/out.txt" "$tmp/err.txt" >&2
    fail "$label: exited $got, expected $want"
  fi
  echo "ok: $label (exit $got)"
}

expect 0 "real 10-partition proof" "$tmp/sector.proof"
[ "$(grep -c ' OK$' "$tmp/out.txt")" -eq 30 ] || fail "expected 30 points reported OK"
grep -q '^partition 9 (offset 1728):' "$tmp/out.txt" || fail "partition 9 not listed"
expect 0 "real proof, --json" "$tmp/sector.proof" --json
python3 - "$tmp/out.txt" <<'PY' || fail "JSON report is not as expected"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] is True and r["points"] == 30 and r["invalid_points"] == 0, r
assert len(r["partitions"]) == 10
p = r["partitions"][0]
assert p["a"]["group"] == "G1" and p["b"]["group"] == "G2" and len(p["b"]["compressed"]) == 192
assert p["a"]["x"].startswith("0x") and "x.c1" in p["b"]
PY

# flip OFFSET MASK OUT: copy of sector.proof with one bit flipped.
flip() {
  python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[int(sys.argv[2])] ^= int(sys.argv[3], 0); open(sys.argv[4], "wb").write(b)' \
    "$tmp/sector.proof" "$1" "$2" "$3"
}
flip $((3 * 192 + 47)) 0x01 "$tmp/x_bit.proof"  # lowest bit of partition 3's a.x
expect 4 "flipped x bit of partition 3, point a" "$tmp/x_bit.proof"
grep -q '^partition 3 (offset 576):' "$tmp/out.txt" || fail "partition 3 not listed"
[ "$(grep -c 'INVALID' "$tmp/out.txt")" -ge 1 ] || fail "no INVALID point reported"
grep -q 'partition 3 (offset 576): proof point a' "$tmp/err.txt" || fail "error does not name partition 3, point a"
flip $((9 * 192 + 48)) 0x80 "$tmp/flag.proof"  # compression flag of partition 9's b
expect 4 "cleared compression flag of partition 9, point b" "$tmp/flag.proof"
expect 4 "flipped bit, --json" "$tmp/flag.proof" --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["ok"] is False and r["invalid_points"] == 1 and r["partitions"][9]["b"]["ok"] is False' \
  "$tmp/out.txt" || fail "JSON report of the bad proof is not as expected"

head -c 1919 "$tmp/sector.proof" >"$tmp/short.proof"
expect 4 "truncated to 1919 bytes (a wrong size is a bad encoding of proofs)" "$tmp/short.proof"
grep -q 'offset 1728' "$tmp/err.txt" || fail "size error does not give the offset of the partial proof"
: >"$tmp/empty.proof"
expect 4 "empty file" "$tmp/empty.proof"
expect 3 "missing file" "$tmp/does-not-exist.proof"
echo "PASS"
