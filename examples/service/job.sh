#!/bin/sh
# An example job for the live service (README, docs/service.md):
#
#   backfill submit -n 8 -t 1m -- examples/service/job.sh [SECONDS]
#
# It reports what the service gave it (the BF_* variables), works for a
# few seconds (default 5) and ends with status 0.
echo "job $BF_JOB_ID (${BF_JOB_NAME:-no name}) of $BF_USER on $BF_PROCS processors"
echo "running in $(pwd) as $(id -un 2>/dev/null || id -u); output in $BF_JOB_DIR"
sleep "${1:-5}"
echo "job $BF_JOB_ID done"
