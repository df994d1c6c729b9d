#!/usr/bin/env bash
# Stops the test cluster that .ci/slurm-up.sh started from DIR: slurmd,
# slurmctld, slurmdbd and MariaDB (accounting mode) and munged, each by the process id in its pid file (never by
# name), waiting up to 10 s for each before SIGKILL. Keeps DIR (its log/
# holds the daemons' logs) unless --clean is given.
#
#   .ci/slurm-down.sh [DIR] [--clean]
set -uo pipefail

DIR=${SLURM_TEST_DIR:-/tmp/backfill-slurm}
CLEAN=0
for a in "$@"; do
  case "$a" in
    --clean) CLEAN=1 ;;
    *) DIR=$a ;;
  esac
done

stop() { # stop NAME PIDFILE
  local name=$1 pidfile=$2 pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "slurm-down: $name ($pid) did not stop; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$pidfile"
}

stop slurmd "$DIR/slurmd.pid"
stop slurmctld "$DIR/slurmctld.pid"
stop slurmdbd "$DIR/slurmdbd.pid"
stop mariadbd "$DIR/db/mariadbd.pid"
stop munged "$DIR/munge/munged.pid"
if [ "$CLEAN" = 1 ]; then
  rm -rf "$DIR"
fi
echo "slurm-down: stopped the cluster of $DIR"
