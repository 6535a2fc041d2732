#!/usr/bin/env bash
# GPU faults mid-batch (label gpu: runs on the GPU machine, `ctest -L gpu`). The test-only hook
# CUZK_FAULT_CUDA_ALLOC=N fails the Nth device allocation of the process (gpu/device_buffer.hpp). For
# N = 1, 2, 3, ... until a run makes fewer than N allocations, a batch of two 2KiB sectors proven with
# --gpu --keep-going must exit 8, log the phase and partition where it failed, list the failed sector in
# the report with exit code 8, write no proof (nor any temporary file) for it, and a verifying proof for
# every sector not hit. Without --keep-going the same fault also exits 8 and writes no partial proof.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# The GPU machine has python3 but no Node.js: the report is read with python3.
command -v python3 >/dev/null 2>&1 || fail "python3 is not installed"
# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"
export CUZK_PCE_CACHE="$tmp/pce"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 31 --sector-id 31 --envelope -o "$tmp/a.json" >/dev/null 2>&1 || fail gen-c1
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 32 --sector-id 32 --envelope -o "$tmp/b.json" >/dev/null 2>&1 || fail gen-c1

# Proof files left in $1 must be whole and verify; no temporary file may remain.
check_outputs() {
  local dir=$1
  [ -z "$(find "$dir" -name '.*tmp*' 2>/dev/null)" ] || fail "N=$n: temporary files left: $(ls -A "$dir")"
  for proof in "$dir"/*.proof; do
    [ -e "$proof" ] || continue
    [ "$(stat -c %s "$proof")" -eq 192 ] || fail "N=$n: $proof is not 192 bytes"
    local c1="$tmp/a.json"
    [ "$(basename "$proof")" = 32.proof ] && c1="$tmp/b.json"
    "$CUZK_BIN" verify "$proof" --c1 "$c1" --params-dir "$params" >/dev/null 2>&1 || fail "N=$n: $proof does not verify"
  done
}

# CUZK_FAULT_NS="7 9 15": only these N (a short device session); every one of them must hit a fault.
faults=0
for n in ${CUZK_FAULT_NS:-$(seq 1 200)}; do
  got=0
  CUZK_FAULT_CUDA_ALLOC=$n "$CUZK_BIN" prove "$tmp/a.json" "$tmp/b.json" -o "$tmp/kg$n" --params-dir "$params" \
    --gpu --keep-going --report "$tmp/kg$n.json" >"$tmp/kg$n.txt" 2>&1 || got=$?
  if [ "$got" -eq 0 ]; then
    [ "$(ls "$tmp/kg$n" | tr '\n' ' ')" = "31.proof 32.proof " ] || fail "N=$n: exit 0 without both proofs"
    [ -z "${CUZK_FAULT_NS:-}" ] || fail "N=$n: no fault was injected (CUZK_FAULT_NS names N past the run's allocations)"
    break  # this run made fewer than N device allocations: every allocation has been failed once
  fi
  [ "$got" -eq 8 ] || { cat "$tmp/kg$n.txt" >&2; fail "N=$n: --keep-going exited $got, expected 8"; }
  faults=$((faults + 1))
  grep -q "injected_alloc_fault" "$tmp/kg$n.txt" || fail "N=$n: the log does not show the injected fault"
  grep -qE "partition [0-9]+ failed" "$tmp/kg$n.txt" || { cat "$tmp/kg$n.txt" >&2; fail "N=$n: no phase/partition"; }
  python3 - "$tmp/kg$n.json" <<'PY' || fail "N=$n: the report does not list the failed sector with exit 8"
import json, re, sys
r = json.load(open(sys.argv[1]))
fails = r["failures"]
ok = len(fails) >= 1 and all(f["exit_code"] == 8 and re.search("partition|verify|write", f["stage"]) for f in fails)
ok = ok and not any(s["c1"] == f["c1"] for f in fails for s in r["sectors"])
ok = ok and len(r["sectors"]) + len(fails) == 2
if not ok:
    print(json.dumps(fails), file=sys.stderr)
    sys.exit(1)
PY
  for failed in $(python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["failures"]: print("31" if f["c1"].endswith("a.json") else "32")' "$tmp/kg$n.json"); do
    [ ! -e "$tmp/kg$n/$failed.proof" ] || fail "N=$n: sector $failed failed but left a proof"
  done
  check_outputs "$tmp/kg$n"

  got=0
  CUZK_FAULT_CUDA_ALLOC=$n "$CUZK_BIN" prove "$tmp/a.json" "$tmp/b.json" -o "$tmp/strict$n" --params-dir "$params" \
    --gpu >"$tmp/strict$n.txt" 2>&1 || got=$?
  [ "$got" -eq 8 ] || { cat "$tmp/strict$n.txt" >&2; fail "N=$n: without --keep-going exited $got, expected 8"; }
  check_outputs "$tmp/strict$n"
  echo "N=$n: exit 8 with and without --keep-going, the failed sector listed, no partial proof"
done
[ "$faults" -ge 1 ] || fail "no run was hit by an injected fault (is the hook built in?)"
echo "ok: $faults injected device allocation faults, each exit 8 with no partial proof"
