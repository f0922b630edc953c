#!/usr/bin/env python3
"""pmemids against a peer, in interleaved pairs (scripts/peers/README.md).

Usage:
  scripts/peers/vs.py storedsbench --ycsbc OUT/O2/ycsbc [--mode pmem-trans] [--workload write]
                      [--ds arraylist,...] [--records 1000000] [--pairs 3] [--target 1.0]
      pmemids' run of workloads/pmemids-<workload> against the reference pmemids_bench's
      same workload (90% update and 10% insert, or 100% read; YCSB-C's zipfian 0.99,
      100-byte values), recordcount = operationcount = --records, one thread.
      ratio = pmemids ops/s / the reference's (its printed KTPS).
  scripts/peers/vs.py maps --maps-bench OUT/maps_bench --cell btree-insert|btree7-insert|rbtree-lookup
                      [--records 1000000] [--pairs 3] [--target 1.0]
      pmemids' btree inserts (default node size, or --node-keys 7) or rbtree lookups in
      pmem-trans, uniform keys, 128-byte values, against PMDK's example btree_map /
      rbtree_map driven by maps_bench (R records loaded, then R inserts or lookups).
      ratio = maps_bench ns/op / pmemids ns/op.
Common: --pmemids BIN (default build/pmemids), --cpu N (both sides pinned there with
taskset; default 0, where the reference's worker pins itself), --out FILE (the pair lines
are appended). Both sides run with PMEM_IS_PMEM_FORCE=1 unless it is set (on a pool
directory that is not real PMEM, libpmemobj otherwise persists with msync; pmemids sets
it for itself, the peers do not). Pairs run A B | B A | A B ... (A = pmemids); a cell is
the median of its pair ratios (> 1: pmemids faster), with the range, and a one-sided sign
test of the pair ratios against --target at the 5% level: 'met' when significantly many
pairs are above it, 'not met' when significantly many are below, else 'undecided'.
storedsbench also prints the geometric mean of the cells' medians. Before every run the
pool directory ($PMEMIDS_POOL_DIR, default /dev/shm/pmemids-peers) must have room for the
largest pool (the reference's: 2 GiB) plus 1 GiB, on tmpfs in available memory too, or
vs.py refuses; pools are removed after every run. Exit 2 on bad arguments, 1 when a run
fails or there is no room.
"""
import argparse
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# pmemids structure -> the reference's type prefix (its value-referenced B-tree and B+-tree
# are bt- and bp-, its linked list with the DRAM index the paper describes is hl-).
REFERENCE_TYPE = {'arraylist': 'array', 'linkedlist': 'hl', 'hashtable': 'hashtable',
                  'skiplist': 'skiplist', 'btree': 'bt', 'btree-embedded': 'btree',
                  'bplustree': 'bp', 'rbtree': 'rbtree'}
REFERENCE_MODE = {'pmem-trans': 'pmem-tx', 'pmem-persist': 'pmem', 'dram': 'dram'}
# The reference's spelling of pmemids' workloads/pmemids-write and pmemids-read
# (its `zipfian` is YCSB-C's, pmemids' zipfian-ycsbc).
REFERENCE_SPEC = {'write': 'readproportion=0\nupdateproportion=0.9\ninsertproportion=0.1\n',
                  'read': 'readproportion=1\nupdateproportion=0\ninsertproportion=0\n'}
MAPS_CELLS = {'btree-insert': ('btree', 'insert', []),
              'btree7-insert': ('btree', 'insert', ['--node-keys', '7']),
              'rbtree-lookup': ('rbtree', 'lookup', [])}
GIB = 1 << 30
REFERENCE_POOL = 2 * GIB  # the reference's pool for one run (1 GiB for its linked lists)
MARGIN = GIB
LEVEL = 0.05  # the sign test's level, one-sided


class Failure(Exception):
    """A run failed, or there is no room for it (exit 1)."""


def usage_error(msg):
    print(f'vs.py: {msg}', file=sys.stderr)
    sys.exit(2)


def load():
    with open('/proc/loadavg') as f:
        return f.read().split()[0]


# ------------------------------------------------------------------ arithmetic


def sign_test(ratios, target):
    """One-sided sign test of the pair ratios against target: (pairs above, pairs below,
    p of at least that many above, p of at least that many below) under a fair coin;
    pairs equal to target are dropped."""
    above = sum(r > target for r in ratios)
    below = sum(r < target for r in ratios)
    n = above + below

    def tail(k):  # P(X >= k), X ~ Binomial(n, 1/2)
        return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n if n else 1.0
    return above, below, tail(above), tail(below)


