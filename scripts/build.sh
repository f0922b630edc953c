#!/usr/bin/env bash
# Configures and builds pmemids. Usage: scripts/build.sh [release|debug|tsan|asan|fuzz] [target...]
# release -> build/, debug -> build-debug/, tsan -> build-tsan/ (ThreadSanitizer,
# -O1), asan -> build-asan/ (AddressSanitizer and UndefinedBehaviorSanitizer,
# -O1, frame pointers, any error fatal; its target pmemids_asan_tests), fuzz ->
# build-fuzz/ (the libFuzzer targets of tests/fuzz, with clang, ASan and UBSan);
# without targets, everything.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-release}
shift || true
case "$kind" in
  release) dir=build; args=(-DCMAKE_BUILD_TYPE=Release) ;;
  debug) dir=build-debug; args=(-DCMAKE_BUILD_TYPE=Debug) ;;
  tsan) dir=build-tsan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DPMEMIDS_TSAN=ON) ;;
  asan) dir=build-asan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DPMEMIDS_ASAN=ON) ;;
  fuzz) dir=build-fuzz; src=tests/fuzz; args=(-DCMAKE_CXX_COMPILER=clang++) ;;
  *) echo "build.sh: unknown build kind '$kind' (release, debug, tsan, asan, fuzz)" >&2; exit 2 ;;
esac
cmake -S "${src:-.}" -B "$dir" -G Ninja "${args[@]}" >/dev/null
ninja -C "$dir" "$@" >&2
