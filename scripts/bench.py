#!/usr/bin/env python3
"""Benchmarks for syncd + sync-server on this machine (Python 3 standard library only).

    swift build -c release --scratch-path .build-bench
    python3 scripts/bench.py --bin .build-bench/release [--only NAME] [--runs 3]

Every scenario starts its own sync-server and syncd in a fresh temporary directory
(loopback, page cache warm) and stops both when done; the directories are removed at
the very end (see Ctx.done for why). Before each measured run the script syncs the
disk and waits for the machine to be quiet (--wait-quiet), and afterwards flags a run
during which other processes used more than 10 % of the CPUs. On a VM that gives freed
memory back to its host (free page reporting), --steady-memory (root) stops that for the
run: else a run that writes into memory the host took back pays its first touch again.
Scenarios (see docs/benchmarks.md for what each number means):

  baseline      no syncd: creating 10,000 x 4 KiB files, and writing 1 GiB, with and
                without waiting for the disk (the floor under everything else)
  small-files   10,000 x 4 KiB files in 100 directories: written while syncd runs
                (first write -> all 10,000 in the server's feed), and present before
                syncd starts (daemon start -> all 10,000 in the feed)
  receive-small 10,000 x 4 KiB committed by device A; device B starts on an empty
                folder -> all present and B idle; rsync -a of the same folder to
                an rsync daemon on 127.0.0.1 in the same run, and the ratio
  receive-big   1 GiB committed by device A; device B starts -> has it; then 1 MiB
                rewritten on A -> B has it; rsync of the same file (and its delta)
  big-file      one 1 GiB file written in the folder -> committed; then 1 MiB
                rewritten in the middle (os.pwrite) -> new revision committed, and
                the growth of the server's chunk store (a proxy for bytes sent); rsync
                of the same file, then of its edit (delta), in the same run
  latency       one line appended to a synced file -> the revision in the feed,
                observed by a long-poll already waiting; 30 samples
  latency-open  the same with the file kept open for writing (the settle timer decides)
  latency-device a new small file, and a rewrite of one, on device A -> the content on
                device B (20 samples each)
  receive-restart  1 GiB committed by device A; device B starts, and is stopped (SIGTERM)
                once it has written half of it; its restart -> has it, against a third device's
                whole receive in the same run; what B fetched after the restart (its log)
  receive-kill  the same with B killed with SIGKILL (it goes on from its last checkpoint)
  receive-move  a synced directory of 2,000 files renamed on A -> all at the new path on B
  receive-renames  2,000 synced files each renamed in their directory on A -> all renamed on B
  delete-files  10,000 synced files, every other one deleted (the delete-wave guard set not
                to hold them) -> 5,000 files left live in the feed
  receive-deletes  the same -> 5,000 files left on a second device
  receive-tree-delete  10,000 synced files in 100 directories; every other directory removed
                whole on A (rm -r: 5,000 files, 50 directories) -> all of it gone on B
  scan-100k     100,000 files in 1,000 directories: first scan, watches, initial push,
                a second device's receive of all of them (rsync of the folder in the same
                run), idle CPU/RSS with all of it watched, warm rescans (syncd's own timings)
  watch-10k     10,000 directories: syncd's own time to add their watches
  noop-rescan   10,000 files already synced: restart syncd -> idle, 0 pending
  idle          10,000 files synced, daemon idle: CPU over 30 s and RSS
  dir-move      a synced directory of 10,000 files renamed -> every file at its new
                path in the feed; revisions taken; chunk store growth (must be 0)
  gc            10,000 x 4 KiB files committed through the protocol, 9,000 of them deleted,
                the server stopped, then `sync-server storage gc` with retention and the
                grace period passed (SYNC_SERVER_NOW_OFFSET): its wall time, the pack bytes
                before and after, the live bytes, its summary line
  scale-out     issue 10: the push (10k x 4 KiB present, A's syncd start -> all in the feed)
                and the receive (B's start on an empty folder -> all present, idle) on
                (a) one SQLite + filesystem server, (b') one on PostgreSQL + filesystem,
                (b'') one on SQLite + an S3 bucket (moto), (b) three instances on one
                PostgreSQL database and one bucket (A on instance 1, B on 3); the ratios to
                (a); then 30 commits through the protocol on instance 1 while a long-poll
                waits on instance 2 (and on 1): p50/p99 commit sent -> long-poll answered.
                Starts its own PostgreSQL cluster (/usr/lib/postgresql/*/bin, run as user
                postgres when root, defaults kept) and moto server, and stops both at the end;
                BENCH_SCALE_VARIANTS=a,b runs only those variants (keys: a, b', b'', b)
  many-devices  issue 10: 50 devices (a credential each, 5 client processes x 10 threads,
                persistent connections) each commit 40 new ~1 KiB files (PUT chunk, then a
                one-change commit) concurrently, device i through instance i % 3, on (a) one
                SQLite + filesystem server and (b) three instances on one PostgreSQL database
                and one moto bucket; one shared folder, then a folder per device: commits/s,
                p50/p99 of the commit request and of upload + commit, CPU of the servers,
                PostgreSQL, moto and the client, retries and non-2xx answers, and the feed
                checked gap-free 1..N (BENCH_DEVICE_FOLDERS=shared or each: only that layout)

The transfer scenarios also report the peak resident set (VmHWM) of syncd and
sync-server over the work. Medians over --runs (latency: over its 30 samples). A markdown table is printed at the
end; --json FILE also writes the raw samples. Exit status 1 if a scenario failed
(its daemon log tail is printed). --server-data /dev/shm puts the server's data_dir on
tmpfs: a diagnostic that shows what the disk costs (tmpfs is not durable).
"""

import argparse
import http.client
import json
import mmap
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

FOLDER = "docs"
SMALL_COUNT = 10_000
SMALL_DIRS = 100
SMALL_SIZE = 4096
BIG_SIZE = 1 << 30
EDIT_SIZE = 1 << 20
POLL = 0.02  # feed polling interval, seconds

now = time.monotonic


