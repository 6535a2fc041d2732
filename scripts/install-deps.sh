#!/usr/bin/env bash
# Installs what cuzk needs to build and test, only what is missing. Idempotent; quiet when all is there.
# Debian 12 / Ubuntu 24.04. Run as root or with sudo available.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

packages=(cmake make g++ pkg-config git libcli11-dev libspdlog-dev libfmt-dev libyaml-cpp-dev libzstd-dev
          libgtest-dev libgmock-dev nlohmann-json3-dev libssl-dev libbenchmark-dev nodejs npm
          clang libclang-rt-14-dev libomp-14-dev  # these three: scripts/sanitize-and-fuzz.sh
          help2man dpkg-dev jq bsdutils  # bsdutils: script(1), tests/scripts/terminal_progress.sh
          slurm-wlm munge python3-yaml)  # a one-node Slurm cluster, the Kubernetes Job: tests/scripts/slurm_array.sh, scheduler_examples.sh
missing=()
for p in "${packages[@]}"; do
  # nodejs/npm may come from another source (nodesource); accept any working binary.
  case "$p" in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages of the independent verifier (scripts/noble), pinned by its package-lock.json.
noble="$here/noble"
if [ -f "$noble/package.json" ] && [ ! -d "$noble/node_modules/@noble/curves" ]; then
  echo "install-deps: npm ci in scripts/noble" >&2
  (cd "$noble" && npm ci --silent --no-audit --no-fund >/dev/null)
fi
