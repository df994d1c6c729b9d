#!/usr/bin/env bash
# Records the ground truth of `backfill import slurm` (docs/workload.md,
# "Importing accounting logs"): starts a one-node Slurm cluster in
# accounting mode (.ci/slurm-up.sh with SLURM_TEST_ACCOUNTING=1: 32 CPUs,
# 8 GiB, 4 stand-in GPUs, partitions debug and long, accounts test, physics
# and chem, QOS normal and high), submits a few hundred varied jobs (plain,
# with steps, arrays, throttled arrays, dependencies,
# exclusive, GPUs, memory, failures, timeouts, cancels before and after
# start, requeues, a node failure), waits for all of them, and writes
#
#   OUT/slurm-harness.sacct.txt     the sacct dump (the documented command)
#   OUT/slurm-harness.submitted.tsv what was submitted, one line a submission
#
# which workload/importer's tests compare (TestHarnessGroundTruth).
# Needs root; about 3 minutes. Runs on its own ports (7917-7920 by default,
# SLURM_TEST_*_PORT override) and stops its cluster on exit.
#
#   .ci/sacct-groundtruth.sh [OUT]     # OUT default workload/importer/testdata
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${1:-$ROOT/workload/importer/testdata}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

if [ "$(id -u)" != 0 ]; then
  echo "sacct-groundtruth: needs root" >&2
  exit 2
fi

WORK=$(mktemp -d /tmp/backfill-sacct-gt.XXXXXX)
chmod 755 "$WORK" # the jobs of nobody and daemon read slurm.conf
CLUSTER=$WORK/cluster
cleanup() {
  # cancel what is left (slurmstepd outlives slurmd), then stop the daemons
  if [ -n "${SLURM_CONF:-}" ]; then
    scancel --full $(squeue -h -o %A 2>/dev/null) >/dev/null 2>&1 || true
    sleep 2
  fi
  "$ROOT/.ci/slurm-down.sh" "$CLUSTER" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

cat > "$WORK/extra.conf" <<EOF
PartitionName=long Nodes=ALL MaxTime=2:00:00 State=UP
DefMemPerCPU=64
EOF
export SLURM_TEST_ACCOUNTING=1 SLURM_TEST_CPUS=32 SLURM_TEST_MEMORY=8192 SLURM_TEST_GPUS=4
export SLURM_TEST_EXTRA_CONF=$WORK/extra.conf
export SLURM_TEST_CTLD_PORT=${SLURM_TEST_CTLD_PORT:-7917} SLURM_TEST_SLURMD_PORT=${SLURM_TEST_SLURMD_PORT:-7918}
export SLURM_TEST_DBD_PORT=${SLURM_TEST_DBD_PORT:-7919} SLURM_TEST_DB_PORT=${SLURM_TEST_DB_PORT:-7920}
"$ROOT/.ci/slurm-up.sh" "$CLUSTER"
export SLURM_CONF=$CLUSTER/slurm.conf
chmod 755 "$CLUSTER/munge" # other users reach munged's socket; the key stays root's (0400)
cd /tmp

sacctmgr -i -Q add qos high Priority=100 >/dev/null
sacctmgr -i -Q add account physics,chem Cluster=backfilltest >/dev/null
sacctmgr -i -Q add user nobody Account=physics Cluster=backfilltest >/dev/null
sacctmgr -i -Q add user daemon Account=chem Cluster=backfilltest >/dev/null
sacctmgr -i -Q modify user root,nobody,daemon set QOS=normal,high >/dev/null

START=$(date -u +%Y-%m-%dT%H:%M:%S)
SUB=$OUT/slurm-harness.submitted.tsv
printf 'tag\tjobid\tuser\tpartition\tqos\ttasks\tgpus\tlimit\tsleep\texpect\targs\n' > "$SUB"

# sub TAG EXPECT USER PARTITION QOS TASKS GPUS LIMIT SLEEP [sbatch args...]
#   LIMIT is sbatch's --time (- for none); the job runs `sleep SLEEP` unless
#   --wrap is among the args. Prints the job id.
sub() {
  local tag=$1 expect=$2 user=$3 part=$4 qos=$5 tasks=$6 gpus=$7 limit=$8 sl=$9
  shift 9
  local args=(-o /dev/null -e /dev/null -p "$part" --qos="$qos" -n "$tasks")
  [ "$gpus" != 0 ] && args+=(--gpus="$gpus")
  [ "$limit" != - ] && args+=(-t "$limit")
  local wrap=1
  for a in "$@"; do case "$a" in --wrap*) wrap=0 ;; esac; done
  args+=("$@")
  [ $wrap = 1 ] && args+=(--wrap "sleep $sl")
  local id
  if [ "$user" = root ]; then
    id=$(sbatch --parsable "${args[@]}")
  else
    id=$(su -s /bin/sh "$user" -c "cd /tmp && SLURM_CONF=$SLURM_CONF sbatch --parsable $(printf '%q ' "${args[@]}")")
  fi
  id=${id%%;*}
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$id" "$user" "$part" "$qos" "$tasks" "$gpus" "$limit" "$sl" "$expect" "$*" >> "$SUB"
  echo "$id"
}

