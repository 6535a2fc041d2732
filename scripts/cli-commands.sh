#!/usr/bin/env bash
# Prints every command of a cuzk binary, one per line, in the order `cuzk --help` lists them, each followed
# by its own subcommands: `prove`, ..., `params`, `params names`, ... Read from the --help texts, so that
# the man page (scripts/make-man.sh), docs/cli.md (scripts/make-cli-doc.sh) and the help tests
# (tests/scripts/help_texts.sh) cover every command without a list to keep.
# Usage: scripts/cli-commands.sh path/to/cuzk
set -euo pipefail
bin="$1"

# The names a help text lists as subcommands: only when its usage line asks for a SUBCOMMAND, under any
# heading but the options' and the examples' (cli/help_format.cpp groups them by task), two spaces in.
subcommands() {
  "$bin" "$@" --help | awk '
    /^Usage:/ { takes = /SUBCOMMAND/; next }
    /^[^ ].*:$/ { heading = $0; next }
    takes && heading !~ /^(Options|Positionals|Examples):$/ && /^  [a-z][a-z0-9-]*( |$)/ { print $1 }'
}

for command in $(subcommands); do
  echo "$command"
  for leaf in $(subcommands "$command"); do
    echo "$command $leaf"
  done
done
