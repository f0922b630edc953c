"""Conventions a user brings from other tools: --version, defaults in --help,
`--out -`, one seed spelling, the table's documented columns, bash completion
generated from the binary, and the install rules."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import MODES, TINY, WORKLOADS

COMMANDS = ["run", "list", "sweep", "crash", "completion"]
WRITE = ["-P", WORKLOADS / "pmemids-write", *TINY]


def test_version_names_pmemids_git_pmdk_and_memkind(pmemids):
    r = pmemids("--version")
    assert r.returncode == 0, r.describe()
    assert re.search(r"^pmemids \d+\.\d+\.\d+ \(git [0-9a-f]{7,}", r.stdout), r.stdout
    assert re.search(r"PMDK \d+\.\d+", r.stdout) and re.search(r"memkind \d+\.\d+", r.stdout), r.stdout
    assert re.search(r"libpmemobj linked (static|shared)", r.stdout), r.stdout


def option_lines(help_text: str) -> list[tuple[str, str]]:
    """(names, type-and-default) of every option of a --help text; flags have ''."""
    out = []
    for line in help_text.splitlines():
        m = re.match(r"^  (-\S+)(?: (\S.*?))?(?:\s{2,}|$)", line)
        if m:
            out.append((m.group(1), m.group(2) or ""))
    return out


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_every_default(pmemids, command):
    r = pmemids(command, "--help")
    assert r.returncode == 0, r.describe()
    options = option_lines(r.stdout)
    assert options, r.stdout
    for names, typed in options:
        if not typed or "REQUIRED" in typed:
            continue  # a flag, or an option without which the command does not run
        assert "=" in typed, f"{command} {names}: no default shown in '{typed}'"


def test_run_help_documents_every_table_column(pmemids, pool_dir):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *WRITE)
    assert r.returncode == 0, r.describe()
    columns = [c for c in re.split(r"\s{2,}|\s(?=\S)", r.stdout.splitlines()[0]) if c.strip()]
    help_text = pmemids("run", "--help").stdout
    documented = help_text[help_text.index("Table columns"):]
    for c in ["ds", "mode", "workload", "thr", "rep", "Kops/s", "lines/op", "txB/op", "allocs/op", "found%"]:
        assert c in columns, (c, columns)
        assert re.search(rf"^  (\S+, )*{re.escape(c)}(?=[ ,])", documented, re.M), c
    assert "load s" in r.stdout.splitlines()[0] and "\n  load s " in documented


def test_found_percentage_per_operation_type(pmemids):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *WRITE)
    assert r.returncode == 0, r.describe()
    row = r.stdout.splitlines()[1]
    m = r.new_records[0]["metrics"]
    found = {op: 100 * m[f"{op}_found"] / m[f"{op}_ops"] for op in ("update", "insert")}
    assert row.endswith(f"update {found['update']:.1f} insert {found['insert']:.1f}"), row
    assert found["update"] == 100 and found["insert"] == 0  # new keys are inserted, loaded ones updated


def test_run_out_dash_puts_records_on_stdout_and_the_table_on_stderr(pmemids, pool_dir):
    r = pmemids("run", "--ds", "hashtable,btree", "--mode", "dram", *WRITE, "--repeat", "2",
                "--pool-dir", pool_dir, "--out", "-")
    assert r.returncode == 0, r.describe()
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [rec["config"]["ds"] for rec in records] == ["hashtable"] * 3 + ["btree"] * 3
    assert sum(1 for rec in records if rec.get("aggregate")) == 2
    assert re.search(r"^ds +mode +workload", r.stderr, re.M), r.stderr
    assert "results written to stdout" in r.stderr
    assert not (Path(pmemids.out.parent) / "-").exists()


def test_crash_out_dash(pmemids, pool_dir):
    r = pmemids("crash", "--ds", "hashtable", "--mode", "pmem-persist", "--points", "5",
                "--pool-dir", pool_dir, "--out", "-")
    assert r.returncode == 0, r.describe()
    (record,) = [json.loads(line) for line in r.stdout.splitlines()]
    assert record["config"]["ds"] == "hashtable" and record["metrics"]["points"] == 5
    assert re.search(r"^ds +mode +model +points", r.stderr, re.M), r.stderr


def test_sweep_refuses_out_dash(pmemids, tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text('ds = "hashtable"\nmode = "dram"\n')
    r = pmemids("sweep", sweep, "--out", "-")
    assert r.returncode == 2 and "--out -" in r.stderr, r.describe()


@pytest.mark.parametrize("spelling", [["--seed", "5"], ["-p", "seed=5"], ["--seed", "5", "-p", "seed=5"]])
def test_run_seed_spellings_are_one_setting(pmemids, spelling):
    r = pmemids.run("--ds", "hashtable", "--mode", "dram", *WRITE, *spelling)
    assert r.returncode == 0, r.describe()
    config = r.new_records[0]["config"]
    assert config["seed"] == 5 and config["stream_seeds"] == [5]
    assert "(seed 5)" in r.stderr


@pytest.mark.parametrize("command", ["run", "crash"])
def test_disagreeing_seed_spellings_are_refused(pmemids, pool_dir, command, out_path):
    args = ["--ds", "hashtable", "--mode", "pmem-persist", "--seed", "5", "-p", "seed=6",
            "--pool-dir", pool_dir, "--out", out_path]
    if command == "crash":
        args += ["--points", "5"]
    r = pmemids(command, *args)
    assert r.returncode == 2, r.describe()
    assert "--seed 5 and -p seed=6" in r.stderr
    assert not out_path.exists()


def test_crash_seed_spellings_are_one_setting(pmemids, pool_dir):
    outs = []
    for spelling in (["--seed", "9"], ["-p", "seed=9"]):
        r = pmemids("crash", "--ds", "hashtable", "--mode", "pmem-persist", "--points", "8",
                    "--survive", "random", "--pool-dir", pool_dir, "--out", "-", *spelling)
        assert r.returncode == 0, r.describe()
        outs.append(json.loads(r.stdout))
    assert outs[0]["config"]["seed"] == outs[1]["config"]["seed"] == 9
    for key in ("points", "points_available", "recovered", "leaked_objects"):
        assert outs[0]["metrics"][key] == outs[1]["metrics"][key], key


# ---------------------------------------------------------------- bash completion

@pytest.fixture
def completion(pmemids, tmp_path) -> Path:
    r = pmemids("completion", "bash")
    assert r.returncode == 0, r.describe()
    script = tmp_path / "pmemids.bash"
    script.write_text(r.stdout)
    return script


def complete(script: Path, *words: str, cwd: Path | None = None) -> list[str]:
    """COMPREPLY for `pmemids <words>` with the cursor at the end of the last word."""
    line = ["pmemids", *words]
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in line)
    program = (f"source '{script}'; COMP_WORDS=({quoted}); COMP_CWORD={len(line) - 1}; "
               "_pmemids 2>/dev/null; printf '%s\\n' \"${COMPREPLY[@]}\"")
    p = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=10, cwd=cwd)
    assert p.returncode == 0, p.stderr
    return [w for w in p.stdout.splitlines() if w]


def test_completion_script_is_valid_bash(completion):
    p = subprocess.run(["bash", "-n", str(completion)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_completion_offers_every_command(pmemids, completion):
    top = pmemids("--help").stdout
    commands = re.findall(r"^  (\w+) {2,}", top[top.index("Subcommands:"):], re.M)
    assert set(commands) >= {"run", "list", "sweep", "crash", "report"}
    assert set(complete(completion, "")) >= set(commands) | {"--version", "--help"}
    assert complete(completion, "cr") == ["crash"]


@pytest.mark.parametrize("command", COMMANDS)
def test_completion_offers_every_option_of_help(pmemids, completion, command):
    help_names = {n for names, _ in option_lines(pmemids(command, "--help").stdout) for n in names.split(",")}
    assert help_names >= {"-h", "--help"}
    assert set(complete(completion, command, "-")) == help_names


def test_completion_of_structure_and_mode_names(pmemids, completion):
    names = [e["ds"] for e in json.loads(pmemids("list", "--json").stdout)]
    assert set(complete(completion, "run", "--ds", "")) == set(names) | {"all"}
    assert set(complete(completion, "run", "--mode", "")) == set(MODES) | {"all"}
    assert complete(completion, "run", "--ds", "btree,rb") == ["btree,rbtree"]
    assert set(complete(completion, "run", "--mode", "dram,pmem-")) == {
        "dram,pmem-volatile", "dram,pmem-persist", "dram,pmem-trans"}
    assert set(complete(completion, "crash", "--mode", "")) == {"pmem-persist", "pmem-trans"}
    assert "blackhole" not in complete(completion, "crash", "--ds", "")
    assert set(complete(completion, "run", "--thread-mode", "")) == {"single", "parallel", "concurrent", "native"}


def test_completion_of_crash_follows_the_durable_modes(pmemids, completion):
    # crash completes the modes and structures `list --json` says have a crash test.
    entries = json.loads(pmemids("list", "--json").stdout)
    durable = {m for e in entries for m in e["crash_modes"]}
    assert durable and set(complete(completion, "crash", "--mode", "")) == durable
    assert set(complete(completion, "crash", "--ds", "")) == {e["ds"] for e in entries if e["crash_modes"]}


def test_help_names_every_mode_and_domain(pmemids):
    # run's --mode help, --lock's default and --domain's help, and crash's --mode and
    # --model help follow the backend list and the domain table: each names every mode
    # (crash: every durable one) and domain `list --json` reports.
    entries = json.loads(pmemids("list", "--json").stdout)
    modes = {m for e in entries for m in e["modes"]}
    durable = {m for e in entries for m in e["crash_modes"]}
    domains = {d for e in entries for d in e["domains"]}

    def options(command: str) -> dict[str, str]:
        r = pmemids(command, "--help")
        assert r.returncode == 0, r.describe()
        return {b.split()[0]: b for b in re.split(r"\n(?=  +-)", r.stdout) if b.split()}

    def named(word: str, block: str) -> bool:
        return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", block) is not None

    run, crash = options("run"), options("crash")
    assert modes and all(named(m, run["--mode"]) for m in modes), run["--mode"]
    assert all(named(m, run["--lock"]) for m in modes), run["--lock"]
    assert domains and all(named(d, run["--domain"]) for d in domains), run["--domain"]
    assert durable and all(named(m, crash["--mode"]) for m in durable), crash["--mode"]
    assert not any(named(m, crash["--mode"]) for m in modes - durable), crash["--mode"]
    assert all(named(d, crash["--model"]) for d in domains), crash["--model"]


def test_completion_of_properties_files_and_numbers(completion, tmp_path):
    assert "recordcount=" in complete(completion, "run", "-p", "rec")
    (tmp_path / "wl-one").write_text("recordcount=1\n")
    (tmp_path / "pools").mkdir()
    assert complete(completion, "run", "-P", "wl-", cwd=tmp_path) == ["wl-one"]
    assert complete(completion, "run", "--pool-dir", "", cwd=tmp_path) == ["pools"]
    assert complete(completion, "run", "--repeat", "", cwd=tmp_path) == []
    assert complete(completion, "sweep", "wl", cwd=tmp_path) == ["wl-one"]


# ---------------------------------------------------------------- install rules

def test_install_puts_the_binary_completion_and_license_under_the_prefix(binary, tmp_path):
    build_dir = binary.parent
    if not (build_dir / "cmake_install.cmake").exists():
        pytest.skip(f"{binary} is not in a CMake build directory")
    prefix = tmp_path / "prefix"
    p = subprocess.run(["cmake", "--install", str(build_dir), "--prefix", str(prefix)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    installed = prefix / "bin" / "pmemids"
    listing = subprocess.run([str(installed), "list"], capture_output=True, text=True, timeout=30)
    assert listing.returncode == 0 and "hashtable" in listing.stdout, listing.stderr
    generated = subprocess.run([str(installed), "completion", "bash"], capture_output=True, text=True).stdout
    assert (prefix / "share/bash-completion/completions/pmemids").read_text() == generated
    assert "BSD 3-Clause" in (prefix / "share/doc/pmemids/LICENSE").read_text()
    assert (prefix / "share/pmemids/workloads/workloada").is_file()
    assert (prefix / "share/pmemids/sweeps/fig3-single-thread.toml").is_file()


def test_bench_builds_only_the_pmemids_target_and_installs_it():
    script = (Path(__file__).resolve().parents[2] / "scripts" / "install.sh").read_text()
    assert "scripts/build.sh release pmemids\n" in script
    bench = (Path(__file__).resolve().parents[2] / "scripts" / "bench.sh").read_text()
    assert "scripts/install.sh" in bench and "scripts/build.sh release\n" not in bench
