#!/usr/bin/env python3
"""Benchmarks for syncd + sync-server on this machine (Python 3 standard library only).

    swift build -c release --scratch-path .build-bench
    python3 scripts/bench.py --bin .build-bench/release [--only NAME] [--runs 3]

Every scenario starts its own sync-server and syncd in a fresh temporary directory
(loopback, page cache warm), measures, kills both and removes the directory.
Scenarios (see docs/benchmarks.md for what each number means):

  small-files   10,000 x 4 KiB files in 100 directories: written while syncd runs
                (first write -> all 10,000 in the server's feed), and present before
                syncd starts (daemon start -> all 10,000 in the feed)
  big-file      one 1 GiB file written in the folder -> committed; then 1 MiB
                rewritten in the middle (os.pwrite) -> new revision committed, and
                the growth of the server's chunk store (a proxy for bytes sent)
  latency       one line appended to a synced file -> the revision in the feed,
                observed by a long-poll already waiting; 30 samples
  noop-rescan   10,000 files already synced: restart syncd -> idle, 0 pending
  idle          10,000 files synced, daemon idle: CPU over 30 s and RSS

Medians over --runs (latency: over its 30 samples). A markdown table is printed at the
end; --json FILE also writes the raw samples. Exit status 1 if a scenario failed
(its daemon log tail is printed).
"""

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
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

    def __init__(self, bindir, name, tmp_base=None):
        self.bin = bindir
        self.root = tempfile.mkdtemp(prefix=f"syncd-bench-{name}-", dir=tmp_base)
        self.folder = os.path.join(self.root, "folder")
        self.data_dir = os.path.join(self.root, "server")
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

    def start_server(self, timeout=30):
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        with open(self.server_conf, "w") as f:
            f.write(f'[server]\nlisten = "127.0.0.1:{port}"\ndata_dir = "{self.data_dir}"\n'
                    '[storage]\nmetadata = "sqlite"\nblobs = "filesystem"\nretention = "30d"\n')
        sv = os.path.join(self.bin, "sync-server")
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
        with open(self.daemon_conf, "w") as f:
            f.write(f'[daemon]\nstate_dir = "{self.state_dir}"\ncontrol_socket = "{self.sock}"\n'
                    f'log_level = "info"\n'
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
        p = subprocess.run([os.path.join(self.bin, "syncctl"), "--socket", self.sock, "status", "--json"],
                           capture_output=True, text=True, timeout=30)
        if p.returncode == 2:
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

    def close(self, keep=False):
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
        if keep:
            log(f"kept {self.root}")
        else:
            shutil.rmtree(self.root, ignore_errors=True)


class Feed:
    """The server's view of the folder, followed with the cursor."""

    def __init__(self, env):
        self.env = env
        self.cursor = 0
        self.entries = {}
        self.live_files = 0

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


def store_usage(data_dir):
    """(apparent bytes, allocated bytes, files) under data_dir/chunks, tmp excluded."""
    apparent = allocated = files = 0
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
        self.results = []   # (scenario, metric, unit, [samples], target, peer)
        self.failures = []  # (scenario, message, log tail)
        self.notes = []

    def env(self, name):
        e = Env(self.args.bin, name, self.args.tmp)
        self.envs.append(e)
        return e

    def done(self, env):
        env.close(keep=self.args.keep)
        if env in self.envs:
            self.envs.remove(env)

    def add(self, scenario, metric, unit, samples, target="", peer=""):
        self.results.append((scenario, metric, unit, samples, target, peer))

    def note(self, text):
        log(text)
        self.notes.append(text)


def bench_small_files(ctx):
    payloads = small_payloads()
    live, written, scan, scan_idle = [], [], [], []
    for run in range(ctx.args.runs):
        # (a) written while the daemon runs
        env = ctx.env("small-live")
        try:
            env.start_server()
            env.start_daemon()
            env.wait_idle(60)
            feed = Feed(env)
            feed.poll()
            t0 = now()
            write_small_files(env.folder, payloads)
            tw = now()
            t1 = feed.wait(all_small, ctx.args.timeout, "10,000 files (written live)")
            live.append(t1 - t0)
            written.append(tw - t0)
            log(f"small-files live run {run + 1}: wrote in {tw - t0:.2f} s, all committed after {t1 - t0:.2f} s")
            env.wait_idle(60)
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
            t0 = env.start_daemon()
            t1 = feed.wait(all_small, ctx.args.timeout, "10,000 files (initial scan)")
            t2 = env.wait_idle(60)
            scan.append(t1 - t0)
            scan_idle.append(t2 - t0)
            log(f"small-files scan run {run + 1}: all committed {t1 - t0:.2f} s after daemon start, idle at {t2 - t0:.2f} s")
        except Exception:
            ctx.failures.append(("small-files (scan)", traceback.format_exc(), tail(env.daemon_log)))
            return
        finally:
            ctx.done(env)
    ctx.add("small-files", "10k x 4 KiB written while syncd runs: first write -> all in server feed", "s",
            live, "<= 0.6 s", "rsync 1.23 s, lsyncd 1.67 s, unison 2.78 s, Syncthing 9.6 s")
    ctx.add("small-files", "(of which: writing the 10k files, Python)", "s", written)
    ctx.add("small-files", "10k x 4 KiB present at start: syncd start -> all in server feed", "s", scan,
            "<= 0.6 s", "(same peer row)")
    ctx.add("small-files", "10k x 4 KiB present at start: syncd start -> status idle", "s", scan_idle)


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


def bench_big_file(ctx):
    src_dir = tempfile.mkdtemp(prefix="syncd-bench-bigsrc-", dir=ctx.args.tmp)
    try:
        t = now()
        src = os.path.join(src_dir, "big.src")
        make_big_source(src)
        log(f"big-file: generated 1 GiB source in {now() - t:.1f} s")
        from_write, from_close, write_time, push_chunks = [], [], [], []
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
                t0 = now()
                copy_into(src, path)
                tc = now()
                t1 = feed.wait(committed, ctx.args.timeout, "the 1 GiB file")
                from_write.append(t1 - t0)
                from_close.append(t1 - tc)
                write_time.append(tc - t0)
                first = feed.entries["big.bin"]
                push_chunks.append(len(first["chunks"]))
                log(f"big-file run {run + 1}: written in {tc - t0:.2f} s, committed {t1 - tc:.2f} s after close "
                    f"({len(first['chunks'])} chunks)")
                env.wait_idle(120)
                # 1 MiB in the middle
                before = store_usage(env.data_dir)
                payload = rnd.randbytes(EDIT_SIZE)

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
                env.wait_idle(120)
                after = store_usage(env.data_dir)
                second = feed.entries["big.bin"]
                changed = len(set(second["chunks"]) - set(first["chunks"]))
                edit_time.append(t1 - t0)
                edit_apparent.append(after[0] - before[0])
                edit_alloc.append(after[1] - before[1])
                edit_files.append(after[2] - before[2])
                edit_changed.append(changed)
                log(f"big-file run {run + 1}: edit committed after {t1 - t0:.2f} s; chunk store +{after[0] - before[0]} B "
                    f"in {after[2] - before[2]} new chunk files; {changed} of {len(second['chunks'])} chunk hashes new")
            except Exception:
                ctx.failures.append(("big-file", traceback.format_exc(), tail(env.daemon_log)))
                return
            finally:
                ctx.done(env)
        ctx.add("big-file", "1 GiB written in the folder: first write -> committed", "s", from_write)
        ctx.add("big-file", "1 GiB: close -> committed (the file exists; comparable to peers)", "s", from_close,
                "<= 1.3 s", "rsync 1.60 s, lsyncd 1.97 s, Syncthing 4.8 s, unison 6.4 s")
        ctx.add("big-file", "(writing 1 GiB into the folder, Python, page cache)", "s", write_time)
        ctx.add("big-file", "(chunks in the 1 GiB file)", "", push_chunks)
        ctx.add("big-file", "1 MiB pwrite in the middle -> new revision committed", "s", edit_time,
                "<= 1.2 s", "rsync 2.55 s, lsyncd 2.66 s, Syncthing 4.7 s, unison 16.4 s")
        ctx.add("big-file", "after the edit: chunk store growth (bytes sent, proxy)", "MiB",
                [b / (1 << 20) for b in edit_apparent], "<= 3 MiB", "rsync 1.1 MiB, Syncthing 2 MiB")
        ctx.add("big-file", "after the edit: new chunk files / new chunk hashes in the entry", "",
                [f"{a}/{b}" for a, b in zip(edit_files, edit_changed)])
    finally:
        shutil.rmtree(src_dir, ignore_errors=True)


def bench_latency(ctx, samples=30):
    env = ctx.env("latency")
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
        i = 0
        while len(lat) < samples:
            i += 1
            if i > samples * 2:
                raise BenchError(f"only {len(lat)} of {samples} latency samples after {i - 1} tries")
            cursor = feed.cursor
            old_rev = feed.entries["log.txt"]["rev"]
            box = {}

            def waiter():
                try:
                    page = env.changes(cursor, wait=10, timeout=20)
                    box["t"] = now()
                    box["page"] = page
                except Exception as e:  # noqa: BLE001 - reported below
                    box["t"] = now()
                    box["error"] = e
            th = threading.Thread(target=waiter, daemon=True)
            th.start()
            time.sleep(0.15)  # the long-poll is now held by the server
            if "t" in box:
                raise BenchError(f"the long-poll returned before the write: {box}")
            t0 = now()
            with open(path, "a") as f:
                f.write(f"line {i} {time.time()}\n")
            th.join(15)
            if th.is_alive() or "error" in box:
                raise BenchError(f"long-poll failed: {box.get('error', 'no answer in 15 s')}")
            page = box["page"]
            hit = [e for e in page["entries"] if e["path"] == "log.txt" and e["rev"] > old_rev]
            feed._apply(page)
            if not hit:
                # woken by something else, or the 10 s wait expired: not a sample
                misses += 1
                feed.poll()
                env.wait_idle(30)
                continue
            lat.append(box["t"] - t0)
            env.wait_idle(30)
            time.sleep(0.2)
        if misses:
            ctx.note(f"latency: {misses} long-poll answers did not carry the append (not counted)")
        ctx.add("latency", "append one line -> revision seen by a waiting long-poll (median of 30)", "s",
                lat, "<= 0.05 s", "lsyncd 0.10 s, Syncthing 1.02 s")
        ctx.add("latency", "same, p90 of 30", "s", [percentile(lat, 90)])
        log(f"latency: median {statistics.median(lat) * 1000:.1f} ms, p90 {percentile(lat, 90) * 1000:.1f} ms, "
            f"max {max(lat) * 1000:.1f} ms")
    except Exception:
        ctx.failures.append(("latency", traceback.format_exc(), tail(env.daemon_log)))
    finally:
        ctx.done(env)


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
        times, answer = [], []
        for run in range(ctx.args.runs):
            env.stop_daemon()
            feed.poll()
            cursor = feed.cursor
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
            times.append(t1 - t0)
            answer.append(first - t0)
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


def bench_idle(ctx, seconds=30):
    env = None
    try:
        env, feed = synced_env(ctx)
        if env.daemon is None or env.daemon.poll() is not None:
            env.start_daemon()
        env.wait_idle(60)
        time.sleep(2)
        pid, spid = env.daemon.pid, env.server.pid
        c0, s0, t0 = proc_cpu_seconds(pid), proc_cpu_seconds(spid), now()
        time.sleep(seconds)
        c1, s1, t1 = proc_cpu_seconds(pid), proc_cpu_seconds(spid), now()
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


SCENARIOS = {
    "small-files": bench_small_files,
    "big-file": bench_big_file,
    "latency": bench_latency,
    "noop-rescan": bench_noop,
    "idle": bench_idle,
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="directory holding sync-server, syncd, syncctl (a release build)")
    ap.add_argument("--only", action="append", choices=sorted(SCENARIOS), help="run only this scenario (repeatable)")
    ap.add_argument("--runs", type=int, default=3, help="runs per scenario; medians are reported (default 3)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds before a scenario is declared stuck")
    ap.add_argument("--tmp", help="where to create the temp dirs (default: $TMPDIR or /tmp)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dirs (for looking at logs)")
    ap.add_argument("--json", help="also write the raw samples here")
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    for exe in ("sync-server", "syncd", "syncctl"):
        if not os.access(os.path.join(args.bin, exe), os.X_OK):
            sys.exit(f"bench: {os.path.join(args.bin, exe)} is not an executable; build with "
                     "`swift build -c release --scratch-path .build-bench` and pass --bin .build-bench/release")
    ctx = Ctx(args)
    names = args.only or list(SCENARIOS)
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    try:
        for name in SCENARIOS:
            if name in names:
                log(f"== {name}")
                SCENARIOS[name](ctx)
    except KeyboardInterrupt:
        log("interrupted")
    finally:
        for env in list(ctx.envs):
            ctx.done(env)
    print(f"\nsyncd benchmarks, {started}, {os.cpu_count()} CPUs, runs={args.runs}, bin={args.bin}\n")
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
