#!/usr/bin/env bash
# The Debian package (cmake/Packaging.cmake, `make package`): CPack builds it from this build tree; it holds
# the binary, the license and the man page generated from --help, states the runtime libraries' packages
# as dependencies, and the cuzk it installs runs `--version` and `selftest`. Unpacked with dpkg -x; with
# CUZK_PACKAGE_DPKG_INSTALL=1 as root (CI) also installed with dpkg -i and removed again.
set -euo pipefail
: "${CUZK_BINARY_DIR:?CUZK_BINARY_DIR must name the build tree}"
fail() { echo "FAIL: $*" >&2; exit 1; }
# A command that stops the script through set -e says which it was (ctest shows only this output).
trap 'echo "FAIL: line $LINENO: \"$BASH_COMMAND\" exited $?" >&2' ERR
command -v dpkg-deb >/dev/null || fail "dpkg-deb is missing"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cpack -G DEB --config "$CUZK_BINARY_DIR/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log" >&2; fail "cpack exited $?"; }
deb="$(ls "$tmp"/pkg/cuzk_*.deb 2>/dev/null | sed -n 1p)"
[ -n "$deb" ] || { cat "$tmp/cpack.log" >&2; fail "cpack made no cuzk_*.deb"; }

dpkg-deb -c "$deb" >"$tmp/contents.txt"
for f in ./usr/bin/cuzk ./usr/share/doc/cuzk/LICENSE ./usr/share/man/man1/cuzk.1.gz; do
  grep -q " $f\$" "$tmp/contents.txt" || { cat "$tmp/contents.txt" >&2; fail "the package lacks $f"; }
done
# Dependencies: the packages of the shared libraries the binary loads, by name stem (versions differ
# between distributions: libspdlog1.10 on Debian 12, libspdlog1.12 on Ubuntu 24.04).
depends="$(dpkg-deb -f "$deb" Depends)"
for stem in libspdlog libfmt libyaml-cpp libzstd libssl libgomp libstdc++ libc6; do
  grep -q "$stem" <<<"$depends" || fail "Depends lacks $stem: $depends"
done
# ... and every library the binary needs is in one of them.
depends_names="$(tr ',|' '\n\n' <<<"$depends" | sed -e 's/([^)]*)//' -e 's/ //g')"  # one name a line
dpkg -x "$deb" "$tmp/root"
bin="$tmp/root/usr/bin/cuzk"
for lib in $(objdump -p "$bin" | awk '/NEEDED/ {print $2}'); do
  # awk reads all of its input: an early exit would end ldconfig with SIGPIPE, which pipefail reports.
  path="$(ldconfig -p | awk -v l="$lib" '$1 == l && path == "" {path = $NF} END {print path}')"
  [ -n "$path" ] || fail "$lib is not installed here"
  # dpkg knows a file under the name its package shipped it as (merged /usr: /lib/... or /usr/lib/...).
  owner=""
  real="$(readlink -f "$path")"
  for candidate in "$path" "$real" "${real#/usr}" "/usr${path}"; do
    owner="$(dpkg -S "$candidate" 2>/dev/null | sed -n '1s/:.*//p' || true)"
    [ -n "$owner" ] && break
  done
  [ -n "$owner" ] || fail "no package owns $lib ($path)"
  # Depends may name the package or a virtual one it provides (libspdlog1.10 provides libspdlog1.10-fmt9).
  names="$owner $(dpkg-query -W -f='${Provides}' "$owner" 2>/dev/null | sed -e 's/([^)]*)//g' -e 's/,/ /g')"
  found=0
  for name in $names; do
    grep -qxF "$name" <<<"$depends_names" && found=1
  done
  [ "$found" = 1 ] || fail "$lib comes from $owner, which Depends does not name: $depends"
done
# No dynamic CUDA runtime: a GPU host needs only the driver (cudart is linked statically).
if grep -q 'NEEDED.*libcudart' <<<"$(objdump -p "$bin")"; then fail "the binary loads libcudart dynamically"; fi

# The man page comes from --help: every subcommand and a new flag are in it.
zcat "$tmp/root/usr/share/man/man1/cuzk.1.gz" >"$tmp/cuzk.1"
for word in 'cuzk prove' 'cuzk params check' 'metrics.file' 'EXIT STATUS'; do
  grep -q -- "$word" "$tmp/cuzk.1" || fail "the man page lacks \"$word\""
done

grep -q '^cuzk ' <<<"$("$bin" --version)" || fail "the packaged cuzk --version"
start=$(date +%s)
"$bin" selftest -o "$tmp/selftest" >"$tmp/selftest.txt" 2>&1 || { cat "$tmp/selftest.txt" >&2; fail "the packaged cuzk selftest"; }
echo "packaged cuzk selftest: $(($(date +%s) - start)) s"

if [ "${CUZK_PACKAGE_DPKG_INSTALL:-0}" = 1 ]; then
  [ "$(id -u)" -eq 0 ] || fail "CUZK_PACKAGE_DPKG_INSTALL=1 needs root"
  dpkg -i "$deb" >/dev/null || fail "dpkg -i exited $?"
  trap 'dpkg -r cuzk >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
  grep -q '^cuzk ' <<<"$(/usr/bin/cuzk --version)" || fail "the installed cuzk --version"
  /usr/bin/cuzk selftest -o "$tmp/selftest-installed" >/dev/null 2>&1 || fail "the installed cuzk selftest"
  man -w cuzk >/dev/null 2>&1 || command -v man >/dev/null || echo "(man is not installed; the page is in place)"
  echo "dpkg -i: installed cuzk runs"
fi
echo "package OK: $(basename "$deb")"
