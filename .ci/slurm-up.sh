#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine for tests: munged,
# slurmctld and slurmd, all private to a state directory, with a generated
# minimal slurm.conf (no cgroups; accounting only on request). Needs root.
# Installs Debian's slurm-wlm and munge (and, for accounting, slurmdbd and
# mariadb-server) when they are missing.
#
#   .ci/slurm-up.sh [DIR]        # DIR default: $SLURM_TEST_DIR or /tmp/backfill-slurm
#   export SLURM_CONF=DIR/slurm.conf
#   sbatch ...; squeue ...; sinfo ...
#   .ci/slurm-down.sh [DIR]      # stops exactly the daemons started here
#
# Options (environment variables):
#   SLURM_TEST_CTLD_PORT    slurmctld port (default 6817)
#   SLURM_TEST_SLURMD_PORT  slurmd port (default 6818)
#   SLURM_TEST_ACCOUNTING=1 accounting mode: also starts a private MariaDB
#                           (DIR/db, TCP 127.0.0.1:SLURM_TEST_DB_PORT,
#                           default 6820) and slurmdbd (SLURM_TEST_DBD_PORT,
#                           default 6819), sets
#                           AccountingStorageType=accounting_storage/slurmdbd,
#                           registers cluster "backfilltest" and account
#                           "test" (user root in it), so that
#                             sacct --allusers --parsable2 --noheader ...
#                           and sshare work. Adds about 10 s to start-up.
#   SLURM_TEST_CPUS=N       the node claims N CPUs (default: this machine's
#                           count); a larger, faked count is allowed
#                           (SlurmdParameters=config_overrides; jobs share
#                           the real cores).
#   SLURM_TEST_MEMORY=MB    the node's RealMemory (default 1024).
#   SLURM_TEST_GPUS=N       the node has N GPUs (GresTypes=gpu, Gres=gpu:N;
#                           gres.conf names N stand-in devices DIR/gpu/gpuI,
#                           character devices like /dev/null: --gpus works
#                           for scheduling and accounting only).
#   SLURM_TEST_EXTRA_CONF=FILE  lines appended to the generated slurm.conf
#                           (e.g. PriorityType=priority/multifactor,
#                           PriorityWeightFairshare=...). A key given again
#                           there overrides the generated one (Slurm keeps
#                           the latest value); NodeName/PartitionName lines
#                           add nodes/partitions.
#
# Only one cluster per port set can run on the machine: give every other
# cluster its own ports (all four in accounting mode). munged listens on
# DIR/munge/munge.socket, not the system socket, so a munged of the machine
# is left alone. Partition "debug". The script prints the SLURM_CONF line to
# export and returns when the node is idle (or fails after 60 s with the logs).
set -euo pipefail

DIR=${1:-${SLURM_TEST_DIR:-/tmp/backfill-slurm}}
CTLD_PORT=${SLURM_TEST_CTLD_PORT:-6817}
SLURMD_PORT=${SLURM_TEST_SLURMD_PORT:-6818}
ACCOUNTING=${SLURM_TEST_ACCOUNTING:-0}
DBD_PORT=${SLURM_TEST_DBD_PORT:-6819}
DB_PORT=${SLURM_TEST_DB_PORT:-6820}
CPUS=${SLURM_TEST_CPUS:-$(nproc)}
MEMORY=${SLURM_TEST_MEMORY:-1024}
EXTRA_CONF=${SLURM_TEST_EXTRA_CONF:-}
GPUS=${SLURM_TEST_GPUS:-0}
case "$GPUS" in ''|*[!0-9]*) echo "slurm-up: SLURM_TEST_GPUS must be a count, not '$GPUS'" >&2; exit 2 ;; esac
case "$CPUS" in ''|*[!0-9]*) echo "slurm-up: SLURM_TEST_CPUS must be a positive integer, not '$CPUS'" >&2; exit 2 ;; esac
case "$MEMORY" in ''|*[!0-9]*) echo "slurm-up: SLURM_TEST_MEMORY must be megabytes, not '$MEMORY'" >&2; exit 2 ;; esac
if [ -n "$EXTRA_CONF" ] && [ ! -r "$EXTRA_CONF" ]; then
  echo "slurm-up: SLURM_TEST_EXTRA_CONF=$EXTRA_CONF is not a readable file" >&2
  exit 2
fi

if [ "$(id -u)" != 0 ]; then
  echo "slurm-up: needs root (slurmd runs jobs as their users)" >&2
  exit 2
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  echo "slurm-up: installing Debian's slurm-wlm and munge" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq slurm-wlm munge >/dev/null
fi
if [ "$ACCOUNTING" = 1 ] && { ! command -v slurmdbd >/dev/null || ! command -v mariadbd >/dev/null || ! command -v mariadb-install-db >/dev/null; }; then
  # policy-rc.d (when present) keeps the packages from starting the
  # machine-wide MariaDB service; ours is private to DIR.
  echo "slurm-up: installing Debian's slurmdbd and mariadb-server" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq slurmdbd mariadb-server >/dev/null
fi
if [ -f "$DIR/slurmctld.pid" ] && kill -0 "$(cat "$DIR/slurmctld.pid")" 2>/dev/null; then
  echo "slurm-up: a cluster is already running from $DIR (stop it with .ci/slurm-down.sh $DIR)" >&2
  exit 1
fi

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
rm -rf "$DIR/state" "$DIR/spool" "$DIR/log" "$DIR/munge" "$DIR/db" "$DIR/slurmdbd.conf" "$DIR/gres.conf"
mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log" "$DIR/munge"
chmod 700 "$DIR/munge"

