#!/usr/bin/env bash
# The Makefile's set-up targets, dry-run (`make -n`: the commands, none run): `make demo` builds the binary
# alone, not the test executables (a fresh 2-core machine spent most of the demo's time on them), then runs
# scripts/demo.sh; `make install` builds the binary and its man page; `make test` builds everything and runs
# ctest; `make cli-doc` rewrites docs/cli.md.
set -euo pipefail
: "${CUZK_SOURCE_DIR:?CUZK_SOURCE_DIR must name the source tree}"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v make >/dev/null || fail "make is missing"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
dry() { make --no-print-directory -n -C "$CUZK_SOURCE_DIR" "$@" BUILD_DIR="$tmp/build" JOBS=2; }

dry demo >"$tmp/demo.txt"
builds="$(grep 'cmake --build' "$tmp/demo.txt")" || fail "make demo builds nothing: $(cat "$tmp/demo.txt")"
[ "$builds" = "cmake --build $tmp/build -j 2 --target cuzk" ] || fail "make demo builds more than cuzk: $builds"
grep -q "scripts/demo.sh $tmp/build\$" "$tmp/demo.txt" || fail "make demo does not run demo.sh: $(cat "$tmp/demo.txt")"
grep -q "install-deps.sh" "$tmp/demo.txt" || fail "make demo does not install missing dependencies"

dry test >"$tmp/test.txt"
grep -qx "cmake --build $tmp/build -j 2" "$tmp/test.txt" || fail "make test does not build everything: $(cat "$tmp/test.txt")"
grep -q "ctest" "$tmp/test.txt" || fail "make test runs no ctest"
grep -q "install-deps.sh" "$tmp/test.txt" || fail "make test does not install missing dependencies"

dry install >"$tmp/install.txt"
builds="$(grep 'cmake --build' "$tmp/install.txt")" || fail "make install builds nothing: $(cat "$tmp/install.txt")"
[ "$builds" = "cmake --build $tmp/build -j 2 --target cuzk cuzk_man" ] || fail "make install builds: $builds"
grep -q "cmake --install $tmp/build" "$tmp/install.txt" || fail "make install installs nothing"

dry cli-doc >"$tmp/cli-doc.txt"
grep -q "scripts/make-cli-doc.sh $tmp/build/cuzk\$" "$tmp/cli-doc.txt" || fail "make cli-doc: $(cat "$tmp/cli-doc.txt")"
echo "ok: make demo builds only cuzk; make test builds everything"
