#!/usr/bin/env bash
# Records the Fair Tree fair-share factors a real slurmctld (Debian's
# slurm-wlm 22.05, priority/multifactor with its default Fair Tree)
# computes for a nested association tree with usage, for the test of
# package slurm's Fair Tree (slurm/fairtree_test.go). Needs root; takes
# about 6 minutes.
#
#   .ci/slurm-fairtree.sh [OUT]   # OUT default: slurm/testdata/fairtree
#
# Starts a private accounting cluster with .ci/slurm-up.sh (ports 6947–6950,
# state in $SLURM_FAIRTREE_DIR, default /tmp/backfill-fairtree), creates the
# associations below, runs sleep jobs of three users, waits until they are
# done and two priority calculations (PriorityCalcPeriod=1) have passed,
# and writes OUT/sshare.txt (`sshare -a -P -l`, header included: the tree,
# RawShares, RawUsage, Level FS and FairShare), OUT/slurm.conf and
# OUT/meta.txt. Stops the cluster on exit.
#
# Tree (account shares): a 40 {a1 1 {alice, bob}, a2 1 {carol}}, b 40
# {dave, erin}, c 20 {frank}, d 10 {grace}, plus slurm-up's account test
# {root}; every user 1 share. Usage: alice 64 CPUs, dave 16, carol 8, for
# 60 s each; the others none (level fair-share +Inf: ties).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${1:-$ROOT/slurm/testdata/fairtree}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
DIR=${SLURM_FAIRTREE_DIR:-/tmp/backfill-fairtree}
export SLURM_TEST_CTLD_PORT=6947 SLURM_TEST_SLURMD_PORT=6948 SLURM_TEST_DBD_PORT=6949 SLURM_TEST_DB_PORT=6950
export SLURM_TEST_ACCOUNTING=1 SLURM_TEST_CPUS=128
EXTRA=$(mktemp)
cat > "$EXTRA" <<'CONF'
PriorityType=priority/multifactor
PriorityCalcPeriod=1
PriorityDecayHalfLife=7-0
PriorityWeightFairshare=10000
PriorityWeightAge=0
PriorityWeightJobSize=0
AccountingStorageEnforce=associations
CONF
export SLURM_TEST_EXTRA_CONF=$EXTRA
trap '.ci/slurm-down.sh "$DIR" >/dev/null 2>&1 || true; rm -f "$EXTRA"' EXIT
.ci/slurm-up.sh "$DIR"
export SLURM_CONF=$DIR/slurm.conf
export SLURM_TIME_FORMAT=%s

for u in alice bob carol dave erin frank grace; do
  id "bfu_$u" >/dev/null 2>&1 || useradd -M -N -s /usr/sbin/nologin "bfu_$u"
done
C=Cluster=backfilltest
sacctmgr -i -Q add account a,b,c,d $C >/dev/null
sacctmgr -i -Q add account a1,a2 Parent=a $C >/dev/null
sacctmgr -i -Q modify account a set Fairshare=40 >/dev/null
sacctmgr -i -Q modify account b set Fairshare=40 >/dev/null
sacctmgr -i -Q modify account c set Fairshare=20 >/dev/null
sacctmgr -i -Q modify account d set Fairshare=10 >/dev/null
for ua in alice:a1 bob:a1 carol:a2 dave:b erin:b frank:c grace:d; do
  sacctmgr -i -Q add user "bfu_${ua%%:*}" Account="${ua##*:}" $C Fairshare=1 >/dev/null
done
sleep 5 # let slurmctld receive the associations
for uc in alice:a1:64 dave:b:16 carol:a2:8; do
  IFS=: read -r u a n <<<"$uc"
  sbatch --quiet --uid="bfu_$u" --gid=nogroup -A "$a" -n "$n" -t 5 -o /dev/null -e /dev/null -D /tmp --wrap="sleep 60"
done
for _ in $(seq 1 120); do
  [ "$(squeue -h | wc -l)" = 0 ] && break
  sleep 5
done
sleep 150 # two priority calculations after the last job's end
{
  echo "recorded $(date -u +%FT%TZ) on $(hostname -s), $(slurmctld -V)"
} > "$OUT/meta.txt"
sshare -a -P -l > "$OUT/sshare.txt"
cp "$DIR/slurm.conf" "$OUT/slurm.conf"
echo "slurm-fairtree: done; $OUT/sshare.txt"
