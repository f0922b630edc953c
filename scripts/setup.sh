#!/usr/bin/env bash
# Installs everything pmemids needs on Debian 12 (run as root or with sudo):
# the C++ toolchain and libraries from Debian, and the project's Python venv.
# Idempotent: re-running only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(build-essential g++-12 cmake ninja-build pkg-config git
      libpmem-dev libpmem2-dev libpmemobj-dev pmdk-tools
      libmemkind-dev libnuma-dev libcli11-dev nlohmann-json3-dev libfmt-dev libtomlplusplus-dev
      libgtest-dev python3-venv clang-format valgrind
      clang libclang-rt-14-dev)  # libFuzzer for tests/fuzz
# Without their recommends (dozens of plugins): the one-node SLURM cluster of
# scripts/slurm-local.sh, which tests/cli/test_slurm.py starts.
BARE_PKGS=(slurmctld slurmd slurm-client munge)

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
updated=""
install_missing() { # apt-get options..., then -- and the packages
  local opts=() missing=() p
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing ${missing[*]}" >&2
  [ -n "$updated" ] || { $SUDO apt-get update -qq; updated=1; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${opts[@]}" "${missing[@]}" >/dev/null
}
install_missing -- "${PKGS[@]}"
install_missing --no-install-recommends -- "${BARE_PKGS[@]}"

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install -q --disable-pip-version-check -r python/requirements.txt
# The report package (pmemids report), editable: the venv runs python/ as checked out.
.venv/bin/pip show -q pmemids-report >/dev/null 2>&1 ||
  .venv/bin/pip install -q --disable-pip-version-check -e python/
