#!/usr/bin/env bash
# Records how a real slurmctld (Debian's slurm-wlm 22.05) schedules the
# workload of policy/slurm/testdata/record/workload.csv, for the validation
# of the `slurm` policy (docs/reproductions.md). Needs root.
#
#   .ci/slurm-record.sh [OUT]   # OUT default: policy/slurm/testdata/record
#
# Starts, all private to $WORK (default /tmp/backfill-record): a MariaDB
# server on 127.0.0.1:3317, munged, one slurmdbd (port 6919) and two
# one-node clusters of 320 CPUs (slurmd's config_overrides fakes the CPU
# count; jobs are sleeps): "fs" with the fair-share weight on (ports
# 6917/6918) and "nofs" with it off (6927/6928), identical otherwise
# (slurm-fs.conf, slurm-nofs.conf in OUT). Six users in three accounts
# (shares 50/30/20) and a QOS "high" are created with sacctmgr; the Unix
# users bfu_<name> are created when missing. Both clusters get the same
# submissions at the same offsets (sbatch --uid, --begin is not used: each
# job is submitted at its offset), sprio and sshare are sampled every 10 s,
# and at the end sacct writes the real submit/start/end times (epoch
# seconds). The whole run takes about 40 minutes of wall time.
#
# Output in OUT: sacct-{fs,nofs}.txt, sprio-{fs,nofs}.txt (lines
# "<epoch>|<sprio -o fields>"), sshare-{fs,nofs}.txt, bfcycles-{fs,nofs}.txt
# (epoch second of each backfill cycle, from slurmctld's log),
# events-{fs,nofs}.log.gz (slurmctld's scheduling events with millisecond
# timestamps, SlurmctldDebug=debug2),
# slurm-{fs,nofs}.conf, shares.txt, meta.txt. Stops everything it started
# (by pid files) on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${1:-$ROOT/policy/slurm/testdata/record}
OUT=$(cd "$OUT" && pwd)
WL=${SLURM_RECORD_WORKLOAD:-$OUT/workload.csv}
WORK=${SLURM_RECORD_DIR:-/tmp/backfill-record}
CPUS=320
HOST=$(hostname -s)

if [ "$(id -u)" != 0 ]; then
  echo "slurm-record: needs root" >&2
  exit 2
fi
for c in slurmctld slurmd slurmdbd munged mariadbd mariadb-install-db sbatch sacct sprio sshare sacctmgr; do
  command -v "$c" >/dev/null || { echo "slurm-record: $c missing (apt-get install slurm-wlm slurmdbd munge mariadb-server)" >&2; exit 2; }
done
[ -f "$WL" ] || { echo "slurm-record: $WL missing" >&2; exit 2; }