RANDOM=42
users=(root root nobody daemon)
echo "sacct-groundtruth: submitting"
# timeouts first: they take 1-2 minutes
for i in 1 2 3 4; do sub timeout TIMEOUT root debug normal $((i)) 0 1 300 >/dev/null; done
sub timeout-mmss TIMEOUT nobody long normal 2 0 1:00 300 >/dev/null
# plain jobs: 1-8 tasks, 1-6 s, various limits, users, partitions, QOS
limits=(- 5 10:00 1:00:00 0-02 2-00:00:00 30)
for i in $(seq 1 150); do
  u=${users[$((RANDOM % 4))]}
  t=$((1 + RANDOM % 8))
  s=$((1 + RANDOM % 6))
  l=${limits[$((RANDOM % 7))]}
  p=debug
  if [ $((RANDOM % 4)) = 0 ]; then p=long; [ "$l" = 2-00:00:00 ] && l=1:30:00; fi
  q=normal; [ $((RANDOM % 5)) = 0 ] && q=high
  g=0; [ $((RANDOM % 8)) = 0 ] && g=$((1 + RANDOM % 2))
  m=(); case $((RANDOM % 4)) in 0) m=(--mem=200M) ;; 1) m=(--mem-per-cpu=100M) ;; esac
  sub plain COMPLETED "$u" "$p" "$q" "$t" "$g" "$l" "$s" "${m[@]}" >/dev/null
done
# jobs with steps
for i in $(seq 1 15); do
  sub steps COMPLETED root debug normal 2 0 5 2 --wrap "srun -n1 sleep 1; srun -n2 true; srun -n1 sleep 1" >/dev/null
done
# failures
for i in $(seq 1 12); do
  sub failed FAILED "${users[$((i % 4))]}" debug normal 1 0 5 1 --wrap "sleep 1; exit $((1 + i % 5))" >/dev/null
done
# arrays: plain, stepped, throttled
for i in 1 2 3 4; do sub array COMPLETED root debug normal 1 0 5 1 --array=0-9 >/dev/null; done
sub array-step COMPLETED nobody long high 2 0 5 1 --array=1-5 >/dev/null
sub array-throttled COMPLETED daemon debug normal 1 0 5 1 "--array=0-11%3" >/dev/null
# no heterogeneous jobs: Slurm 22.05 leaves them pending on a one-node
# cluster with the node idle (their components do not share a node);
# testdata/sacct-forms.txt covers them
# exclusive whole-node jobs
for i in 1 2 3; do sub exclusive COMPLETED root debug normal 1 0 5 2 --exclusive >/dev/null; done
# dependencies: Eligible after the predecessor's end
prev=$(sub dep-head COMPLETED root debug normal 1 0 5 3)
for i in $(seq 1 6); do
  prev=$(sub dependent COMPLETED root debug normal 2 0 5 1 --dependency=afterok:"$prev")
