#!/usr/bin/env bash
# `cuzk prove --skip-existing` on 2KiB sectors (CPU), with the test parameters of porep_2kib_e2e.sh: a re-run
# skips every sector whose proof file verifies (a "skipped" record with reason "already_proven", counted in
# the metrics, the proof untouched, nothing synthesized); a proof file that does not verify (another sector's,
# cut short: the dry run names both) is renamed aside, never over another file nor deleted, with a warning,
# and its sector is proven again.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"  # shared with porep_2kib_e2e.sh and `make demo`
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || fail "jq is not installed (run scripts/install-deps.sh)"
# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"
export CUZK_PCE_CACHE="$tmp/pce"

"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 41 -o "$tmp/a.json" >/dev/null 2>&1 || fail "gen-c1 a"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 42 --sector-id 42 --envelope -o "$tmp/b.json" >/dev/null 2>&1 ||
  fail "gen-c1 b"
out="$tmp/out"
prove() { "$CUZK_BIN" prove "$tmp/a.json" "$tmp/b.json" -o "$out" --params-dir "$params" "$@"; }
verifies() { "$CUZK_BIN" verify "$out/$1.proof" --c1 "$2" --params-dir "$params" >/dev/null 2>&1; }
# A file's bytes, inode and modification time: the same only when it was not written again.
fingerprint() { echo "$(sha256sum <"$1") $(stat -c '%i %Y.%y' "$1")"; }
hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }

prove >/dev/null 2>"$tmp/first.log" || { cat "$tmp/first.log" >&2; fail "the first run exited $?"; }
verifies a "$tmp/a.json" && verifies 42 "$tmp/b.json" || fail "the first run's proofs do not verify"
before_a="$(fingerprint "$out/a.proof")"
before_b="$(fingerprint "$out/42.proof")"

# Again with --skip-existing: both skipped, proofs untouched, nothing synthesized or proven.
sleep 1  # a rewrite would show in the modification time
prove --skip-existing --json --metrics-file "$tmp/skip.prom" >"$tmp/skip.jsonl" 2>"$tmp/skip.log" ||
  { cat "$tmp/skip.log" >&2; fail "the re-run exited $?"; }
[ "$(fingerprint "$out/a.proof")" = "$before_a" ] && [ "$(fingerprint "$out/42.proof")" = "$before_b" ] ||
  fail "--skip-existing wrote a proof file again"
if grep -Eq "synthesizing|proven in" "$tmp/skip.log"; then fail "--skip-existing synthesized or proved a sector"; fi
[ "$(wc -l <"$tmp/skip.jsonl")" -eq 2 ] || fail "not one record per input: $(cat "$tmp/skip.jsonl")"
jq -se --arg a "$tmp/a.json" --arg b "$tmp/b.json" --arg out "$out" --arg ha "$(hex "$out/a.proof")" \
  --arg hb "$(hex "$out/42.proof")" '
  .[0] == {schema: "cuzk.prove.result/1", status: "skipped", c1: $a, sector: "a", reason: "already_proven",
           proof_type: "StackedDrg2KiBV1_1", partitions: 1, proof: ($out + "/a.proof"), proof_hex: $ha,
           verified: true}
  and .[1].status == "skipped" and .[1].c1 == $b and .[1].sector == "42" and .[1].reason == "already_proven"
  and .[1].proof_hex == $hb and (.[1] | has("error") | not)' "$tmp/skip.jsonl" >/dev/null ||
  fail "the skipped records: $(cat "$tmp/skip.jsonl")"
grep -q '^cuzk_sectors{result="already_proven",.*} 2$' "$tmp/skip.prom" || fail "metrics: $(grep sectors "$tmp/skip.prom")"
grep -q '^cuzk_sectors{result="proven",.*} 0$' "$tmp/skip.prom" || fail "metrics count skipped sectors as proven"
grep -q '^cuzk_last_run_success{.*} 1$' "$tmp/skip.prom" || fail "a run of skipped sectors is not a success"
# Without --json: the same result lines as a run that proves them.
prove --skip-existing >"$tmp/skip.txt" 2>/dev/null || fail "the re-run without --json exited $?"
[ "$(cat "$tmp/skip.txt")" = "$(printf 'a %s\n42 %s' "$(hex "$out/a.proof")" "$(hex "$out/42.proof")")" ] ||
  fail "the result lines of skipped sectors: $(cat "$tmp/skip.txt")"

# The dry run says what a run would do, and renames nothing: another sector's proof (well-formed, but not
# a's), then one cut short.
cp "$out/a.proof" "$tmp/a.proof.good"
dry_run() {
  "$CUZK_BIN" prove --dry-run --json --skip-existing "$tmp/a.json" "$tmp/b.json" -o "$out" --params-dir "$params" \
    >"$tmp/dry.json" 2>/dev/null || fail "the dry run exited $?"
  jq -e --arg why "$1" '[.sectors[].sector] == ["a"] and [.already_proven[].sector] == ["42"]
    and any(.notes[]; test("a.proof is not sector a.s proof: .*" + $why))' "$tmp/dry.json" >/dev/null ||
    fail "the dry run: $(cat "$tmp/dry.json")"
}
head -c 100 "$tmp/a.proof.good" >"$out/a.proof"
dry_run "not a multiple of the 192-byte"
cp "$out/42.proof" "$out/a.proof"
dry_run "does not verify"
[ -z "$(find "$out" -name '*.rejected-*')" ] || fail "the dry run set a file aside"

# Another sector's proof in a.proof: set aside (its bytes kept), warned about, a proven again; 42 skipped.
# Files set aside by earlier runs in the next seconds' names are left alone: the new one takes a free name.
now="$(date +%s)"
for ((t = now; t < now + 30; t++)); do
  echo "an earlier run's" >"$out/a.proof.rejected-$(date -u -d "@$t" +%Y%m%dT%H%M%SZ)"
done
prove --skip-existing --json >"$tmp/tampered.jsonl" 2>"$tmp/tampered.log" ||
  { cat "$tmp/tampered.log" >&2; fail "the run over a wrong proof exited $?"; }
mapfile -t aside < <(find "$out" -name 'a.proof.rejected-*' -size +100c)
[ "${#aside[@]}" -eq 1 ] || fail "not one file set aside: ${aside[*]} ($(ls "$out"))"
[[ "${aside[0]}" == *.1 ]] || fail "the file set aside is ${aside[0]}, not beside an earlier one's name"
cmp -s "${aside[0]}" "$out/42.proof" || fail "the file set aside is not the wrong proof"
[ "$(grep -lx "an earlier run's" "$out"/a.proof.rejected-* | wc -l)" -eq 30 ] ||
  fail "a file set aside by an earlier run was overwritten"
grep -q "warn.*a.proof is not this sector's proof.*set aside as ${aside[0]}" "$tmp/tampered.log" ||
  { cat "$tmp/tampered.log" >&2; fail "no warning naming the file set aside"; }
verifies a "$tmp/a.json" || fail "a was not proven again"
[ "$(fingerprint "$out/42.proof")" = "$before_b" ] || fail "42.proof was written again"
jq -se '(map(.status) | sort) == ["proven", "skipped"] and (.[] | select(.status == "proven") | .sector) == "a"
  and (.[] | select(.status == "skipped") | .sector) == "42"' "$tmp/tampered.jsonl" >/dev/null ||
  fail "the records: $(cat "$tmp/tampered.jsonl")"
echo "ok: --skip-existing"
