"""The cluster path of sweeps under a real scheduler: a one-node SLURM cluster
(scripts/slurm-local.sh) runs sweeps as job arrays of scripts/slurm-sweep.sh. The
merged shards hold every configuration once (report, reproduce --from); a task
cancelled mid-run and resubmitted alone resumes its shard; a failing task exits
non-zero with the reason in its log while the others finish; records name the job,
array task and node; stopping the cluster leaves no daemon and no file behind.

The daemons run as root: the cluster tests run as root or with sudo, and are skipped
(with the reason) only where neither is possible. They take about 30-40 s."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO, WORKLOADS, read_records

LOCAL = REPO / "scripts" / "slurm-local.sh"
SWEEP = REPO / "scripts" / "slurm-sweep.sh"
READ = WORKLOADS / "pmemids-read"
SLURM_FIELDS = ("slurm_job_id", "slurm_array_job_id", "slurm_array_task_id", "slurm_node")
WAIT_S = 120


def why_not_root() -> str | None:
    if os.geteuid() == 0:
        return None
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return None
    return "the SLURM daemons need root: not root, and no sudo without a password"


def daemons() -> dict[str, set[int]]:
    found: dict[str, set[int]] = {}
    for p in Path("/proc").iterdir():
        try:
            name = (p / "comm").read_text().strip()
        except OSError:
            continue
        if name in ("munged", "slurmctld", "slurmd", "slurmstepd"):
            found.setdefault(name, set()).add(int(p.name))
    return found


def free_port_pair() -> int:
    """A port p with p and p + 1 free on 127.0.0.1 (slurmctld, slurmd): a cluster of the
    user's own (scripts/slurm-local.sh's 6877) may be running."""
    for _ in range(50):
        with socket.socket() as a, socket.socket() as b:
            a.bind(("127.0.0.1", 0))
            p = a.getsockname()[1]
            try:
                b.bind(("127.0.0.1", p + 1))
            except OSError:
                continue
            return p
    raise AssertionError("no two adjacent free ports")


@dataclass
class Cluster:
    dir: Path
    env: dict
    node: str
    pids: dict[str, int]
    steps_before: set[int]  # slurmstepd processes that were not ours

    def cmd(self, *args, check=True, cwd=None, env=None) -> subprocess.CompletedProcess:
        p = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=WAIT_S,
                           cwd=cwd, env={**self.env, **(env or {})})
        if check:
            assert p.returncode == 0, f"{' '.join(map(str, args))}: exit {p.returncode}\n{p.stdout}{p.stderr}"
        return p

    def submit(self, *args, cwd: Path, env: dict) -> int:
        """sbatch without --wait; the array job id."""
        p = self.cmd("sbatch", *args, cwd=cwd, env=env)
        return int(re.search(r"Submitted batch job (\d+)", p.stdout).group(1))

    def wait(self, job: int) -> None:
        deadline = time.monotonic() + WAIT_S
        while self.cmd("squeue", "-h", "-j", job, "-o", "%i", check=False).stdout.strip():
            assert time.monotonic() < deadline, f"job {job} still queued after {WAIT_S} s"
            time.sleep(0.2)

    def ended(self, task: str) -> tuple[str, int]:
        """The state and exit code of array task 'JOB_K' (slurmctld keeps them for MinJobAge)."""
        text = self.cmd("scontrol", "show", "job", "-o", task).stdout
        return (re.search(r"\bJobState=(\S+)", text).group(1),
                int(re.search(r"\bExitCode=(\d+):\d+", text).group(1)))


@pytest.fixture(scope="module")
def cluster():
    reason = why_not_root()
    if reason:
        pytest.skip(reason)
    d = Path(tempfile.gettempdir()) / f"pmemids-slurm-test-{os.getpid()}"
    env = {**os.environ, "PMEMIDS_SLURM_DIR": str(d), "PMEMIDS_SLURM_PORT": str(free_port_pair())}
    steps_before = daemons().get("slurmstepd", set())
    try:
        p = subprocess.run(["bash", str(LOCAL), "start"], capture_output=True, text=True,
                           timeout=600, env=env)  # may install slurm-wlm first
        assert p.returncode == 0, p.stderr
        exports = dict(re.findall(r"^export (\w+)=(\S+)$", p.stdout, re.M))
        assert exports == {"SLURM_CONF": str(d / "slurm.conf")}, p.stdout
        env.update(exports)
        node = subprocess.run(["sinfo", "-h", "-o", "%N"], capture_output=True, text=True,
                              env=env, timeout=30).stdout.strip()
        pids = {n: int((d / f).read_text()) for n, f in
                [("munged", "munge/munged.pid"), ("slurmctld", "slurmctld.pid"), ("slurmd", "slurmd.pid")]}
        yield Cluster(d, env, node, pids, steps_before)
    finally:
        # A no-op after test_stop_leaves_nothing_behind; stops the daemons when a test failed.
        subprocess.run(["bash", str(LOCAL), "stop"], capture_output=True, timeout=120, env=env)


def write_sweep(tmp: Path, matrix: str, properties: str = "recordcount = 300\noperationcount = 3000",
                top: str = "") -> Path:
    f = tmp / "s.toml"
    f.write_text(f'workload = "{READ}"\nthread-mode = "single"\nrepeat = 1\n{top}\n'
                 f"[matrix]\n{matrix}\n[properties]\n{properties}\n")
    return f


def task_env(binary: Path, pool_dir: Path, **extra) -> dict:
    return {"PMEMIDS": str(binary), "PMEMIDS_POOL_DIR": str(pool_dir), **extra}


def shard_ids(out: Path, k: int, n: int = 3) -> Counter:
    return Counter(r["sweep"]["config_id"] for r in read_records(out / f"shard-{k}-of-{n}.jsonl")
                   if not r.get("aggregate"))


def test_records_name_the_slurm_job_and_null_outside_one(pmemids):
    """No cluster needed: the context reads SLURM's variables, null when unset."""
    args = ("--ds", "hashtable", "--mode", "dram", "-p", "recordcount=100", "-p", "operationcount=100")
    r = pmemids.run(*args, env={v: "" for v in ("SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID",
                                                 "SLURM_ARRAY_TASK_ID", "SLURMD_NODENAME")})
    assert r.returncode == 0, r.describe()
    assert {k: r.new_records[0]["context"][k] for k in SLURM_FIELDS} == dict.fromkeys(SLURM_FIELDS)
    r = pmemids.run(*args, env={"SLURM_JOB_ID": "1043", "SLURM_ARRAY_JOB_ID": "1040",
                                "SLURM_ARRAY_TASK_ID": "3", "SLURMD_NODENAME": "node07"})
    assert r.returncode == 0, r.describe()
    assert {k: r.new_records[0]["context"][k] for k in SLURM_FIELDS} == {
        "slurm_job_id": 1043, "slurm_array_job_id": 1040, "slurm_array_task_id": 3, "slurm_node": "node07"}


