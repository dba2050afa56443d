#!/usr/bin/env bash
# Long convergence soak: runs N fresh random seeds of the two-device workload
# (10 per test run) and appends every failing seed to a file for replay with
# SYNCD_CONVERGENCE_SEEDS=<seed> (or, with SOAK_KILLS=1, the variant that kills the
# daemons with SIGKILL, replayed with SYNCD_KILL_SEEDS=<seed>). Not part of CI (CI runs
# the fixed seeds only: ConvergenceSeeds). SOAK_BUSY=K keeps K more busy loops on the CPU
# meanwhile (CI's machine is loaded: a workload there runs 2-3 times slower, and races show
# that do not show on a quiet machine).
#
#   scripts/soak.sh [N=100] [FILE=soak-failures.txt]     e.g. scripts/soak.sh 1000 overnight.txt
#   SOAK_KILLS=1 scripts/soak.sh 200 kills.txt
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
total="${1:-100}"
out="${2:-soak-failures.txt}"
scripts/install-deps.sh
swift build --build-tests
busy=()
for _ in $(seq 1 "${SOAK_BUSY:-0}"); do
  sh -c 'while :; do :; done' &
  busy+=($!)
done
trap '[ "${#busy[@]}" -gt 0 ] && kill "${busy[@]}" 2> /dev/null; true' EXIT
ran=0
failed=0
while [ "$ran" -lt "$total" ]; do
  n=$(( total - ran < 10 ? total - ran : 10 ))
  log="$(mktemp)"
  rc=0
  if [ "${SOAK_KILLS:-0}" = 1 ]; then
    SYNCD_KILL_SEEDS="random:$n" swift test --skip-build --filter randomWorkloadConvergesUnderKills >"$log" 2>&1 || rc=$?
  else
    SYNCD_CONVERGENCE_SEEDS="random:$n" swift test --skip-build --filter 'randomWorkloadConverges\(' >"$log" 2>&1 || rc=$?
  fi
  # Swift Testing names the failing argument on its failure lines: "✘ Test … recorded an issue
  # with 1 argument seed → 1234 …" (its start lines name every seed: "◇ Test case passing …").
  # Not only at a line's start: parallel output can put it after a printed report's half line.
  for seed in $(grep '✘' "$log" | grep -o 'argument seed → [0-9]*' | awk '{print $4}' | sort -u); do
    echo "$seed $(date -u +%FT%TZ)" >>"$out"
    failed=$((failed + 1))
    echo "seed $seed FAILED (log: $log)"
  done
  # A test process that crashed or was stopped names no failing seed: its log is the lead.
  if [ "$rc" -ne 0 ] && ! grep -q '✘.*argument seed → ' "$log"; then
    echo "unknown-seed $(date -u +%FT%TZ) exit $rc log $log" >>"$out"
    failed=$((failed + 1))
    echo "a test run FAILED (exit $rc) naming no seed (log: $log)"
  fi
  ran=$((ran + n))
  echo "soak: $ran/$total seeds run, $failed failed"
done
echo "soak done: $ran seeds, $failed failed; failing seeds in $out"
