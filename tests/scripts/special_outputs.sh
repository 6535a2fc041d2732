#!/usr/bin/env bash
# Output paths that exist and are not regular files: every command that writes a file refuses a
# FIFO and a character device in its place with exit 3 and a message naming the path, and leaves it as it
# was (an atomic write renamed its temporary file over them; as root that replaced /dev/null). The device is
# made with mknod in a scratch folder, so the test needs root (CI runs it as root): without it the test
# fails, it does not skip. No parameters are needed: every case stops before the work.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect CODE NAME COMMAND...: COMMAND (60 s at most: a write that blocks on the FIFO fails the test) exits
# with CODE.
expect() {
  local code=$1 name=$2 got=0
  shift 2
  timeout 60 "$@" >"$tmp/out.txt" 2>&1 || got=$?
  [ "$got" -eq "$code" ] || { head -c 4000 "$tmp/out.txt" >&2; fail "$name: exit $got, expected $code"; }
}
says() { grep -qF -- "$1" "$tmp/out.txt" || { head -c 4000 "$tmp/out.txt" >&2; fail "$2: the output lacks: $1"; }; }

mkdir -p "$tmp/out"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 5 -o "$tmp/c1.json" >/dev/null 2>&1 || fail "gen-c1 exited $?"
# A report with a timeline of one step: enough for `report timeline`.
cat >"$tmp/report.json" <<'EOF'
{"tool": "cuzk", "timeline": [{"lane": "prover", "step": "prove", "sector": "1", "partition": 0,
 "start_s": 0.0, "end_s": 1.0}]}
EOF
expect 0 "report timeline to a regular file" "$CUZK_BIN" report timeline "$tmp/report.json" -o "$tmp/t.svg"

mkfifo "$tmp/fifo"
mknod "$tmp/null" c 1 3 || fail "mknod of a character device failed (the test runs as root in CI)"
[ -c "$tmp/null" ] || fail "mknod made no character device"

# check_untouched NAME: the FIFO and the device are still what they were after the command NAME.
check_untouched() {
  [ -p "$tmp/fifo" ] || fail "$1: $tmp/fifo is no longer a FIFO"
  [ -c "$tmp/null" ] || fail "$1: $tmp/null is no longer a character device"
}

for target in "$tmp/fifo" "$tmp/null"; do
  expect 3 "gen-c1 -o $target" "$CUZK_BIN" gen-c1 --sector-size 2KiB -o "$target"
  says "$target: exists and is not a regular file" "gen-c1 -o $target"
  check_untouched "gen-c1 -o $target"

  expect 3 "gen-update -o $target" "$CUZK_BIN" gen-update --sector-size 2KiB -o "$target"
  says "$target: exists and is not a regular file" "gen-update -o $target"
  check_untouched "gen-update -o $target"

  expect 3 "report timeline -o $target" "$CUZK_BIN" report timeline "$tmp/report.json" -o "$target"
  says "$target: exists and is not a regular file" "report timeline -o $target"
  check_untouched "report timeline -o $target"

  expect 3 "bench --report $target" "$CUZK_BIN" bench "$tmp/c1.json" --params-dir "$tmp/noparams" --reps 1 \
    --warmup 0 --report "$target"
  says "$target: exists and is not a regular file" "bench --report $target"
  check_untouched "bench --report $target"

  expect 3 "prove --report $target" "$CUZK_BIN" prove "$tmp/c1.json" --params-dir "$tmp/noparams" \
    -o "$tmp/out" --report "$target"
  check_untouched "prove --report $target"
  expect 3 "prove --metrics-file $target" "$CUZK_BIN" prove "$tmp/c1.json" --params-dir "$tmp/noparams" \
    -o "$tmp/out" --metrics-file "$target"
  check_untouched "prove --metrics-file $target"
done
says "a character device" "the message says what the path is"

# The files a command writes into a folder: demo parameters and the self-test's proof.
for file in demo.vk demo.proof; do
  rm -rf "$tmp/demo" && mkdir "$tmp/demo"
  mkfifo "$tmp/demo/$file"
  expect 3 "selftest -o with $file a FIFO" "$CUZK_BIN" selftest -o "$tmp/demo"
  says "$tmp/demo/$file: exists and is not a regular file" "selftest -o with $file a FIFO"
  [ -p "$tmp/demo/$file" ] || fail "selftest replaced the FIFO $file"
done
# params setup: the .vk of the size is a FIFO (with --force, which allows replacing regular files).
mkdir -p "$tmp/params"
vk_name="$("$CUZK_BIN" params names --sector-size 2KiB | grep -o '[^ ]*\.vk' | head -n 1)"
[ -n "$vk_name" ] || fail "params names printed no .vk name"
mkfifo "$tmp/params/$vk_name"
expect 3 "params setup with the .vk a FIFO" "$CUZK_BIN" params setup --sector-size 2KiB --params-dir "$tmp/params" \
  --force
says "$tmp/params/$vk_name: exists and is not a regular file" "params setup with the .vk a FIFO"
[ -p "$tmp/params/$vk_name" ] || fail "params setup replaced the FIFO"
echo "ok: special output files"
