#!/usr/bin/env bash
# `cuzk prove --shard K/N|auto` (job/shard.hpp), through the dry run, which needs no parameters: the N slices
# of a batch of 2KiB C1 files list every sector exactly once, whatever the order of the arguments; `auto`
# reads a Slurm array's or a Kubernetes indexed Job's variables; a K/N or a variable that names no slice is a
# usage error (exit 2) naming it; a slice without sectors is a success that writes nothing.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || fail "jq is not installed (run scripts/install-deps.sh)"
# No scheduler's variables from the environment the test runs in (a CI job may be a Slurm task itself).
unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_STEP JOB_COMPLETION_INDEX

# Nine inputs: envelopes named by their SectorNum (3, 5, ..., 17; 9 and 11 and 13 order differently as
# strings) and one raw file named by its stem.
inputs=()
for id in 3 5 7 9 11 13 15 17; do
  "$CUZK_BIN" gen-c1 --sector-size 2KiB --seed "$id" --sector-id "$id" --envelope -o "$tmp/c1-$id.json" \
    >/dev/null 2>&1 || fail "gen-c1 $id"
  inputs+=("$tmp/c1-$id.json")
done
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 99 -o "$tmp/raw.json" >/dev/null 2>&1 || fail "gen-c1 raw"
inputs+=("$tmp/raw.json")
reversed=()
for ((i = ${#inputs[@]} - 1; i >= 0; i--)); do reversed+=("${inputs[i]}"); done

# The sectors of one slice's dry run, one per line, sorted; its "shard" object checked.
slice() {
  local shard="$1" out="$tmp/dry.json"
  shift
  "$CUZK_BIN" prove --dry-run --json --shard "$shard" -o "$tmp/out" "$@" >"$out" 2>"$tmp/dry.log" ||
    { cat "$tmp/dry.log" >&2; fail "--dry-run --shard $shard exited $?"; }
  jq -e --argjson k "${shard%/*}" --argjson n "${shard#*/}" '.shard == {index: $k, count: $n}' "$out" \
    >/dev/null || fail "--shard $shard: the dry run's shard object is $(jq -c .shard "$out")"
  jq -r '.sectors[].sector' "$out" | sort
}

all="$(printf '%s\n' 3 5 7 9 11 13 15 17 raw | sort)"
for n in 1 2 3 4 5 9 10; do
  : >"$tmp/union"
  for ((k = 0; k < n; k++)); do
    mine="$(slice "$k/$n" "${inputs[@]}")"
    [ "$mine" = "$(slice "$k/$n" "${reversed[@]}")" ] || fail "slice $k/$n changes with the order of the arguments"
    [ -z "$mine" ] || echo "$mine" >>"$tmp/union"
    count="$(printf '%s' "$mine" | grep -c . || true)"
    # Round robin over the sorted sectors: 9 sectors in n slices of 9/n, rounded up or down.
    [ "$count" -ge $((9 / n)) ] && [ "$count" -le $(((9 + n - 1) / n)) ] ||
      fail "slice $k/$n has $count of 9 sectors"
  done
  [ "$(sort "$tmp/union")" = "$all" ] || fail "$n slices do not cover every sector exactly once: $(sort "$tmp/union" | tr '\n' ' ')"
done
# Sorted by number (3 5 7 9 11 ...), not as strings: slice 0/2 is the 1st, 3rd, 5th, ...
[ "$(slice 0/2 "${inputs[@]}")" = "$(printf '%s\n' 3 7 11 15 raw | sort)" ] ||
  fail "slice 0/2 is $(slice 0/2 "${inputs[@]}" | tr '\n' ' ')"

# auto: a Slurm array task (ids from SLURM_ARRAY_TASK_MIN), a Kubernetes indexed Job, neither.
auto_slice() {
  "$CUZK_BIN" prove --dry-run --json --shard auto -o "$tmp/out" "$@" >"$tmp/auto.json" 2>"$tmp/auto.log" ||
    { cat "$tmp/auto.log" >&2; fail "--shard auto exited $?"; }
  jq -r '.sectors[].sector' "$tmp/auto.json" | sort
}
[ "$(SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=4 auto_slice "${inputs[@]}")" = "$(slice 2/4 "${inputs[@]}")" ] ||
  fail "SLURM_ARRAY_TASK_ID=2 of 4 is not slice 2/4"
grep -q "SLURM_ARRAY_TASK_ID=2 of SLURM_ARRAY_TASK_COUNT=4" "$tmp/auto.log" || fail "the log does not say where the shard came from"
[ "$(SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=1 auto_slice "${inputs[@]}")" = \
  "$(slice 3/4 "${inputs[@]}")" ] || fail "--array=1-4 task 4 is not slice 3/4"
[ "$(JOB_COMPLETION_INDEX=1 auto_slice --shard-count 3 "${inputs[@]}")" = "$(slice 1/3 "${inputs[@]}")" ] ||
  fail "JOB_COMPLETION_INDEX=1 with --shard-count 3 is not slice 1/3"
[ "$(auto_slice "${inputs[@]}")" = "$all" ] || fail "--shard auto without a scheduler does not take every input"
jq -e 'has("shard") | not' "$tmp/auto.json" >/dev/null || fail "no shard, yet the dry run has a shard object"
grep -q "one slice, every input" "$tmp/auto.log" || fail "--shard auto without a scheduler does not say so"

# Usage errors: exit 2, naming the flag or the variable, before any work.
refused() {
  local expect="$1" got=0
  shift
  "$CUZK_BIN" prove -o "$tmp/refused" "$@" "${inputs[0]}" >"$tmp/refused.out" 2>"$tmp/refused.log" || got=$?
  [ "$got" -eq 2 ] || { cat "$tmp/refused.log" >&2; fail "$* exited $got, expected 2"; }
  grep -qF -- "$expect" "$tmp/refused.log" || { cat "$tmp/refused.log" >&2; fail "$*: the error does not name $expect"; }
  [ ! -s "$tmp/refused.out" ] || fail "$*: a usage error printed records"
  [ ! -e "$tmp/refused" ] || fail "$*: a usage error made the output folder"
}
refused "--shard" --shard 4/4
refused "--shard" --shard 0/0
refused "--shard" --shard abc
refused "--shard" --shard -1/4
refused "--shard" --shard 1/4/2
refused "--shard-count" --shard 1/4 --shard-count 4
refused "--shard-count" --shard-count 4
export JOB_COMPLETION_INDEX=1
refused "JOB_COMPLETION_INDEX" --shard auto
refused "JOB_COMPLETION_INDEX=1 is not below --shard-count 1" --shard auto --shard-count 1
unset JOB_COMPLETION_INDEX
SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_COUNT=4 refused "SLURM_ARRAY_TASK_ID=5" --shard auto
SLURM_ARRAY_TASK_ID=x SLURM_ARRAY_TASK_COUNT=4 refused "SLURM_ARRAY_TASK_ID" --shard auto
SLURM_ARRAY_TASK_ID=1 refused "SLURM_ARRAY_TASK_COUNT" --shard auto
refused "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX" --shard auto --shard-count 4

# A slice without sectors: exit 0, a log line that says so, no record and no proof (no parameters needed).
got=0
"$CUZK_BIN" prove --json --shard 5/8 -o "$tmp/empty" --params-dir "$tmp/no-params" \
  "${inputs[0]}" "${inputs[1]}" >"$tmp/empty.out" 2>"$tmp/empty.log" || got=$?
[ "$got" -eq 0 ] || { cat "$tmp/empty.log" >&2; fail "an empty shard exited $got"; }
grep -q "shard 5/8: none of the 2 input(s) falls in this slice: nothing to prove" "$tmp/empty.log" ||
  { cat "$tmp/empty.log" >&2; fail "an empty shard does not say so"; }
[ ! -s "$tmp/empty.out" ] || fail "an empty shard printed records: $(cat "$tmp/empty.out")"
[ -z "$(find "$tmp/empty" -type f 2>/dev/null)" ] || fail "an empty shard wrote $(find "$tmp/empty" -type f)"
"$CUZK_BIN" prove --dry-run --json --shard 5/8 -o "$tmp/out" "${inputs[0]}" "${inputs[1]}" >"$tmp/empty.json" \
  2>/dev/null || fail "the dry run of an empty shard exited $?"
jq -e '.sectors == [] and .fits == true and .shard == {index: 5, count: 8}' "$tmp/empty.json" >/dev/null ||
  fail "the dry run of an empty shard: $(cat "$tmp/empty.json")"
echo "ok: shards"
