#!/usr/bin/env bash
# `cuzk gen-update`: a 2KiB input is written (one partition) and the same seed writes the same bytes, another
# seed another file; 32GiB is sparse by default (16 partitions, comm_r_new = comm_r_old, in seconds); an
# unregistered size and --sparse with --dense are usage errors (exit 2); a folder that does not exist is
# exit 3; no temporary file is left beside the output.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect CODE NAME COMMAND...: COMMAND exits with CODE.
expect() {
  local code=$1 name=$2 got=0
  shift 2
  "$@" >"$tmp/out.txt" 2>&1 || got=$?
  [ "$got" -eq "$code" ] || { head -c 4000 "$tmp/out.txt" >&2; fail "$name: exit $got, expected $code"; }
}
says() { grep -qF -- "$1" "$tmp/out.txt" || { head -c 4000 "$tmp/out.txt" >&2; fail "$2: the output lacks: $1"; }; }
# field FILE NAME: the JSON value of a top-level field (python3: no jq needed).
field() { python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$1" "$2"; }

mkdir -p "$tmp/out"
expect 0 "gen-update 2KiB" "$CUZK_BIN" gen-update --sector-size 2KiB --seed 3 --sector-id 12 -o "$tmp/out/a.json"
says "StackedDrg2KiBV1, dense construction, 1 partitions, sector 12" "gen-update 2KiB"
[ "$(field "$tmp/out/a.json" registered_proof)" = '"StackedDrg2KiBV1"' ] || fail "registered_proof"
[ "$(field "$tmp/out/a.json" sector_id)" = 12 ] || fail "sector_id"
python3 - "$tmp/out/a.json" <<'PY' || fail "a.json is not the schema of docs/formats.md"
import base64, json, sys
d = json.load(open(sys.argv[1]))
assert sorted(d) == sorted(["registered_proof", "sector_id", "comm_r_old", "comm_r_new", "comm_d_new", "vanilla_proofs"])
for c in ("comm_r_old", "comm_r_new", "comm_d_new"):
    assert len(d[c]) == 32 and all(0 <= b <= 255 for b in d[c]), c
assert d["comm_r_old"] != d["comm_r_new"]
assert len(d["vanilla_proofs"]) == 1
assert len(base64.b64decode(d["vanilla_proofs"][0], validate=True)) > 10000
PY
expect 0 "gen-update again" "$CUZK_BIN" gen-update --sector-size 2KiB --seed 3 --sector-id 12 -o "$tmp/out/b.json"
cmp -s "$tmp/out/a.json" "$tmp/out/b.json" || fail "the same seed wrote different files"
expect 0 "gen-update seed 4" "$CUZK_BIN" gen-update --sector-size 2KiB --seed 4 --sector-id 12 -o "$tmp/out/c.json"
! cmp -s "$tmp/out/a.json" "$tmp/out/c.json" || fail "another seed wrote the same file"

expect 0 "gen-update 32GiB" timeout 120 "$CUZK_BIN" gen-update --sector-size 32GiB --seed 1 -o "$tmp/out/big.json"
says "StackedDrg32GiBV1, sparse no-deal-data construction, 16 partitions" "gen-update 32GiB"
[ "$(field "$tmp/out/big.json" comm_r_old)" = "$(field "$tmp/out/big.json" comm_r_new)" ] ||
  fail "a no-deal-data update changed comm_r"

expect 2 "gen-update 16KiB" "$CUZK_BIN" gen-update --sector-size 16KiB -o "$tmp/out/x.json"
says "no registered update proof for sector size 16KiB" "gen-update 16KiB"
expect 2 "gen-update --sparse --dense" "$CUZK_BIN" gen-update --sparse --dense -o "$tmp/out/x.json"
expect 3 "gen-update into a missing folder" "$CUZK_BIN" gen-update -o "$tmp/missing/u.json"
says "$tmp/missing" "gen-update into a missing folder"
[ ! -e "$tmp/out/x.json" ] || fail "a refused run wrote its output"
left="$(find "$tmp/out" -name '.*' -type f)"
[ -z "$left" ] || fail "temporary files left: $left"
echo "ok: gen-update"