def summarize(ratios, target):
    """A cell from its pair ratios: median, range, sign test against target, verdict."""
    above, below, p_above, p_below = sign_test(ratios, target)
    verdict = 'met' if p_above <= LEVEL else 'not met' if p_below <= LEVEL else 'undecided'
    return {'median': statistics.median(ratios), 'min': min(ratios), 'max': max(ratios),
            'pairs': len(ratios), 'above': above, 'below': below, 'p_above': p_above,
            'p_below': p_below, 'verdict': verdict}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def cell_line(label, s, target, ratios):
    return (f'CELL\t{label}\tmedian {s["median"]:.3f}\trange {s["min"]:.3f}-{s["max"]:.3f}'
            f'\tpairs {s["pairs"]}\tabove {target:g}: {s["above"]}, below: {s["below"]}'
            f'\tsign test p {s["p_above"]:.4f} (above) {s["p_below"]:.4f} (below)'
            f'\ttarget {s["verdict"]}\tratios {" ".join(f"{r:.2f}" for r in ratios)}')


# ------------------------------------------------------------------ room for the pools


def tmpfs(path):
    """Whether path lies on a tmpfs mount (its pages are memory)."""
    best, fstype = '', ''
    path = os.path.realpath(path)
    with open('/proc/self/mounts') as f:
        for line in f:
            mnt, typ = line.split()[1], line.split()[2]
            if (path == mnt or path.startswith(mnt.rstrip('/') + '/')) and len(mnt) > len(best):
                best, fstype = mnt, typ
    return fstype == 'tmpfs'


def mem_available():
    with open('/proc/meminfo') as f:
        for line in f:
            if line.startswith('MemAvailable:'):
                return int(line.split()[1]) * 1024
    raise Failure('no MemAvailable in /proc/meminfo')


def check_room(pool_dir, need):
    """Refuse (Failure) unless pool_dir has need bytes free, and on tmpfs as much memory."""
    st = os.statvfs(pool_dir)
    free = st.f_bavail * st.f_frsize
    if free < need:
        raise Failure(f'{pool_dir} has {free / GIB:.1f} GiB free, a run needs {need / GIB:.1f} GiB '
                      f'(set PMEMIDS_POOL_DIR elsewhere or free space)')
    if tmpfs(pool_dir) and mem_available() < need:
        raise Failure(f'{pool_dir} is tmpfs and only {mem_available() / GIB:.1f} GiB of memory is '
                      f'available, a run needs {need / GIB:.1f} GiB')


# ------------------------------------------------------------------ runs


def environment(a):
    env = dict(os.environ, PMEMIDS_POOL_DIR=a.pool_dir)
    env.setdefault('PMEM_IS_PMEM_FORCE', '1')
    return env


def run(a, cmd, pool):
    """One pinned run, its pool removed afterwards whatever happens: its stdout."""
    check_room(a.pool_dir, a.need)
    cmd = ['taskset', '-c', str(a.cpu)] + cmd
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=environment(a))
    finally:
        if pool and os.path.exists(pool):
            os.remove(pool)
    if p.returncode != 0:
        raise Failure(f'{" ".join(cmd)} failed (exit {p.returncode}): {p.stderr[-500:]}{p.stdout[-300:]}')
    return p.stdout


def pmemids_ops_per_sec(a, ds, args):
    out = os.path.join(a.work, 'pmemids.jsonl')
    if os.path.exists(out):
        os.remove(out)
    run(a, [a.pmemids, 'run', '--ds', ds, '--pool-dir', a.pool_dir, '--latency-sample', '0',
            '-p', f'recordcount={a.records}', '-p', f'operationcount={a.records}', '--out', out]
        + args, None)  # pmemids removes its own pool
    with open(out) as f:
        for line in f:
            r = json.loads(line)
            if 'kind' not in r and r.get('config', {}).get('ds') == ds:
                return r['metrics']['ops_per_sec']
    raise Failure(f'no record of {ds} in {out}')


def reference_ops_per_sec(a, ds):
    pool = os.path.join(a.pool_dir, 'storedsbench.pool')
    spec = os.path.join(a.work, f'{a.workload}.spec')
    with open(spec, 'w') as f:
        f.write(f'recordcount={a.records}\noperationcount={a.records}\nfieldcount=1\n'
                f'fieldlength=100\nscanproportion=0\nrequestdistribution=zipfian\n'
                + REFERENCE_SPEC[a.workload])
    cmd = [a.ycsbc, '-db', 'storeds', '-threads', '1', '-dbpath', pool,
           '-type', f'{REFERENCE_TYPE[ds]}-{REFERENCE_MODE[a.mode]}', '-P', spec]
    out = run(a, cmd, pool)
    for line in out.splitlines():  # "storeds <spec> <threads> <KTPS>"
        if line.startswith('storeds\t'):
            return float(line.split('\t')[-1]) * 1000
    raise Failure(f'{" ".join(cmd)} printed no throughput: {out[-300:]}')


def maps_ns_per_op(a, ds, op):
    pool = os.path.join(a.pool_dir, 'maps.pool')
    out = run(a, [a.maps_bench, ds, op, str(a.records), str(a.records), pool], pool)
    if 'ns_per_op=' not in out:
        raise Failure(f'{a.maps_bench} printed no ns_per_op: {out[-300:]}')
    return float(out.split('ns_per_op=')[1].split()[0])


