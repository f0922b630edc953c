#!/usr/bin/env bash
# A one-node SLURM cluster on this machine, to try the cluster path of sweeps
# (scripts/slurm-sweep.sh, docs/sweeps.md) without a cluster:
#
#   scripts/slurm-local.sh start     # install slurm-wlm + munge if missing, start, wait for the node
#   eval "$(scripts/slurm-local.sh env)"                  # SLURM_CONF for sbatch, squeue, ...
#   sbatch --array=0-2 scripts/slurm-sweep.sh sweeps/fig8-locks.toml default results/fig8
#   scripts/slurm-local.sh status    # what runs (exit 0: all three daemons; 3: not all)
#   scripts/slurm-local.sh stop      # cancel the jobs, stop the daemons it started, remove its files
#
# Everything lives in one scratch directory, $PMEMIDS_SLURM_DIR (default
# /tmp/pmemids-slurm): slurm.conf, a munge key of its own, munged's socket, the
# daemons' state, spool, pid and log files. The system's /etc/slurm and
# /etc/munge are never written. munged runs with its own key, socket and pid
# file; slurm.conf names that socket (AuthInfo), so clients that read it reach it.
# Clients find slurm.conf through SLURM_CONF (`env` prints the export). When the
# system has no slurm.conf of its own (/etc/slurm/slurm.conf absent) and nothing
# is at /run/slurm/conf, `start` links /run/slurm/conf to the scratch directory,
# where SLURM 22.05's clients look next, so sbatch works without SLURM_CONF too;
# `stop` removes that link. Ports: $PMEMIDS_SLURM_PORT (slurmctld, default 6877)
# and the next one (slurmd), away from a system cluster's 6817/6818.
#
# The daemons run as root (slurmd starts jobs as their users): run as root, or
# as a user with sudo (start and stop then run themselves through sudo).
set -euo pipefail
dir=$(realpath -m "${PMEMIDS_SLURM_DIR:-/tmp/pmemids-slurm}") # the daemons need absolute paths
port=${PMEMIDS_SLURM_PORT:-6877}
conf=$dir/slurm.conf
marker=$dir/.pmemids-slurm-local
link=/run/slurm/conf
usage="usage: $0 start|stop|status|env"
say() { echo "slurm-local: $*" >&2; }
die() {
  say "$*"
  exit 1
}

as_root() { # re-run this command as root through sudo, or refuse
  [ "$(id -u)" -eq 0 ] && return 0
  command -v sudo >/dev/null ||
    { say "$1 needs root (the daemons run as root) and sudo is not installed"; exit 2; }
  exec sudo PMEMIDS_SLURM_DIR="$dir" PMEMIDS_SLURM_PORT="$port" "$0" "$@"
}

install_packages() {
  local missing=() p
  for p in slurmctld slurmd slurm-client munge; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

pid_file() {
  case $1 in
    munged) echo "$dir/munge/munged.pid" ;;
    *) echo "$dir/$1.pid" ;;
  esac
}

# pid of daemon $1 from its pid file when that process runs and is that daemon, else nothing
pid_of() {
  local f pid
  f=$(pid_file "$1")
  [ -r "$f" ] || return 0
  pid=$(cat "$f")
  [[ $pid =~ ^[0-9]+$ ]] && [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = "$1" ] && echo "$pid"
  return 0
}

logs_tail() {
  local f
  for f in "$dir"/log/*.log; do
    [ -s "$f" ] && { echo "--- $f (last lines)"; tail -n 15 "$f"; }
  done >&2
  return 0
}

write_config() {
  local node
  node=$(slurmd -C | sed -n '1s/ RealMemory=[0-9]*//p')
  [[ $node == NodeName=* ]] || die "slurmd -C did not describe this node: $node"
  cat >"$conf" <<EOF
# A one-node cluster of scripts/slurm-local.sh; removed by its stop.
ClusterName=pmemids-local
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  chmod 644 "$conf"
}

node_state() {
  SLURM_CONF=$conf sinfo -h -o %t 2>/dev/null || true
}

# The daemons' logs, then everything undone, then the reason.
fail_start() {
  logs_tail
  stop >/dev/null 2>&1
  die "$1 (ports $port, $((port + 1)); the daemons' logs above)"
}

