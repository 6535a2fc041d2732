#!/usr/bin/env bash
# Independent check of cuzk's Groth16 output with @noble/curves (scripts/noble/verify.mjs):
# `cuzk selftest` proves the built-in demo circuit; the JS verifier must accept the proof, and
# reject it (exit 1) once a public input or a proof byte is changed. Fails when node or the npm
# package is missing (scripts/install-deps.sh installs both).
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
src="${CUZK_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
noble="$src/scripts/noble"
verify="$noble/verify.mjs"

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v node >/dev/null 2>&1 || fail "node is not installed (run scripts/install-deps.sh)"
[ -d "$noble/node_modules/@noble/curves" ] || fail "@noble/curves is not installed in $noble (run scripts/install-deps.sh)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$CUZK_BIN" selftest -o "$tmp" || fail "cuzk selftest exited $?"
for f in demo.vk demo.proof demo.public.json; do [ -s "$tmp/$f" ] || fail "selftest did not write $f"; done
[ "$(stat -c %s "$tmp/demo.proof")" -eq 192 ] || fail "demo.proof is not 192 bytes"

# expect CODE LABEL VK PROOF INPUTS: runs the verifier and checks its exit code.
expect() {
  local want="$1" label="$2" got=0
  shift 2
  node "$verify" "$@" >"$tmp/out.txt" 2>&1 || got=$?
  if [ "$got" -ne "$want" ]; then
    cat "$tmp/out.txt" >&2
    fail "$label: verifier exited $got, expected $want"
  fi
  echo "ok: $label (exit $got)"
}

expect 0 "untouched proof accepted" "$tmp/demo.vk" "$tmp/demo.proof" "$tmp/demo.public.json"

# Public input 0 of partition 0 replaced by (x + 1) mod r.
node -e '
  const fs = require("fs");
  const r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
  const inputs = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  if (!inputs.length || !inputs[0].length) { console.error("the demo has no public input"); process.exit(3); }
  inputs[0][0] = ((BigInt(inputs[0][0]) + 1n) % r).toString();
  fs.writeFileSync(process.argv[2], JSON.stringify(inputs));
' "$tmp/demo.public.json" "$tmp/tampered.public.json" || fail "could not tamper with the public inputs"
expect 1 "tampered public input rejected" "$tmp/demo.vk" "$tmp/demo.proof" "$tmp/tampered.public.json"

# Two partitions (the layout of 32GiB proofs): the proof twice, the inputs twice -> valid; the
# second partition's inputs tampered -> invalid.
cat "$tmp/demo.proof" "$tmp/demo.proof" >"$tmp/two.proof"
node -e '
  const fs = require("fs");
  const one = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  const bad = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  fs.writeFileSync(process.argv[3], JSON.stringify([one[0], one[0]]));
  fs.writeFileSync(process.argv[4], JSON.stringify([one[0], bad[0]]));
' "$tmp/demo.public.json" "$tmp/tampered.public.json" "$tmp/two.public.json" "$tmp/two_bad.public.json"
expect 0 "two partitions accepted" "$tmp/demo.vk" "$tmp/two.proof" "$tmp/two.public.json"
expect 1 "two partitions, second tampered, rejected" "$tmp/demo.vk" "$tmp/two.proof" "$tmp/two_bad.public.json"

# flip OFFSET MASK OUT: copy of the proof with one byte XORed.
flip() {
  node -e '
    const fs = require("fs");
    const b = fs.readFileSync(process.argv[1]);
    b[Number(process.argv[2])] ^= Number(process.argv[3]);
    fs.writeFileSync(process.argv[4], b);
  ' "$tmp/demo.proof" "$1" "$2" "$3"
}
# The y-sign flag of A (bit 0x20 of byte 0): still a valid point (-A), so the pairing check must fail.
flip 0 0x20 "$tmp/neg_a.proof"
expect 1 "proof with A negated (decodable) rejected" "$tmp/demo.vk" "$tmp/neg_a.proof" "$tmp/demo.public.json"
# The y-sign flag of C (byte 144).
flip 144 0x20 "$tmp/neg_c.proof"
expect 1 "proof with C negated (decodable) rejected" "$tmp/demo.vk" "$tmp/neg_c.proof" "$tmp/demo.public.json"
# Low bits of B's x coordinate (last byte of the 96-byte compressed G2 point at offset 48).
flip 143 0x01 "$tmp/bad_b.proof"
expect 1 "proof with a B coordinate byte flipped rejected" "$tmp/demo.vk" "$tmp/bad_b.proof" "$tmp/demo.public.json"
# Low bits of A's x coordinate.
flip 47 0x01 "$tmp/bad_a.proof"
expect 1 "proof with an A coordinate byte flipped rejected" "$tmp/demo.vk" "$tmp/bad_a.proof" "$tmp/demo.public.json"

# The verifying key of another (independent) setup of the same circuit.
"$CUZK_BIN" params setup --circuit demo -o "$tmp/other" >/dev/null 2>&1 || fail "cuzk params setup failed"
expect 1 "proof checked against another setup's vk rejected" "$tmp/other/demo.vk" "$tmp/demo.proof" "$tmp/demo.public.json"

# A replaced by the compressed point at infinity (0xc0, then zeros): bellperson rejects it.
{ printf '\xc0'; head -c 47 /dev/zero; tail -c 144 "$tmp/demo.proof"; } >"$tmp/inf_a.proof"
expect 1 "proof with A at infinity rejected" "$tmp/demo.vk" "$tmp/inf_a.proof" "$tmp/demo.public.json"

# Bad input, not a verdict: a truncated proof and a truncated vk.
head -c 191 "$tmp/demo.proof" >"$tmp/short.proof"
expect 2 "truncated proof is bad input" "$tmp/demo.vk" "$tmp/short.proof" "$tmp/demo.public.json"
head -c 1000 "$tmp/demo.vk" >"$tmp/short.vk"
expect 2 "truncated vk is bad input" "$tmp/short.vk" "$tmp/demo.proof" "$tmp/demo.public.json"
# A vk with gamma_g2 (192 bytes at offset 384) at infinity is bad input, not a key that verifies anything.
cp "$tmp/demo.vk" "$tmp/gamma_inf.vk"
{ printf '\x40'; head -c 191 /dev/zero; } | dd of="$tmp/gamma_inf.vk" bs=1 seek=384 conv=notrunc status=none
expect 2 "vk with gamma at infinity is bad input" "$tmp/gamma_inf.vk" "$tmp/demo.proof" "$tmp/demo.public.json"
grep -qF "gamma_g2: point at infinity" "$tmp/out.txt" || fail "the message does not name gamma_g2"

echo "PASS: @noble/curves accepts cuzk's proof and rejects every tampered variant"
