#!/usr/bin/env bash
# docs/cli.md is the --help of every command (scripts/make-cli-doc.sh): made again from this binary, it must be
# the committed file byte for byte. When a flag or a help text changes, `make cli-doc` rewrites it.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
: "${CUZK_SOURCE_DIR:?CUZK_SOURCE_DIR must name the source tree}"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

bash "$CUZK_SOURCE_DIR/scripts/make-cli-doc.sh" "$CUZK_BIN" "$tmp/cli.md" || fail "make-cli-doc.sh exited $?"
if ! diff -u "$CUZK_SOURCE_DIR/docs/cli.md" "$tmp/cli.md" >"$tmp/diff.txt"; then
  head -60 "$tmp/diff.txt" >&2
  fail "docs/cli.md differs from the binary's --help (above, - committed, + binary): run \`make cli-doc\`"
fi
# Nothing commit-dependent: the version line is not in it.
! grep -q "(commit " "$CUZK_SOURCE_DIR/docs/cli.md" || fail "docs/cli.md holds a commit"
grep -q '^## cuzk prove$' "$CUZK_SOURCE_DIR/docs/cli.md" || fail "docs/cli.md lacks cuzk prove"
echo "ok: docs/cli.md matches --help"
