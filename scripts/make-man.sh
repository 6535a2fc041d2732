#!/usr/bin/env bash
# Generates the cuzk man page from its --help texts with help2man: the top-level page (NAME, SYNOPSIS,
# DESCRIPTION, OPTIONS and EXAMPLES from `cuzk --help`, whose "Examples:" footer help2man turns into that
# section; VERSION from `cuzk --version`), plus a SUBCOMMANDS section with every subcommand's own --help
# (two levels: `cuzk params`, `cuzk params check`, ...; scripts/cli-commands.sh lists them), the exit codes
# and the environment, so that the page never drifts from the flags.
# Usage: scripts/make-man.sh path/to/cuzk out/cuzk.1.gz
set -euo pipefail
bin="$1"
out="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$(dirname "$out")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Run it as plain `cuzk`, the name help2man gives the page, not as the build tree's path.
mkdir "$work/bin"
ln -s "$(readlink -f "$bin")" "$work/bin/cuzk"
export PATH="$work/bin:$PATH"
bin=cuzk

# roff-safe preformatted text: backslashes doubled, lines starting with . or ' protected.
roff_block() {
  printf '.nf\n'
  sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
  printf '.fi\n'
}

{
  echo '[SUBCOMMANDS]'
  "$here/cli-commands.sh" "$bin" | while read -r -a command; do
    printf '.SS "cuzk %s"\n' "${command[*]}"
    "$bin" "${command[@]}" --help | roff_block
  done
  echo '[EXIT STATUS]'
  # The code table of docs/exit-codes.md (code | name | kind | meaning), checked against cli/exit_codes.hpp by
  # tests/test_exit_codes.cpp.
  awk '/^## Codes/ {on = 1; next} on && /^## / {on = 0} on && /^\| [0-9]/' "$here/../docs/exit-codes.md" |
    sed -e 's/^| *\([0-9]*\) *| *[^|]* | *[^|]* | *\(.*\) |$/.TP\n\1\n\2/' -e 's/`//g'
  echo '[ENVIRONMENT]'
  awk '/^## Environment variables/ {on = 1; next} on && /^## / {on = 0} on && /^\| `/' "$here/../README.md" |
    sed -e 's/^| *`\([A-Z_]*\)` *| *\(.*\) |$/.TP\n\1\n\2/' -e 's/`//g'
  echo '[SEE ALSO]'
  echo 'The README.md and docs/ of the cuzk sources: docs/commands.md (what each command does, in full),'
  echo 'docs/cli.md (this reference as Markdown), docs/integration.md (sealing scripts), docs/json-results.md'
  echo '(the --json records and the Prometheus metrics).'
} >"$work/include.h2m"

help2man --no-info --no-discard-stderr --section 1 \
  --name "Filecoin PoRep commit phase 2 (C2) Groth16 batch prover" \
  --include "$work/include.h2m" --output "$work/cuzk.1" "$bin"
gzip -9n <"$work/cuzk.1" >"$out.tmp"
mv "$out.tmp" "$out"
