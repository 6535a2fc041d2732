#!/usr/bin/env bash
# Hostile inputs from the command line, each refused quickly with its exit code and a message
# naming the file: FIFOs, devices and directories as C1 or PCE files (3, without blocking), a NUL byte and
# garbage after the document (3), a huge string (3, a short message), --threads past 4x the hardware
# threads (2), bad output paths (3 before any work, 2 for an empty one), out-of-range numbers (2; a
# negative envelope SectorNum: 3), missing / directory / dangling / looping C1 paths (3), and a verifying
# key (a .vk, or the one a .params begins with) with any point at infinity (3, in `params info`, `prove` and
# `verify`); the report readers of `compare` and `report timeline`, and `pce build` into a file (3). No
# parameters are needed: every case stops before.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect CODE NAME COMMAND...: COMMAND (30 s at most: a blocked open() fails the test) exits with CODE.
expect() {
  local code=$1 name=$2 got=0
  shift 2
  timeout 30 "$@" >"$tmp/out.txt" 2>&1 || got=$?
  [ "$got" -eq "$code" ] || { head -c 4000 "$tmp/out.txt" >&2; fail "$name: exit $got, expected $code"; }
}
# says TEXT NAME: the last command's output contains TEXT.
says() { grep -qF -- "$1" "$tmp/out.txt" || { head -c 4000 "$tmp/out.txt" >&2; fail "$2: the output lacks: $1"; }; }

noparams="$tmp/noparams"  # empty: a case that got past the up-front checks would exit 6, not the code expected
mkdir -p "$noparams"
prove=("$CUZK_BIN" prove --params-dir "$noparams")  # an array: `timeout` runs programs, not functions

"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 3 --sector-id 9 -o "$tmp/c1.json" >/dev/null 2>&1 || fail "gen-c1 exited $?"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 3 --sector-id 9 --envelope -o "$tmp/env.json" >/dev/null 2>&1 ||
  fail "gen-c1 --envelope exited $?"
expect 6 "a valid C1 without parameters" "${prove[@]}" "$tmp/c1.json" -o "$tmp/out"

# 1. Special files are refused before they are opened (a FIFO blocked open() forever).
mkfifo "$tmp/fifo.json"
expect 3 "prove FIFO" "${prove[@]}" "$tmp/fifo.json" -o "$tmp/out"
says "$tmp/fifo.json" "prove FIFO"
says "FIFO" "prove FIFO"
expect 3 "prove /dev/zero" "${prove[@]}" /dev/zero -o "$tmp/out"
says "character device" "prove /dev/zero"
mkfifo "$tmp/fifo.pce"
expect 3 "pce info FIFO" "$CUZK_BIN" pce info "$tmp/fifo.pce"
says "$tmp/fifo.pce" "pce info FIFO"
expect 3 "pce info directory" "$CUZK_BIN" pce info "$tmp"

# 2. Only whitespace may follow the JSON document.
{ cat "$tmp/c1.json"; printf '\0garbage'; } >"$tmp/nul.json"
expect 3 "NUL and garbage" "${prove[@]}" "$tmp/nul.json" -o "$tmp/out"
says "trailing data" "NUL and garbage"

# 3. A 16 MiB string is refused early and not echoed.
{ printf '{"registered_proof":"'; head -c 16777216 /dev/zero | tr '\0' A; printf '"}'; } >"$tmp/huge.json"
expect 3 "huge string" "${prove[@]}" "$tmp/huge.json" -o "$tmp/out"
says "longer than 4096 bytes" "huge string"
[ "$(stat -c %s "$tmp/out.txt")" -lt 2000 ] || fail "huge string: $(stat -c %s "$tmp/out.txt") bytes of messages"

