#!/usr/bin/env bash
# `cuzk params setup --circuit update --sector-size 2KiB`: the shared 2KiB update (SnapDeals) test parameters
# (made once per build tree, tests/scripts/lib/shared_params.bash) lie under lotus' file names
# (`params names --circuit update`); `params info` reads their structure (5 public inputs with ONE, the
# circuit's domain) and names them as update files; `params check` digests them against parameters.json and
# reports them as a mismatch (test parameters are not the ceremony's), exit 6; flag combinations that make
# no sense are usage errors.
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

"$CUZK_BIN" params names --circuit update --sector-size 2KiB >"$tmp/names.txt"
params_name="$(awk '/\.params$/ {print $2}' "$tmp/names.txt")"
vk_name="$(awk '/\.vk$/ {print $2}' "$tmp/names.txt")"
[[ "$params_name" == v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-*.params ]] ||
  fail "unexpected update .params name: $params_name"
[ -s "$params/$params_name" ] || fail "$params_name was not written"
[ -s "$params/$vk_name" ] || fail "$vk_name was not written"

run 0 "params info of the update .vk" "$CUZK_BIN" params info "$params/$vk_name"
has "ic:           5 points (4 public inputs after ONE)"
has "manifest:     update (SnapDeals) 2KiB sector"
run 0 "params info of the update .params" "$CUZK_BIN" params info "$params/$params_name"
has "inputs:       5 (ONE included)"
has "domain size:  2097152 = 2^21"  # 1,705,039 constraints + 5 inputs (cuzk circuit info --circuit update)
has "manifest:     update (SnapDeals) 2KiB sector"

# params check digests the update files present: test parameters are not the ceremony's.
mkdir "$tmp/only-update"
ln -s "$params/$vk_name" "$tmp/only-update/$vk_name"
run 6 "params check of a test update .vk" "$CUZK_BIN" params check --params-dir "$tmp/only-update"
has "MISMATCH  2KiB update $vk_name"
has "0 ok, 1 mismatch, 10 missing"
# Without update files, nothing about them is reported (operators that do not snap have none).
mkdir "$tmp/empty"
run 0 "params check without update files" "$CUZK_BIN" params check --params-dir "$tmp/empty"
has "0 ok, 0 mismatch, 10 missing"

run 2 "params setup --circuit update needs --sector-size" "$CUZK_BIN" params setup --circuit update \
  --params-dir "$tmp/p"
run 2 "params setup --circuit update refuses -o" "$CUZK_BIN" params setup --circuit update --sector-size 2KiB \
  -o "$tmp/d"
run 2 "params setup --circuit demo refuses --sector-size" "$CUZK_BIN" params setup --circuit demo -o "$tmp/d" \
  --sector-size 2KiB
run 2 "params setup --circuit demo needs -o" "$CUZK_BIN" params setup --circuit demo
run 2 "params setup --circuit winning-post" "$CUZK_BIN" params setup --circuit winning-post --sector-size 2KiB
[ ! -e "$tmp/p" ] && [ ! -e "$tmp/d" ] || fail "a refused params setup wrote files"
# An existing file is kept unless --force.
run 6 "params setup --circuit update over existing files" "$CUZK_BIN" params setup --circuit update \
  --sector-size 2KiB --params-dir "$params"
has "pass --force"
echo "PASS: update test parameters under lotus' names, read by params info and digested by params check"