class BenchError(Exception):
    pass


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP/1.1 over the daemon's control socket (what syncctl does), without
    spawning a process per poll."""

    def __init__(self, path, timeout=5):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.unix_path)


class Env:
    """One temp dir with a sync-server, a device credential, a folder and (maybe) a syncd."""

    def __init__(self, bindir, name, tmp_base=None, server_base=None):
        self.bin = bindir
        self.root = tempfile.mkdtemp(prefix=f"syncd-bench-{name}-", dir=tmp_base)
        self.folder = os.path.join(self.root, "folder")
        self.server_root = tempfile.mkdtemp(prefix=f"syncd-bench-{name}-server-", dir=server_base) \
            if server_base else None
        self.data_dir = os.path.join(self.server_root or self.root, "server")
        self.state_dir = os.path.join(self.root, "state")
        self.sock = os.path.join(self.state_dir, "syncd.sock")
        self.server_conf = os.path.join(self.root, "sync-server.toml")
        self.daemon_conf = os.path.join(self.root, "syncd.toml")
        self.cred_file = os.path.join(self.root, "credential")
        self.daemon_log = os.path.join(self.root, "syncd.log")
        self.server_log = os.path.join(self.root, "sync-server.log")
        self.server = None
        self.daemon = None
        self.token = None
        self.url = None
        os.makedirs(self.folder)
        os.makedirs(self.state_dir, mode=0o700)

    # -- server ------------------------------------------------------------

    def start_server(self, timeout=30, storage=None, provision=True, token=None):
        """`storage`: the [storage] table's lines (and tables after it, such as [storage.s3]);
        default SQLite + filesystem. Without `provision` (another instance on a shared store
        that already has the folder and the device) no admin verb runs and `token` (one issued
        by another instance: they are shared) is kept as this env's."""
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        storage = storage or 'metadata = "sqlite"\nblobs = "filesystem"\n'
        with open(self.server_conf, "w") as f:
            f.write(f'[server]\nlisten = "127.0.0.1:{port}"\ndata_dir = "{self.data_dir}"\n'
                    f'[storage]\nretention = "30d"\n{storage}')
        sv = os.path.join(self.bin, "sync-server")
        if provision:
            self._run([sv, "folder", "add", FOLDER, "--config", self.server_conf])
            cred = self._run([sv, "device", "add", "--name", "bench", "--folder", FOLDER,
                              "--config", self.server_conf]).strip().splitlines()[-1].strip()
            fd = os.open(self.cred_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(cred + "\n")
            os.chmod(self.cred_file, 0o600)
        out_path = os.path.join(self.root, "sync-server.out")
        with open(out_path, "w") as out, open(self.server_log, "a") as err:
            self.server = subprocess.Popen([sv, "serve", "--config", self.server_conf],
                                           stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        deadline = now() + timeout
        while now() < deadline:
            with open(out_path) as f:
                if "listening on" in f.read():
                    break
            if self.server.poll() is not None:
                raise BenchError(f"sync-server exited with {self.server.returncode}:\n{tail(self.server_log)}")
            time.sleep(0.02)
        else:
            raise BenchError("sync-server did not print 'listening on' in time")
        if not provision:
            self.token = token
            return
        body = json.dumps({"credential": cred}).encode()
        req = urllib.request.Request(self.url + "/v1/auth/token", data=body,
                                     headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            self.token = json.load(r)["access_token"]

    def _run(self, argv):
        p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raise BenchError(f"{' '.join(argv)} failed ({p.returncode}): {p.stderr.strip()}")
        return p.stdout

    def changes(self, since, wait=0, limit=10_000, timeout=None):
        q = f"/v1/folders/{FOLDER}/changes?since={since}&limit={limit}"
        if wait:
            q += f"&wait={wait}"
        req = urllib.request.Request(self.url + q, headers={"Authorization": f"Bearer {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout or (wait + 30)) as r:
            return json.load(r)

    # -- daemon ------------------------------------------------------------

    def write_daemon_config(self):
        level = os.environ.get("BENCH_LOG_LEVEL", "info")  # "debug" to see each batch in the log
        with open(self.daemon_conf, "w") as f:
            f.write(f'[daemon]\nstate_dir = "{self.state_dir}"\ncontrol_socket = "{self.sock}"\n'
                    f'log_level = "{level}"\n'
                    f'[server]\nurl = "{self.url}"\ncredential_file = "{self.cred_file}"\n'
                    f'[[folder]]\nid = "{FOLDER}"\npath = "{self.folder}"\n')

    def start_daemon(self):
        if not os.path.exists(self.daemon_conf):
            self.write_daemon_config()
        err = open(self.daemon_log, "a")
        err.write(f"---- bench: starting syncd at {time.strftime('%H:%M:%S')}\n")
        err.flush()
        t0 = now()
        self.daemon = subprocess.Popen([os.path.join(self.bin, "syncd"), "--config", self.daemon_conf],
                                       stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
        err.close()
        return t0

    def stop_daemon(self):
        if self.daemon and self.daemon.poll() is None:
            self.daemon.send_signal(signal.SIGTERM)
            try:
                self.daemon.wait(15)
            except subprocess.TimeoutExpired:
                log("syncd did not stop on SIGTERM within 15 s; killing it")
                self.daemon.kill()
                self.daemon.wait()
        self.daemon = None

    def status(self):
        """The control socket's /v1/status (the syncctl status --json object), or None."""
        try:
            c = UnixHTTPConnection(self.sock, timeout=5)
            c.request("GET", "/v1/status")
            r = c.getresponse()
            data = r.read()
            c.close()
            if r.status != 200:
                return None
            return json.loads(data)
        except (OSError, http.client.HTTPException, ValueError):
            return None

    def syncctl_status(self):
        """`syncctl --socket S status --json` (the documented form); builds whose
        syncctl only takes the option after the subcommand get `status --socket S`."""
        exe = os.path.join(self.bin, "syncctl")
        p = subprocess.run([exe, "--socket", self.sock, "status", "--json"],
                           capture_output=True, text=True, timeout=30)
        if p.returncode == 64:  # usage error
            if not getattr(self, "_warned_syncctl", False):
                self._warned_syncctl = True
                log(f"syncctl --socket S status: {p.stderr.strip().splitlines()[0]}; using `syncctl status --socket S`")
            p = subprocess.run([exe, "status", "--socket", self.sock, "--json"],
                               capture_output=True, text=True, timeout=30)
        if p.returncode != 0:
            log(f"syncctl status exited {p.returncode}: {p.stderr.strip()[:300]}")
            return None
        try:
            return json.loads(p.stdout)
        except ValueError:
            return None

    def folder_status(self, via_syncctl=False):
        s = self.syncctl_status() if via_syncctl else self.status()
        if not s:
            return None
        for f in s.get("folders", []):
            if f.get("id") == FOLDER:
                return f
        return None

    def wait_idle(self, timeout, interval=0.005, via_syncctl=False):
        """Until the folder is idle with nothing pending; returns the monotonic time seen."""
        deadline = now() + timeout
        while now() < deadline:
            f = self.folder_status(via_syncctl)
            if f and f.get("state") == "idle" and f.get("pending_uploads") == 0 \
                    and f.get("pending_downloads", 0) == 0:
                return now()
            if self.daemon and self.daemon.poll() is not None:
                raise BenchError(f"syncd exited with {self.daemon.returncode}")
            time.sleep(interval)
        raise BenchError(f"syncd not idle after {timeout} s; last status: {json.dumps(self.folder_status())}")

    def stop(self):
        for p in (self.daemon, self.server):
            if p and p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in (self.daemon, self.server):
            if p:
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.daemon = self.server = None

    def remove(self):
        for d in (self.root, self.server_root):
            if d:
                shutil.rmtree(d, ignore_errors=True)

    def close(self, keep=False):
        self.stop()
        if keep:
            log(f"kept {self.root}" + (f" and {self.server_root}" if self.server_root else ""))
        else:
            self.remove()


class Feed:
    """The server's view of the folder, followed with the cursor."""

    def __init__(self, env):
        self.env = env
        self.cursor = 0
        self.entries = {}
        self.live_files = 0
        self.timeline = []  # (monotonic time, live files) whenever the count changed

    def poll(self):
        while True:
            page = self.env.changes(self.cursor)
            self._apply(page)
            if not page.get("has_more"):
                return

    def _apply(self, page):
        for e in page["entries"]:
            old = self.entries.get(e["path"])
            if old and old["kind"] == "file" and not old["deleted"]:
                self.live_files -= 1
            if e["kind"] == "file" and not e["deleted"]:
                self.live_files += 1
            self.entries[e["path"]] = e
        self.cursor = page["cursor"]
        if not self.timeline or self.timeline[-1][1] != self.live_files:
            self.timeline.append((now(), self.live_files))

    def steps(self, t0):
        """'t:count' steps relative to t0, for the log."""
        return " ".join(f"{t - t0:.2f}s:{n}" for t, n in self.timeline if n)

    def wait(self, done, timeout, what):
        deadline = now() + timeout
        while True:
            self.poll()
            if done(self):
                return now()
            if now() > deadline:
                raise BenchError(f"timed out after {timeout} s waiting for {what} "
                                 f"(feed: {self.live_files} live files, cursor {self.cursor})")
            time.sleep(POLL)


def tail(path, lines=40):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as e:
        return f"(no log: {e})"


def log_took(path, marker, nth=-1):
    """Seconds from the nth `<marker> ... took=X seconds` line of a syncd log (default: the last)."""
    found = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if marker in line and "took=" in line:
                    # took="0.05 seconds": the log quotes a value with a space
                    v = line.split("took=", 1)[1].lstrip('"').replace('"', " ").split()
                    try:
                        found.append(float(v[0]) * {"seconds": 1, "milliseconds": 1e-3}.get(v[1] if len(v) > 1 else "seconds", 1))
                    except (ValueError, IndexError):
                        pass
    except OSError:
        pass
    try:
        return found[nth]
    except IndexError:
        return None


def store_usage(data_dir):
    """(apparent bytes, allocated bytes, chunks) of the server's chunk store: pack files under
    data_dir/packs and their chunk index rows (decision 0011), plus chunk files of the layout
    before packs under data_dir/chunks (tmp excluded), so both layouts can be measured."""
    apparent = allocated = files = 0
    packs = os.path.join(data_dir, "packs")
    if os.path.isdir(packs):
        for n in os.listdir(packs):
            st = os.lstat(os.path.join(packs, n))
            apparent += st.st_size
            allocated += st.st_blocks * 512
        db = sqlite3.connect(f"file:{os.path.join(data_dir, 'metadata.sqlite')}?mode=ro", uri=True)
        try:
            files += db.execute("SELECT count(*) FROM chunk_index").fetchone()[0]
        finally:
            db.close()
    top = os.path.join(data_dir, "chunks")
    for dirpath, dirnames, filenames in os.walk(top):
        if dirpath == top and "tmp" in dirnames:
            dirnames.remove("tmp")
        for n in filenames:
            st = os.lstat(os.path.join(dirpath, n))
            apparent += st.st_size
            allocated += st.st_blocks * 512
            files += 1
    return apparent, allocated, files


def cpu_idle_fraction(seconds=1.0):
    """Share of all CPUs idle over `seconds` (from /proc/stat)."""
    def snap():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]  # idle + iowait
    t0, i0 = snap()
    time.sleep(seconds)
    t1, i1 = snap()
    return (i1 - i0) / max(1, t1 - t0)


def proc_times(p):
    """(user, system) CPU seconds of a process, all threads; zeros if it is gone."""
    try:
        with open(f"/proc/{p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        hz = os.sysconf("SC_CLK_TCK")
        return int(fields[11]) / hz, int(fields[12]) / hz
    except (OSError, AttributeError):
        return 0.0, 0.0


def disk_sectors_written():
    """Sectors written to whole disks (vd*, sd*, xvd*, nvme*n*) since boot."""
    total = 0
    try:
        with open("/proc/diskstats") as f:
            for line in f:
                v = line.split()
                name = v[2]
                whole = (name[:2] in ("vd", "sd", "xv") and name[-1].isalpha()) or \
                        (name.startswith("nvme") and "p" not in name[4:])
                if whole:
                    total += int(v[9])
    except OSError:
        pass
    return total


class Meter:
    """What happened during a measured interval: CPU of syncd and sync-server (user/sys),
    bytes written to disk by everyone, and the CPU used by processes other than ours
    (syncd, sync-server, this script and its children) as a share of all CPUs."""

    def __init__(self, env, also=()):
        self.env = env
        self.also = list(also)  # other processes of ours (a second device's syncd), not foreign
        self.t0 = self._snap()

    def _snap(self):
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        total, idle = sum(v[:8]), v[3] + v[4]
        hz = os.sysconf("SC_CLK_TCK")
        t = os.times()
        d, sv = proc_times(self.env.daemon), proc_times(self.env.server)
        also = sum(sum(proc_times(p)) for p in self.also)
        ours = (t.user + t.system + t.children_user + t.children_system + sum(d) + sum(sv) + also) * hz
        return dict(total=total, idle=idle, ours=ours, d=d, sv=sv, disk=disk_sectors_written())

    def stop(self):
        t1 = self._snap()
        total = t1["total"] - self.t0["total"]
        busy = total - (t1["idle"] - self.t0["idle"])
        self.foreign = max(0.0, (busy - (t1["ours"] - self.t0["ours"])) / max(1, total))
        du, ds = (t1["d"][i] - self.t0["d"][i] for i in (0, 1))
        su, ss = (t1["sv"][i] - self.t0["sv"][i] for i in (0, 1))
        self.disk_mib = (t1["disk"] - self.t0["disk"]) * 512 / (1 << 20)
        self.cpu = f"{du:.1f}u+{ds:.1f}s / {su:.1f}u+{ss:.1f}s"
        self.cpu_total = du + ds + su + ss
        return self


def check_foreign(ctx, mon, what):
    """Stops the meter; flags the sample if other processes used > 10 % of the machine."""
    mon.stop()
    f = mon.foreign
    ctx.busy.append(f)
    if f > 0.10:
        ctx.note(f"{what}: other processes used {100 * f:.0f} % of the machine during the measurement; "
                 "this sample is inflated (rerun it on a quiet machine)")
    return mon


def wait_quiet(ctx, what):
    """Before a measured run: flush what setup wrote (so a commit's syncfs does not pay for
    it), then wait (up to --wait-quiet s) until the machine has been >= 90 % idle for 5 s,
    so other work (builds, tests) does not end up in the figures."""
    os.sync()
    if ctx.args.wait_quiet <= 0:
        return
    deadline = now() + ctx.args.wait_quiet
    idle = cpu_idle_fraction(5)
    waited = False
    while idle < 0.9 and now() < deadline:
        if not waited:
            log(f"{what}: machine busy ({100 * (1 - idle):.0f} % CPU used by others); waiting for quiet")
            waited = True
        idle = cpu_idle_fraction(5)
    if idle < 0.9:
        ctx.note(f"{what}: started on a busy machine ({100 * (1 - idle):.0f} % CPU in use just before)")


def fs_info(path):
    """'ext4 (no journal) on /dev/vda' for the mount holding path."""
    path = os.path.realpath(path)
    best = ("", "?", "?", "")
    with open("/proc/mounts") as f:
        for line in f:
            dev, mnt, fstype, opts = line.split()[:4]
            if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best[0]):
                best = (mnt, dev, fstype, opts)
    mnt, dev, fstype, _ = best
    extra = ""
    if fstype == "ext4":
        try:
            with open(f"/sys/fs/ext4/{os.path.basename(dev)}/journal_task") as f:
                if f.read().strip() == "<none>":
                    extra = " (no journal)"
        except OSError:
            pass
    return f"{fstype}{extra} on {dev}"


def small_payloads():
    rnd = random.Random(1)
    return [rnd.randbytes(SMALL_SIZE) for _ in range(SMALL_COUNT)]


def write_small_files(folder, payloads):
    per_dir = SMALL_COUNT // SMALL_DIRS
    i = 0
    for d in range(SMALL_DIRS):
        dpath = os.path.join(folder, f"d{d:03}")
        os.mkdir(dpath)
        for k in range(per_dir):
            with open(os.path.join(dpath, f"f{k:04}.bin"), "wb") as f:
                f.write(payloads[i])
            i += 1


def all_small(feed):
    return feed.live_files >= SMALL_COUNT


# --------------------------------------------------------------------------- scenarios


class Ctx:
    def __init__(self, args):
        self.args = args
        self.envs = []
        self.finished = []  # stopped envs, removed at the very end (see cleanup)
        self.trash = []  # other temp dirs, likewise
        self.results = []   # (scenario, metric, unit, [samples], target, peer)
        self.failures = []  # (scenario, message, log tail)
        self.notes = []
        self.busy = []

    def env(self, name):
        e = Env(self.args.bin, name, self.args.tmp, self.args.server_data)
        self.envs.append(e)
        return e

    def done(self, env):
        """Stops the processes now; the files go at the end. This disk's ext4 has no
        journal, and there a freshly deleted inode is skipped by the allocator for
        60-360 s (fs/ext4/ialloc.c, recently_deleted), which makes file creation
        right after a big rm -r several times slower: removing run N's 30,000 inodes
        would slow down run N+1."""
        env.stop()
        if env in self.envs:
            self.envs.remove(env)
        self.finished.append(env)

    def cleanup(self):
        for env in list(self.envs):
            self.done(env)
        for env in self.finished:
            if self.args.keep:
                log(f"kept {env.root}" + (f" and {env.server_root}" if env.server_root else ""))
            else:
                env.remove()
        self.finished = []
        for d in self.trash:
            shutil.rmtree(d, ignore_errors=True)
        self.trash = []

    def add(self, scenario, metric, unit, samples, target="", peer=""):
        self.results.append((scenario, metric, unit, samples, target, peer))

    def note(self, text):
        log(text)
        self.notes.append(text)


def bench_baseline(ctx):
    """What this disk and page cache cost without syncd: the floor under the other figures."""
    d = tempfile.mkdtemp(prefix="syncd-bench-baseline-", dir=ctx.args.tmp)
    ctx.trash.append(d)
    try:
        payloads = small_payloads()
        create, create_sync, big_write, big_sync = [], [], [], []
        block = random.Random(4).randbytes(16 << 20)
        for run in range(ctx.args.runs):
            wait_quiet(ctx, f"baseline run {run + 1}")
            folder = os.path.join(d, f"small{run}")
            os.mkdir(folder)
            t0 = now()
            write_small_files(folder, payloads)
            t1 = now()
            os.sync()
            t2 = now()
            create.append(t1 - t0)
            create_sync.append(t2 - t0)
            path = os.path.join(d, f"big{run}")
            t0 = now()
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                for _ in range(BIG_SIZE // len(block)):
                    os.write(fd, block)
                t1 = now()
                os.fsync(fd)
                t2 = now()
            finally:
                os.close(fd)
            big_write.append(t1 - t0)
            big_sync.append(t2 - t0)
            os.unlink(path)  # one inode; its blocks are worth freeing now
            log(f"baseline run {run + 1}: 10k files {create[-1]:.2f} s (+sync {create_sync[-1]:.2f} s), "
                f"1 GiB write {big_write[-1]:.2f} s (+fsync {big_sync[-1]:.2f} s)")
        ctx.add("baseline", "no syncd: create 10k x 4 KiB files in 100 dirs (Python)", "s", create)
        ctx.add("baseline", "no syncd: the same, then sync(2) until on disk", "s", create_sync)
        ctx.add("baseline", "no syncd: write 1 GiB (buffered, Python)", "s", big_write)
        ctx.add("baseline", "no syncd: the same, then fsync until on disk", "s", big_sync)
    except Exception:
        ctx.failures.append(("baseline", traceback.format_exc(), ""))


def bench_small_files(ctx):
    rsync = RsyncPeer(ctx.args.tmp)
    try:
        _bench_small_files(ctx, rsync)
    finally:
        rsync.close()
        ctx.trash.append(rsync.root)


def _bench_small_files(ctx, rsync):
    payloads = small_payloads()
    live, written, scan, scan_idle, live_cpu, scan_cpu, scan_first = [], [], [], [], [], [], []
    live_disk, scan_disk, peer, live_rss, scan_rss = [], [], [], [], []
    scan_cpu_total, peer_cpu = [], []
    for run in range(ctx.args.runs):
        # (a) written while the daemon runs
        env = ctx.env("small-live")
        try:
            env.start_server()
            env.start_daemon()
            env.wait_idle(60)
            feed = Feed(env)
            feed.poll()
            wait_quiet(ctx, f"small-files live run {run + 1}")
            mon = Meter(env)
            box = {}

            def follow():  # polls the feed while the files are being written
                try:
                    box["t1"] = feed.wait(all_small, ctx.args.timeout, "10,000 files (written live)")
                except Exception as e:  # noqa: BLE001 - re-raised below
                    box["error"] = e
            follower = threading.Thread(target=follow, daemon=True)
            t0 = now()
            follower.start()
            write_small_files(env.folder, payloads)
            tw = now()
            follower.join(ctx.args.timeout + 30)
            if "error" in box:
                raise box["error"]
            if "t1" not in box:
                raise BenchError("feed follower did not finish")
            t1 = box["t1"]
            live.append(t1 - t0)
            written.append(tw - t0)
            check_foreign(ctx, mon, f"small-files live run {run + 1}")
            live_cpu.append(mon.cpu)
            live_disk.append(mon.disk_mib)
            log(f"small-files live run {run + 1}: wrote in {tw - t0:.2f} s, all committed after {t1 - t0:.2f} s; "
                f"feed steps {feed.steps(t0)}")
            env.wait_idle(60)
            live_rss.append(peak_rss(env.daemon, env.server))
        except Exception:
            ctx.failures.append(("small-files (live)", traceback.format_exc(), tail(env.daemon_log)))
            return
        finally:
            ctx.done(env)
        # (b) present before the daemon starts: initial scan
        env = ctx.env("small-scan")
        try:
            env.start_server()
            write_small_files(env.folder, payloads)
            feed = Feed(env)
            feed.poll()
            wait_quiet(ctx, f"small-files scan run {run + 1}")
            mon = Meter(env)
            t0 = env.start_daemon()
            t1 = feed.wait(all_small, ctx.args.timeout, "10,000 files (initial scan)")
            check_foreign(ctx, mon, f"small-files scan run {run + 1}")
            scan_cpu.append(mon.cpu)
            scan_cpu_total.append(mon.cpu_total)
            scan_disk.append(mon.disk_mib)
            t2 = env.wait_idle(60)
            scan_rss.append(peak_rss(env.daemon, env.server))
            scan.append(t1 - t0)
            scan_idle.append(t2 - t0)
            first = next(t for t, n in feed.timeline if n)
            scan_first.append(first - t0)
            wait_quiet(ctx, f"small-files rsync run {run + 1}")
            peer.append(rsync.push(env.folder))
            peer_cpu.append(rsync.last_cpu)
            log(f"small-files scan run {run + 1}: all committed {t1 - t0:.2f} s after daemon start, idle at {t2 - t0:.2f} s; "
                f"feed steps {feed.steps(t0)}; rsync of the same folder {peer[-1]:.2f} s; "
                f"CPU ours {scan_cpu_total[-1]:.2f} s, rsync {peer_cpu[-1]:.2f} s")
        except Exception:
            ctx.failures.append(("small-files (scan)", traceback.format_exc(), tail(env.daemon_log)))
            return
        finally:
            ctx.done(env)
    ctx.add("small-files", "10k x 4 KiB written while syncd runs: first write -> all in server feed", "s",
            live, "<= 0.6 s", "rsync 1.23 s, lsyncd 1.67 s, unison 2.78 s, Syncthing 9.6 s")
    ctx.add("small-files", "(of which: writing the 10k files, Python)", "s", written)
    ctx.add("small-files", "(CPU seconds meanwhile, user+sys: syncd / sync-server)", "", live_cpu)
    ctx.add("small-files", "(written to disk meanwhile, by everyone)", "MiB", live_disk)
    ctx.add("small-files", "(peak RSS, VmHWM: syncd / sync-server)", "MiB", live_rss, RSS_TARGET)
    ctx.add("small-files", "10k x 4 KiB present at start: syncd start -> all in server feed", "s", scan,
            "<= 0.6 s", "(same peer row)")
    ctx.add("small-files", "(of which: syncd start -> first file in the feed)", "s", scan_first)
    ctx.add("small-files", "10k x 4 KiB present at start: syncd start -> status idle", "s", scan_idle)
    ctx.add("small-files", "(CPU seconds meanwhile, user+sys: syncd / sync-server)", "", scan_cpu)
    ctx.add("small-files", "(written to disk meanwhile, by everyone)", "MiB", scan_disk)
    ctx.add("small-files", "(peak RSS, VmHWM: syncd / sync-server)", "MiB", scan_rss, RSS_TARGET)
    ctx.add("small-files", "rsync -a of the same folder to an empty rsync daemon module, same run", "s", peer)
    ctx.add("small-files", "ratio ours (written live -> in feed) / rsync", "", [a / p for a, p in zip(live, peer)], "<= 0.5")
    ctx.add("small-files", "ratio ours (present at start -> in feed) / rsync", "", [a / p for a, p in zip(scan, peer)], "<= 0.5")
    ctx.add("small-files", "CPU seconds, user+sys: rsync client and daemon, same run", "s", peer_cpu)
    ctx.add("small-files", "CPU ratio ours (present at start -> in feed: syncd + sync-server) / rsync", "",
            [a / p for a, p in zip(scan_cpu_total, peer_cpu) if p > 0], "<= 2")


class RsyncPeer:
    """rsync -a to an rsync daemon on 127.0.0.1 (the peer in the same run): a fresh
    empty module for every push, so each run sends everything."""

    last_cpu = 0.0  # CPU seconds of the last push, client and daemon (user + system)

    def __init__(self, tmp):
        self.root = tempfile.mkdtemp(prefix="syncd-bench-rsync-", dir=tmp)
        self.port = free_port()
        self.conf = os.path.join(self.root, "rsyncd.conf")
        self.runs = 0
        with open(self.conf, "w") as f:
            f.write(f"pid file = {self.root}/rsyncd.pid\nuse chroot = no\nuid = {os.getuid()}\ngid = {os.getgid()}\n"
                    f"[dst]\npath = {self.root}/dst\nread only = no\n")
        os.mkdir(os.path.join(self.root, "dst"))
        subprocess.run(["rsync", "--daemon", f"--config={self.conf}", f"--port={self.port}",
                        "--address=127.0.0.1"], check=True)
        deadline = now() + 10
        while now() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.02)
        raise BenchError("rsync daemon did not start listening")

    def push(self, src, extra=(), again=False):
        """Seconds for `rsync -a src/ rsync://…/dst/runN/` (a new, empty target; with
        `again`, the previous run's target: rsync's delta transfer)."""
        if not again:
            self.runs += 1
        daemon = self.daemon_pid()
        c0, d0 = os.times(), pid_times(daemon, children=True)
        t0 = now()
        subprocess.run(["rsync", "-a", *extra, src.rstrip("/") + "/",
                        f"rsync://127.0.0.1:{self.port}/dst/run{self.runs}/"], check=True)
        took = now() - t0
        # The daemon forks a child per connection; its CPU counts once the daemon has reaped it.
        deadline = now() + 10
        while children_of(daemon) and now() < deadline:
            time.sleep(0.01)
        c1, d1 = os.times(), pid_times(daemon, children=True)
        self.last_cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system) \
            + sum(d1) - sum(d0)
        return took

    def daemon_pid(self):
        with open(os.path.join(self.root, "rsyncd.pid")) as f:
            return int(f.read().strip())

    def close(self):
        try:
            with open(os.path.join(self.root, "rsyncd.pid")) as f:
                os.kill(int(f.read().strip()), signal.SIGTERM)
        except (OSError, ValueError):
            pass


def second_device(ctx, env, name):
    """Another device (own folder, state, credential and syncd) on env's server."""
    b = ctx.env(name)
    b.url = env.url
    sv = os.path.join(env.bin, "sync-server")
    cred = env._run([sv, "device", "add", "--name", name, "--folder", FOLDER,
                     "--config", env.server_conf]).strip().splitlines()[-1].strip()
    fd = os.open(b.cred_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(cred + "\n")
    return b


def count_files(folder):
    return sum(len([n for n in files if not n.startswith(".")]) for _, _, files in os.walk(folder))


def wait_received(device, count, deadline, failure):
    """Until `device` is idle with nothing pending and `count` files in its folder; `failure`
    (with `{count}` for the files it has) if `deadline` passes or its syncd exits."""
    while True:
        f = device.folder_status()
        if f and f.get("state") == "idle" and f.get("pending_uploads") == 0 \
                and f.get("pending_downloads", 0) == 0 and count_files(device.folder) >= count:
            return
        if now() > deadline:
            raise BenchError(failure.format(count=count_files(device.folder)))
        if device.daemon is not None and device.daemon.poll() is not None:
            raise BenchError(f"{failure.format(count=count_files(device.folder))}: its syncd exited with {device.daemon.returncode}")
        time.sleep(0.02)


def bench_receive_small(ctx):
    """Device A has 10k x 4 KiB committed; device B starts on an empty folder:
    B's start -> all 10k files present (fsynced, recorded) and B idle. rsync pushes
    the same folder to an empty module in the same run (plain, and with --fsync)."""
    payloads = small_payloads()
    ours, ours_cpu, peer, peer_fsync, rss = [], [], [], [], []
    ours_cpu_total, peer_cpu = [], []
    rsync = RsyncPeer(ctx.args.tmp)
    try:
        for run in range(ctx.args.runs):
            env, b = ctx.env("recv-a"), None
            try:
                env.start_server()
                write_small_files(env.folder, payloads)
                env.start_daemon()
                feed = Feed(env)
                feed.wait(all_small, ctx.args.timeout, "10,000 files on the server")
                env.wait_idle(60)
                b = second_device(ctx, env, "recv-b")
                wait_quiet(ctx, f"receive-small run {run + 1}")
                b.server = env.server  # (for Meter only: B has no server of its own)
                mon = Meter(b)
                t0 = b.start_daemon()
                wait_received(b, SMALL_COUNT, t0 + ctx.args.timeout, f"device B has {{count}} files after {ctx.args.timeout} s")
                t1 = now()
                rss.append(peak_rss(b.daemon, env.server))
                check_foreign(ctx, mon, f"receive-small run {run + 1}")
                b.server = None
                ours.append(t1 - t0)
                ours_cpu.append(mon.cpu)
                ours_cpu_total.append(mon.cpu_total)
                wait_quiet(ctx, f"receive-small rsync run {run + 1}")
                peer.append(rsync.push(env.folder))
                peer_cpu.append(rsync.last_cpu)
                peer_fsync.append(rsync.push(env.folder, ["--fsync"]))
                log(f"receive-small run {run + 1}: device B had all 10k files and was idle {t1 - t0:.2f} s after its start; "
                    f"rsync {peer[-1]:.2f} s, rsync --fsync {peer_fsync[-1]:.2f} s; "
                    f"CPU ours {ours_cpu_total[-1]:.2f} s, rsync {peer_cpu[-1]:.2f} s")
            except Exception:
                ctx.failures.append(("receive-small", traceback.format_exc(), tail(b.daemon_log) if b else ""))
                return
            finally:
                if b:
                    b.server = None
                    ctx.done(b)
                ctx.done(env)
    finally:
        rsync.close()
        ctx.trash.append(rsync.root)
    ctx.add("receive-small", "10k x 4 KiB on the server: second device's syncd start -> all present, idle", "s",
            ours, "<= 1.2x rsync", "rsync 3.4 s, Syncthing 12.1 s (issue 9)")
    ctx.add("receive-small", "(CPU seconds meanwhile, user+sys: syncd / sync-server)", "", ours_cpu)
    ctx.add("receive-small", "(peak RSS, VmHWM: syncd B / sync-server)", "MiB", rss, RSS_TARGET)
    ctx.add("receive-small", "rsync -a of the same folder to an empty rsync daemon module, same run", "s", peer)
    ctx.add("receive-small", "rsync -a --fsync, same run", "s", peer_fsync)
    ratio = [a / p for a, p in zip(ours, peer)]
    ctx.add("receive-small", "ratio ours / rsync (same run)", "", ratio, "<= 1.2")
    ctx.add("receive-small", "CPU seconds, user+sys: rsync client and daemon, same run", "s", peer_cpu)
    ctx.add("receive-small", "CPU ratio ours (syncd B + sync-server) / rsync", "",
            [a / p for a, p in zip(ours_cpu_total, peer_cpu) if p > 0], "<= 2")


def make_big_source(path):
    """1 GiB of non-repeating pseudo-random bytes (so nothing deduplicates)."""
    rnd = random.Random(2)
    block = 16 << 20
    with open(path, "wb") as f:
        for _ in range(BIG_SIZE // block):
            f.write(rnd.randbytes(block))


def copy_into(src, dst):
    block = 8 << 20
    with open(src, "rb") as i, open(dst, "wb") as o:
        while True:
            b = i.read(block)
            if not b:
                break
            o.write(b)


def has_big_file(dev, mtime_ns):
    """Whether `dev` has big.bin whole, with the given mtime, and says it is idle."""
    try:
        st = os.stat(os.path.join(dev.folder, "big.bin"))
    except FileNotFoundError:
        return False
    f = dev.folder_status()
    return st.st_size == BIG_SIZE and st.st_mtime_ns == mtime_ns and f and f.get("state") == "idle"


def wait_until(cond, timeout, what):
    """Polls `cond` every 20 ms; the monotonic time it first held."""
    deadline = now() + timeout
    while not cond():
        if now() > deadline:
            raise BenchError(f"{what}: not within {timeout} s")
        time.sleep(0.02)
    return now()


def bench_receive_big(ctx):
    """Device A has one 1 GiB file committed; device B starts on an empty folder: B's
    start -> the file present and B idle. Then 1 MiB is rewritten in the middle on A:
    the write -> B has the new version (same mtime as A's, B idle). rsync pushes the same
    file to an empty module, then the edited file onto that copy (its delta transfer)."""
    src_dir = tempfile.mkdtemp(prefix="syncd-bench-bigsrc-", dir=ctx.args.tmp)
    ctx.trash.append(src_dir)
    src = os.path.join(src_dir, "big.src")
    make_big_source(src)
    first, edit, peer_first, peer_edit, rss = [], [], [], [], []
    rsync = RsyncPeer(ctx.args.tmp)
    rnd = random.Random(5)
    try:
        for run in range(ctx.args.runs):
            env, b = ctx.env("recvbig-a"), None
            try:
                env.start_server()
                a_path = os.path.join(env.folder, "big.bin")
                copy_into(src, a_path)
                env.start_daemon()
                feed = Feed(env)
                feed.wait(lambda fd: "big.bin" in fd.entries, ctx.args.timeout, "the 1 GiB file on the server")
                env.wait_idle(120)
                b = second_device(ctx, env, "recvbig-b")
                wait_quiet(ctx, f"receive-big run {run + 1}")

                def wait_b(mtime_ns, what):
                    return wait_until(lambda: has_big_file(b, mtime_ns), ctx.args.timeout, f"device B getting {what}")

                t0 = b.start_daemon()
                first.append(wait_b(os.stat(a_path).st_mtime_ns, "the 1 GiB file") - t0)
                peer_first.append(rsync.push(env.folder))
                wait_quiet(ctx, f"receive-big edit run {run + 1}")
                t0 = now()
                fd = os.open(a_path, os.O_WRONLY)
                try:
                    os.pwrite(fd, rnd.randbytes(EDIT_SIZE), BIG_SIZE // 2)
                finally:
                    os.close(fd)
                edit.append(wait_b(os.stat(a_path).st_mtime_ns, "the edited file") - t0)
                rss.append(peak_rss(env.daemon, b.daemon, env.server))
                peer_edit.append(rsync.push(env.folder, again=True))
                log(f"receive-big run {run + 1}: B had the 1 GiB file {first[-1]:.2f} s after its start "
                    f"(rsync {peer_first[-1]:.2f} s); the 1 MiB edit {edit[-1]:.2f} s after the write "
                    f"(rsync delta {peer_edit[-1]:.2f} s)")
            except Exception:
                ctx.failures.append(("receive-big", traceback.format_exc(), tail(b.daemon_log) if b else ""))
                return
            finally:
                if b:
                    ctx.done(b)
                ctx.done(env)
    finally:
        rsync.close()
        ctx.trash.append(rsync.root)
    ctx.add("receive-big", "1 GiB on the server: second device's syncd start -> present, idle", "s", first,
            "<= 1.5x rsync")
    ctx.add("receive-big", "rsync -a of the same file to an empty module, same run", "s", peer_first)
    ctx.add("receive-big", "ratio ours / rsync", "", [a / p for a, p in zip(first, peer_first)], "<= 1.5")
    ctx.add("receive-big", "1 MiB rewritten in the middle on A -> B has it, idle", "s", edit, "<= 1.0x rsync")
    ctx.add("receive-big", "rsync -a of the edited file onto the previous copy, same run", "s", peer_edit)
    ctx.add("receive-big", "ratio ours / rsync (edit)", "", [a / p for a, p in zip(edit, peer_edit)], "<= 1.0")
    ctx.add("receive-big", "(peak RSS, VmHWM: syncd A / syncd B / sync-server)", "MiB", rss, RSS_TARGET)


def bench_receive_restart(ctx, hard=False):
    """Device A has one 1 GiB file committed; device B starts on an empty folder and is
    stopped (SIGTERM) once its status shows half of the file written; B's restart -> the file
    present and B idle. Beside it, device C's whole receive of the same file (start -> present,
    idle), in the same run: the ratio says what the restart saved (decision 0036). `hard`
    (receive-kill): B is killed with SIGKILL instead, and goes on from its last checkpoint
    (decision 0037)."""
    name = "receive-kill" if hard else "receive-restart"
    src_dir = tempfile.mkdtemp(prefix="syncd-bench-bigsrc-", dir=ctx.args.tmp)
    ctx.trash.append(src_dir)
    src = os.path.join(src_dir, "big.src")
    make_big_source(src)
    resumed, whole, kept, fetched = [], [], [], []
    for run in range(ctx.args.runs):
        env, b, c = ctx.env("recvrestart-a"), None, None
        try:
            env.start_server()
            a_path = os.path.join(env.folder, "big.bin")
            copy_into(src, a_path)
            env.start_daemon()
            Feed(env).wait(lambda fd: "big.bin" in fd.entries, ctx.args.timeout, "the 1 GiB file on the server")
            env.wait_idle(120)
            mtime_ns = os.stat(a_path).st_mtime_ns

            def half_written():
                f = b.folder_status() or {}
                return any(t.get("path") == "big.bin" and t.get("bytes_done", 0) >= BIG_SIZE // 2
                           for t in f.get("transferring", []))

            b = second_device(ctx, env, "recvrestart-b")
            wait_quiet(ctx, f"{name} run {run + 1}")
            b.start_daemon()
            wait_until(half_written, ctx.args.timeout, "device B writing half of the file")
            if hard:
                b.daemon.kill()
                b.daemon.wait()
                b.daemon = None
            else:
                b.stop_daemon()
            t0 = b.start_daemon()
            resumed.append(wait_until(lambda: has_big_file(b, mtime_ns), ctx.args.timeout,
                                      "device B having the file after its restart") - t0)
            with open(b.daemon_log) as f:
                lines = [l for l in f if "download resumed where" in l and "path=big.bin" in l]
            if lines:
                kept.append(int(re.search(r"kept_bytes=(\d+)", lines[-1]).group(1)) / (1 << 20))
                fetched.append(int(re.search(r"fetched_bytes=(\d+)", lines[-1]).group(1)) / (1 << 20))
            else:
                kept.append(0.0)
                fetched.append(BIG_SIZE / (1 << 20))
            b.stop_daemon()
            c = second_device(ctx, env, "recvrestart-c")
            wait_quiet(ctx, f"{name} whole run {run + 1}")
            t0 = c.start_daemon()
            whole.append(wait_until(lambda: has_big_file(c, mtime_ns), ctx.args.timeout, "device C having the file") - t0)
            log(f"{name} run {run + 1}: B had the file {resumed[-1]:.2f} s after its restart "
                f"(kept {kept[-1]:.0f} MiB, fetched {fetched[-1]:.0f} MiB); C's whole receive {whole[-1]:.2f} s")
        except Exception:
            ctx.failures.append((name, traceback.format_exc(), tail(b.daemon_log) if b else ""))
            return
        finally:
            for dev in (c, b):
                if dev:
                    ctx.done(dev)
            ctx.done(env)
    how = "killed (SIGKILL)" if hard else "stopped"
    ctx.add(name, f"1 GiB, B {how} at half: B's restart -> present, idle", "s", resumed)
    ctx.add(name, "(kept from before the stop, B's log)", "MiB", kept)
    ctx.add(name, "(fetched after the restart, B's log)", "MiB", fetched)
    ctx.add(name, "the whole receive on device C (start -> present, idle), same run", "s", whole)
    ctx.add(name, "ratio restart / whole", "", [r / w for r, w in zip(resumed, whole)])


def bench_big_file(ctx):
    """One 1 GiB file written in the folder -> committed, then 1 MiB rewritten in its middle
    -> the new revision committed; rsync pushes the same file to an empty module, then the
    edited file onto that copy (its delta transfer), in the same run."""
    src_dir = tempfile.mkdtemp(prefix="syncd-bench-bigsrc-", dir=ctx.args.tmp)
    rsync = RsyncPeer(ctx.args.tmp)
    peer_first, peer_edit = [], []
    try:
        t = now()
        src = os.path.join(src_dir, "big.src")
        make_big_source(src)
        log(f"big-file: generated 1 GiB source in {now() - t:.1f} s")
        from_write, from_close, write_time, push_chunks, push_cpu, edit_cpu = [], [], [], [], [], []
        push_disk, rss = [], []
        edit_time, edit_apparent, edit_alloc, edit_files, edit_changed = [], [], [], [], []
        rnd = random.Random(3)
        for run in range(ctx.args.runs):
            env = ctx.env("big")
            try:
                env.start_server()
                env.start_daemon()
                env.wait_idle(60)
                feed = Feed(env)
                feed.poll()
                # read the source once so it is in the page cache like the peers' files
                with open(src, "rb") as f:
                    while f.read(64 << 20):
                        pass
                path = os.path.join(env.folder, "big.bin")

                def committed(fd):
                    e = fd.entries.get("big.bin")
                    return e is not None and not e["deleted"] and e["size"] == BIG_SIZE
                wait_quiet(ctx, f"big-file run {run + 1}")
                mon = Meter(env)
                t0 = now()
                copy_into(src, path)
                tc = now()
                t1 = feed.wait(committed, ctx.args.timeout, "the 1 GiB file")
                check_foreign(ctx, mon, f"big-file run {run + 1}")
                push_cpu.append(mon.cpu)
                push_disk.append(mon.disk_mib)
                from_write.append(t1 - t0)
                from_close.append(t1 - tc)
                write_time.append(tc - t0)
                first = feed.entries["big.bin"]
                push_chunks.append(len(first["chunks"]))
                log(f"big-file run {run + 1}: written in {tc - t0:.2f} s, committed {t1 - tc:.2f} s after close "
                    f"({len(first['chunks'])} chunks)")
                env.wait_idle(120)
                wait_quiet(ctx, f"big-file rsync run {run + 1}")
                peer_first.append(rsync.push(env.folder))
                # 1 MiB in the middle
                before = store_usage(env.data_dir)
                payload = rnd.randbytes(EDIT_SIZE)
                wait_quiet(ctx, f"big-file edit run {run + 1}")
                mon = Meter(env)

                def edited(fd):
                    e = fd.entries.get("big.bin")
                    return e is not None and e["rev"] > first["rev"] and e["size"] == BIG_SIZE
                t0 = now()
                fd = os.open(path, os.O_WRONLY)
                try:
                    os.pwrite(fd, payload, BIG_SIZE // 2 - EDIT_SIZE // 2)
                finally:
                    os.close(fd)
                t1 = feed.wait(edited, ctx.args.timeout, "the edited revision")
                check_foreign(ctx, mon, f"big-file edit run {run + 1}")
                edit_cpu.append(mon.cpu)
                env.wait_idle(120)
                rss.append(peak_rss(env.daemon, env.server))
                after = store_usage(env.data_dir)
                second = feed.entries["big.bin"]
                changed = len(set(second["chunks"]) - set(first["chunks"]))
                edit_time.append(t1 - t0)
                edit_apparent.append(after[0] - before[0])
                edit_alloc.append(after[1] - before[1])
                edit_files.append(after[2] - before[2])
                edit_changed.append(changed)
                wait_quiet(ctx, f"big-file rsync edit run {run + 1}")
                peer_edit.append(rsync.push(env.folder, again=True))
                log(f"big-file run {run + 1}: edit committed after {t1 - t0:.2f} s; chunk store +{after[0] - before[0]} B "
                    f"in {after[2] - before[2]} new chunks; {changed} of {len(second['chunks'])} chunk hashes new")
            except Exception:
                ctx.failures.append(("big-file", traceback.format_exc(), tail(env.daemon_log)))
                return
            finally:
                ctx.done(env)
        ctx.add("big-file", "1 GiB written in the folder: first write -> committed", "s", from_write)
        ctx.add("big-file", "1 GiB: close -> committed (the file exists; comparable to peers)", "s", from_close,
                "<= 1.3 s", "rsync 1.60 s, lsyncd 1.97 s, Syncthing 4.8 s, unison 6.4 s")
        ctx.add("big-file", "rsync -a of the same file to an empty module, same run", "s", peer_first)
        ctx.add("big-file", "ratio ours (close -> committed) / rsync", "", [a / p for a, p in zip(from_close, peer_first)],
                "<= 0.8")
        ctx.add("big-file", "(writing 1 GiB into the folder, Python, page cache)", "s", write_time)
        ctx.add("big-file", "(chunks in the 1 GiB file)", "", push_chunks)
        ctx.add("big-file", "(CPU seconds from first write to committed, user+sys: syncd / sync-server)", "", push_cpu)
        ctx.add("big-file", "(written to disk meanwhile, by everyone)", "MiB", push_disk)
        ctx.add("big-file", "1 MiB pwrite in the middle -> new revision committed", "s", edit_time,
                "<= 1.2 s", "rsync 2.55 s, lsyncd 2.66 s, Syncthing 4.7 s, unison 16.4 s")
        ctx.add("big-file", "rsync -a of the edited file onto the previous copy, same run", "s", peer_edit)
        ctx.add("big-file", "ratio ours (edit -> committed) / rsync", "", [a / p for a, p in zip(edit_time, peer_edit)],
                "<= 0.5")
        ctx.add("big-file", "(CPU seconds for the edit, user+sys: syncd / sync-server)", "", edit_cpu)
        ctx.add("big-file", "after the edit: chunk store growth (bytes sent, proxy)", "MiB",
                [b / (1 << 20) for b in edit_apparent], "<= 3 MiB", "rsync 1.1 MiB, Syncthing 2 MiB")
        ctx.add("big-file", "after the edit: new chunks stored / new chunk hashes in the entry", "",
                [f"{a}/{b}" for a, b in zip(edit_files, edit_changed)])
        ctx.add("big-file", "(peak RSS over push and edit, VmHWM: syncd / sync-server)", "MiB", rss, RSS_TARGET)
    finally:
        shutil.rmtree(src_dir, ignore_errors=True)
        rsync.close()
        ctx.trash.append(rsync.root)


def held_long_poll(env, cursor, wait, before):
    """A long-poll for changes after `cursor` (answered within `wait` s) started in a thread
    and held by the server (checked 0.15 s later, `before` what is measured); the thread and
    the box it fills: "page" or "error", and "t" when it was answered."""
    box = {}

    def poll():
        try:
            box["page"] = env.changes(cursor, wait=wait, timeout=wait + 10)
        except Exception as e:  # noqa: BLE001 - reported by the caller
            box["error"] = e
        box["t"] = now()
    th = threading.Thread(target=poll, daemon=True)
    th.start()
    time.sleep(0.15)  # the long-poll is now held by the server
    if "t" in box:
        raise BenchError(f"the long-poll returned before {before}: {box}")
    return th, box


def latency_sample(feed, path, line, writer=None):
    """Appends `line` to `path` (through `writer` when the file is kept open) while a
    long-poll waits on the server; the seconds until that long-poll returned with the
    new revision, or None when it returned without it (woken by something else)."""
    env = feed.env
    name = os.path.relpath(path, env.folder)
    old_rev = feed.entries[name]["rev"]
    th, box = held_long_poll(env, feed.cursor, 10, "the write")
    t0 = now()
    if writer is not None:
        # still open for writing: no IN_CLOSE_WRITE, the settle timer decides
        writer.write(line)
        writer.flush()
    else:
        with open(path, "a") as f:
            f.write(line)
    th.join(15)
    if th.is_alive() or "error" in box:
        raise BenchError(f"long-poll failed: {box.get('error', 'no answer in 15 s')}")
    page = box["page"]
    feed._apply(page)
    if not [e for e in page["entries"] if e["path"] == name and e["rev"] > old_rev]:
        return None
    return box["t"] - t0


def busy_latency_sample(feed, path, line, timeout=30):
    """Appends `line` to `path` while other commits stream into the feed; the seconds
    until the feed (followed with chained long-polls, each answered at the next commit)
    shows the new revision of `path`."""
    env = feed.env
    name = os.path.relpath(path, env.folder)
    feed.poll()
    old_rev = feed.entries[name]["rev"]
    t0 = now()
    with open(path, "a") as f:
        f.write(line)
    while now() - t0 < timeout:
        page = env.changes(feed.cursor, wait=10, timeout=20)
        t = now()
        feed._apply(page)
        if feed.entries[name]["rev"] > old_rev:
            return t - t0
    raise BenchError(f"the edit of {name} was not seen in {timeout} s")


def start_writer(directory, payloads):
    """Writes the payloads into a new `directory` in a thread of its own; returns the thread."""
    os.mkdir(directory)
    writer = threading.Thread(target=write_small_files, args=(directory, payloads), daemon=True)
    writer.start()
    return writer


def bench_latency_bulk(ctx, samples=12):
    """A one-line edit while a bulk push is in flight on the same device (issue 9 point 6):
    a 1 GiB file being uploaded, then 10,000 small files being pushed while they are still
    being written (a copy in progress: the writer runs in a thread beside the samples; on a
    quiet machine syncd keeps up with it, and a push started after the writes ended was over
    before a sample could be taken)."""
    name = "latency-bulk"
    env = ctx.env(name)
    try:
        env.start_server()
        path = os.path.join(env.folder, "log.txt")
        with open(path, "w") as f:
            f.write("first line\n")
        src_dir = tempfile.mkdtemp(prefix="syncd-bench-bigsrc-", dir=ctx.args.tmp)
        ctx.trash.append(src_dir)
        source = os.path.join(src_dir, "big.src")
        make_big_source(source)
        env.start_daemon()
        feed = Feed(env)
        feed.wait(lambda fd: "log.txt" in fd.entries, 60, "log.txt")
        env.wait_idle(60)
        feed.poll()
        wait_quiet(ctx, name)
        payloads = small_payloads()
        for what, start, done in [
            ("1 GiB file being uploaded",
             lambda r: copy_into(source, os.path.join(env.folder, f"big{r}.bin")),
             lambda r: f"big{r}.bin" in feed.entries),
            ("10,000 x 4 KiB being written and pushed",
             lambda r: start_writer(os.path.join(env.folder, f"bulk{r}"), payloads),
             lambda r: sum(1 for p in feed.entries if p.startswith(f"bulk{r}/")) >= len(payloads)),
        ]:
            lat, rounds, i = [], 0, 0
            while len(lat) < samples and rounds < 4:
                rounds += 1
                work = start(rounds)
                # The daemon has picked the bulk work up (it is pending or on its way).
                deadline = now() + 60
                while env.folder_status()["state"] == "idle" and now() < deadline:
                    time.sleep(POLL)
                while len(lat) < samples:
                    i += 1
                    took = busy_latency_sample(feed, path, f"line {i} {time.time()}\n")
                    if done(rounds):
                        break  # the bulk work finished meanwhile: not a sample under load
                    lat.append(took)
                    time.sleep(0.1)
                if isinstance(work, threading.Thread):
                    work.join()
                env.wait_idle(600)
                feed.poll()
            if not lat:
                raise BenchError(f"no sample taken while {what}")
            ctx.add(name, f"append one line while {what} -> revision seen (median of {len(lat)})", "s", lat,
                    "<= 0.05 s p50")
            ctx.add(name, f"same, p90 of {len(lat)}", "s", [percentile(lat, 90)], "<= 0.2 s p99")
            log(f"{name}: {what}: median {statistics.median(lat) * 1000:.1f} ms, "
                f"p90 {percentile(lat, 90) * 1000:.1f} ms, max {max(lat) * 1000:.1f} ms, n={len(lat)}")
    except Exception:
        ctx.failures.append((name, traceback.format_exc(), tail(env.daemon_log)))
    finally:
        ctx.done(env)


def bench_latency(ctx, samples=30, keep_open=False):
    name = "latency-open" if keep_open else "latency"
    env = ctx.env(name)
    writer = None
    try:
        env.start_server()
        path = os.path.join(env.folder, "log.txt")
        with open(path, "w") as f:
            f.write("first line\n")
        env.start_daemon()
        feed = Feed(env)
        feed.wait(lambda fd: "log.txt" in fd.entries, 60, "log.txt")
        env.wait_idle(60)
        feed.poll()
        lat = []
        misses = 0
        wait_quiet(ctx, "latency")
        mon = Meter(env)
        i = 0
        while len(lat) < samples:
            i += 1
            if i > samples * 2:
                raise BenchError(f"only {len(lat)} of {samples} latency samples after {i - 1} tries")
            if keep_open and writer is None:
                writer = open(path, "a")
            took = latency_sample(feed, path, f"line {i} {time.time()}\n", writer)
            if took is None:
                # woken by something else, or the 10 s wait expired: not a sample
                misses += 1
                feed.poll()
                env.wait_idle(30)
                continue
            lat.append(took)
            env.wait_idle(30)
            time.sleep(0.2)
        check_foreign(ctx, mon, name)
        if misses:
            ctx.note(f"{name}: {misses} long-poll answers did not carry the append (not counted)")
        if keep_open:
            ctx.add(name, f"append one line, file kept open -> revision seen by a waiting long-poll (median of {samples})",
                    "s", lat, "<= settle + 0.02 s = 0.12 s (default settle 100 ms)")
        else:
            ctx.add(name, f"append one line -> revision seen by a waiting long-poll (median of {samples})", "s",
                    lat, "<= 0.05 s", "lsyncd 0.10 s, Syncthing 1.02 s")
        ctx.add(name, f"same, p90 of {samples}", "s", [percentile(lat, 90)])
        log(f"{name}: median {statistics.median(lat) * 1000:.1f} ms, p90 {percentile(lat, 90) * 1000:.1f} ms, "
            f"max {max(lat) * 1000:.1f} ms")
    except Exception:
        ctx.failures.append((name, traceback.format_exc(), tail(env.daemon_log)))
    finally:
        if writer is not None:
            writer.close()
        ctx.done(env)


def two_devices_failed(ctx, name, a, b):
    """Records the exception being handled, with the log of the last device started."""
    device = b or a
    ctx.failures.append((name, traceback.format_exc(), tail(device.daemon_log) if device else ""))


def stop_devices(ctx, *envs):
    for env in envs:
        if env is not None:
            ctx.done(env)


def wait_content(path, text, deadline):
    """Until the file at `path` holds `text` (polled every 0.5 ms); False at `deadline`."""
    while time.perf_counter() < deadline:
        try:
            with open(path) as f:
                if f.read() == text:
                    return True
        except OSError:
            pass
        time.sleep(0.0005)
    return False


def bench_latency_device(ctx, samples=20):
    """Device to device: a new small file, and a rewrite of an existing one, written on A ->
    the content present at its path on B (both idle in between)."""
    name = "latency-device"
    a = b = None
    try:
        a = ctx.env("latdev-a")
        a.start_server()
        with open(os.path.join(a.folder, "edit.txt"), "w") as f:
            f.write("v0\n")
        a.start_daemon()
        a.wait_idle(60)
        b = second_device(ctx, a, "latdev-b")
        b.start_daemon()
        if not wait_content(os.path.join(b.folder, "edit.txt"), "v0\n", time.perf_counter() + 60):
            raise BenchError("edit.txt never reached B")
        b.wait_idle(60)
        a.wait_idle(60)
        wait_quiet(ctx, name)
        mon = Meter(a, also=[b.daemon])
        new, edit, misses = [], [], 0
        for i in range(samples):
            for kind, rel, out in (("new", f"n{i}.txt", new), ("edit", "edit.txt", edit)):
                text = f"{kind} {i} {time.time()}\n"
                t0 = time.perf_counter()
                with open(os.path.join(a.folder, rel), "w") as f:
                    f.write(text)
                if wait_content(os.path.join(b.folder, rel), text, t0 + 10):
                    out.append(time.perf_counter() - t0)
                else:
                    misses += 1
                a.wait_idle(30)
                b.wait_idle(30)
                time.sleep(0.2)
        check_foreign(ctx, mon, name)
        if misses:
            ctx.note(f"{name}: {misses} writes did not reach B within 10 s (not counted)")
        ctx.add(name, f"new small file on A -> its content on B (median of {len(new)})", "s", new, "<= 0.05 s")
        ctx.add(name, f"same, p90 of {len(new)}", "s", [percentile(new, 90)])
        ctx.add(name, f"small file rewritten on A -> its content on B (median of {len(edit)})", "s", edit, "<= 0.05 s")
        ctx.add(name, f"same, p90 of {len(edit)}", "s", [percentile(edit, 90)])
        if new and edit:
            log(f"{name}: new file median {statistics.median(new) * 1000:.1f} ms, edit median "
                f"{statistics.median(edit) * 1000:.1f} ms")
    except Exception:
        two_devices_failed(ctx, name, a, b)
    finally:
        stop_devices(ctx, b, a)


def bench_receive_move(ctx, files=2000, each=False):
    """A synced directory of `files` small files renamed on A -> all of them at the new path
    on B, the old directory gone. `each`: every file renamed in its directory instead
    (f<i>.txt -> g<i>.txt), one move each on the server."""
    name = "receive-renames" if each else "receive-move"
    samples = []
    for run in range(ctx.args.runs):
        a = b = None
        try:
            a = ctx.env("recvmove-a")
            a.start_server()
            os.makedirs(os.path.join(a.folder, "d"))
            for i in range(files):
                with open(os.path.join(a.folder, "d", f"f{i}.txt"), "w") as f:
                    f.write(f"file {i}\n")
            a.start_daemon()
            a.wait_idle(120)
            b = second_device(ctx, a, "recvmove-b")
            b.start_daemon()
            wait_received(b, files, now() + ctx.args.timeout, f"device B has {{count}} of {files} files")
            a.wait_idle(60)
            b.wait_idle(60)
            wait_quiet(ctx, f"{name} run {run + 1}")
            mon = Meter(a, also=[b.daemon])
            target, old = os.path.join(b.folder, "e"), os.path.join(b.folder, "d")

            def arrived():
                if each:
                    names = os.listdir(old)
                    return len(names) == files and all(n.startswith("g") for n in names)
                return os.path.isdir(target) and len(os.listdir(target)) == files and not os.path.exists(old)

            t0 = time.perf_counter()
            if each:
                for i in range(files):
                    os.rename(os.path.join(a.folder, "d", f"f{i}.txt"), os.path.join(a.folder, "d", f"g{i}.txt"))
            else:
                os.rename(os.path.join(a.folder, "d"), os.path.join(a.folder, "e"))
            while not arrived():
                if time.perf_counter() - t0 > ctx.args.timeout:
                    raise BenchError(f"B did not have the {files} files at the new path after {ctx.args.timeout} s")
                time.sleep(0.002)
            samples.append(time.perf_counter() - t0)
            check_foreign(ctx, mon, f"{name} run {run + 1}")
            log(f"{name} run {run + 1}: {files} files at the new path on B {samples[-1]:.2f} s after the rename on A")
        except Exception:
            two_devices_failed(ctx, name, a, b)
        finally:
            stop_devices(ctx, b, a)
    if samples:
        what = f"{files} files each renamed in their directory" if each else f"a directory of {files} files renamed"
        ctx.add(name, f"{what} on A -> all at the new path on B", "s", samples)


def bench_delete_files(ctx, receive=False, trees=False):
    """10,000 synced files in 100 directories; every other one deleted on A (5,000 unlinks,
    the delete-wave guard set not to hold them) -> 5,000 files left live in the server's
    feed; with `receive`, -> 5,000 files left on a second device B; with `trees` (and
    `receive`), every other directory is removed whole instead (5,000 files, 50 directories)
    -> all of it gone on B."""
    name = "receive-tree-delete" if trees else "receive-deletes" if receive else "delete-files"
    removed_dirs = [f"d{d:03}" for d in range(0, SMALL_DIRS, 2)] if trees else []
    samples = []

    def unguarded(env):
        env.write_daemon_config()
        with open(env.daemon_conf, "a") as f:
            f.write("max_delete_fraction = 1\nmax_delete_count = 2147483647\n")

    for run in range(ctx.args.runs):
        a = b = None
        try:
            a = ctx.env("deletes-a")
            a.start_server()
            write_small_files(a.folder, small_payloads())
            unguarded(a)
            a.start_daemon()
            feed = Feed(a)
            feed.wait(all_small, ctx.args.timeout, "10,000 files (setup)")
            a.wait_idle(60)
            if receive:
                b = second_device(ctx, a, "deletes-b")
                unguarded(b)
                b.start_daemon()
                wait_received(b, SMALL_COUNT, now() + ctx.args.timeout, f"device B has {{count}} of {SMALL_COUNT} files")
            wait_quiet(ctx, f"{name} run {run + 1}")
            mon = Meter(a, also=[b.daemon] if b else [])
            t0 = now()
            for d in removed_dirs:
                shutil.rmtree(os.path.join(a.folder, d))
            for d in range(SMALL_DIRS) if not trees else []:
                for k in range(0, SMALL_COUNT // SMALL_DIRS, 2):
                    os.unlink(os.path.join(a.folder, f"d{d:03}", f"f{k:04}.bin"))
            if receive:
                while count_files(b.folder) > SMALL_COUNT // 2 or any(
                        os.path.exists(os.path.join(b.folder, d)) for d in removed_dirs):
                    if now() - t0 > ctx.args.timeout:
                        raise BenchError(f"B still had {count_files(b.folder)} files after {ctx.args.timeout} s")
                    time.sleep(0.01)
                t1 = now()
            else:
                t1 = feed.wait(lambda f: f.live_files <= SMALL_COUNT // 2, ctx.args.timeout, "5,000 deletes in the feed")
            check_foreign(ctx, mon, f"{name} run {run + 1}")
            samples.append(t1 - t0)
            where = "on B" if receive else "in the feed"
            what = "5,000 deletes and 50 directories" if trees else "5,000 deletes"
            log(f"{name} run {run + 1}: {what} {where} {samples[-1]:.2f} s after the first unlink")
        except Exception:
            ctx.failures.append((name, traceback.format_exc(), tail(a.daemon_log) if a else ""))
        finally:
            stop_devices(ctx, b, a)
    if samples:
        where = "gone on a second device" if receive else "the deletes in the feed"
        what = "50 of 100 synced directories (5,000 files) removed whole" if trees else "5,000 of 10,000 synced files deleted"
        ctx.add(name, f"{what} on A -> {where}", "s", samples)


def bench_receive_deletes(ctx):
    bench_delete_files(ctx, receive=True)


def bench_receive_tree_delete(ctx):
    bench_delete_files(ctx, receive=True, trees=True)


def bench_receive_renames(ctx):
    bench_receive_move(ctx, each=True)


_synced = None


def synced_env(ctx):
    """One env with 10,000 small files synced, shared by noop-rescan and idle."""
    global _synced
    if _synced is None:
        env = ctx.env("synced")
        env.start_server()
        write_small_files(env.folder, small_payloads())
        env.start_daemon()
        feed = Feed(env)
        feed.wait(all_small, ctx.args.timeout, "10,000 files (setup)")
        env.wait_idle(60)
        _synced = (env, feed)
    return _synced


def bench_noop(ctx):
    env = None
    try:
        env, feed = synced_env(ctx)
        times, answer, scan_took = [], [], []
        for run in range(ctx.args.runs):
            env.stop_daemon()
            feed.poll()
            cursor = feed.cursor
            wait_quiet(ctx, f"noop-rescan run {run + 1}")
            mon = Meter(env)
            t0 = env.start_daemon()
            first = None
            deadline = now() + 120
            while now() < deadline:
                f = env.folder_status()
                if f is not None and first is None:
                    first = now()
                if f and f["state"] == "idle" and f["pending_uploads"] == 0 and f.get("pending_downloads", 0) == 0:
                    break
                if env.daemon.poll() is not None:
                    raise BenchError(f"syncd exited with {env.daemon.returncode}")
                time.sleep(0.002)
            else:
                raise BenchError(f"not idle 120 s after restart; last status {json.dumps(env.folder_status())}")
            t1 = now()
            check_foreign(ctx, mon, f"noop-rescan run {run + 1}")
            times.append(t1 - t0)
            answer.append(first - t0)
            took = log_took(env.daemon_log, "scan done")
            if took is not None:
                scan_took.append(took)
            # confirm with syncctl itself, and that nothing was committed
            f = env.folder_status(via_syncctl=True)
            if not f or f["state"] != "idle":
                raise BenchError(f"syncctl status --json disagrees: {f}")
            feed.poll()
            if feed.cursor != cursor:
                ctx.note(f"noop-rescan run {run + 1}: the restart committed something (cursor {cursor} -> {feed.cursor})")
            log(f"noop-rescan run {run + 1}: control socket answered after {first - t0:.3f} s, idle after {t1 - t0:.3f} s")
        ctx.add("noop-rescan", "10k synced files, restart syncd -> idle, 0 pending", "s", times,
                "<= 0.06 s", "unison 0.12 s, rsync 0.18 s, Syncthing 0.18 s")
        ctx.add("noop-rescan", "(of which: process start -> control socket answers)", "s", answer)
        if scan_took:
            ctx.add("noop-rescan", "(of which: the full scan itself, syncd's own `scan done took=`)", "s", scan_took)
    except Exception:
        ctx.failures.append(("noop-rescan", traceback.format_exc(), tail(env.daemon_log) if env else ""))


def proc_cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # after the comm field: state is fields[0]; utime, stime are stat fields 14, 15
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_status_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def peak_rss(*procs):
    """The peak resident set (VmHWM) of each process, MiB, as "a / b": read before it stops."""
    return " / ".join(f"{proc_status_kib(p.pid, 'VmHWM') / 1024:.0f}" for p in procs)


RSS_TARGET = "syncd <= 150, sync-server <= 200"


def bench_idle(ctx, seconds=30):
    env = None
    try:
        env, feed = synced_env(ctx)
        if env.daemon is None or env.daemon.poll() is not None:
            env.start_daemon()
        env.wait_idle(60)
        wait_quiet(ctx, "idle")
        time.sleep(2)
        pid, spid = env.daemon.pid, env.server.pid
        mon = Meter(env)
        c0, s0, t0 = proc_cpu_seconds(pid), proc_cpu_seconds(spid), now()
        time.sleep(seconds)
        c1, s1, t1 = proc_cpu_seconds(pid), proc_cpu_seconds(spid), now()
        check_foreign(ctx, mon, "idle")
        rss = proc_status_kib(pid, "VmRSS") / 1024
        hwm = proc_status_kib(pid, "VmHWM") / 1024
        srss = proc_status_kib(spid, "VmRSS") / 1024
        ctx.add("idle", f"syncd CPU while idle, {seconds} s window, 10k files", "% of a core",
                [100 * (c1 - c0) / (t1 - t0)])
        ctx.add("idle", "syncd VmRSS (VmHWM) after the window", "MiB", [f"{rss:.1f} ({hwm:.1f})"])
        ctx.add("idle", "sync-server CPU in the same window / VmRSS", "", [f"{100 * (s1 - s0) / (t1 - t0):.2f} % / {srss:.1f} MiB"])
        log(f"idle: syncd {c1 - c0:.2f} CPU-s in {t1 - t0:.1f} s, RSS {rss:.1f} MiB")
    except Exception:
        ctx.failures.append(("idle", traceback.format_exc(), tail(env.daemon_log) if env else ""))


SCAN_FILES, SCAN_DIRS = 100_000, 1_000


def receive_100k(ctx, env):
    """A second device starts on an empty folder of `env`'s server, which has the 100k
    files: its start -> all present and idle; rsync of the same folder in the same run."""
    b, rsync = None, RsyncPeer(ctx.args.tmp)
    try:
        b = second_device(ctx, env, "scan-b")
        wait_quiet(ctx, "scan-100k second device")
        t0 = b.start_daemon()
        wait_received(b, SCAN_FILES, t0 + max(ctx.args.timeout, 600), "device B has {count} files")
        took = now() - t0
        rss = peak_rss(b.daemon, env.server)
        ctx.done(b)
        b = None
        wait_quiet(ctx, "scan-100k rsync")
        peer = rsync.push(env.folder)
        log(f"scan-100k: device B had all 100k files and was idle {took:.2f} s after its start; rsync {peer:.2f} s")
        ctx.add("scan-100k", "second device's syncd start -> all 100k present, idle", "s", [took], "<= 15 s")
        ctx.add("scan-100k", "rsync -a of the same folder to an empty module, same run", "s", [peer])
        ctx.add("scan-100k", "ratio ours / rsync (second device)", "", [took / peer])
        ctx.add("scan-100k", "(peak RSS, VmHWM: syncd B / sync-server)", "MiB", [rss], RSS_TARGET)
    finally:
        if b is not None:
            ctx.done(b)
        rsync.close()
        ctx.trash.append(rsync.root)


def bench_scan(ctx):
    """100,000 files in 1,000 directories: the first scan (empty index), the watches,
    the initial push, idle CPU/RSS with all of it watched, and warm restarts."""
    env = None
    try:
        env = ctx.env("scan-100k")
        env.start_server()
        per_dir = SCAN_FILES // SCAN_DIRS
        for d in range(SCAN_DIRS):
            dpath = os.path.join(env.folder, f"d{d:04}")
            os.mkdir(dpath)
            for k in range(per_dir):
                with open(os.path.join(dpath, f"f{k:03}.txt"), "w") as f:
                    f.write(f"file {d} {k}\n")
        os.sync()
        wait_quiet(ctx, "scan-100k cold")
        env.start_daemon()
        feed = Feed(env)
        deadline = now() + 120
        while log_took(env.daemon_log, "scan done") is None:
            if now() > deadline or env.daemon.poll() is not None:
                raise BenchError("no `scan done` line from syncd")
            time.sleep(0.05)
        cold_scan = log_took(env.daemon_log, "scan done")
        watch = log_took(env.daemon_log, "watching")
        ctx.add("scan-100k", "first scan, empty index: walk + compare + journal 100k files", "s", [cold_scan])
        ctx.add("scan-100k", f"adding watches for {SCAN_DIRS + 1} directories", "s", [watch],
                "<= 1 s for 10,000 dirs")
        t0 = now()
        # live_files, not a walk of the entries: a walk of 100k paths every 20 ms took a
        # core's tenth from the push it measures (the folder holds only the .txt files)
        feed.wait(lambda fd: fd.live_files >= SCAN_FILES,
                  max(ctx.args.timeout, 600), "100k files in the feed")
        env.wait_idle(120)
        ctx.add("scan-100k", "initial push of the 100k files (after the scan) -> all in the feed", "s", [now() - t0],
                "<= 8 s")
        ctx.add("scan-100k", "(peak RSS over scan and push, VmHWM: syncd / sync-server)", "MiB",
                [peak_rss(env.daemon, env.server)], RSS_TARGET)
        receive_100k(ctx, env)
        # idle with 100k files watched
        time.sleep(2)
        seconds = 60
        pid = env.daemon.pid
        c0, t0 = proc_cpu_seconds(pid), now()
        time.sleep(seconds)
        c1, t1 = proc_cpu_seconds(pid), now()
        rss = proc_status_kib(pid, "VmRSS") / 1024
        ctx.add("scan-100k", f"idle with 100k files watched: syncd CPU over {seconds} s", "% of a core",
                [100 * (c1 - c0) / (t1 - t0)], "~0 %")
        ctx.add("scan-100k", "idle with 100k files watched: syncd VmRSS", "MiB", [rss], "< 100 MB")
        warm, idle = [], []
        for run in range(ctx.args.runs):
            env.stop_daemon()
            wait_quiet(ctx, f"scan-100k warm run {run + 1}")
            t0 = env.start_daemon()
            env.wait_idle(120)
            idle.append(now() - t0)
            warm.append(log_took(env.daemon_log, "scan done"))
        ctx.add("scan-100k", "warm rescan of 100k unchanged files (syncd's `scan done took=`)", "s", warm, "<= 1 s")
        ctx.add("scan-100k", "(restart -> idle, 100k unchanged files)", "s", idle)
    except Exception:
        ctx.failures.append(("scan-100k", traceback.format_exc(), tail(env.daemon_log) if env else ""))
    finally:
        if env is not None:
            ctx.done(env)


def bench_watch(ctx):
    """Adding watches for 10,000 directories (100 x 100, one small file each)."""
    env = None
    try:
        env = ctx.env("watch-10k")
        env.start_server()
        for a in range(100):
            for b in range(100):
                d = os.path.join(env.folder, f"a{a:02}", f"b{b:02}")
                os.makedirs(d)
                with open(os.path.join(d, "f.txt"), "w") as f:
                    f.write(f"{a} {b}\n")
        took = []
        for run in range(ctx.args.runs):
            wait_quiet(ctx, f"watch-10k run {run + 1}")
            env.start_daemon()
            deadline = now() + 120
            while log_took(env.daemon_log, "watching", nth=run) is None:
                if now() > deadline or env.daemon.poll() is not None:
                    raise BenchError("no `watching` line from syncd")
                time.sleep(0.05)
            took.append(log_took(env.daemon_log, "watching", nth=run))
            env.wait_idle(300)
            env.stop_daemon()
        ctx.add("watch-10k", "adding watches for 10,100 directories (syncd's `watching took=`)", "s", took, "<= 1 s")
    except Exception:
        ctx.failures.append(("watch-10k", traceback.format_exc(), tail(env.daemon_log) if env else ""))
    finally:
        if env is not None:
            ctx.done(env)


def bench_dir_move(ctx):
    """A synced directory of 10,000 files (100 subdirectories) renamed: mv -> the move in
    the server's feed (every file at its new path, none at the old), the revisions that
    took, and the bytes the server's chunk store grew by (content sent again)."""
    env = None
    try:
        env = ctx.env("dir-move")
        env.start_server()
        os.mkdir(os.path.join(env.folder, "album"))
        write_small_files(os.path.join(env.folder, "album"), small_payloads())
        env.start_daemon()
        feed = Feed(env)
        feed.wait(all_small, ctx.args.timeout, "10,000 files (setup)")
        env.wait_idle(60)
        names = ["album", "album 2"]
        times, revisions = [], []
        for run in range(ctx.args.runs):
            old, new = names[run % 2], names[(run + 1) % 2]
            feed.poll()
            cursor = feed.cursor
            store_before = store_usage(env.data_dir)
            wait_quiet(ctx, f"dir-move run {run + 1}")
            mon = Meter(env)
            t0 = now()
            os.rename(os.path.join(env.folder, old), os.path.join(env.folder, new))

            def moved(f):
                live = [p for p, e in f.entries.items() if e["kind"] == "file" and not e["deleted"]]
                return len(live) == SMALL_COUNT and all(p.startswith(new + "/") for p in live)

            t1 = feed.wait(moved, ctx.args.timeout, f"{old} -> {new} in the feed")
            check_foreign(ctx, mon, f"dir-move run {run + 1}")
            env.wait_idle(60)
            feed.poll()
            grew = store_usage(env.data_dir)[0] - store_before[0]
            times.append(t1 - t0)
            revisions.append(feed.cursor - cursor)
            log(f"dir-move run {run + 1}: {t1 - t0:.3f} s, {feed.cursor - cursor} revisions, chunk store grew {grew} B")
            if grew:
                ctx.note(f"dir-move run {run + 1}: the chunk store grew by {grew} bytes (content sent again)")
        ctx.add("dir-move", "rename a synced dir of 10k files -> all at the new path in the feed", "s", times,
                "one commit", "")
        ctx.add("dir-move", "(revisions it took: arrivals + departures of 10,101 entries)", "", revisions)
    except Exception:
        ctx.failures.append(("dir-move", traceback.format_exc(), tail(env.daemon_log) if env else ""))


def post(env, path, body, content_type="application/json"):
    req = urllib.request.Request(env.url + f"/v1/folders/{FOLDER}" + path, data=body, method="POST",
                                 headers={"Authorization": f"Bearer {env.token}", "Content-Type": content_type})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.load(r) if r.headers.get("Content-Type", "").startswith("application/json") else r.read()


def push_and_delete(env, payloads, keep_every):
    """Commits one file per payload (chunks sent in 8 MiB batches), then deletes all but every
    `keep_every`-th; returns the live bytes."""
    import hashlib
    changes, batch = [], b""
    for i, data in enumerate(payloads):
        h = hashlib.sha256(data).hexdigest()
        batch += bytes.fromhex(h) + len(data).to_bytes(8, "big") + data
        if len(batch) >= 8 << 20:
            post(env, "/chunks/batch", batch, "application/octet-stream")
            batch = b""
        changes.append({"path": f"d{i // 100:03}/f{i % 100:04}.bin", "base_rev": 0, "kind": "file",
                        "size": len(data), "mtime_ns": 1_700_000_000_000_000_000, "mode": 0o644, "chunks": [h],
                        "content_hash": hashlib.sha256(bytes.fromhex(h)).hexdigest(), "deleted": False})
    if batch:
        post(env, "/chunks/batch", batch, "application/octet-stream")
    results = post(env, "/commit", json.dumps({"changes": changes}).encode())["results"]
    gone = [{"path": c["path"], "base_rev": r["rev"], "kind": "file", "size": 0, "mtime_ns": 0, "mode": 0o644,
             "chunks": [], "content_hash": hashlib.sha256(b"").hexdigest(), "deleted": True}
            for i, (c, r) in enumerate(zip(changes, results)) if i % keep_every]
    post(env, "/commit", json.dumps({"changes": gone}).encode())
    return sum(len(p) for i, p in enumerate(payloads) if i % keep_every == 0)


def bench_gc(ctx):
    """10,000 x 4 KiB committed, 9,000 deleted, server stopped; `storage gc` as if 31 days
    had passed: its wall time and the pack bytes before and after (decision 0012)."""
    payloads = small_payloads()
    times, before, after = [], [], []
    for run in range(ctx.args.runs):
        env = None
        try:
            env = ctx.env("gc")
            env.start_server()
            live = push_and_delete(env, payloads, keep_every=10)
            env.stop()
            packs_before = store_usage(env.data_dir)[0]
            wait_quiet(ctx, f"gc run {run + 1}")
            sv = os.path.join(env.bin, "sync-server")
            t0 = now()
            p = subprocess.run([sv, "storage", "gc", "--config", env.server_conf], capture_output=True, text=True,
                               timeout=ctx.args.timeout, env=dict(os.environ, SYNC_SERVER_NOW_OFFSET=str(31 * 86_400)))
            t1 = now()
            if p.returncode != 0:
                raise BenchError(f"storage gc failed ({p.returncode}): {p.stderr.strip()}")
            packs_after = store_usage(env.data_dir)[0]
            log(f"gc run {run + 1}: {t1 - t0:.3f} s, packs {packs_before:,} -> {packs_after:,} B, live {live:,} B; "
                f"{p.stdout.strip()}")
            times.append(t1 - t0)
            before.append(packs_before)
            after.append(packs_after)
            ctx.done(env)
        except Exception:
            ctx.failures.append(("gc", traceback.format_exc(), tail(env.server_log) if env else ""))
            return
    ctx.add("gc", "storage gc after 9,000 of 10,000 x 4 KiB deleted (process start to exit)", "s", times)
    ctx.add("gc", "pack bytes before gc", "B", before)
    ctx.add("gc", "pack bytes after gc (live data: 1,000 x 4 KiB = 4,096,000 B)", "B", after)


# --------------------------------------------------------------------------- scale-out


def pid_times(pid, children=False):
    """(user, system) CPU seconds of a pid (all threads); with `children`, plus those of its
    children it has waited for (a postmaster's exited backends). Zeros if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            v = f.read().rsplit(")", 1)[1].split()
        hz = os.sysconf("SC_CLK_TCK")
        u, s = int(v[11]), int(v[12])
        if children:
            u, s = u + int(v[13]), s + int(v[14])
        return u / hz, s / hz
    except (OSError, ValueError, IndexError):
        return 0.0, 0.0


def children_of(pid):
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    return kids


class PgCluster:
    """A throwaway PostgreSQL cluster as Tests/TestSupport/PostgresServer.swift makes one (Debian's
    binaries, initdb + pg_ctl as user postgres when run as root, 127.0.0.1 on a free port,
    SCRAM password), but with PostgreSQL's defaults kept (fsync on: this is a benchmark).
    stop() is `pg_ctl stop -m fast`."""

    def __init__(self, tmp):
        root = "/usr/lib/postgresql"
        versions = sorted((int(v) for v in os.listdir(root) if v.isdigit()), reverse=True) \
            if os.path.isdir(root) else []
        self.bin = next((f"{root}/{v}/bin" for v in versions if os.access(f"{root}/{v}/bin/initdb", os.X_OK)), None)
        if not self.bin:
            raise BenchError(f"PostgreSQL's server binaries are not installed under {root}/*/bin "
                             "(scripts/install-deps.sh installs Debian's postgresql); scale-out needs them")
        self.dir = tempfile.mkdtemp(prefix="syncd-bench-pg-", dir=tmp)
        self.data = os.path.join(self.dir, "data")
        self.log = os.path.join(self.dir, "log")
        self.port = free_port()
        self.user = "syncd"
        self.password = f"bench{random.randrange(1 << 48):x}"
        self.owner = None
        self.started = False
        with open(os.path.join(self.dir, "pwfile"), "w") as f:
            f.write(self.password)
        if os.geteuid() == 0:
            import pwd
            for name in ("postgres", "nobody"):
                try:
                    pwd.getpwnam(name)
                    self.owner = name
                    break
                except KeyError:
                    pass
            if not self.owner:
                raise BenchError("running as root, and neither user postgres nor nobody exists to run PostgreSQL as")
            subprocess.run(["chown", "-R", self.owner, self.dir], check=True)
            os.chmod(self.dir, 0o700)
        self._as_owner("initdb", "-D", self.data, "-U", self.user, "--auth=scram-sha-256",
                       f"--pwfile={self.dir}/pwfile", "-E", "UTF8", "--locale=C.UTF-8")
        self._as_owner("pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60", "start", "-o",
                       f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections=200")
        self.started = True
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            self.pid = int(f.readline())
        self.version = self._as_owner("postgres", "--version").strip()

    def _as_owner(self, exe, *args):
        argv = [os.path.join(self.bin, exe), *args]
        if self.owner:
            argv = ["runuser", "-u", self.owner, "--"] + argv
        # output to a file, not a pipe: pg_ctl's server lives on
        with tempfile.TemporaryFile() as out:
            p = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=120)
            out.seek(0)
            text = out.read().decode(errors="replace")
        if p.returncode != 0:
            raise BenchError(f"{' '.join(argv)} failed ({p.returncode}): {text[-1500:]}\n{tail(self.log, 20)}")
        return text

    def database(self, name):
        """postgres://… of a new, empty database."""
        p = subprocess.run([os.path.join(self.bin, "createdb"), "-h", "127.0.0.1", "-p", str(self.port),
                            "-U", self.user, name], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, PGPASSWORD=self.password))
        if p.returncode != 0:
            raise BenchError(f"createdb {name} failed: {p.stderr.strip()}")
        return f"postgres://{self.user}:{self.password}@127.0.0.1:{self.port}/{name}?sslmode=disable"

    def cpu(self):
        """(user, system) of the postmaster, its live backends and the ones it reaped."""
        u, s = pid_times(self.pid, children=True)
        for k in children_of(self.pid):
            ku, ks = pid_times(k)
            u, s = u + ku, s + ks
        return u, s

    def stop(self):
        if self.started:
            self.started = False
            try:
                self._as_owner("pg_ctl", "-D", self.data, "stop", "-m", "fast", "-w", "-t", "60")
            except Exception as e:  # noqa: BLE001 - reported, then the next thing is stopped
                log(f"pg_ctl stop failed: {e}")


class MotoS3:
    """moto's S3 server (PyPI moto[server], installed by scripts/install-deps.sh or by
    install_prerequisites) on a free port of 127.0.0.1; objects in memory, any credentials."""

    def __init__(self, tmp):
        if subprocess.run([sys.executable, "-c", "import moto.server, flask"], capture_output=True).returncode != 0:
            raise BenchError("moto's server is not installed: python3 -m pip install 'moto[server]>=5,<6' "
                             "(scripts/install-deps.sh does it)")
        self.dir = tempfile.mkdtemp(prefix="syncd-bench-moto-", dir=tmp)
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.log = os.path.join(self.dir, "moto.log")
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                         stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = now() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.proc.poll() is not None or now() > deadline:
                    self.stop()
                    raise BenchError(f"moto's server did not start listening: {tail(self.log, 10)}")
                time.sleep(0.05)

    def bucket(self, name):
        """Creates the bucket; the [storage] lines naming it (path style: the default with an endpoint)."""
        req = urllib.request.Request(f"{self.endpoint}/{name}", method="PUT", data=b"")
        with urllib.request.urlopen(req, timeout=30) as r:
            r.read()
        return (f'blobs = "s3://{name}/bench"\n[storage.s3]\nendpoint = "{self.endpoint}"\n'
                'access_key_id = "bench-key"\nsecret_access_key = "bench-secret"\n')

    def cpu(self):
        return pid_times(self.proc.pid)

    def requests(self):
        """Requests moto has logged so far, by method (werkzeug's access log: "PUT /b/k HTTP/1.1" 200)."""
        counts = {}
        with open(self.log, errors="replace") as f:
            for line in f:
                if '"' in line and " HTTP/1." in line:
                    m = line.split('"', 1)[1].split(" ", 1)[0]
                    counts[m] = counts.get(m, 0) + 1
        return counts

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class GroupMeter:
    """Meter for several processes: CPU seconds (user+sys) per named group over the interval,
    and the share of the machine used by everything else (as Meter.foreign)."""

    def __init__(self, groups):
        self.groups = groups  # name -> callable returning (user, system)
        self.t0 = self._snap()

    def _snap(self):
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        hz = os.sysconf("SC_CLK_TCK")
        t = os.times()
        g = {n: fn() for n, fn in self.groups.items()}
        ours = (t.user + t.system + t.children_user + t.children_system + sum(sum(x) for x in g.values())) * hz
        return dict(total=sum(v[:8]), idle=v[3] + v[4], ours=ours, g=g, disk=disk_sectors_written())

    def stop(self):
        t1 = self._snap()
        total = t1["total"] - self.t0["total"]
        busy = total - (t1["idle"] - self.t0["idle"])
        self.foreign = max(0.0, (busy - (t1["ours"] - self.t0["ours"])) / max(1, total))
        self.disk_mib = (t1["disk"] - self.t0["disk"]) * 512 / (1 << 20)
        self.by_group = {n: sum(t1["g"][n]) - sum(self.t0["g"][n]) for n in self.groups}
        self.cpu = ", ".join(f"{n} {c:.1f}" for n, c in self.by_group.items())
        return self


def server_log_problems(envs, limit=8):
    """Lines of the servers' logs at warning level or above (they would be bugs in a clean run)."""
    found = []
    for e in envs:
        try:
            with open(e.server_log, errors="replace") as f:
                for line in f:
                    low = line.lower()
                    if any(w in low for w in (" error", " warning", " critical", "fatal")):
                        found.append(f"{os.path.basename(e.root)}: {line.strip()[:400]}")
        except OSError:
            pass
    return found[:limit], len(found)


def put_chunk(env, data):
    import hashlib
    h = hashlib.sha256(data).hexdigest()
    req = urllib.request.Request(env.url + f"/v1/folders/{FOLDER}/chunks/{h}", data=data, method="PUT",
                                 headers={"Authorization": f"Bearer {env.token}",
                                          "Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(req, timeout=30) as r:
        r.read()
    return h


def file_change(path, h, size, base_rev=0):
    """A commit's change: the file at `path` is the one chunk `h` of `size` bytes."""
    import hashlib
    return {"path": path, "base_rev": base_rev, "kind": "file", "size": size, "mtime_ns": time.time_ns(),
            "mode": 0o644, "chunks": [h], "content_hash": hashlib.sha256(bytes.fromhex(h)).hexdigest(),
            "deleted": False}


def wake_sample(writer, waiter, cursor, path):
    """A one-file commit through the protocol on `writer` while a long-poll waits on `waiter`:
    (commit sent -> long-poll answered with it, commit sent -> commit answered, new cursor);
    None for the first when the long-poll came back without the file."""
    data = f"wake-up sample {path} {time.time()}\n".encode()
    h = put_chunk(writer, data)
    body = json.dumps({"changes": [file_change(path, h, len(data))]}).encode()
    th, box = held_long_poll(waiter, cursor, 30, "the commit")
    t0 = now()
    post(writer, "/commit", body)
    t_commit = now()
    th.join(35)
    if th.is_alive() or "error" in box:
        raise BenchError(f"long-poll failed: {box.get('error', 'no answer in 35 s')}")
    page = box["page"]
    seen = any(e["path"] == path for e in page["entries"])
    return (box["t"] - t0 if seen else None), t_commit - t0, page["cursor"]


SCALE_VARIANTS = [
    # key, label, instances, PostgreSQL metadata, S3 blobs
    ("a", "(a) 1 instance, SQLite + filesystem", 1, False, False),
    ("b'", "(b') 1 instance, PostgreSQL + filesystem", 1, True, False),
    ("b''", "(b'') 1 instance, SQLite + S3 (moto)", 1, False, True),
    ("b", "(b) 3 instances, PostgreSQL + S3 (moto)", 3, True, True),
]


def scale_variants(default=None):
    """SCALE_VARIANTS, or those BENCH_SCALE_VARIANTS names (else those keys in `default`)."""
    wanted = os.environ.get("BENCH_SCALE_VARIANTS")
    wanted = wanted.split(",") if wanted else default
    return [v for v in SCALE_VARIANTS if not wanted or v[0] in wanted]


class ScaleBackends:
    """`with ScaleBackends(ctx, what, variants) as (pg, moto)`: a PostgreSQL cluster if a
    variant needs one, moto's S3 server if one needs a bucket (else None); both stopped at the
    end and their dirs removed with the rest (kept with --keep)."""

    def __init__(self, ctx, what, variants):
        self.ctx, self.what, self.variants = ctx, what, variants
        self.pg = self.moto = None

    def __enter__(self):
        try:
            if any(v[3] for v in self.variants):
                self.pg = PgCluster(self.ctx.args.tmp)
                log(f"{self.what}: {self.pg.version} on 127.0.0.1:{self.pg.port} (defaults kept: fsync on), "
                    f"{self.pg.dir}")
            if any(v[4] for v in self.variants):
                self.moto = MotoS3(self.ctx.args.tmp)
                log(f"{self.what}: moto on {self.moto.endpoint}")
        except BaseException:
            self.__exit__()
            raise
        return self.pg, self.moto

    def __exit__(self, *exc):
        for b in (self.pg, self.moto):
            if b:
                b.stop()
                self.ctx.trash.append(b.dir) if not self.ctx.args.keep else log(f"kept {b.dir}")
        self.pg = self.moto = None
        return False


def scale_storage(tag, run, pg_meta, s3, pg, moto):
    """The [storage] lines of a variant: a new PostgreSQL database and/or a new bucket, or the
    embedded SQLite / filesystem."""
    storage = ""
    if pg_meta:
        storage += f'metadata = "{pg.database(f"bench_{tag}_{run}_{random.randrange(1 << 24):x}")}"\n'
    else:
        storage += 'metadata = "sqlite"\n'
    if s3:
        storage += moto.bucket(f"bench-{tag}-{run}-{random.randrange(1 << 24):x}")
    else:
        storage += 'blobs = "filesystem"\n'
    return storage


def start_instances(ctx, name, storage, instances, servers):
    """`instances` sync-server processes on one `storage`, appended to `servers` as they start
    (so the caller's finally stops those that did): the first provisions the folder and device
    "bench", the others share its store and its token."""
    a = ctx.env(f"{name}-a")
    servers.append(a)
    a.start_server(storage=storage)
    for n in range(2, instances + 1):
        e = ctx.env(f"{name}-i{n}")
        servers.append(e)
        e.start_server(storage=storage, provision=False, token=a.token)
    return servers


def server_groups(servers, pg=None, moto=None):
    """GroupMeter groups: each server ("server", or "server1".. with several), PostgreSQL, moto."""
    g = {}
    for n, e in enumerate(servers, 1):
        g[f"server{n}" if len(servers) > 1 else "server"] = (lambda e=e: proc_times(e.server))
    if pg:
        g["postgres"] = pg.cpu
    if moto:
        g["moto"] = moto.cpu
    return g


def note_server_logs(ctx, servers, what):
    problems, count = server_log_problems(servers)
    if count:
        ctx.note(f"{what}: {count} warning/error line(s) in the server logs, e.g.:\n    " + "\n    ".join(problems))


def scale_variant(ctx, run, key, label, instances, pg_meta, s3, pg, moto, wake_samples):
    """One variant: servers up, A pushes 10k x 4 KiB through instance 1 (daemon start -> all in
    the feed), B receives through the last instance (daemon start -> all present, idle);
    with several instances then the feed wake-up across them. Returns a dict of figures."""
    tag = key.replace("'", "p")
    storage = scale_storage(tag, run, pg_meta, s3, pg, moto)
    servers, b = [], None
    out = {}
    try:
        start_instances(ctx, f"scale-{tag}", storage, instances, servers)
        a, others = servers[0], servers[1:]
        last = servers[-1]
        write_small_files(a.folder, ctx.scale_payloads)

        def groups(dev):
            return {"syncd": lambda: proc_times(dev.daemon), **server_groups(servers, pg_meta and pg, s3 and moto)}

        wait_quiet(ctx, f"scale-out {key} push, run {run + 1}")
        mon = GroupMeter(groups(a))
        t0 = a.start_daemon()
        feed = Feed(a)
        t1 = feed.wait(all_small, ctx.args.timeout, f"{key}: 10,000 files on the server")
        check_foreign(ctx, mon, f"scale-out {key} push run {run + 1}")
        out["push"], out["push_cpu"] = t1 - t0, mon.by_group
        a.wait_idle(60)
        log(f"scale-out {key} run {run + 1}: pushed in {t1 - t0:.2f} s (steps {feed.steps(t0)}); CPU s: {mon.cpu}")

        b = second_device(ctx, a, f"scale-{tag}-b")
        b.url = last.url
        wait_quiet(ctx, f"scale-out {key} receive, run {run + 1}")
        mon = GroupMeter(groups(b))
        t0 = b.start_daemon()
        wait_received(b, SMALL_COUNT, t0 + ctx.args.timeout, f"{key}: device B has {{count}} files after {ctx.args.timeout} s")
        t1 = now()
        check_foreign(ctx, mon, f"scale-out {key} receive run {run + 1}")
        out["receive"], out["receive_cpu"] = t1 - t0, mon.by_group
        log(f"scale-out {key} run {run + 1}: B had all 10k and was idle {t1 - t0:.2f} s after its start"
            f" (through {'instance ' + str(len(servers)) if len(servers) > 1 else 'the server'}); CPU s: {mon.cpu}")

        if len(servers) > 1 and wake_samples:
            # Nothing else commits meanwhile: both daemons stop.
            a.stop_daemon()
            b.stop_daemon()
            for waiter_i, name in ((1, "cross"), (0, "same")):
                waiter = servers[waiter_i]
                wf = Feed(waiter)
                wf.poll()
                cursor = wf.cursor
                lat, commit, misses = [], [], 0
                wait_quiet(ctx, f"scale-out wake-up ({name}), run {run + 1}")
                i = 0
                while len(lat) < wake_samples:
                    i += 1
                    if i > 2 * wake_samples:
                        raise BenchError(f"only {len(lat)} of {wake_samples} wake-up samples after {i - 1} tries")
                    took, c, cursor = wake_sample(a, waiter, cursor, f"wake/{name}-{i:03}.txt")
                    if took is None:
                        misses += 1
                        continue
                    lat.append(took)
                    commit.append(c)
                    time.sleep(0.1)
                if misses:
                    ctx.note(f"scale-out wake-up ({name}): {misses} long-poll answers without the commit (not counted)")
                out[f"wake_{name}"], out[f"commit_{name}"] = lat, commit
                log(f"scale-out wake-up, long-poll on instance {waiter_i + 1}, commit on 1: p50 "
                    f"{percentile(lat, 50) * 1000:.1f} ms, p99 {percentile(lat, 99) * 1000:.1f} ms "
                    f"(the commit's own answer: p50 {percentile(commit, 50) * 1000:.1f} ms)")
        return out
    finally:
        for e in [b] + servers[::-1]:
            if e:
                ctx.done(e)
        note_server_logs(ctx, servers, f"scale-out {key} run {run + 1}")


def bench_scale_out(ctx):
    """Issue 10 "Targets": the same push (10k x 4 KiB, device A's syncd start -> all in the feed)
    and receive (device B's start -> all present, idle) on (a) one SQLite + filesystem server and
    (b) three instances on one PostgreSQL database and one moto bucket (A on instance 1, B on 3),
    with (b') PostgreSQL + filesystem and (b'') SQLite + moto alone to tell their shares apart;
    then the feed's wake-up across instances (long-poll on 2, commit on 1; and both on 1).
    BENCH_SCALE_VARIANTS=a,b (keys of SCALE_VARIANTS) runs fewer variants."""
    variants = scale_variants()
    ctx.scale_payloads = small_payloads()
    results = {v[0]: [] for v in variants}
    try:
        with ScaleBackends(ctx, "scale-out", variants) as (pg, moto):
            for run in range(ctx.args.runs):
                for key, label, instances, pg_meta, s3 in variants:
                    log(f"scale-out run {run + 1}: {label}")
                    results[key].append(scale_variant(ctx, run, key, label, instances, pg_meta, s3, pg, moto,
                                                      wake_samples=30))
    except Exception:
        logs = ""
        for e in ctx.finished[-4:]:
            logs += f"-- {e.root}: syncd\n{tail(e.daemon_log, 15)}-- sync-server\n{tail(e.server_log, 15)}"
        ctx.failures.append(("scale-out", traceback.format_exc(), logs))
    n = min((len(r) for r in results.values()), default=0)
    if not n:
        return
    for key, label, instances, pg_meta, s3 in variants:
        rs = results[key][:n]
        ctx.add("scale-out", f"{label}: A's syncd start -> 10k x 4 KiB in the feed", "s", [r["push"] for r in rs])
        ctx.add("scale-out", f"{label}: B's syncd start -> all present, idle", "s", [r["receive"] for r in rs])
        for what in ("push", "receive"):
            ctx.add("scale-out", f"{label}: CPU s during {what}", "",
                    ["; ".join(f"{g} {c:.1f}" for g, c in r[f"{what}_cpu"].items()) for r in rs])
    if "a" in results:
        for key, label, *_ in variants:
            if key == "a":
                continue
            for what in ("push", "receive"):
                ctx.add("scale-out", f"ratio {key} / a, {what} (same run)", "",
                        [r[what] / base[what] for r, base in zip(results[key][:n], results["a"][:n])],
                        "<= 2" if key == "b" else "")
    for key, *_ in variants:
        for r in results[key][:n]:
            if "wake_cross" in r:
                for name, where in (("cross", "long-poll on instance 2, commit on 1"),
                                    ("same", "long-poll and commit on instance 1")):
                    lat = r[f"wake_{name}"]
                    ctx.add("scale-out", f"({key}) feed wake-up, {where}: commit sent -> long-poll answered, "
                            f"p50 / p99 of {len(lat)}", "",
                            [f"{percentile(lat, 50) * 1000:.1f} / {percentile(lat, 99) * 1000:.1f} ms"])
                    c = r[f"commit_{name}"]
                    ctx.add("scale-out", f"({key}) {where}: commit sent -> commit answered, p50 / p99", "",
                            [f"{percentile(c, 50) * 1000:.1f} / {percentile(c, 99) * 1000:.1f} ms"])


# --------------------------------------------------------------------------- many-devices

DEVICES = 50
DEVICE_COMMITS = 40      # per device
DEVICE_PROCS = 5         # client processes (the GIL: one process would bound the client)
DEVICE_CHUNK = 1024      # bytes per commit's file


def device_request(dev, method, path, body, content_type):
    """One request on the device's persistent connection: (status, parsed body). A connection
    the server closed (idle timeout, Connection: close after an error) is reopened and the
    request sent again (counted in dev["reconnects"])."""
    for attempt in range(3):
        c = dev.get("conn")
        if c is None:
            c = dev["conn"] = http.client.HTTPConnection(dev["host"], dev["port"], timeout=120)
        try:
            c.request(method, path, body=body, headers={"Authorization": f"Bearer {dev['token']}",
                                                        "Content-Type": content_type})
            r = c.getresponse()
            data = r.read()
            if r.getheader("Connection", "").lower() == "close":
                c.close()
                dev["conn"] = None
            return r.status, data
        except (http.client.HTTPException, ConnectionError, BrokenPipeError) as e:
            c.close()
            dev["conn"] = None
            dev["reconnects"] += 1
            if attempt == 2:
                raise BenchError(f"{method} {path}: {e!r} three times") from e
    raise AssertionError("unreachable")


def run_device(dev, commits):
    """Device `dev` commits `commits` new files one after the other, each a PUT of a fresh
    ~1 KiB chunk and a one-change commit (base_rev 0, a path no other device uses). A non-2xx
    answer is counted by status and the request sent again after 0.1 s (the commit with the
    same commit_id: idempotent), up to 20 times. Samples: (upload sent, commit sent, commit
    answered, rev)."""
    import hashlib
    folder = dev["folder"]
    rnd = random.Random(dev["index"])
    for k in range(commits):
        path = f"dev{dev['index']:02}/c{k:04}.txt"
        head = f"{path} ".encode()
        data = head + rnd.randbytes(DEVICE_CHUNK - len(head))
        h = hashlib.sha256(data).hexdigest()
        commit = json.dumps({"commit_id": f"bench-{dev['index']:02}-{k:04}-{dev['nonce']}",
                             "changes": [file_change(path, h, len(data))]}).encode()
        t_up = now()
        for what, method, url, body, ctype, ok in (
                ("upload", "PUT", f"/v1/folders/{folder}/chunks/{h}", data, "application/octet-stream", (200, 201)),
                ("commit", "POST", f"/v1/folders/{folder}/commit", commit, "application/json", (200,))):
            if what == "commit":
                t_commit = now()
            for attempt in range(21):
                status, answer = device_request(dev, method, url, body, ctype)
                if status in ok:
                    break
                dev["statuses"][f"{what} {status}"] = dev["statuses"].get(f"{what} {status}", 0) + 1
                if attempt == 20:
                    raise BenchError(f"device {dev['index']}: {what} {path} answered {status} 21 times: "
                                     f"{answer[:300]!r}")
                dev["retries"] += 1
                time.sleep(0.1)
        t_end = now()
        result = json.loads(answer)["results"][0]
        if result["status"] != "ok":
            dev["conflicts"] += 1
            dev["errors"].append(f"{path}: {result['status']} (rev {result.get('rev')})")
            continue
        dev["samples"].append((t_up, t_commit, t_end, result["rev"]))


def devices_worker(pipe, devs, commits):
    """A client process (forked): one thread per device, started when the parent says "go";
    sends back each device's samples and counters with its own CPU seconds, then waits for
    "exit" (alive until then, so that the parent's meter can read its CPU)."""
    pipe.send("ready")
    pipe.recv()
    c0 = os.times()

    def one(dev):
        try:
            run_device(dev, commits)
        except Exception:  # noqa: BLE001 - sent to the parent
            dev["errors"].append(traceback.format_exc(limit=3))
        finally:
            if dev.get("conn"):
                dev["conn"].close()
            dev["conn"] = None
    threads = [threading.Thread(target=one, args=(d,)) for d in devs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    c1 = os.times()
    pipe.send((devs, c1.user + c1.system - c0.user - c0.system))
    pipe.recv()


def provision_devices(env, servers, count, per_device_folders):
    """`count` devices "devNN" (one `sync-server device add` each, with a folder "devNN" each
    when `per_device_folders`, else all on FOLDER), device i talking to servers[i % len]: its
    token is issued by that instance."""
    sv = os.path.join(env.bin, "sync-server")
    devs = []
    for i in range(count):
        folder = f"dev{i:02}" if per_device_folders else FOLDER
        if per_device_folders:
            env._run([sv, "folder", "add", folder, "--config", env.server_conf])
        cred = env._run([sv, "device", "add", "--name", f"dev{i:02}", "--folder", folder,
                         "--config", env.server_conf]).strip().splitlines()[-1].strip()
        server = servers[i % len(servers)]
        req = urllib.request.Request(server.url + "/v1/auth/token", data=json.dumps({"credential": cred}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            token = json.load(r)["access_token"]
        host, port = server.url.rsplit("/", 1)[1].split(":")
        devs.append(dict(index=i, folder=folder, instance=i % len(servers) + 1, host=host, port=int(port),
                         token=token, nonce=f"{random.randrange(1 << 32):08x}", samples=[], statuses={},
                         retries=0, reconnects=0, conflicts=0, errors=[]))
    return devs


def feed_revisions(url, folder, token):
    """Every entry's rev in `folder`'s feed (paged, limit 10,000), and the head."""
    revs, since, head = [], 0, None
    while True:
        req = urllib.request.Request(f"{url}/v1/folders/{folder}/changes?since={since}&limit=10000",
                                     headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(req, timeout=60) as r:
            page = json.load(r)
        revs += [e["rev"] for e in page["entries"]]
        since, head = page["cursor"], page.get("head", page["cursor"])
        if not page["has_more"]:
            return revs, head


def devices_variant(ctx, run, key, label, instances, pg_meta, s3, pg, moto, per_device_folders):
    """One variant and folder layout: servers up, DEVICES devices provisioned, DEVICE_PROCS client
    processes forked (devices dealt round-robin), all told "go" at once; returns a dict of figures."""
    import multiprocessing
    tag = key.replace("'", "p") + ("e" if per_device_folders else "s")
    storage = scale_storage(tag, run, pg_meta, s3, pg, moto)
    servers, procs = [], []
    layout = "a folder per device" if per_device_folders else "one shared folder"
    try:
        start_instances(ctx, f"devices-{tag}", storage, instances, servers)
        t = now()
        devs = provision_devices(servers[0], servers, DEVICES, per_device_folders)
        log(f"many-devices {key}, {layout}: {DEVICES} devices provisioned in {now() - t:.1f} s")
        mp = multiprocessing.get_context("fork")
        for p in range(DEVICE_PROCS):
            mine = devs[p::DEVICE_PROCS]
            parent, child = mp.Pipe()
            proc = mp.Process(target=devices_worker, args=(child, mine, DEVICE_COMMITS), daemon=True)
            proc.start()
            procs.append((proc, parent))
        for proc, pipe in procs:
            if not pipe.poll(60) or pipe.recv() != "ready":
                raise BenchError("a client process did not start")
        wait_quiet(ctx, f"many-devices {key}, {layout}, run {run + 1}")
        groups = server_groups(servers, pg_meta and pg, s3 and moto)
        groups["client"] = lambda: tuple(map(sum, zip(*(pid_times(p.pid) for p, _ in procs))))
        s3_before = moto.requests() if s3 else {}
        mon = GroupMeter(groups)
        t_meter = now()
        for proc, pipe in procs:
            pipe.send("go")
        done, client_cpu = [], 0.0
        for proc, pipe in procs:
            if not pipe.poll(ctx.args.timeout):
                raise BenchError(f"a client process did not finish in {ctx.args.timeout} s")
            d, cpu = pipe.recv()
            done += d
            client_cpu += cpu
        check_foreign(ctx, mon, f"many-devices {key}, {layout}, run {run + 1}")
        t_meter = now() - t_meter
        for proc, pipe in procs:
            pipe.send("exit")
        s3_requests = {m: n - s3_before.get(m, 0) for m, n in (moto.requests() if s3 else {}).items()}
        errors = [f"dev{d['index']:02}: {e}" for d in done for e in d["errors"]]
        samples = [s for d in done for s in d["samples"]]
        out = dict(commits=len(samples), cpu=mon.by_group, client_cpu=client_cpu, foreign=mon.foreign,
                   ours=sum(mon.by_group.values()) / (t_meter * os.cpu_count()), s3_requests=s3_requests,
                   retries=sum(d["retries"] for d in done), reconnects=sum(d["reconnects"] for d in done),
                   conflicts=sum(d["conflicts"] for d in done), errors=errors, statuses={})
        for d in done:
            for k, v in d["statuses"].items():
                out["statuses"][k] = out["statuses"].get(k, 0) + v
        if samples:
            wall = max(s[2] for s in samples) - min(s[0] for s in samples)
            out.update(wall=wall, rate=len(samples) / wall, commit=[s[2] - s[1] for s in samples],
                       round=[s[2] - s[0] for s in samples])
        # The feed: gap-free 1..N per folder, N = that folder's commits, and the revs the commits got.
        gaps = []
        by_folder = {}
        for d in done:
            by_folder.setdefault(d["folder"], (d, []))[1].extend(s[3] for s in d["samples"])
        for folder, (d, got) in sorted(by_folder.items()):
            revs, head = feed_revisions(servers[0].url, folder, d["token"])
            want = list(range(1, len(got) + 1))
            if sorted(revs) != want or sorted(got) != want or head != len(got):
                gaps.append(f"{folder}: {len(got)} commits answered ok, feed has {len(revs)} entries "
                            f"(revs {min(revs, default=0)}..{max(revs, default=0)}, head {head}), "
                            f"revs answered {'1..N' if sorted(got) == want else 'not 1..N'}")
        out["gaps"] = gaps
        out["folders"] = len(by_folder)
        return out
    finally:
        for proc, pipe in procs:
            if proc.is_alive():
                try:
                    pipe.send("exit")
                except OSError:
                    pass
                proc.join(5)
                if proc.is_alive():
                    proc.kill()
                    proc.join()
        for e in servers[::-1]:
            ctx.done(e)
        note_server_logs(ctx, servers, f"many-devices {key}, {layout}, run {run + 1}")


def bench_many_devices(ctx):
    """Issue 10: DEVICES devices (a credential each) commit DEVICE_COMMITS small files each,
    concurrently, device i through instance i % 3, on (a) one SQLite + filesystem server and (b)
    three instances on one PostgreSQL database and one moto bucket; all in one shared folder
    (the folder's commit lock is contended), then with a folder per device. Commits/s, p50/p99
    of the commit request (and of upload + commit), CPU of each process group, the feed checked
    gap-free. BENCH_SCALE_VARIANTS (default a,b) and BENCH_DEVICE_FOLDERS=shared,each choose."""
    variants = scale_variants(default=["a", "b"])
    layouts = [x == "each" for x in os.environ.get("BENCH_DEVICE_FOLDERS", "shared,each").split(",")]
    results = {}
    try:
        with ScaleBackends(ctx, "many-devices", variants) as (pg, moto):
            for run in range(ctx.args.runs):
                for each in layouts:
                    for key, label, instances, pg_meta, s3 in variants:
                        log(f"many-devices run {run + 1}: {label}, {'a folder per device' if each else 'one folder'}")
                        r = devices_variant(ctx, run, key, label, instances, pg_meta, s3, pg, moto, each)
                        results.setdefault((each, key), []).append(r)
                        log(f"many-devices {key} run {run + 1}: {r['commits']} commits in {r.get('wall', 0):.2f} s = "
                            f"{r.get('rate', 0):.0f}/s; commit p50 {percentile(r.get('commit', []), 50) * 1000:.1f} "
                            f"ms, p99 {percentile(r.get('commit', []), 99) * 1000:.1f} ms; upload+commit p50 "
                            f"{percentile(r.get('round', []), 50) * 1000:.1f} ms, p99 "
                            f"{percentile(r.get('round', []), 99) * 1000:.1f} ms; CPU s: "
                            + ", ".join(f"{g} {c:.1f}" for g, c in r["cpu"].items())
                            + f" (client's own count {r['client_cpu']:.1f}) = {100 * r['ours']:.0f} % of "
                            f"{os.cpu_count()} CPUs, others {100 * r['foreign']:.0f} %; S3 requests "
                            f"{r['s3_requests'] or '-'}; retries {r['retries']} "
                            f"{r['statuses']}, reconnects {r['reconnects']}, conflicts {r['conflicts']}, "
                            f"errors {len(r['errors'])}, feed {'gap-free' if not r['gaps'] else r['gaps']}")
                        for e in r["errors"][:5]:
                            ctx.note(f"many-devices {key} run {run + 1}: {e}")
                        for g in r["gaps"]:
                            ctx.note(f"many-devices {key} run {run + 1}: feed not gap-free: {g}")
                        if r["commits"] != DEVICES * DEVICE_COMMITS:
                            raise BenchError(f"many-devices {key}: {r['commits']} of {DEVICES * DEVICE_COMMITS} "
                                             f"commits done; {r['errors'][:3]}")
    except Exception:
        logs = ""
        for e in ctx.finished[-3:]:
            logs += f"-- {e.root}: sync-server\n{tail(e.server_log, 15)}"
        ctx.failures.append(("many-devices", traceback.format_exc(), logs))
    for each in layouts:
        where = f"{DEVICES} folders" if each else "1 folder"
        for key, label, *_ in variants:
            rs = [r for r in results.get((each, key), []) if "rate" in r]
            if not rs:
                continue
            what = f"{label}, {DEVICES} devices x {DEVICE_COMMITS} commits, {where}"
            ctx.add("many-devices", f"{what}: commits/s", "", [r["rate"] for r in rs])
            for name, k in (("commit request", "commit"), ("upload + commit", "round")):
                ctx.add("many-devices", f"{what}: {name} p50 / p99", "",
                        [f"{percentile(r[k], 50) * 1000:.1f} / {percentile(r[k], 99) * 1000:.1f} ms" for r in rs])
            ctx.add("many-devices", f"{what}: CPU s (client: {DEVICE_PROCS} processes)", "",
                    ["; ".join(f"{g} {c:.1f}" for g, c in r["cpu"].items())
                     + f" = {100 * r['ours']:.0f} % of {os.cpu_count()} CPUs (others {100 * r['foreign']:.0f} %)"
                     + (f"; S3 requests {r['s3_requests']}" if r["s3_requests"] else "") for r in rs])
            ctx.add("many-devices", f"{what}: retries / non-2xx / conflicts / feed", "",
                    [f"{r['retries']} / {sum(r['statuses'].values())} / {r['conflicts']} / "
                     f"{'gap-free' if not r['gaps'] else 'GAPS'}" for r in rs])
        base = [r for r in results.get((each, "a"), []) if "rate" in r]
        for key, label, *_ in variants:
            rs = [r for r in results.get((each, key), []) if "rate" in r]
            if key == "a" or not base or not rs:
                continue
            n = min(len(base), len(rs))
            ctx.add("many-devices", f"ratio {key} / a, {where}: commits/s (same run)", "",
                    [r["rate"] / b["rate"] for r, b in zip(rs[:n], base[:n])])
            ctx.add("many-devices", f"ratio {key} / a, {where}: commit p99 (same run)", "",
                    [percentile(r["commit"], 99) / percentile(b["commit"], 99) for r, b in zip(rs[:n], base[:n])])


SCENARIOS = {
    "baseline": bench_baseline,
    "small-files": bench_small_files,
    "receive-small": bench_receive_small,
    "big-file": bench_big_file,
    "receive-big": bench_receive_big,
    "receive-restart": bench_receive_restart,
    "receive-kill": lambda ctx: bench_receive_restart(ctx, hard=True),
    "latency": bench_latency,
    "latency-open": lambda ctx: bench_latency(ctx, samples=15, keep_open=True),
    "latency-bulk": bench_latency_bulk,
    "latency-device": bench_latency_device,
    "scan-100k": bench_scan,
    "watch-10k": bench_watch,
    "noop-rescan": bench_noop,
    "idle": bench_idle,
    "dir-move": bench_dir_move,
    "receive-move": bench_receive_move,
    "receive-renames": bench_receive_renames,
    "delete-files": bench_delete_files,
    "receive-deletes": bench_receive_deletes,
    "receive-tree-delete": bench_receive_tree_delete,
    "gc": bench_gc,
    "scale-out": bench_scale_out,
    "many-devices": bench_many_devices,
}


# --------------------------------------------------------------------------- output


def percentile(values, p):
    v = sorted(values)
    if not v:
        return float("nan")
    k = (len(v) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def fmt(x, unit):
    if isinstance(x, str):
        return x
    if unit == "s":
        return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:.2f}"


def table(ctx):
    rows = ["| scenario | measure | median | samples | target | peers (DESIGN.md §8) |",
            "|---|---|---|---|---|---|"]
    for scen, metric, unit, samples, target, peer in ctx.results:
        nums = [s for s in samples if not isinstance(s, str)]
        if nums and len(nums) == len(samples):
            med = statistics.median(nums)
            med_s = fmt(med, unit) + ("" if unit in ("s", "") else f" {unit}")
            if metric.startswith("append one line"):
                shown = f"n={len(nums)}, min {fmt(min(nums), unit)}, max {fmt(max(nums), unit)}"
            else:
                shown = ", ".join(fmt(s, unit) for s in samples)
        else:
            med_s = samples[len(samples) // 2] if samples else "–"
            if unit and unit not in ("s",):
                med_s = f"{med_s} {unit}" if not str(med_s).endswith(unit) else med_s
            shown = ", ".join(str(s) for s in samples)
        rows.append(f"| {scen} | {metric} | **{med_s}** | {shown} | {target} | {peer} |")
    return "\n".join(rows)


def install_prerequisites(names):
    """The peer the scenarios compare with (rsync), from Debian's packages when missing; for
    scale-out, moto's S3 server from PyPI (as scripts/install-deps.sh; PostgreSQL's binaries are
    not installed here: scale-out says so when they are missing)."""
    if {"scale-out", "many-devices"} & set(names) and subprocess.run([sys.executable, "-c", "import moto.server, flask"],
                                               capture_output=True).returncode != 0:
        print("[bench] installing moto[server] (pip) for scale-out's S3 bucket", flush=True)
        pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "moto[server]>=5,<6"]
        if subprocess.run(pip).returncode != 0:
            subprocess.run(pip + ["--break-system-packages"], check=True)
    if shutil.which("rsync"):
        return
    print("[bench] installing rsync (apt-get) for the side-by-side figures", flush=True)
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "rsync"], check=True, env=env, stdout=subprocess.DEVNULL)


PAGE_REPORTING = "/sys/module/page_reporting/parameters/"
# One more than the kernel's largest buddy order (10): no free block is ever that large,
# so nothing is reported to the host.
PAGE_REPORTING_OFF = 11


def page_reporting():
    """(page_reporting_order, bytes reported so far) on a guest that reports free pages to its
    host (virtio-balloon free page reporting), else None."""
    try:
        with open(PAGE_REPORTING + "page_reporting_order") as f:
            order = int(f.read())
        with open(PAGE_REPORTING + "reported_kib") as f:
            reported = int(f.read()) << 10
    except (OSError, ValueError):
        return None
    return order, reported


def set_page_reporting(order):
    with open(PAGE_REPORTING + "page_reporting_order", "w") as f:
        f.write(str(order))


def steady_memory():
    """Turns free page reporting off and touches the free memory once (a page at a time, then
    lets it go): memory the host had taken back is backed again, and stays so for the run.
    Returns the order to put back at the end (None: nothing changed)."""
    reporting = page_reporting()
    if reporting is None:
        log("--steady-memory: this machine does not report free pages to a host; nothing to do")
        return None
    try:
        set_page_reporting(PAGE_REPORTING_OFF)
    except OSError as e:
        sys.exit(f"bench: --steady-memory cannot turn free page reporting off ({e}); run it as root")
    with open("/proc/meminfo") as f:
        info = {line.split(":")[0]: int(line.split()[1]) << 10 for line in f}
    # What the page cache and the processes of a run may take, minus room for the kernel.
    size = max(0, info["MemAvailable"] - (1 << 30))
    t0 = now()
    maps = []
    try:
        for _ in range(size >> 30):
            m = mmap.mmap(-1, 1 << 30)
            for off in range(0, 1 << 30, mmap.PAGESIZE):
                m[off] = 1
            maps.append(m)
    finally:
        for m in maps:
            m.close()
    log(f"--steady-memory: free page reporting off (was order {reporting[0]}); touched {len(maps)} GiB "
        f"in {now() - t0:.1f} s")
    return reporting[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="directory holding sync-server, syncd, syncctl (a release build)")
    ap.add_argument("--only", action="append", choices=sorted(SCENARIOS), help="run only this scenario (repeatable)")
    ap.add_argument("--runs", type=int, default=3, help="runs per scenario; medians are reported (default 3)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds before a scenario is declared stuck")
    ap.add_argument("--tmp", help="where to create the temp dirs (default: $TMPDIR or /tmp)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dirs (for looking at logs)")
    ap.add_argument("--server-data", metavar="DIR",
                    help="put the server's data_dir under DIR instead of the temp dir, e.g. /dev/shm to see "
                         "the figures without the disk (a diagnostic: tmpfs is not durable)")
    ap.add_argument("--json", help="also write the raw samples here")
    ap.add_argument("--steady-memory", action="store_true",
                    help="on a VM whose balloon takes freed memory back (free page reporting), turn reporting "
                         "off for the run and touch the free memory once, so that no run pays the host's "
                         "first-touch cost where another did not (root; the setting is put back at the end)")
    ap.add_argument("--wait-quiet", type=float, default=600,
                    help="before each measured run wait up to this many seconds for the machine to be >= 90%% idle "
                         "(0: do not wait; default 600)")
    args = ap.parse_args()
    names = args.only or list(SCENARIOS)
    install_prerequisites(names)
    args.bin = os.path.abspath(args.bin)
    for exe in ("sync-server", "syncd", "syncctl"):
        if not os.access(os.path.join(args.bin, exe), os.X_OK):
            sys.exit(f"bench: {os.path.join(args.bin, exe)} is not an executable; build with "
                     "`swift build -c release --scratch-path .build-bench` and pass --bin .build-bench/release")
    ctx = Ctx(args)
    restore_reporting = steady_memory() if args.steady_memory else None
    reporting = page_reporting()
    if reporting is not None and reporting[0] < PAGE_REPORTING_OFF:
        ctx.notes.append(
            f"free page reporting is on (page_reporting_order {reporting[0]}, {reporting[1] >> 20} GiB given back to "
            "the host so far): memory the guest frees goes back to the host, and touching it again costs the host's "
            "first-touch (2.7 s per GiB measured here, against 0.9 s), so a run that writes a big file into freshly "
            "given-back memory is slower than the same run after one that did not (docs/benchmarks.md, session 20). "
            "--steady-memory turns it off for the run.")

    def terminated(signum, frame):
        raise KeyboardInterrupt  # so that every finally runs (scale-out stops PostgreSQL and moto)
    signal.signal(signal.SIGTERM, terminated)
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    try:
        for name in SCENARIOS:
            if name in names:
                log(f"== {name}")
                SCENARIOS[name](ctx)
    except KeyboardInterrupt:
        log("interrupted")
    finally:
        ctx.cleanup()
        if restore_reporting is not None:
            set_page_reporting(restore_reporting)
    busy = f", CPU used by other processes during measurements: max {100 * max(ctx.busy):.0f} %" if ctx.busy else ""
    tmp = args.tmp or tempfile.gettempdir()
    where = f"temp dirs: {fs_info(tmp)}" + (f", server data: {fs_info(args.server_data)}" if args.server_data else "")
    print(f"\nsyncd benchmarks, {started}, {os.cpu_count()} CPUs, runs={args.runs}, bin={args.bin}; {where}{busy}\n")
    print(table(ctx))
    for n in ctx.notes:
        print(f"\nnote: {n}")
    for scen, msg, logtail in ctx.failures:
        print(f"\n### FAILED: {scen}\n\n```\n{msg}```\n\nsyncd log tail:\n\n```\n{logtail}```")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"started": started, "runs": args.runs, "results": ctx.results,
                       "notes": ctx.notes, "failures": ctx.failures}, f, indent=1)
    sys.exit(1 if ctx.failures else 0)


if __name__ == "__main__":
    main()
