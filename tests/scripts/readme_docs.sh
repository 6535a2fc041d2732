#!/usr/bin/env bash
# What a newcomer reads: README.md keeps its table cells short (under 40 words: the detail lives in
# docs/commands.md), names the two set-up commands, has no figures in its Status section (they are in
# docs/performance.md, which cites bench/RESULTS.md by section) and no issue numbers; every relative link of
# README.md and docs/*.md reaches a file, and every #anchor a heading of it.
set -euo pipefail
: "${CUZK_SOURCE_DIR:?CUZK_SOURCE_DIR must name the source tree}"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node is missing (scripts/install-deps.sh installs it)"
cd "$CUZK_SOURCE_DIR"

# The lines of one "## " section of README.md.
section() { awk -v name="## $1" '/^## / { on = ($0 == name); next } on' README.md; }

# Table cells under 40 words (an escaped \| is not a column break).
long="$(grep '^|' README.md | sed 's/\\|/ /g' | awk -F'|' '{ for (i = 2; i < NF; i++) if (split($i, w, " ") >= 40) print split($i, w, " ") " words: " substr($i, 1, 80) }')"
[ -z "$long" ] || fail "README.md has table cells of 40 words or more:"$'\n'"$long"

# The set-up commands: make demo and make test, nothing else.
setup="$(section "Setting up" | awk '/^```/ { on = !on; next } on { print $1 " " $2 }')"
[ "$setup" = $'make demo\nmake test' ] || fail "README.md's set-up commands are not make demo and make test: $setup"
section "Quick start" | grep -q '^cuzk prove .*--gpu' || fail "README.md's quick start does not prove"

# Status without figures: no durations, speed-ups, shares or rates.
figures="$(section Status | grep -nE '[0-9](\.[0-9]+)? ?(ms|s|x|%|GB/s|GiB/s)([^A-Za-z0-9]|$)')" || true
[ -z "$figures" ] || fail "README.md's Status has figures (they belong in docs/performance.md):"$'\n'"$figures"
! grep -niE 'issues? *#?[0-9]' README.md || fail "README.md names issue numbers"

# docs/performance.md cites bench/RESULTS.md by section: each quoted title before a date is in a heading
# (headings with their issue numbers left out, as the citations leave them).
headings="$(grep '^##' bench/RESULTS.md | sed -E 's/ \(issue[^)]*\)//g')"
cited=0
while read -r title; do
  grep -qF -- "$title" <<<"$headings" || fail "bench/RESULTS.md has no section \"$title\""
  cited=$((cited + 1))
done < <(tr '\n' ' ' <docs/performance.md | tr -s ' ' | grep -oE '"[^"]+",? \(?[0-9]{4}-[0-9]{2}-[0-9]{2}' | sed -E 's/^"([^"]+)".*/\1/')
[ "$cited" -ge 5 ] || fail "docs/performance.md cites $cited sections of bench/RESULTS.md"

# Relative links and their anchors (GitHub's heading slugs).
node - README.md docs/*.md <<'JS' || exit 1
const fs = require('fs'), path = require('path');
const slug = (h) => h.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
const anchors = (file) => {
  const text = fs.readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#+ (.*)$/gm)].map((m) => slug(m[1])));
};
let bad = [];
for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = m[1];
    if (/^[a-z]+:/.test(link)) continue;  // http:, https:, mailto:
    const [target, anchor] = link.split('#');
    const resolved = target ? path.join(path.dirname(file), target) : file;
    if (!fs.existsSync(resolved)) { bad.push(`${file}: ${link}: no such file`); continue; }
    if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor))
      bad.push(`${file}: ${link}: no such heading`);
  }
}
if (bad.length) { console.error('FAIL: broken links:\n' + bad.join('\n')); process.exit(1); }
JS
echo "ok: README.md and docs/*.md"