def pairs(a, label, run_a, run_b, ratio, out):
    """a.pairs interleaved pairs of run_a (pmemids) and run_b (the peer); the cell."""
    ratios = []
    for i in range(a.pairs):
        order = 'AB' if i % 2 == 0 else 'BA'
        before, got = load(), {}
        for side in order:
            got[side] = run_a() if side == 'A' else run_b()
        ratios.append(ratio(got['A'], got['B']))
        line = (f'{label}\tpair {i}\t{order}\tpmemids {got["A"]:.1f}\tpeer {got["B"]:.1f}'
                f'\tratio {ratios[-1]:.3f}\tload {before}-{load()}')
        print(line, flush=True)
        if out:
            out.write(line + '\n')
            out.flush()
    s = summarize(ratios, a.target)
    print(cell_line(label, s, a.target, ratios), flush=True)
    return s


def storedsbench(a, out):
    wl = os.path.join(REPO, 'workloads', f'pmemids-{a.workload}')
    medians = []
    for ds in a.ds:
        s = pairs(a, f'{ds}\t{a.mode}\t{a.workload}',
                  lambda: pmemids_ops_per_sec(a, ds, ['--mode', a.mode, '-P', wl]),
                  lambda: reference_ops_per_sec(a, ds), lambda x, y: x / y, out)
        medians.append(s['median'])
    print(f'GEOMEAN\t{a.mode}\t{a.workload}\t{geomean(medians):.3f}\tcells {len(medians)}'
          f'\tlowest median {min(medians):.3f}', flush=True)


def maps(a, out):
    ds, op, extra = MAPS_CELLS[a.cell]
    props = ['insertproportion=1', 'readproportion=0'] if op == 'insert' else \
        ['insertproportion=0', 'readproportion=1']
    args = ['--mode', 'pmem-trans', '-p', 'updateproportion=0', '-p', 'requestdistribution=uniform',
            '-p', 'fieldlength=128'] + [x for p in props for x in ('-p', p)] + extra
    pairs(a, f'{a.cell}\t{a.records}', lambda: 1e9 / pmemids_ops_per_sec(a, ds, args),
          lambda: maps_ns_per_op(a, ds, op), lambda x, y: y / x, out)


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='peer', required=True)
    for name in ('storedsbench', 'maps'):
        s = sub.add_parser(name)
        s.add_argument('--pmemids', default=os.path.join(REPO, 'build', 'pmemids'))
        s.add_argument('--records', type=int, default=1000000)
        s.add_argument('--pairs', type=int, default=3)
        s.add_argument('--cpu', type=int, default=0)
        s.add_argument('--target', type=float, default=1.0)
        s.add_argument('--out')
        if name == 'storedsbench':
            s.add_argument('--ycsbc', required=True)
            s.add_argument('--mode', choices=sorted(REFERENCE_MODE), default='pmem-trans')
            s.add_argument('--workload', choices=sorted(REFERENCE_SPEC), default='write')
            s.add_argument('--ds', default=','.join(REFERENCE_TYPE))
        else:
            s.add_argument('--maps-bench', required=True)
            s.add_argument('--cell', choices=sorted(MAPS_CELLS), required=True)
    a = ap.parse_args(argv)
    for b in (a.pmemids, getattr(a, 'ycsbc', None), getattr(a, 'maps_bench', None)):
        if b is not None and not (os.path.isfile(b) and os.access(b, os.X_OK)):
            usage_error(f"'{b}' is not an executable file")
    if a.records < 1 or a.pairs < 1:
        usage_error(f'--records ({a.records}) and --pairs ({a.pairs}) must be at least 1')
    if not a.target > 0:
        usage_error(f'--target ({a.target}) must be a ratio above 0')
    if a.cpu not in os.sched_getaffinity(0):
        usage_error(f'--cpu {a.cpu} is not a CPU this process may run on '
                    f'(accepted: {", ".join(map(str, sorted(os.sched_getaffinity(0))))})')
    if a.peer == 'storedsbench':
        a.ds = a.ds.split(',')
        unknown = [d for d in a.ds if d not in REFERENCE_TYPE]
        if unknown:
            usage_error(f"unknown structure '{unknown[0]}' in --ds (accepted: {', '.join(REFERENCE_TYPE)})")
        a.need = REFERENCE_POOL + MARGIN
    else:  # maps_bench's pool: 512 bytes per record loaded or inserted, plus 64 MiB
        a.need = max(REFERENCE_POOL, 2 * a.records * 512 + (64 << 20)) + MARGIN
    return a


def main(argv=None):
    a = parse(argv)
    # SIGTERM unwinds like an error: the running side is killed and its pool removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    a.pool_dir = os.environ.get('PMEMIDS_POOL_DIR', '/dev/shm/pmemids-peers')
    try:
        os.makedirs(a.pool_dir, exist_ok=True)
        check_room(a.pool_dir, a.need)
        with tempfile.TemporaryDirectory() as work:
            a.work = work
            out = open(a.out, 'a') if a.out else None
            try:
                (storedsbench if a.peer == 'storedsbench' else maps)(a, out)
            finally:
                if out:
                    out.close()
    except (Failure, OSError) as e:
        print(f'vs.py: {e}', file=sys.stderr)
        sys.exit(1)


if __name__ == '__main__':
    main()
