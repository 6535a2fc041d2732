#!/usr/bin/env bash
# `cuzk verify PROOF --update u.json`: an update (SnapDeals) proof is checked against the update circuit's
# .vk of the input's size (the shared 2KiB test parameters, tests/scripts/lib/shared_params.bash) and the
# public inputs from the input file's commitments. Here the verdicts and exit codes without a valid proof: a
# well-formed proof of another circuit and one with the wrong partition count are INVALID (exit 5), a
# truncated proof is an encoding error (exit 4), bad input files exit 3 naming the file, a missing update .vk exits 6, and --update with
# the PoRep flags is a usage error (exit 2).
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with the other 2KiB script tests
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
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

run 2 "--update with --c1" "$CUZK_BIN" verify "$tmp/other.proof" --update "$tmp/u.json" --c1 "$tmp/c1.json"
run 2 "--update with --comm-r" "$CUZK_BIN" verify "$tmp/other.proof" --update "$tmp/u.json" --comm-r 00
echo "PASS: cuzk verify --update gives its verdicts and exit codes"
