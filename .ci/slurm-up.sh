#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine for the Slurm test of
# sched/distributed (TestSlurmReal): munged, slurmctld and slurmd run as
# plain daemons (no systemd in CI containers), with a slurm.conf written
# for this host. Needs root and Debian's slurmctld, slurmd, slurm-client
# and munge packages (.ci/run installs them).
#
# Exit status 0 when `sinfo` shows the node idle; anything else prints why
# on stderr and exits 1, and the caller skips the Slurm test. It never
# replaces a slurm.conf it did not write, and does nothing when a Slurm
# already answers with an idle node. Bounded: about a minute at worst.
set -uo pipefail

fail() { echo "slurm-up: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "needs root (writes /etc/slurm and starts daemons)"
for b in munged slurmctld slurmd sinfo scontrol; do
  command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || fail "$b is not installed"
done
export PATH="$PATH:/usr/sbin:/sbin"

node_state() { timeout 10 sinfo --noheader --Node --format=%t 2>/dev/null | head -1; }

if [ "$(node_state)" = idle ] && [ "$(timeout 60 srun --nodes=1 --ntasks=1 --time=1 echo slurm-ok 2>/dev/null)" = slurm-ok ]; then
  echo "slurm-up: a Slurm with an idle node is already running, and runs jobs"
  exit 0
fi

conf=/etc/slurm/slurm.conf
marker="# written by tessera .ci/slurm-up.sh"
if [ -e "$conf" ] && ! head -1 "$conf" | grep -qF "$marker"; then
  fail "$conf exists and was not written by this script; not replacing it"
fi

host=$(hostname -s) || fail "hostname -s failed"
cpus=$(nproc)
mem_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
# Leave a tenth of the memory to the system, as sites do.
mem_mb=$(( mem_kb / 1024 * 9 / 10 ))
[ -n "$host" ] && [ "$cpus" -ge 1 ] && [ "$mem_mb" -ge 1 ] || fail "could not read host name, CPUs or memory"

mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge || fail "mkdir"
cat >"$conf" <<EOF
$marker for a one-node test cluster
ClusterName=tessera-ci
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
SlurmdParameters=config_overrides
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
KillWait=5
MinJobAge=60
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

# munge: the key comes with the package; make one if it is missing.
if [ ! -s /etc/munge/munge.key ]; then
  if command -v mungekey >/dev/null 2>&1; then mungekey --create --force >/dev/null 2>&1
  else dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null; fi
  chown munge:munge /etc/munge/munge.key 2>/dev/null; chmod 0400 /etc/munge/munge.key
fi
chown munge:munge /run/munge 2>/dev/null; chmod 0755 /run/munge
mkdir -p /var/log/munge /var/lib/munge && chown munge:munge /var/log/munge /var/lib/munge 2>/dev/null
if ! pgrep -x munged >/dev/null; then
  if id munge >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged || fail "munged did not start"
  else
    /usr/sbin/munged --force || fail "munged did not start"
  fi
fi
for _ in $(seq 20); do munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.5; done
munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 || fail "munge does not answer (munge -n | unmunge)"

pgrep -x slurmctld >/dev/null || /usr/sbin/slurmctld -i || fail "slurmctld did not start; $(tail -5 /var/log/slurm/slurmctld.log 2>/dev/null)"
# slurmd loads a cgroup plugin at start even with proctrack/linuxproc and
# task/none (Slurm 22.05): without cgroup.conf it detects the hierarchy,
# which fails on some container hosts; then name v1 and v2 in turn.
start_slurmd() {
  pgrep -x slurmd >/dev/null && return 0
  /usr/sbin/slurmd && return 0
  local cg=/etc/slurm/cgroup.conf
  if [ -e "$cg" ] && ! head -1 "$cg" | grep -qF "$marker"; then return 1; fi
  for plugin in cgroup/v1 cgroup/v2; do
    printf '%s\nCgroupPlugin=%s\n' "$marker" "$plugin" >"$cg"
    /usr/sbin/slurmd && return 0
  done
  rm -f "$cg"
  return 1
}
start_slurmd || fail "slurmd did not start; $(tail -5 /var/log/slurm/slurmd.log 2>/dev/null)"

for i in $(seq 60); do
  st=$(node_state)
  case "$st" in
    idle)
      # A node that looks idle may still fail to launch jobs (slurmstepd,
      # munge between the daemons): run one before saying yes.
      if out=$(timeout 60 srun --nodes=1 --ntasks=1 --time=1 echo slurm-ok 2>&1) && [ "$out" = slurm-ok ]; then
        echo "slurm-up: node $host idle ($cpus CPUs, ${mem_mb} MB) after ${i}s; a test job ran"
        exit 0
      fi
      fail "node $host is idle but a test job failed: $out" ;;
    down*|drain*|drng*|unk*|"") [ $((i % 10)) = 5 ] && scontrol update NodeName="$host" State=RESUME >/dev/null 2>&1 ;;
  esac
  sleep 1
done
echo "slurm-up: the node did not become idle in 60 s (state '${st:-none}')" >&2
sinfo >&2 2>&1
tail -5 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 2>/dev/null
exit 1
