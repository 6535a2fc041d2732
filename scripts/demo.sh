#!/usr/bin/env bash
# `make demo`: the main job on a built-in example. With the cuzk binary in BUILD_DIR:
#   1. test parameters for 2KiB sectors (NOT FOR PRODUCTION; made once, cached in BUILD_DIR/test-params),
#   2. a 2KiB C1 output file, sealed for real (`cuzk gen-c1`),
#   3. `cuzk prove` (synthesize, prove, self-verify, write the proof and a timing report),
#   4. `cuzk verify` and the independent @noble/curves verifier on the written proof.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
bin="$build/cuzk"
out="$build/demo"
params="$build/test-params"
[ -x "$bin" ] || { echo "demo: $bin not found; run 'make cuzk' first" >&2; exit 1; }
if ! command -v node >/dev/null 2>&1 || [ ! -d "$root/scripts/noble/node_modules/@noble/curves" ]; then
  echo "demo: node or @noble/curves is missing; run scripts/install-deps.sh" >&2
  exit 1
fi
mkdir -p "$out"
vk_name="$("$bin" params names --sector-size 2KiB | awk '/\.vk$/ {print $2}')"

echo "== 1. test parameters for 2KiB sectors -> $params"
if "$bin" params info "$params/$vk_name" >/dev/null 2>&1; then
  echo "   reusing the parameters made earlier"
else
  echo "   generating (a few minutes on 2 cores; made once per build tree)"
  "$bin" params setup --sector-size 2KiB --params-dir "$params" --force
fi

echo
echo "== 2. a 2KiB C1 output (sealed for real, lotus-bench envelope) -> $out/c1.json"
"$bin" gen-c1 --sector-size 2KiB --seed 1 --sector-id 1 --envelope -o "$out/c1.json"

echo
echo "== 3. cuzk prove"
rm -f "$out/1.proof" "$out/1.inputs.json"
"$bin" prove "$out/c1.json" -o "$out" --params-dir "$params" --dump-public-inputs --report "$out/report.json"

echo
echo "== 4. verification"
"$bin" verify "$out/1.proof" --c1 "$out/c1.json" --params-dir "$params"
node "$root/scripts/noble/verify.mjs" "$params/$vk_name" "$out/1.proof" "$out/1.inputs.json"

echo
echo "== summary"
echo "  C1 file:            $out/c1.json"
echo "  proof (192 bytes):  $out/1.proof"
echo "  timing report:      $out/report.json"
echo "  verifying key:      $params/$vk_name"
echo "  cuzk verify:        valid"
echo "  @noble/curves:      valid"
echo "demo OK (test parameters from random toxic waste: NOT FOR PRODUCTION)"
