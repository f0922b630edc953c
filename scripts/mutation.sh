#!/usr/bin/env bash
# The mutation suite (docs/crash.md, "Mutation suite"): plants each bug of
# tests/mutation/*.sed, one at a time, into a scratch copy of the tree, rebuilds
# only what changed, and checks that `pmemids crash --fail-on-violation` (exit 3)
# and the unit tests named by the mutant each report it.
#
# Usage: scripts/mutation.sh [--list] [--only NAME[,NAME...]] [--dir DIR] [--help]
#   --list        print the mutants (name, class, kind, what they hit) and exit
#   --only NAMES  run only these mutants (comma-separated)
#   --dir DIR     scratch directory (default: a new one under /tmp, removed
#                 afterwards); an existing DIR keeps its build, so a rerun
#                 rebuilds only what changed
#   --no-tests    skip the unit tests (crash commands only)
#
# A mutant file is a sed script with a header of `# key: value` lines (sed
# ignores them): file (the source it edits), class, kind, hits, one or more
# `crash:` lines (arguments of `pmemids crash`, --fail-on-violation is added;
# --points 100000 checks every point of the default workload), and `tests:`
# (a gtest filter for pmemids_crash_tests: the crash suites of pmemids_tests,
# built alone so that a mutant rebuilds less). The working tree is never
# modified. Prints one row per mutant and the kill rate; exits 0 when every
# mutant was killed by both the crash tool and the unit tests, 1 otherwise, 2
# on bad input.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
mutants_dir=$repo/tests/mutation

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "mutation.sh: $*" >&2; exit 2; }

list=0 only="" dir="" tests=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --help | -h) usage; exit 0 ;;
    --list) list=1 ;;
    --only) [[ $# -ge 2 ]] || die "--only needs a mutant name (see --list)"; only=$2; shift ;;
    --dir) [[ $# -ge 2 ]] || die "--dir needs a directory"; dir=$2; shift ;;
    --no-tests) tests=0 ;;
    *) die "unknown argument '$1' (accepted: --list, --only NAME, --dir DIR, --no-tests, --help)" ;;
  esac
  shift
done

field() { sed -n "s/^# $2: *//p" "$1"; }
all=()
for f in "$mutants_dir"/*.sed; do all+=("$(basename "$f" .sed)"); done
[[ ${#all[@]} -gt 0 ]] || die "no mutants in $mutants_dir"

selected=("${all[@]}")
if [[ -n $only ]]; then
  IFS=, read -r -a selected <<<"$only"
  for n in "${selected[@]}"; do
    [[ -f $mutants_dir/$n.sed ]] || die "unknown mutant '$n' (accepted: ${all[*]})"
  done
fi

if [[ $list == 1 ]]; then
  printf '%-38s %-5s %-38s %s\n' mutant class kind hits
  for n in "${selected[@]}"; do
    m=$mutants_dir/$n.sed
    printf '%-38s %-5s %-38s %s\n' "$n" "$(field "$m" class | cut -d' ' -f1)" \
      "$(field "$m" kind)" "$(field "$m" hits)"
  done
  exit 0
fi

# The scratch copy: sources only (no build dirs, venv or git metadata), with
# their modification times, so that an existing build there stays current.
cleanup=0
if [[ -z $dir ]]; then
  dir=$(mktemp -d /tmp/pmemids-mutation.XXXXXX)
  cleanup=1
fi
mkdir -p "$dir/src"
tree=$dir/src
build=$dir/build
pools=$dir/pools
mkdir -p "$pools"
trap '[[ $cleanup == 1 ]] && rm -rf "$dir"' EXIT
tar -C "$repo" --exclude=./build --exclude='./build-*' --exclude=./.venv --exclude=./.git \
  -cf - . | tar -C "$tree" -xf -
cmake -S "$tree" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
echo "mutation.sh: building the unmutated tree in $build" >&2
ninja -C "$build" pmemids pmemids_crash_tests >&2

kill_crash() {  # every crash command of mutant $1 exits 3: killed
  local m=$1 args killed=y status
  while IFS= read -r args; do
    set +e
    # shellcheck disable=SC2086
    PMEMIDS_POOL_DIR=$pools "$build/pmemids" crash --pool-dir "$pools" --fail-on-violation \
      $args >"$dir/crash.out" 2>&1
    status=$?
    set -e
    echo "  crash $args: exit $status" >&2
    if [[ $status != 3 ]]; then
      killed=n
      [[ $status == 0 ]] || sed 's/^/    /' "$dir/crash.out" | tail -5 >&2
    fi
  done < <(field "$m" crash)
  echo $killed
}

kill_tests() {  # the unit tests of mutant $1 fail: killed
  local m=$1 filter status
  filter=$(field "$m" tests)
  set +e
  PMEM_IS_PMEM_FORCE=1 PMEMIDS_POOL_DIR=$pools "$build/pmemids_crash_tests" --gtest_filter="$filter" \
    --gtest_brief=1 >"$dir/tests.out" 2>&1
  status=$?
  set -e
  if grep -q '^\[  PASSED  \] 0 tests' "$dir/tests.out"; then
    echo "  tests $filter: no test matches" >&2
    echo n
    return
  fi
  echo "  tests $filter: exit $status" >&2
  [[ $status != 0 ]] && echo y || echo n
}

rows=() total=0 killed_both=0
for n in "${selected[@]}"; do
  m=$mutants_dir/$n.sed
  target=$(field "$m" file)
  [[ -n $target && -f $tree/$target ]] || die "$n: 'file:' names no source ('$target')"
  cp "$tree/$target" "$dir/original"
  sed -i -f "$m" "$tree/$target"
  if cmp -s "$tree/$target" "$dir/original"; then
    cp "$dir/original" "$tree/$target"
    die "$n: the sed script no longer changes $target (update the mutant)"
  fi
  echo "mutation.sh: $n: rebuilding" >&2
  if ! ninja -C "$build" pmemids pmemids_crash_tests >"$dir/build.out" 2>&1; then
    tail -20 "$dir/build.out" >&2
    cp "$dir/original" "$tree/$target"  # a new mtime: the next build recompiles it
    die "$n: the mutant does not compile"
  fi
  by_crash=$(kill_crash "$m")
  by_tests=-
  [[ $tests == 1 ]] && by_tests=$(kill_tests "$m")
  cp "$dir/original" "$tree/$target"  # reverted, with a new mtime
  total=$((total + 1))
  [[ $by_crash == y && $by_tests != n ]] && killed_both=$((killed_both + 1))
  rows+=("$(printf '%-38s %-5s %-15s %s' "$n" "$(field "$m" class | cut -d' ' -f1)" "$by_crash" \
    "$by_tests")")
done

printf '%-38s %-5s %-15s %s\n' mutant class killed_by_crash killed_by_tests
printf '%s\n' "${rows[@]}"
echo "kill rate: $killed_both of $total mutants killed"
[[ $killed_both == "$total" ]]