CLAIM = """id = "003-slurmarray"
seed = "003"
section = "tests/cli/test_slurm.py"
claim = "every configuration of the array's sweep is recorded once and counted its reads"
cause = ["software"]
[[sweep]]
file = "{sweep}"
[[check]]
what = "every read was counted"
predicate = "value(select(thread_mode=single), metric=read_ops/ops, by=[ds, mode]) within 0.999..1.001 for all"
"""


def test_array_of_three_runs_every_configuration_once(cluster, pmemids, tmp_path):
    f = write_sweep(tmp_path, 'ds = ["hashtable", "btree", "skiplist"]\nmode = ["dram", "pmem-persist"]')
    out = tmp_path / "res"
    env = task_env(pmemids.binary, pmemids.pool_dir)
    # From another directory, as a user would: relative output and log paths are the job's.
    p = cluster.cmd("sbatch", "--wait", "--array=0-2", "-o", "task-%a.log", SWEEP, f, "default", "res",
                    cwd=tmp_path, env=env)
    array = int(re.search(r"Submitted batch job (\d+)", p.stdout).group(1))
    assert sorted(x.name for x in out.iterdir()) == [f"shard-{k}-of-3.jsonl" for k in range(3)]
    ids = Counter()
    for k in range(3):
        records = read_records(out / f"shard-{k}-of-3.jsonl")
        assert len(records) == 2 and all(r["sweep"]["total"] == 2 for r in records)
        ids.update(r["sweep"]["config_id"] for r in records)
        job = int(re.search(r"\bJobId=(\d+)", cluster.cmd("scontrol", "show", "job", "-o",
                                                         f"{array}_{k}").stdout).group(1))
        for r in records:
            assert {x: r["context"][x] for x in SLURM_FIELDS} == {
                "slurm_job_id": job, "slurm_array_job_id": array, "slurm_array_task_id": k,
                "slurm_node": cluster.node}
        log = (tmp_path / f"task-{k}.log").read_text()
        assert f"shard {k}/3 of {f}" in log and "[2/2]" in log, log
    assert len(ids) == 6 and set(ids.values()) == {1}, ids
    # The shards merge by reading them together.
    r = pmemids("report", out, "--out", tmp_path / "report")
    assert r.returncode == 0, r.describe()
    assert "6 measured repetitions of 6 configurations" in (tmp_path / "report" / "index.html").read_text()
    # reproduce --from: one group per configuration, each of one repetition.
    claim = tmp_path / "003-slurmarray.toml"
    claim.write_text(CLAIM.format(sweep=f))
    p = subprocess.run([str(pmemids.binary), "reproduce", claim, "--from", out], capture_output=True,
                       text=True, timeout=WAIT_S, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = re.findall(r"^\s+ds=(\S+), mode=(\S+)\s+1\s+-\s+(\d+)\s", p.stdout, re.M)
    assert Counter(rows) == Counter((d, m, "1") for d in ("hashtable", "btree", "skiplist")
                                    for m in ("dram", "pmem-persist")), p.stdout


def test_cancelled_task_resubmitted_alone_resumes_its_shard(cluster, pmemids, tmp_path):
    # Nine configurations of at least 0.3 s each: three per task.
    f = write_sweep(tmp_path, 'ds = ["hashtable", "btree", "skiplist"]\n'
                              'mode = ["dram", "pmem-volatile", "pmem-persist"]',
                    top="min-time = 0.3")
    out = tmp_path / "res"
    shard1 = out / "shard-1-of-3.jsonl"
    env = task_env(pmemids.binary, pmemids.pool_dir)
    array = cluster.submit("--array=0-2", "-o", "task-%a.log", SWEEP, f, "default", out,
                           cwd=tmp_path, env=env)
    deadline = time.monotonic() + WAIT_S
    while not read_records(shard1):
        assert time.monotonic() < deadline, "task 1 recorded nothing"
        time.sleep(0.05)
    cluster.cmd("scancel", f"{array}_1")
    cluster.wait(array)
    before = shard1.read_bytes()
    assert 1 <= len(shard_ids(out, 1)) < 3, "task 1 was not cancelled mid-run"
    assert cluster.ended(f"{array}_1")[0] == "CANCELLED"
    assert sum(shard_ids(out, k).total() for k in (0, 2)) == 6
    # Part of an array needs its shard count: refused without it, nothing written.
    again = cluster.submit("--array=1", "-o", "again-%a.log", SWEEP, f, "default", out, cwd=tmp_path, env=env)
    cluster.wait(again)
    assert cluster.ended(f"{again}_1") == ("FAILED", 2)
    assert "set PMEMIDS_SHARDS=N" in (tmp_path / "again-1.log").read_text()
    assert shard1.read_bytes() == before and not (out / "shard-1-of-1.jsonl").exists()
    # Resubmitted with it, task 1 runs only what its shard lacks.
    resumed = cluster.submit("--array=1", "-o", "resumed-%a.log", SWEEP, f, "default", out,
                             cwd=tmp_path, env={**env, "PMEMIDS_SHARDS": "3"})
    cluster.wait(resumed)
    assert cluster.ended(f"{resumed}_1") == ("COMPLETED", 0)
    after = shard1.read_bytes()
    assert after.startswith(before)
    assert set(shard_ids(out, 1).values()) == {1} and len(shard_ids(out, 1)) == 3
    total = sum((shard_ids(out, k) for k in range(3)), Counter())
    assert len(total) == 9 and set(total.values()) == {1}
    new = [json.loads(l) for l in after[len(before):].decode().splitlines()]
    assert {r["context"]["slurm_array_job_id"] for r in new} == {resumed}


def test_failing_task_exits_nonzero_with_its_reason_and_the_others_finish(cluster, pmemids, tmp_path):
    missing = tmp_path / "no-such-pmem"  # a pool directory this node lacks, for one configuration
    f = write_sweep(tmp_path, f'ds = ["hashtable", "btree", "skiplist", "rbtree"]\n'
                              f'pool-dir = ["{pmemids.pool_dir}", "{missing}"]',
                    top='mode = "dram"\n[[exclude]]\npool-dir = "' + str(missing) + '"\n'
                        'ds = ["btree", "skiplist", "rbtree"]')
    out = tmp_path / "res"
    env = task_env(pmemids.binary, pmemids.pool_dir)
    # Which task gets that configuration: its dry run is refused, the others list theirs.
    dry = [pmemids("sweep", f, "--dry-run", "--shard", f"{k}/3") for k in range(3)]
    bad = [k for k in range(3) if dry[k].returncode == 2]
    assert len(bad) == 1 and all(dry[k].returncode == 0 for k in range(3) if k not in bad)
    ran = sum(len(dry[k].stdout.splitlines()) for k in range(3) if k not in bad)
    array = cluster.submit("--array=0-2", "-o", "task-%a.log", SWEEP, f, "default", out,
                           cwd=tmp_path, env=env)
    cluster.wait(array)
    for k in range(3):
        log = (tmp_path / f"task-{k}.log").read_text()
        if k in bad:
            assert cluster.ended(f"{array}_{k}") == ("FAILED", 2)
            assert f"pool-dir: '{missing}' is not an existing directory" in log, log
            assert not shard_ids(out, k)
        else:
            assert cluster.ended(f"{array}_{k}") == ("COMPLETED", 0), log
            assert set(shard_ids(out, k).values()) == {1}
    assert sum(shard_ids(out, k).total() for k in range(3)) == ran >= 1
    # A sweep file that refuses: every task exits 2 and says why, nothing is written.
    refused = write_sweep(tmp_path, 'ds = ["hashtable"]\nmode = ["dram"]\nthreads = "1:0:4"')
    array = cluster.submit("--array=0-2", "-o", "refused-%a.log", SWEEP, refused, "default",
                           tmp_path / "refused", cwd=tmp_path, env=env)
    cluster.wait(array)
    for k in range(3):
        assert cluster.ended(f"{array}_{k}") == ("FAILED", 2)
        assert "matrix.threads: '1:0:4': step 0 is not positive" in (tmp_path / f"refused-{k}.log").read_text()
    assert not list((tmp_path / "refused").glob("*.jsonl"))


def test_installed_script_finds_its_binary_and_the_shipped_sweeps(cluster, binary, tmp_path):
    """Installed (cmake --install), run from elsewhere with no PMEMIDS and no pmemids on
    PATH: the script is a copy in slurmd's spool, yet finds bin/pmemids of its
    installation, the shipped sweeps by name, and the shipped workloads."""
    if not (binary.parent / "cmake_install.cmake").is_file():
        pytest.skip(f"{binary} is not in a CMake build directory to install from")
    prefix = tmp_path / "prefix"
    p = subprocess.run(["cmake", "--install", binary.parent, "--prefix", prefix], capture_output=True,
                       text=True, timeout=WAIT_S)
    assert p.returncode == 0, p.stdout + p.stderr
    script = prefix / "bin" / "pmemids-slurm-sweep"
    assert script.is_symlink()
    work = tmp_path / "work"
    work.mkdir()
    (work / "s.toml").write_text('workload = "workloads/pmemids-read"\nds = "hashtable"\n'
                                 '[matrix]\nmode = ["dram", "pmem-volatile"]\n'
                                 '[properties]\nrecordcount = 200\noperationcount = 500\n')
    env = {"PMEMIDS": "", "PATH": "/usr/bin:/bin", "PMEMIDS_POOL_DIR": str(tmp_path)}
    array = cluster.submit("--array=0-1", "-o", "t-%a.log", script, "s.toml", "default", "res", cwd=work, env=env)
    # The shipped sweep by name; a pool directory the node lacks refuses it (exit 2).
    shipped = cluster.submit("--array=0", "-o", "shipped-%a.log", script, "seed003-readmissrate.toml", "quick",
                             cwd=work, env={**env, "PMEMIDS_POOL_DIR": str(tmp_path / "no-pmem")})
    cluster.wait(array)
    cluster.wait(shipped)
    for k in range(2):  # the array's last task has the array's job id: one of each kind
        log = (work / f"t-{k}.log").read_text()
        assert cluster.ended(f"{array}_{k}") == ("COMPLETED", 0), log
        assert f"binary {prefix}/bin/pmemids" in log.splitlines()[0]
        assert len(read_records(work / "res" / f"shard-{k}-of-2.jsonl")) == 1
    log = (work / "shipped-0.log").read_text()
    assert cluster.ended(f"{shipped}_0") == ("FAILED", 2)
    assert f"of {prefix}/share/pmemids/sweeps/seed003-readmissrate.toml" in log.splitlines()[0], log
    assert f"pool-dir: '{tmp_path / 'no-pmem'}' is not an existing directory" in log, log


def test_stop_leaves_nothing_behind(cluster):
    p = subprocess.run(["bash", str(LOCAL), "status"], capture_output=True, text=True, env=cluster.env, timeout=60)
    assert p.returncode == 0 and all(f"{d}: running (pid {pid})" in p.stdout for d, pid in cluster.pids.items())
    p = subprocess.run(["bash", str(LOCAL), "stop"], capture_output=True, text=True, env=cluster.env, timeout=120)
    assert p.returncode == 0, p.stderr
    running = daemons()
    assert not any(pid in running.get(d, set()) for d, pid in cluster.pids.items()), running
    assert running.get("slurmstepd", set()) <= cluster.steps_before, running
    assert not cluster.dir.exists()
    assert not Path("/run/slurm/conf").is_symlink() or os.readlink("/run/slurm/conf") != str(cluster.dir)
    p = subprocess.run(["bash", str(LOCAL), "status"], capture_output=True, text=True, env=cluster.env, timeout=60)
    assert p.returncode == 3 and "slurmctld: not running" in p.stdout