stop_pid() { # stop PIDFILE
  local pid
  [ -f "$1" ] || return 0
  pid=$(cat "$1" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}
BGPIDS=()
cleanup() {
  for p in "${BGPIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  for c in fs nofs; do
    stop_pid "$WORK/$c/slurmd.pid"
    stop_pid "$WORK/$c/slurmctld.pid"
  done
  stop_pid "$WORK/slurmdbd.pid"
  stop_pid "$WORK/munge/munged.pid"
  stop_pid "$WORK/db/mariadbd.pid"
}
trap cleanup EXIT

if [ -f "$WORK/slurmdbd.pid" ] && kill -0 "$(cat "$WORK/slurmdbd.pid")" 2>/dev/null; then
  echo "slurm-record: a recording is already running from $WORK" >&2
  trap - EXIT
  exit 1
fi
rm -rf "$WORK"
mkdir -p "$WORK/munge" "$WORK/db" "$WORK/log"
chmod 700 "$WORK/munge"

# users
for u in alice bob carol dave erin frank; do
  id "bfu_$u" >/dev/null 2>&1 || useradd -M -N -s /usr/sbin/nologin "bfu_$u"
done

# munge
dd if=/dev/urandom of="$WORK/munge/munge.key" bs=1 count=1024 status=none
chmod 400 "$WORK/munge/munge.key"
munged --force --socket="$WORK/munge/munge.socket" --key-file="$WORK/munge/munge.key" \
  --pid-file="$WORK/munge/munged.pid" --log-file="$WORK/log/munged.log" --seed-file="$WORK/munge/munged.seed"

# MariaDB, private
mariadb-install-db --user=root --datadir="$WORK/db/data" --auth-root-authentication-method=normal >"$WORK/log/mariadb-install.log" 2>&1
mariadbd --user=root --datadir="$WORK/db/data" --socket="$WORK/db/mysqld.sock" --port=3317 \
  --bind-address=127.0.0.1 --pid-file="$WORK/db/mariadbd.pid" --skip-name-resolve \
  --innodb-buffer-pool-size=256M --innodb-lock-wait-timeout=900 \
  --log-error="$WORK/log/mariadb.log" &
for _ in $(seq 1 60); do [ -S "$WORK/db/mysqld.sock" ] && break; sleep 1; done
mariadb --socket="$WORK/db/mysqld.sock" -u root -e "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'bfrecord'; GRANT ALL ON *.* TO 'slurm'@'127.0.0.1'; FLUSH PRIVILEGES;"

# slurmdbd
mkdir -p "$WORK/fs"
cat > "$WORK/fs/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$WORK/munge/munge.socket
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=6919
SlurmUser=root
PidFile=$WORK/slurmdbd.pid
LogFile=$WORK/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=3317
StorageUser=slurm
StoragePass=bfrecord
StorageLoc=slurm_acct_db
EOF
chmod 600 "$WORK/fs/slurmdbd.conf"
# slurmdbd reads slurmdbd.conf from the directory of $SLURM_CONF
SLURM_CONF=$WORK/fs/slurm.conf slurmdbd

# the two clusters' configuration; what differs is PriorityWeightFairshare
conf() { # conf NAME CTLDPORT SLURMDPORT FSWEIGHT
  local d=$WORK/$1
  mkdir -p "$d/state" "$d/spool"
  cat > "$d/slurm.conf" <<EOF
ClusterName=$1
SlurmctldHost=$HOST
SlurmctldPort=$2
SlurmdPort=$3
AuthType=auth/munge
AuthInfo=socket=$WORK/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld-$1.log
SlurmdLogFile=$WORK/log/slurmd-$1.log
DebugFlags=Backfill
SlurmctldDebug=debug2
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=6919
AccountingStoragePass=$WORK/munge/munge.socket
AccountingStorageEnforce=associations,qos
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=3600
MaxJobCount=10000
# --- the scheduling configuration the validation reproduces ---
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=20,bf_continue
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
PriorityType=priority/multifactor
PriorityFlags=NO_FAIR_TREE
PriorityCalcPeriod=1
PriorityDecayHalfLife=15
PriorityMaxAge=20
PriorityFavorSmall=YES
PriorityWeightAge=3000
PriorityWeightFairshare=$4
PriorityWeightJobSize=1000
PriorityWeightQOS=2000
PriorityWeightPartition=0
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=1024 State=UNKNOWN
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  cp "$d/slurm.conf" "$OUT/slurm-$1.conf"
}
conf fs 6917 6918 10000
conf nofs 6927 6928 0

export SLURM_CONF=$WORK/fs/slurm.conf
for _ in $(seq 1 60); do sacctmgr -n show cluster >/dev/null 2>&1 && break; sleep 1; done
sacctmgr -i add cluster fs nofs >/dev/null
sacctmgr -i add qos high Priority=1000 >/dev/null
sacctmgr -i add account phys,chem,bio Cluster=fs,nofs >/dev/null
sacctmgr -i modify account phys set Fairshare=50 >/dev/null
sacctmgr -i modify account chem set Fairshare=30 >/dev/null
sacctmgr -i modify account bio set Fairshare=20 >/dev/null
for ua in alice:phys bob:phys carol:chem dave:chem erin:bio frank:bio; do
  sacctmgr -i add user "bfu_${ua%%:*}" Account="${ua##*:}" Cluster=fs,nofs Fairshare=1 QOS=normal,high DefaultQOS=normal >/dev/null
done
cat > "$OUT/shares.txt" <<EOF
# The association tree of the recording (sacctmgr): account/user shares.
# account parent shares (sacctmgr also makes user root in account root,
# 1 share, a sibling of the accounts)
user root root 1
account phys root 50
account chem root 30
account bio  root 20
# user account shares
user alice phys 1
user bob   phys 1
user carol chem 1
user dave  chem 1
user erin  bio  1
user frank bio  1
# qos priority
qos normal 0
qos high 1000
EOF

for c in fs nofs; do
  SLURM_CONF=$WORK/$c/slurm.conf slurmctld -f "$WORK/$c/slurm.conf"
  SLURM_CONF=$WORK/$c/slurm.conf slurmd -f "$WORK/$c/slurm.conf" -N "$HOST"
done
for c in fs nofs; do
  for _ in $(seq 1 90); do
    st=$(SLURM_CONF=$WORK/$c/slurm.conf sinfo -h -o '%T' 2>/dev/null || true)
    case "$st" in idle*) break ;; esac
    sleep 1
  done
  [[ "$st" == idle* ]] || { echo "slurm-record: cluster $c did not come up ($st)" >&2; tail -n 30 "$WORK"/log/*.log >&2; exit 1; }
done
echo "slurm-record: both clusters idle; submitting $(($(wc -l <"$WL") - 1)) jobs to each"

export SLURM_TIME_FORMAT=%s
T0=$(($(date +%s) + 5))
{
  echo "recorded $(date -u +%FT%TZ) on $(hostname -s), $(slurmctld -V), t0 $T0"
  echo "workload $(sha256sum "$WL" | cut -c1-16)"
} > "$OUT/meta.txt"

submit() { # submit CLUSTER
  local c=$1 name off user acct qos nice cpus lim run now
  export SLURM_CONF=$WORK/$c/slurm.conf
  tail -n +2 "$WL" | while IFS=, read -r name off user acct qos nice cpus lim run; do
    now=$(date +%s.%N)
    sleep "$(echo "$T0 + $off - $now" | bc | sed 's/^-.*/0/')"
    sbatch --quiet --uid="bfu_$user" --gid=nogroup -J "$name" -A "$acct" -q "$qos" --nice="$nice" \
      -n "$cpus" -t "$lim" -o /dev/null -e /dev/null -D /tmp \
      --wrap="sleep $run" || echo "slurm-record: sbatch of $name failed on $c" >&2
  done
}
sample() { # sample CLUSTER
  local c=$1
  export SLURM_CONF=$WORK/$c/slurm.conf
  while true; do
    local t
    t=$(date +%s)
    sprio -h -n -o '%i|%u|%Y|%A|%F|%J|%P|%Q|%N' 2>/dev/null | sed "s/^ */$t|/" >> "$WORK/sprio-$c.txt" || true
    sprio -h -o '%i|%Y|%A|%F|%J|%Q|%N' 2>/dev/null | sed "s/^ */$t|/" >> "$WORK/sprio-raw-$c.txt" || true
    sshare -a -P -n -l 2>/dev/null | sed "s/^/$t|/" >> "$WORK/sshare-$c.txt" || true
    sleep 10
  done
}
for c in fs nofs; do
  submit "$c" & BGPIDS+=($!)
  sample "$c" & BGPIDS+=($!)