# 4. --threads is bounded (100000 crashed OpenMP).
expect 2 "--threads 100000" "${prove[@]}" "$tmp/c1.json" -o "$tmp/out" --threads 100000
says "--threads" "--threads 100000"
expect 2 "pce info --threads 100000" "$CUZK_BIN" pce info "$tmp/x.pce" --threads 100000
expect 6 "--threads 1 is fine" "${prove[@]}" "$tmp/c1.json" -o "$tmp/out" --threads 1
# A GPU-only flag without --gpu is a usage error too (it was reported as an internal error, exit 1).
expect 2 "--gpu-memory without --gpu" "${prove[@]}" "$tmp/c1.json" -o "$tmp/out" --gpu-memory 2GiB
says "--gpu-memory: only with --gpu" "--gpu-memory without --gpu"
expect 2 "--gpu-gather device without --gpu" "${prove[@]}" "$tmp/c1.json" -o "$tmp/out" --gpu-gather device
expect 2 "--gpu-gather elsewhere" "${prove[@]}" "$tmp/c1.json" -o "$tmp/out" --gpu --gpu-gather elsewhere
expect 2 "--gpu-constraints device without --gpu" "${prove[@]}" "$tmp/c1.json" -o "$tmp/out" --gpu-constraints device
says "--gpu-constraints: only with --gpu" "--gpu-constraints device without --gpu"
# With --gpu the constraints go to the device unless asked otherwise (the default once lost its "auto").
"$CUZK_BIN" prove --help >"$tmp/out.txt" 2>&1 || fail "prove --help exited $?"
says "--gpu-constraints TEXT:{auto,host,device}=auto" "the default of --gpu-constraints"
expect 2 "--gpu-constraints elsewhere" "${prove[@]}" "$tmp/c1.json" -o "$tmp/out" --gpu --gpu-constraints elsewhere

# 5. Bad output paths: named with the reason, before any work (3), or a usage error (2) for "".
echo x >"$tmp/file"
expect 3 "-o a regular file" "${prove[@]}" "$tmp/c1.json" -o "$tmp/file"
says "$tmp/file: the output directory exists and is not a directory" "-o a regular file"
expect 3 "-o under a file" "${prove[@]}" "$tmp/c1.json" -o "$tmp/file/sub"
says "$tmp/file/sub: cannot create the output directory" "-o under a file"
expect 2 "-o ''" "${prove[@]}" "$tmp/c1.json" -o ""
expect 3 "-o /dev/null" "${prove[@]}" "$tmp/c1.json" -o /dev/null
says "/dev/null" "-o /dev/null"
long="$tmp/$(printf 'n%.0s' $(seq 300))"
expect 3 "-o a name too long" "${prove[@]}" "$tmp/c1.json" -o "$long"
says "File name too long" "-o a name too long"
expect 3 "--report /dev/null" "${prove[@]}" "$tmp/c1.json" -o "$tmp/out" --report /dev/null
says "/dev/null: exists and is not a regular file" "--report /dev/null"
expect 3 "--report in a missing folder" "${prove[@]}" "$tmp/c1.json" -o "$tmp/out" --report "$tmp/absent/r.json"
says "$tmp/absent/r.json" "--report in a missing folder"
if [ "$(id -u)" -ne 0 ]; then
  mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
  expect 3 "-o a read-only folder" "${prove[@]}" "$tmp/c1.json" -o "$tmp/ro/out"
  says "$tmp/ro/out" "-o a read-only folder"
fi

# 7. Out-of-range numbers are usage errors, not wrapped to 2^64 - 1.
for v in -1 18446744073709551616 1e3 " 5"; do
  expect 2 "--miner-id '$v'" "${prove[@]}" "$tmp/c1.json" -o "$tmp/out" --miner-id "$v"
