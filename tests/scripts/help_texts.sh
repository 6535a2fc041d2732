#!/usr/bin/env bash
# The --help texts (cli/help_format.hpp): every command's exits 0 and has no line wider than 100 columns;
# the flags of `cuzk prove` and `cuzk bench` are in named groups (inputs and outputs, scripting, GPU, tuning,
# test only) rather than one list; `cuzk --help` groups the commands by task and ends with examples.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
: "${CUZK_SOURCE_DIR:?CUZK_SOURCE_DIR must name the source tree}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Every command, as scripts/cli-commands.sh walks them; a walk that lost some would test too little.
mapfile -t commands < <("$CUZK_SOURCE_DIR/scripts/cli-commands.sh" "$CUZK_BIN")
for expected in prove verify bench compare "report timeline" "params setup" "params load" "pce build" gen-c1; do
  printf '%s\n' "${commands[@]}" | grep -qxF "$expected" || fail "cli-commands.sh lost \"$expected\": ${commands[*]}"
done
[ "${#commands[@]}" -ge 22 ] || fail "cli-commands.sh found ${#commands[@]} commands: ${commands[*]}"

# No line wider than 100 columns, in any help text.
for command in "" "${commands[@]}"; do
  # shellcheck disable=SC2086  # a command is one or two words
  "$CUZK_BIN" $command --help >"$tmp/help.txt" || fail "cuzk ${command:+$command }--help exited $?"
  wide="$(awk 'length($0) > 100 { printf "%d columns: %s\n", length($0), $0 }' "$tmp/help.txt")"
  [ -z "$wide" ] || fail "cuzk ${command:+$command }--help has lines wider than 100 columns:"$'\n'"$wide"
done

# The options listed under one heading of a help text (the heading without its colon), by flag name.
flags_under() {
  awk -v heading="$1:" '/^[^ ].*:$/ { on = ($0 == heading); next } on && /^  -/ { sub(/^ +/, ""); print $1 }' \
    "$tmp/help.txt" | tr ',' '\n' | grep -- '^--' | sed 's/[^-a-z0-9].*//'
}
# Every flag in `want` is under `heading`.
expect_group() {
  local heading="$1" flag
  shift
  grep -qx "$heading:" "$tmp/help.txt" || fail "$label lacks the heading \"$heading:\""
  for flag in "$@"; do
    flags_under "$heading" | grep -qxF -- "$flag" || fail "$label: $flag is not under \"$heading\""
  done
}

"$CUZK_BIN" prove --help >"$tmp/help.txt"
label="prove --help"
expect_group "Inputs and outputs" --params-dir --output-dir --report --name-by --dump-public-inputs
expect_group "Scripting" --json --keep-going --dry-run --metrics-file --metrics-label --progress-interval
expect_group "GPU" --gpu --gpu-memory --gpu-gather --gpu-constraints --gpu-price-per-hour
expect_group "Tuning and checks" --threads --overlap --synthesis-workers --no-pce --check --no-verify
expect_group "Test only" --test-randomness
# Nothing but the help flag is left in CLI11's catch-all group.
[ "$(flags_under Options)" = "--help" ] || fail "prove --help: ungrouped flags: $(flags_under Options | tr '\n' ' ')"
grep -q '^  \$ cuzk prove ' "$tmp/help.txt" || fail "prove --help has no examples"
grep -q '^  \$ cuzk prove u.json ' "$tmp/help.txt" || fail "prove --help has no SnapDeals (update input file) example"

"$CUZK_BIN" bench --help >"$tmp/help.txt"
label="bench --help"
expect_group "Runs" --reps --warmup
expect_group "GPU" --gpu --gpu-memory
expect_group "Test only" --test-randomness
[ "$(flags_under Options)" = "--help" ] || fail "bench --help: ungrouped flags: $(flags_under Options | tr '\n' ' ')"

"$CUZK_BIN" params setup --help >"$tmp/help.txt"
label="params setup --help"
expect_group "Filecoin circuits (PoRep, SnapDeals update)" --sector-size --params-dir --force --circuit
expect_group "Built-in demo circuit" --output
expect_group "Test only" --seed

"$CUZK_BIN" verify --help >"$tmp/help.txt"
label="verify --help"
expect_group "Public inputs from a C1 file" --c1
expect_group "Public inputs of an update (SnapDeals) proof" --update
expect_group "Public inputs from values" --proof-type --comm-r --comm-d --seed --ticket --replica-id

# The top level: commands by task, then examples.
"$CUZK_BIN" --help >"$tmp/help.txt"
for heading in "Proving:" "Measuring:" "Parameters and caches:" "Test data and this build:" "Examples:"; do
  grep -qxF "$heading" "$tmp/help.txt" || fail "cuzk --help lacks \"$heading\""
done
grep -q '^    \$ cuzk prove .* --gpu$' "$tmp/help.txt" || fail "cuzk --help has no prove example"
# Usage lines name the program `cuzk`, not the path it was run by (docs/cli.md is made from them).
grep -qx 'Usage: cuzk \[OPTIONS\] SUBCOMMAND' "$tmp/help.txt" || fail "cuzk --help: $(grep Usage "$tmp/help.txt")"
echo "ok: help texts of ${#commands[@]} commands"
