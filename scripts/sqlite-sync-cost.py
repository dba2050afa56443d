#!/usr/bin/env python3
"""What synchronous=FULL costs on this disk, against NORMAL, in SQLite WAL mode.

    python3 scripts/sqlite-sync-cost.py [--dir DIR] [--commits 300]

Both of our databases (the server's metadata, the daemon's index) run WAL with
synchronous=FULL: every commit waits for an fsync of the WAL. This measures that wait
for commits of the sizes we make: one row (a single-file push, one journal write) and
2,000 rows (a full push batch: one commit, one fsync, for the lot — group commit).
Prints commits/s and rows/s for each mode and the FULL/NORMAL ratio. Run it on the disk
the data lives on (--dir); the machine is shared, so compare the ratio, not the figures.
"""
import argparse
import os
import sqlite3
import tempfile
import time


def run(path, synchronous, commits, rows_per_commit):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous}")
    db.execute("CREATE TABLE entries (path TEXT PRIMARY KEY, rev INTEGER, hash TEXT)")
    n = 0
    start = time.perf_counter()
    for _ in range(commits):
        db.execute("BEGIN")
        for _ in range(rows_per_commit):
            db.execute("INSERT INTO entries VALUES (?, ?, ?)", (f"dir/{n:08d}.txt", n, "0" * 64))
            n += 1
        db.execute("COMMIT")
    elapsed = time.perf_counter() - start
    db.close()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return commits / elapsed, n / elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", default=None, help="directory on the disk to measure (default: a temp dir)")
    parser.add_argument("--commits", type=int, default=300)
    args = parser.parse_args()
    directory = args.dir or tempfile.mkdtemp(prefix="sqlite-sync-cost-")
    path = os.path.join(directory, "bench.sqlite")
    print("| commit size | NORMAL commits/s | FULL commits/s | FULL rows/s | FULL / NORMAL time |")
    print("|---|---|---|---|---|")
    for rows, commits in ((1, args.commits), (2000, max(10, args.commits // 20))):
        normal, _ = run(path, "NORMAL", commits, rows)
        full, full_rows = run(path, "FULL", commits, rows)
        print(f"| {rows} row(s) | {normal:,.0f} | {full:,.0f} | {full_rows:,.0f} | {normal / full:.1f}x |")
    if args.dir is None:
        os.rmdir(directory)


if __name__ == "__main__":
    main()