done
expect 6 "--miner-id 2^64 - 1 is in range" "${prove[@]}" "$tmp/c1.json" -o "$tmp/out" --miner-id 18446744073709551615
expect 2 "gen-c1 --seed -1" "$CUZK_BIN" gen-c1 --seed -1 -o "$tmp/g.json"
expect 2 "gen-c1 --sector-id 2^63" "$CUZK_BIN" gen-c1 --sector-id 9223372036854775808 -o "$tmp/g.json"
expect 2 "verify --miner-id -1" "$CUZK_BIN" verify "$tmp/x.proof" --proof-type StackedDrg2KiBV1_1 --miner-id -1
sed 's/"SectorNum":[0-9]*/"SectorNum":-1/' "$tmp/env.json" >"$tmp/negative.json"
grep -q '"SectorNum":-1' "$tmp/negative.json" || fail "could not make the negative SectorNum envelope"
expect 3 "SectorNum -1" "${prove[@]}" "$tmp/negative.json" -o "$tmp/out"
says "SectorNum -1 is negative" "SectorNum -1"
[ ! -e "$tmp/out/-1.proof" ] || fail "SectorNum -1 wrote -1.proof"

# 8. Missing, directory, dangling and looping C1 paths are input errors (3), as the README says.
ln -s "$tmp/absent.json" "$tmp/dangling.json"
ln -s "$tmp/loop.json" "$tmp/loop.json"
for c1 in "$tmp/absent.json" "$tmp" "$tmp/dangling.json" "$tmp/loop.json"; do
  expect 3 "prove $c1" "${prove[@]}" "$c1" -o "$tmp/out"
  says "$c1" "prove $c1"
done
expect 3 "verify --c1 missing" "$CUZK_BIN" verify "$tmp/x.proof" --c1 "$tmp/absent.json"
expect 3 "verify a missing proof" "$CUZK_BIN" verify "$tmp/x.proof" --c1 "$tmp/c1.json"

# 9. A verifying key with a point at infinity is refused by every reader of it, naming the file and the point
# (3, as any other bad point of a key): with gamma at infinity `cuzk verify` accepted forged proofs.
"$CUZK_BIN" selftest -o "$tmp/demo" >/dev/null 2>&1 || fail "selftest -o exited $?"  # demo.params, .vk, .proof
expect 0 "params info demo.vk" "$CUZK_BIN" params info "$tmp/demo/demo.vk"
expect 0 "params info demo.params" "$CUZK_BIN" params info "$tmp/demo/demo.params"
# The verifying key: alpha_g1 (96 bytes) at 0, beta_g1 (96) at 96, beta_g2 (192) at 192, gamma_g2 (192) at 384,
# delta_g1 (96) at 576, delta_g2 (192) at 672, uncompressed (bellperson VerifyingKey::write), then the length
# of ic and ic[0] at 868; infinity is 0x40 then zeros. A .params begins with the same bytes.
at_infinity() {  # at_infinity SOURCE DEST OFFSET SIZE
  cp "$1" "$2"
  { printf '\x40'; head -c $(($4 - 1)) /dev/zero; } | dd of="$2" bs=1 seek="$3" conv=notrunc status=none
}
for point in alpha_g1:0:96 beta_g1:96:96 beta_g2:192:192 gamma_g2:384:192 delta_g1:576:96 delta_g2:672:192; do
  IFS=: read -r name offset size <<<"$point"
  at_infinity "$tmp/demo/demo.vk" "$tmp/$name.vk" "$offset" "$size"
  expect 6 "params info, $name at infinity" "$CUZK_BIN" params info "$tmp/$name.vk"
  says "$tmp/$name.vk" "params info, $name at infinity"
  says "vk.$name: the point at infinity" "params info, $name at infinity"
  at_infinity "$tmp/demo/demo.params" "$tmp/$name.params" "$offset" "$size"
  expect 6 "params info .params, $name at infinity" "$CUZK_BIN" params info "$tmp/$name.params"
  says "vk.$name: the point at infinity" "params info .params, $name at infinity"