# munge: a fresh key, a private socket
dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1 count=1024 status=none
chmod 400 "$DIR/munge/munge.key"
munged --force \
  --socket="$DIR/munge/munge.socket" \
  --key-file="$DIR/munge/munge.key" \
  --pid-file="$DIR/munge/munged.pid" \
  --log-file="$DIR/log/munged.log" \
  --seed-file="$DIR/munge/munged.seed"

HOST=$(hostname -s)
export SLURM_CONF=$DIR/slurm.conf

ACCT_CONF="AccountingStorageType=accounting_storage/none"
if [ "$ACCOUNTING" = 1 ]; then
  # MariaDB: a fresh data directory, our own socket and port, no option
  # files of the machine (--no-defaults), root by unix socket only.
  mkdir -p "$DIR/db"
  mariadb-install-db --no-defaults --user=root --datadir="$DIR/db/data" \
    --auth-root-authentication-method=socket --skip-test-db >"$DIR/log/mariadb-install.log" 2>&1 || {
    echo "slurm-up: mariadb-install-db failed:" >&2; tail -n 20 "$DIR/log/mariadb-install.log" >&2; exit 1; }
  mariadbd --no-defaults --user=root --datadir="$DIR/db/data" \
    --socket="$DIR/db/mysql.sock" --port="$DB_PORT" --bind-address=127.0.0.1 \
    --pid-file="$DIR/db/mariadbd.pid" --log-error="$DIR/log/mariadb.log" \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=16M >/dev/null 2>&1 &
  for _ in $(seq 1 60); do
    [ -S "$DIR/db/mysql.sock" ] && [ -f "$DIR/db/mariadbd.pid" ] && break
    sleep 0.5
  done
  if [ ! -S "$DIR/db/mysql.sock" ]; then
    echo "slurm-up: MariaDB did not start within 30 s:" >&2; tail -n 20 "$DIR/log/mariadb.log" >&2; exit 1
  fi
  DBPASS=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  mariadb --no-defaults --socket="$DIR/db/mysql.sock" -u root <<SQL
CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DBPASS';
CREATE USER 'slurm'@'localhost' IDENTIFIED BY '$DBPASS';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
SQL
  # slurmdbd finds slurmdbd.conf beside $SLURM_CONF; it must be 0600.
  (umask 077; cat > "$DIR/slurmdbd.conf" <<EOF
# Generated by .ci/slurm-up.sh (accounting mode).
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
DbdHost=$HOST
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=root
PidFile=$DIR/slurmdbd.pid
LogFile=$DIR/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=$DBPASS
StorageLoc=slurm_acct_db
EOF
  )
  ACCT_CONF="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$DBD_PORT
AccountingStoragePass=$DIR/munge/munge.socket
AccountingStorageTRES=gres/gpu
JobAcctGatherFrequency=30"
fi
GRES_NODE=""
GRES_CONF=""
if [ "$GPUS" -gt 0 ]; then
  GRES_NODE=" Gres=gpu:$GPUS"
  GRES_CONF="GresTypes=gpu"
  rm -rf "$DIR/gpu"; mkdir -p "$DIR/gpu"
  for i in $(seq 0 $((GPUS - 1))); do mknod "$DIR/gpu/gpu$i" c 1 3; done
  echo "NodeName=$HOST Name=gpu File=$DIR/gpu/gpu[0-$((GPUS - 1))]" > "$DIR/gres.conf"
fi
OVERRIDES=""
if [ "$CPUS" != "$(nproc)" ] || [ -n "${SLURM_TEST_MEMORY:-}" ]; then
  OVERRIDES="SlurmdParameters=config_overrides"
fi
cat > "$DIR/slurm.conf" <<EOF
# Generated by .ci/slurm-up.sh: a one-node test cluster.
ClusterName=backfilltest
SlurmctldHost=$HOST
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
$ACCT_CONF
$OVERRIDES
$GRES_CONF
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MaxArraySize=1001
MinJobAge=600
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEMORY$GRES_NODE State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
if [ -n "$EXTRA_CONF" ]; then
  { echo "# From SLURM_TEST_EXTRA_CONF=$EXTRA_CONF:"; cat "$EXTRA_CONF"; } >> "$DIR/slurm.conf"
fi

if [ "$ACCOUNTING" = 1 ]; then
  slurmdbd
  for _ in $(seq 1 60); do
    sacctmgr -n list cluster >/dev/null 2>&1 && break
    sleep 0.5
  done
  if ! sacctmgr -n list cluster >/dev/null 2>&1; then
    echo "slurm-up: slurmdbd did not answer within 30 s:" >&2; tail -n 20 "$DIR/log/slurmdbd.log" >&2; exit 1
  fi
  sacctmgr -i -Q add cluster backfilltest >/dev/null
  sacctmgr -i -Q add account test Cluster=backfilltest Description=test Organization=backfill >/dev/null
  sacctmgr -i -Q add user root Account=test Cluster=backfilltest >/dev/null
fi
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N "$HOST"

for _ in $(seq 1 60); do
  state=$(sinfo -h -n "$HOST" -o '%T' 2>/dev/null || true)
  case "$state" in
    idle*|mixed*|allocated*)
      [ "$ACCOUNTING" = 1 ] && echo "slurm-up: accounting on (slurmdbd port $DBD_PORT, MariaDB 127.0.0.1:$DB_PORT)"
      echo "slurm-up: node $HOST ($CPUS CPUs) is $state; export SLURM_CONF=$SLURM_CONF"
      exit 0 ;;
  esac
  sleep 1
done
echo "slurm-up: the node did not become idle within 60 s (state: ${state:-unknown})" >&2
tail -n 20 "$DIR"/log/*.log >&2 || true
exit 1
