#!/usr/bin/env bash
# run-bounded.sh SECONDS COMMAND [ARG...]
#
# Runs COMMAND in a session of its own with its stdout line-buffered (so a log that stops
# shows where). Past SECONDS it prints what is still running (the session's process tree,
# then every thread's backtrace of each test process, with gdb or lldb) and kills every
# process of the session: a hang costs its limit and leaves a diagnosis, not a CI run that
# times out silently. When COMMAND ends, whatever it left running in its session is killed.
# Exit status: the command's, or 124 when it was stopped.
set -uo pipefail
limit=$1
shift

# A background job of a non-interactive shell stays in the shell's process group, so setsid
# needs no fork and $! is the session's leader. (Foundation puts each child the tests start
# in a group of its own, inside that session: the session, not a group, is what gets killed.)
setsid stdbuf -oL "$@" &
pid=$!
stopped=$(mktemp)
rm -f "$stopped"

kill_session() {
  local tries=0
  while pgrep -s "$pid" > /dev/null && [ "$tries" -lt 20 ]; do
    pkill -KILL -s "$pid" 2> /dev/null
    sleep 0.5
    tries=$((tries + 1))
  done
}
trap 'kill_session; exit 130' INT TERM HUP

diagnose() {
  echo "run-bounded: still running after ${limit} s: $*" >&2
  ps -s "$pid" -o pid,ppid,etimes,stat,wchan:24,args --forest >&2 || true
  local debugger=""
  if command -v gdb > /dev/null; then debugger=gdb; elif command -v lldb > /dev/null; then debugger=lldb; fi
  for test_pid in $(pgrep -s "$pid" -f '\.xctest' || true); do
    echo "run-bounded: threads of test process $test_pid:" >&2
    case "$debugger" in
      gdb) timeout 120 gdb -batch -p "$test_pid" -ex 'thread apply all bt' >&2 2>&1 ;;
      lldb) timeout 120 lldb --batch -p "$test_pid" -o 'thread backtrace all' >&2 2>&1 ;;
      *) false ;;
    esac || echo "run-bounded: could not show them (no gdb or lldb, or ptrace not allowed here)" >&2
  done
}

(
  started=$SECONDS
  while kill -0 "$pid" 2> /dev/null; do
    if [ $((SECONDS - started)) -ge "$limit" ]; then
      diagnose "$@"
      touch "$stopped"
      kill_session
      exit 0
    fi
    sleep 1
  done
) &
watcher=$!

wait "$pid"
status=$?
wait "$watcher"
# Whatever the command left behind goes too: a test process that crashed leaves its daemons
# and servers running, and they would hold inotify instances and ports the next run needs.
# (The tests' watchdog shells run in sessions of their own and tidy up after themselves.)
kill_session
if [ -e "$stopped" ]; then
  rm -f "$stopped"
  echo "run-bounded: stopped after ${limit} s: $*" >&2
  exit 124
fi
exit "$status"