start() {
  if [ -n "$(pid_of slurmctld)" ]; then
    say "already running from $dir"
    print_env
    return 0
  fi
  if [ -e "$dir" ]; then
    [ -e "$marker" ] || die "$dir exists and is not a scratch directory of this script; set PMEMIDS_SLURM_DIR"
    stop_daemons
    rm -rf "$dir"
  fi
  install_packages
  mkdir -p "$dir"/{munge,state,spool,log}
  chmod 755 "$dir" "$dir/munge"
  touch "$marker"
  mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null
  write_config
  if [ ! -e /etc/slurm/slurm.conf ] && [ ! -e "$link" ] && [ ! -L "$link" ]; then
    mkdir -p "$(dirname "$link")"
    ln -s "$dir" "$link"
    echo "$link" >>"$marker"
  fi
  munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed" || fail_start "munged did not start"
  slurmctld -f "$conf" || fail_start "slurmctld did not start"
  slurmd -f "$conf" || fail_start "slurmd did not start"
  local i d state=""
  for i in $(seq 60); do # 30 s at most
    state=$(node_state)
    [ "$state" = idle ] && break
    for d in munged slurmctld slurmd; do # written and gone: it died (a port in use, ...)
      [ -e "$(pid_file "$d")" ] && [ -z "$(pid_of "$d")" ] && fail_start "$d exited while starting"
    done
    sleep 0.5
  done
  [ "$state" = idle ] || fail_start "the node is not idle after 30 s (sinfo says '${state:-nothing}')"
  say "one-node cluster up: node $(hostname -s), $(nproc) CPUs, slurm.conf $conf"
  print_env
}

print_env() {
  echo "export SLURM_CONF=$conf"
}

# Cancels every job of the cluster and waits for their steps to end, then stops
# slurmd, slurmctld and munged by their pid files.
stop_daemons() {
  local i d pid
  if [ -n "$(pid_of slurmctld)" ]; then
    SLURM_CONF=$conf scancel --quiet --full $(SLURM_CONF=$conf squeue -h -o %A 2>/dev/null) 2>/dev/null || true
    for i in $(seq 40); do # 20 s at most
      [ -z "$(SLURM_CONF=$conf squeue -h -o %A 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  local -A pids=()
  for d in slurmd slurmctld munged; do # together: each takes a second or two to exit
    pid=$(pid_of "$d")
    [ -n "$pid" ] && pids[$d]=$pid && kill "$pid" 2>/dev/null
  done
  for i in $(seq 40); do # 10 s at most
    for d in "${!pids[@]}"; do
      kill -0 "${pids[$d]}" 2>/dev/null || unset "pids[$d]"
    done
    [ ${#pids[@]} -eq 0 ] && return 0
    sleep 0.25
  done
  for d in "${!pids[@]}"; do
    say "$d (pid ${pids[$d]}) ignored SIGTERM for 10 s; killing it"
    kill -KILL "${pids[$d]}" 2>/dev/null || true
  done
  return 0
}

stop() {
  if [ ! -e "$marker" ]; then
    say "not running (no scratch directory $dir)"
    return 0
  fi
  stop_daemons
  if grep -qx "$link" "$marker" && [ "$(readlink "$link" 2>/dev/null)" = "$dir" ]; then
    rm -f "$link"
    rmdir --ignore-fail-on-non-empty "$(dirname "$link")"
  fi
  rm -rf "$dir"
  say "stopped; $dir removed"
}

status() {
  local d pid all=0
  for d in munged slurmctld slurmd; do
    pid=$(pid_of "$d")
    if [ -n "$pid" ]; then
      echo "$d: running (pid $pid)"
    else
      echo "$d: not running"
      all=3
    fi
  done
  [ -n "$(pid_of slurmctld)" ] && SLURM_CONF=$conf sinfo 2>&1 && SLURM_CONF=$conf squeue 2>&1
  [ $all -eq 0 ] && echo "SLURM_CONF=$conf"
  return $all
}

case ${1:-} in
  start) as_root "$@"; start ;;
  stop) as_root "$@"; stop ;;
  status) status ;;
  env) print_env ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