done
# cancelled while running
run_cancel=()
for i in $(seq 1 10); do run_cancel+=("$(sub cancel-running CANCELLED_RUNNING "${users[$((i % 4))]}" debug normal 1 0 10 100)"); done
# cancelled while pending (eligible, waiting for the whole node)
pend_cancel=()
for i in $(seq 1 8); do pend_cancel+=("$(sub cancel-pending CANCELLED_PENDING root debug normal 32 0 5 5)"); done
# an array cancelled part-way: some tasks ran, the rest were pending
arr=$(sub array-cancel ARRAY_CANCEL root debug normal 1 0 5 20 "--array=0-19%2")
# a job held and cancelled: never eligible, sacct's time window misses it
held=$(sub held-cancel NOT_LISTED root debug normal 1 0 5 1 --hold)

# wait_for STATE ID... : until every job is in STATE (bounded)
wait_for() {
  local want=$1; shift
  for _ in $(seq 1 150); do
    local ok=1
    for id in "$@"; do
      st=$(squeue -h -j "$id" -o %T 2>/dev/null | head -n 1 || true)
      [ "$st" = "$want" ] || ok=0
    done
    [ $ok = 1 ] && return 0
    sleep 2
  done
  echo "sacct-groundtruth: jobs $* not $want after 300 s" >&2
  return 1
}
# wait_empty: until the queue is empty (squeue failures do not count as empty)
wait_empty() {
  local deadline=$((SECONDS + 600)) q
  while true; do
    if q=$(squeue -h -o %A 2>/dev/null) && [ -z "$q" ]; then return 0; fi
    if [ $SECONDS -ge $deadline ]; then
      echo "sacct-groundtruth: jobs still queued after 600 s" >&2
      squeue >&2 || true
      return 1
    fi
    scontrol update NodeName="$(hostname -s)" State=RESUME >/dev/null 2>&1 || true
    sleep 3
  done
}

echo "sacct-groundtruth: cancelling"
sleep 3
scancel "${pend_cancel[@]}" "$held"
wait_for RUNNING "${run_cancel[@]}"
sleep 2
scancel "${run_cancel[@]}"
wait_for RUNNING "${arr}_0"
sleep 3
scancel "$arr"
echo "sacct-groundtruth: waiting for the first jobs to end"
wait_empty

# requeue and node failure, alone on the node. A requeued job runs its
# script again with SLURM_RESTART_COUNT >= 1: the second run is short.
echo "sacct-groundtruth: requeueing, failing the node"
RESTART='if [ "${SLURM_RESTART_COUNT:-0}" -ge 1 ]; then sleep 2; else sleep 300; fi'
rq1=$(sub requeued REQUEUED root debug normal 2 0 10 0 --requeue --wrap "$RESTART")
nf1=$(sub nodefail NODE_FAIL root debug normal 2 0 10 300 --no-requeue)
nf2=$(sub nodefail-requeue NODE_FAIL_REQUEUED daemon debug normal 1 0 10 0 --requeue --wrap "$RESTART")
wait_for RUNNING "$rq1" "$nf1" "$nf2"
sleep 2
scontrol requeue "$rq1"
sleep 2
host=$(hostname -s)
scontrol update NodeName="$host" State=DOWN Reason=groundtruth
sleep 3
scontrol update NodeName="$host" State=RESUME || true
wait_empty
sleep 5 # slurmctld sends the last records to slurmdbd asynchronously

FORMAT=JobID,JobIDRaw,State,Submit,Eligible,Start,End,Elapsed,Timelimit,User,Group,Account,Partition,QOS,NNodes,NCPUS,ReqTRES,AllocTRES
TZ=UTC sacct --allusers --duplicates --parsable2 --noheader \
  --starttime="$START" --endtime=now --format=$FORMAT > "$OUT/slurm-harness.sacct.txt"
echo "sacct-groundtruth: $(wc -l < "$OUT/slurm-harness.sacct.txt") sacct lines, $(($(wc -l < "$SUB") - 1)) submissions in $OUT"
