#!/usr/bin/env bash
# Installs prerequisites, builds everything, runs every test, then checks the release
# install (scripts/check-install.sh, a release build of its own: a few minutes).
#
# The in-process server suites and the end-to-end suites run in separate test
# processes, one after the other (the end-to-end ones twice: the embedded defaults, then
# PostgreSQL metadata with packs in S3): all suites of one process share Swift's
# cooperative pool (as wide as the machine has cores, 2 here), and end-to-end
# helpers that wait on child processes or hash files would starve an
# in-process server of threads for seconds at a time. With arguments, one
# `swift test` run gets them (e.g. `scripts/test.sh --filter LongPoll`).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
scripts/install-deps.sh
swift build --build-tests
if [ "$#" -gt 0 ]; then
  exec swift test --skip-build "$@"
fi
# Each test run is bounded (scripts/run-bounded.sh): a run that hangs is stopped with the
# process tree and the test process's threads printed, well inside CI's time. The limits are
# about twice or more what a run takes on 2 cores (in-process ~1.5 min, end-to-end 5-8.5 min
# on a busy machine, the release install ~6 min), and all of them together fit in CI's 90
# minutes.
bounded() { scripts/run-bounded.sh "$@"; }
# The end-to-end suites, at most 16 tests at a time (all 155 at once started ~130 processes
# together: in-process daemons of the test process then took 30-75 s to send a few bytes,
# and waits of 30 s timed out; at 16, 10 s at worst, for about a tenth more wall time).
# Swift Testing's own knob; a version without it runs them all at once, as before.
# A failed pass ends with each convergence failure's digest (the paths that differ, the
# operations and log lines that name them): a CI log may keep only its tail, and a
# convergence report is printed minutes before the pass ends.
end_to_end() {
  local since rc=0
  since=$(mktemp)
  SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=16 bounded 900 swift test --skip-build --filter EndToEndTests || rc=$?
  if [ "$rc" -ne 0 ]; then
    find "${TMPDIR:-/tmp}" -maxdepth 2 -name digest.txt -newer "$since" -exec sh -c 'cat "$1"; echo' _ {} \; 2> /dev/null || true
  fi
  rm -f "$since"
  return "$rc"
}
bounded 420 swift test --skip-build --skip EndToEndTests
end_to_end
# The same end-to-end suites in the scale-out configuration: every server's metadata in
# PostgreSQL (a throwaway cluster the tests start on 127.0.0.1: TestSupport's PostgresServer)
# and its packs in S3 (one moto server and bucket for the run, a prefix per server:
# TestSupport's SharedMotoBucket), except servers a test pins (`storage copy`'s SQLite
# sources, several instances on one database, servers that name their own blobs).
# PostgreSQL with packs on local disk is not a pass of its own (decision 0023, addendum):
# each store is in one of the two passes, and the in-process suites run every metadata
# suite against both SQLite and PostgreSQL.
SYNCD_TEST_SERVER_METADATA=postgres SYNCD_TEST_SERVER_BLOBS=s3 end_to_end
# The self-contained release: scripts/install.sh into a temporary prefix, checked (ldd,
# an empty environment, completions, man pages, a file synced with the installed binaries).
bounded 1500 scripts/check-install.sh
