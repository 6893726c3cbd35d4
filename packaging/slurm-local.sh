#!/usr/bin/env bash
# A one-machine Slurm cluster for the scale-out tests (tests/cluster) and for trying `ascviz-cli slurm` by
# hand. Debian 12's packages (slurmctld, slurmd, slurm-client, munge; Slurm 22.05); no systemd needed.
#
#   packaging/slurm-local.sh start STATE_DIR   writes STATE_DIR/slurm.conf, starts munged (unless one runs),
#                                              slurmctld and slurmd, waits until the node is idle, and prints
#                                              `export SLURM_CONF=STATE_DIR/slurm.conf` for the caller to eval
#   packaging/slurm-local.sh stop STATE_DIR    stops the daemons this script started, by their pid files
#
# Must run as root (or through sudo): slurmd starts jobs as their user, munged reads /etc/munge/munge.key.
set -euo pipefail

cmd="${1:-}"
state="${2:-}"
if [ -z "$cmd" ] || [ -z "$state" ]; then
  echo "usage: $0 start|stop STATE_DIR" >&2
  exit 2
fi

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

stop_pidfile() {
  local f="$1"
  [ -f "$f" ] || return 0
  local pid
  pid="$(cat "$f" 2>/dev/null || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    as_root kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && as_root kill -9 "$pid" 2>/dev/null || true
  fi
  as_root rm -f "$f"
}

case "$cmd" in
  stop)
    stop_pidfile "$state/slurmd.pid"
    stop_pidfile "$state/slurmctld.pid"
    stop_pidfile "$state/munged.pid" # only present when this script started munged
    exit 0
    ;;
  start) ;;
  *) echo "usage: $0 start|stop STATE_DIR" >&2; exit 2 ;;
esac

for b in munged slurmctld slurmd sbatch; do
  command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || {
    echo "slurm-local: $b not found (apt-get install slurmctld slurmd slurm-client munge)" >&2
    exit 1
  }
done

mkdir -p "$state"
state="$(cd "$state" && pwd)"
mkdir -p "$state/ctld" "$state/d" "$state/log"
host="$(hostname -s)"
mem_mib=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 8 / 10 ))
# Two jobs per core at most: the scale-out tests run four shards on two cores.
cpus="$(nproc)"

cat > "$state/slurm.conf" <<EOF
ClusterName=ascviz-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${ASCVIZ_SLURMCTLD_PORT:-6817}
SlurmdPort=${ASCVIZ_SLURMD_PORT:-6818}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=600
KillWait=5
InactiveLimit=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mib State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:2
EOF

# munged: reuse a running one (its socket is the default), else start one and remember its pid.
if ! pgrep -x munged >/dev/null 2>&1; then
  as_root mkdir -p /run/munge
  as_root chown munge:munge /run/munge 2>/dev/null || true
  if [ ! -s /etc/munge/munge.key ]; then
    as_root sh -c 'dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null && chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key'
  fi
  as_root su -s /bin/sh munge -c "/usr/sbin/munged --pid-file=/run/munge/ascviz-munged.pid"
  for _ in $(seq 1 50); do [ -s /run/munge/ascviz-munged.pid ] && break; sleep 0.1; done
  cp /run/munge/ascviz-munged.pid "$state/munged.pid"
fi

export SLURM_CONF="$state/slurm.conf"
as_root env SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmctld -c
as_root env SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmd -c
for _ in $(seq 1 100); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qx idle; then
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.2
done
echo "slurm-local: the node did not become idle in 20 s; see $state/log" >&2
sinfo >&2 || true
exit 1