done
wait "${BGPIDS[0]}" "${BGPIDS[2]}"
echo "slurm-record: all submitted at $(date -u +%T); waiting for the queues to drain"
for _ in $(seq 1 5400); do
  n=0
  for c in fs nofs; do
    n=$((n + $(SLURM_CONF=$WORK/$c/slurm.conf squeue -h 2>/dev/null | wc -l)))
  done
  [ "$n" = 0 ] && break
  sleep 5
done
sleep 15 # let the accounting records settle

for c in fs nofs; do
  export SLURM_CONF=$WORK/$c/slurm.conf
  sacct -M "$c" -a -X -P -S 2000-01-01 \
    --format=JobID,JobName,User,Account,QOS,Submit,Eligible,Start,End,AllocCPUS,ReqCPUS,Timelimit,State \
    > "$OUT/sacct-$c.txt"
  cp "$WORK/sprio-$c.txt" "$OUT/sprio-$c.txt"
  cp "$WORK/sshare-$c.txt" "$OUT/sshare-$c.txt"
  # each backfill cycle's start, from the log's timestamps
  grep 'sched/backfill: _attempt_backfill: beginning' "$WORK/log/slurmctld-$c.log" \
    | sed -E 's/^\[([^]]*)\].*/\1/' | while read -r ts; do date -d "$ts" +%s; done > "$OUT/bfcycles-$c.txt" || true
  # the scheduling events with slurmctld's millisecond timestamps: the main
  # scheduler's passes (and those returning because a job is completing),
  # its and the backfill's starts, job ends, epilog-complete messages,
  # submissions, backfill cycles
  grep -E 'Running job scheduler|still completing|sched: Allocate|_job_complete: .* done|_slurm_rpc_epilog_complete|_start_job|_attempt_backfill: beginning|_slurm_rpc_submit_batch_job' \
    "$WORK/log/slurmctld-$c.log" | gzip -9n > "$OUT/events-$c.log.gz" || true
done
echo "slurm-record: done; results in $OUT"
