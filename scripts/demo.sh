#!/usr/bin/env bash
# `make demo`: proves and verifies the built-in demo circuit end to end with the cuzk binary in
# BUILD_DIR, then checks the proof again with the independent @noble/curves verifier.
# (Later: the 2KiB PoRep C2 path replaces the demo circuit.)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
bin="$build/cuzk"
out="$build/demo"
[ -x "$bin" ] || { echo "demo: $bin not found; run 'make build' first" >&2; exit 1; }
mkdir -p "$out"
# A fresh setup each time (a fraction of a second): parameters left by an older build of the demo
# circuit would not fit it.
rm -f "$out"/demo.params "$out"/demo.vk "$out"/demo.proof "$out"/demo.public.json

echo "== cuzk selftest: setup (test parameters), prove, verify -> $out"
"$bin" selftest -o "$out"

echo
echo "== independent check: @noble/curves (scripts/noble/verify.mjs)"
if ! command -v node >/dev/null 2>&1 || [ ! -d "$root/scripts/noble/node_modules/@noble/curves" ]; then
  echo "demo: node or @noble/curves is missing; run scripts/install-deps.sh" >&2
  exit 1
fi
node "$root/scripts/noble/verify.mjs" "$out/demo.vk" "$out/demo.proof" "$out/demo.public.json"

echo
echo "== summary"
echo "  proof (192 bytes):  $out/demo.proof"
echo "  verifying key:      $out/demo.vk"
echo "  public inputs:      $out/demo.public.json"
echo "  cuzk verifier:      valid"
echo "  @noble/curves:      valid"
echo "demo OK (test parameters from random toxic waste: NOT FOR PRODUCTION)"
