#!/usr/bin/env bash
# The peer for docs/benchmarks.md: rsync -a to an rsync daemon on 127.0.0.1, on
# data shaped like bench.py's small-files and big-file (10,000 × 4 KiB in 100
# dirs to an empty module; one 1 GiB file), three runs each. Needs rsync and bc
# (apt-get install rsync bc). Run it right after bench.py and report ratios.
set -euo pipefail
w=$(mktemp -d /tmp/rsyncpeer.XXXX)
mkdir -p $w/src $w/big $w/dst
python3 - "$w" <<'PY'
import os, sys
w = sys.argv[1]
for d in range(100):
    os.makedirs(f"{w}/src/d{d:03}", exist_ok=True)
    for f in range(100):
        with open(f"{w}/src/d{d:03}/f{f:03}.bin", "wb") as fh: fh.write(os.urandom(4096))
with open(f"{w}/big/one.bin", "wb") as fh:
    for _ in range(1024): fh.write(os.urandom(1 << 20))
PY
cat > $w/rsyncd.conf <<CONF
pid file = $w/rsyncd.pid
use chroot = no
uid = $(id -u)
gid = $(id -g)
[dst]
path = $w/dst
read only = no
CONF
rsync --daemon --config=$w/rsyncd.conf --port=18873 --address=127.0.0.1
sleep 0.5
t() { local s=$(date +%s.%N); "$@"; echo "$(date +%s.%N) - $s" | bc; }
for i in 1 2 3; do rm -rf $w/dst/*; sync; echo "small $(t rsync -a $w/src/ rsync://127.0.0.1:18873/dst/)"; done
for i in 1 2 3; do rm -rf $w/dst/*; sync; echo "big $(t rsync -a --whole-file $w/big/ rsync://127.0.0.1:18873/dst/)"; done
kill $(cat $w/rsyncd.pid); rm -rf $w
