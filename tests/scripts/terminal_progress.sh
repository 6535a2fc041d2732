#!/usr/bin/env bash
# `cuzk prove` on a terminal, run under `script` for a pseudo-terminal:
# - each `<sector> <hex>` result line is printed on a line of its own, after the live progress line was
#   erased, so that copying the proof from the screen gives the proof alone;
# - the live line knows the run's total (2 partitions) from the up-front checks on, before the first
#   partition is proven, and names the step it is at;
# - in a log file (stderr not a terminal) the progress lines carry the step too.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with `make demo` and porep_2kib_e2e.sh

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v script >/dev/null 2>&1 || fail "script (util-linux) is not installed"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"
export FIL_PROOFS_PARAMETER_CACHE="$params"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 41 --sector-id 41 --envelope -o "$tmp/a.json" || fail "gen-c1"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 42 --sector-id 42 --envelope -o "$tmp/b.json" || fail "gen-c1"

# Everything the terminal received (stdout and stderr share it), raw: carriage returns and erase-line
# sequences kept. --progress-interval 0.001: the live line is redrawn at every step.
TERM=xterm script -qec "'$CUZK_BIN' prove --progress-interval 0.001 -o '$tmp/out' '$tmp/a.json' '$tmp/b.json'" \
  /dev/null >"$tmp/screen.raw" </dev/null || { cat -v "$tmp/screen.raw" >&2; fail "prove on a terminal failed"; }

for sector in 41 42; do
  hex="$(od -An -tx1 -v "$tmp/out/$sector.proof" | tr -d ' \n')"
  [ ${#hex} -eq 384 ] || fail "proof $sector has ${#hex} hex digits"
  # The screen line that shows the result: what is left of it after the last carriage return or erase-line
  # must be the result alone.
  line="$(tr -d '\r' <"$tmp/screen.raw" | grep -a -- "$hex" | head -1)" || true
  [ -n "$line" ] || { cat -v "$tmp/screen.raw" >&2; fail "no result line for sector $sector"; }
  visible="${line##*$'\e[K'}"
  [ "$visible" = "$sector $hex" ] || {
    cat -v "$tmp/screen.raw" >&2
    fail "the result line of sector $sector shows more than the result: '$(printf '%s' "$visible" | cut -c1-120)'"
  }
  # And nothing but the erase sequence before it on its screen line (it starts a line, or follows an erase).
  before="$(tr '\r' '\n' <"$tmp/screen.raw" | grep -a -- "$hex" | head -1)"
  [ "${before%%"$sector $hex"*}" = "" ] || [ "${before%%"$sector $hex"*}" = $'\e[K' ] || {
    cat -v "$tmp/screen.raw" >&2
    fail "the result of sector $sector was printed onto another line: '$(printf '%s' "${before%%"$sector $hex"*}" | cat -v)'"
  }
done

# The live line's states, one per redraw.
tr '\r' '\n' <"$tmp/screen.raw" | sed 's/\x1b\[K//g' | grep -a '^proving' >"$tmp/lines" || true
grep -q 'sector 1/2: synthesizing' "$tmp/lines" || { cat "$tmp/lines" >&2; fail "the live line never named the step"; }
# Every state drawn after the up-front checks ("checking ...") has the total.
if grep -E '^proving [0-9]+[ ,]' "$tmp/lines" | grep ' | ' | grep -v ' | checking ' | grep -q .; then
  cat "$tmp/lines" >&2
  fail "a live line after the up-front checks shows no total"
fi
grep -q '^proving 0/2 (0%).*synthesizing' "$tmp/lines" || { cat "$tmp/lines" >&2; fail "no total before the first partition"; }
tail -1 "$tmp/lines" | grep -q '^proving 2/2 (100%)' || { cat "$tmp/lines" >&2; fail "the final line is not 2/2"; }

# In a log file: plain progress lines that name the step they were at (one sector: the test's time).
"$CUZK_BIN" prove --progress-interval 0.001 -o "$tmp/out2" "$tmp/a.json" >/dev/null 2>"$tmp/log" ||
  fail "prove into a log failed"
grep -q 'progress: proving 0/1 (0%).* | sector 1/1: ' "$tmp/log" || { cat "$tmp/log" >&2; fail "log progress lines without the total or the step"; }
if grep -q $'\e' "$tmp/log"; then fail "a control character in the log"; fi
echo "terminal_progress: PASS"
