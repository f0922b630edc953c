#!/usr/bin/env bash
# Builds the pmemids binary (Release) and installs it with its bash completion:
#   $PMEMIDS_PREFIX/bin/pmemids                                     (default prefix /usr/local)
#   $PMEMIDS_PREFIX/share/bash-completion/completions/pmemids
#   $PMEMIDS_PREFIX/share/pmemids/{workloads,sweeps,scripts}, share/doc/pmemids/
#   $PMEMIDS_PREFIX/bin/pmemids-slurm-sweep -> share/pmemids/scripts/slurm-sweep.sh (docs/sweeps.md)
# as root, or through sudo when the prefix is not writable. `pmemids report`
# keeps using this checkout's Python venv (scripts/setup.sh), so leave it in place.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${PMEMIDS_PREFIX:-/usr/local}
scripts/build.sh release pmemids
SUDO=""
if [ "$(id -u)" -ne 0 ] && ! { mkdir -p "$prefix" 2>/dev/null && [ -w "$prefix" ]; }; then
  SUDO="sudo"
fi
$SUDO cmake --install build --prefix "$prefix" >/dev/null
echo "install: pmemids is $prefix/bin/pmemids; bash completion in" \
     "$prefix/share/bash-completion/completions/pmemids (new shells load it)" >&2
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "install: $prefix/bin is not on your PATH; add it: export PATH=\"$prefix/bin:\$PATH\"" >&2 ;;
esac