done
at_infinity "$tmp/demo/demo.vk" "$tmp/ic.vk" 868 96
expect 6 "params info, ic[0] at infinity" "$CUZK_BIN" params info "$tmp/ic.vk"
# `prove` reads the .params' own key in inputs.check and `verify` the .vk: a 2KiB parameter folder whose two
# files carry the demo key with gamma at infinity (the rest of the .params is five empty vectors).
bad_key="$tmp/bad-key"
mkdir -p "$bad_key"
params_name="$("$CUZK_BIN" params names --sector-size 2KiB | grep -o '[^ ]*\.params' | head -n 1)"
[ -n "$params_name" ] || fail "params names printed no .params name"
cp "$tmp/gamma_g2.vk" "$bad_key/${params_name%.params}.vk"
{ cat "$tmp/gamma_g2.vk"; head -c 20 /dev/zero; } >"$bad_key/$params_name"
expect 6 "prove, .params with gamma at infinity" "$CUZK_BIN" prove --params-dir "$bad_key" "$tmp/c1.json" -o "$tmp/out"
says "$bad_key/$params_name" "prove, .params with gamma at infinity"
says "vk.gamma_g2: the point at infinity" "prove, .params with gamma at infinity"
[ ! -e "$tmp/out/c1.proof" ] || fail "prove with gamma at infinity wrote a proof"
expect 6 "verify, .vk with gamma at infinity" "$CUZK_BIN" verify "$tmp/demo/demo.proof" --c1 "$tmp/c1.json" \
  --params-dir "$bad_key"
says "vk.gamma_g2: the point at infinity" "verify, .vk with gamma at infinity"

# A --comm-r that is not a field element is a bad flag value (exit 2), not "invalid C1 data" (there is none).
not_canonical="$(printf 'f%.0s' $(seq 64))"
zeros="$(printf '0%.0s' $(seq 64))"
expect 2 "verify, --comm-r not a field element" "$CUZK_BIN" verify "$tmp/demo/demo.proof" \
  --proof-type StackedDrg2KiBV1_1 --comm-r "$not_canonical" --comm-d "$zeros" --seed "$zeros" --replica-id "$zeros"
says "--comm-r" "verify, --comm-r not a field element"
says "not a canonical field element" "verify, --comm-r not a field element"

# The report readers refuse what the C1 reader refuses, with exit 3 and the file named
# (a FIFO blocked `compare` and `report timeline`; a missing file was exit 2, a directory exit 1).
printf '{"tool":"cuzk"}' >"$tmp/report.json"
expect 3 "compare FIFO" "$CUZK_BIN" compare "$tmp/fifo.json" "$tmp/report.json"
says "$tmp/fifo.json" "compare FIFO"
says "FIFO" "compare FIFO"
expect 3 "compare, contender a FIFO" "$CUZK_BIN" compare "$tmp/report.json" "$tmp/fifo.json"
expect 3 "compare missing" "$CUZK_BIN" compare "$tmp/absent.json" "$tmp/report.json"
says "$tmp/absent.json: no such file" "compare missing"
expect 3 "compare directory" "$CUZK_BIN" compare "$tmp" "$tmp/report.json"
expect 3 "report timeline FIFO" "$CUZK_BIN" report timeline "$tmp/fifo.json" -o "$tmp/t.svg"
says "FIFO" "report timeline FIFO"
expect 3 "report timeline directory" "$CUZK_BIN" report timeline "$tmp" -o "$tmp/t.svg"
says "directory" "report timeline directory"
expect 3 "report timeline missing" "$CUZK_BIN" report timeline "$tmp/absent.json" -o "$tmp/t.svg"
# `pce build --cache-dir FILE` exited 1 after printing "built and written": refused up front now.
printf 'x' >"$tmp/not-a-folder"
expect 3 "pce build --cache-dir FILE" "$CUZK_BIN" pce build --circuit demo --cache-dir "$tmp/not-a-folder"
says "$tmp/not-a-folder" "pce build --cache-dir FILE"
if grep -qF "built and written" "$tmp/out.txt"; then fail "pce build --cache-dir FILE said it wrote the cache"; fi
expect 0 "pce build --cache-dir DIR" "$CUZK_BIN" pce build --circuit demo --cache-dir "$tmp/pce-folder"
says "built and written" "pce build --cache-dir DIR"
echo "ok: hostile inputs"
