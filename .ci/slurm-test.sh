#!/usr/bin/env bash
# Integration test of the workbench on a real Slurm cluster (docs/workbench.md):
# starts a one-node cluster on this machine (.ci/slurm-up.sh: munged,
# slurmctld, slurmd; installs slurm-wlm and munge when missing), runs a
# sweep locally, emits the same sweep as an sbatch job array, submits it,
# waits for it (bounded), collects the shards' results and asserts that
# they equal the local run's byte for byte. The cluster runs in accounting
# mode (SLURM_TEST_ACCOUNTING=1: MariaDB + slurmdbd), and the test also
# checks that sacct lists every array task as COMPLETED. Stops everything
# it started.
# Skipped, with a message, only when not run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

if [ "$(id -u)" != 0 ]; then
  echo "slurm-test: SKIPPED: needs root to install and start slurm-wlm and munge (run .ci/slurm-test.sh as root)"
  exit 0
fi

WORK=$(mktemp -d /tmp/backfill-slurm-test.XXXXXX)
CLUSTER=$WORK/cluster
export SLURM_TEST_DIR=$CLUSTER
export SLURM_TEST_ACCOUNTING=1
cleanup() {
  "$ROOT/.ci/slurm-down.sh" "$CLUSTER" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "slurm-test: building backfill"
go build -o "$WORK/backfill" ./cmd/backfill

cat > "$WORK/experiment.yaml" <<EOF
name: slurm-test
traces: $ROOT/workload/builtin
workloads:
  - trace: KTH-SP2-1996-2.1-cln.swf.gz
    subset: {jobs: 1500}
    load: [original, 0.9]
  - trace: KTH-SP2-1996-2.1-cln.swf.gz
    name: kth-months
    months: [1996-10, 1997-01]
    estimate: [user, "factor:2"]
seeds: [1]
policies:
  - fcfs
  - name: easy
    params: {depth: [1, 4]}
  - conservative
EOF

echo "slurm-test: local run"
"$WORK/backfill" sweep "$WORK/experiment.yaml" --out "$WORK/local" --workers 2 --progress none

echo "slurm-test: starting the cluster"
"$ROOT/.ci/slurm-up.sh" "$CLUSTER"
export SLURM_CONF=$CLUSTER/slurm.conf

SHARDS=5
"$WORK/backfill" sweep "$WORK/experiment.yaml" --out "$WORK/shared" --emit-slurm --shards $SHARDS \
  --partition debug --time 10:00 --array-limit 2 > "$WORK/sweep.sbatch"
echo "slurm-test: submitting"
sed 's/^/  | /' "$WORK/sweep.sbatch"
JOB=$(sbatch --parsable "$WORK/sweep.sbatch")
JOB=${JOB%%;*}
echo "slurm-test: array job $JOB submitted"

deadline=$((SECONDS + 240))
while squeue -h -j "$JOB" 2>/dev/null | grep -q .; do
  if [ $SECONDS -ge $deadline ]; then
    echo "slurm-test: FAIL: the array did not finish within 240 s" >&2
    squeue >&2 || true
    scancel "$JOB" || true
    exit 1
  fi
  sleep 2
done

# every task must have completed
states=$(scontrol -o show job "$JOB" | grep -o 'JobState=[A-Z_]*' | sort | uniq -c)
echo "slurm-test: task states: $(echo $states)"
tasks=$(scontrol -o show job "$JOB" | grep -c 'JobState=COMPLETED' || true)
if [ "$tasks" != "$SHARDS" ]; then
  echo "slurm-test: FAIL: $tasks of $SHARDS array tasks completed" >&2
  tail -n 30 "$WORK"/shared/slurm/*.out >&2 || true
  exit 1
fi
grep -h "shard .* done" "$WORK"/shared/slurm/*.out | sed 's/^/  task log: /'

echo "slurm-test: collecting"
"$WORK/backfill" collect "$WORK/shared"

# byte-identical: every file except the wall times and the task logs
if ! diff -r -x timing.json -x slurm "$WORK/local" "$WORK/shared"; then
  echo "slurm-test: FAIL: the results of the Slurm array differ from the local run" >&2
  exit 1
fi
# accounting: slurmctld sends job records to slurmdbd asynchronously
acct=""
for _ in $(seq 1 30); do
  acct=$(sacct --allusers --parsable2 --noheader -X -j "$JOB" --format=JobID,State | grep -c '|COMPLETED$' || true)
  [ "$acct" = "$SHARDS" ] && break
  sleep 1
done
if [ "$acct" != "$SHARDS" ]; then
  echo "slurm-test: FAIL: sacct lists $acct of $SHARDS array tasks as COMPLETED" >&2
  sacct --allusers --parsable2 -j "$JOB" >&2 || true
  exit 1
fi
echo "slurm-test: sacct lists the $SHARDS array tasks as COMPLETED"
runs=$(ls "$WORK/local/runs" | wc -l)
echo "slurm-test: OK: $runs runs in $SHARDS array tasks, results identical to the local run byte for byte"
