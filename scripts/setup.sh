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

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install -q --disable-pip-version-check -r python/requirements.txt
# The report package (pmemids report), editable: the venv runs python/ as checked out.
.venv/bin/pip show -q pmemids-report >/dev/null 2>&1 ||
  .venv/bin/pip install -q --disable-pip-version-check -e python/
