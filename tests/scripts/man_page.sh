#!/usr/bin/env bash
# The man page (scripts/make-man.sh, from the --help texts): an EXAMPLES section made from the examples that
# end `cuzk --help`, a SUBCOMMANDS section with every command's help, the exit codes and the environment.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
: "${CUZK_SOURCE_DIR:?CUZK_SOURCE_DIR must name the source tree}"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v help2man >/dev/null || fail "help2man is missing (scripts/install-deps.sh installs it)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

bash "$CUZK_SOURCE_DIR/scripts/make-man.sh" "$CUZK_BIN" "$tmp/cuzk.1.gz" || fail "make-man.sh exited $?"
zcat "$tmp/cuzk.1.gz" >"$tmp/cuzk.1"
# The text of one section (.SH NAME up to the next .SH).
section() { awk -v name="$1" '/^\.SH / { on = ($0 == ".SH " name || $0 == ".SH \"" name "\""); next } on' "$tmp/cuzk.1"; }

for name in EXAMPLES SUBCOMMANDS "EXIT STATUS" ENVIRONMENT; do
  [ -n "$(section "$name")" ] || fail "the man page has no $name section"
done
# The examples are commands in constant width (help2man's rendering of "  $ ..." lines).
section EXAMPLES >"$tmp/examples.txt"
for example in 'cuzk prove c1/*.json -o proofs/ --gpu' 'cuzk verify proofs/1.proof' 'cuzk compare'; do
  grep -qF "\\f(CW\$ $example" "$tmp/examples.txt" || { cat "$tmp/examples.txt" >&2; fail "EXAMPLES lacks $example"; }
done
# Every command has its help under SUBCOMMANDS.
section SUBCOMMANDS >"$tmp/subcommands.txt"
while read -r command; do
  grep -qxF ".SS \"cuzk $command\"" "$tmp/subcommands.txt" || fail "SUBCOMMANDS lacks cuzk $command"
done < <("$CUZK_SOURCE_DIR/scripts/cli-commands.sh" "$CUZK_BIN")
for code in 0 3 8 130 143; do
  section "EXIT STATUS" | grep -qx "$code" || fail "EXIT STATUS lacks $code"
done
echo "ok: man page"
