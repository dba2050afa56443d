#!/usr/bin/env python3
"""Two builds side by side: runs scripts/bench.py once per build, alternating, for N pairs,
and prints each numeric figure's median for both with the change. The machine is shared
and its noise drifts over minutes; alternating run by run puts both builds in the same
drift, and rsync runs beside each (bench.py's own peer rows), so its ratios hold too.

    python3 scripts/bench-ab.py --a /tmp/before-bin --b .build-bench/release --pairs 5 \\
        --fresh-fs /work/benchfs.img /mnt/benchfs -- --only receive-small --only small-files

Everything after `--` goes to bench.py (the scenarios, `--steady-memory`, ...). With
`--fresh-fs IMAGE MOUNTPOINT` (as root) every run gets a new ext4 without a journal on a loop
device, made from IMAGE (8 GiB, sparse, created if missing) and mounted at MOUNTPOINT, which
becomes bench.py's `--tmp`: no run meets the inodes a run before it deleted (docs/benchmarks.md,
sessions 17 and 19). The image is unmounted at the end; remove it yourself.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def fresh_fs(image, mountpoint):
    # A run's processes can hold the file system a moment after they exit: try again.
    for _ in range(20):
        if subprocess.run(["mountpoint", "-q", mountpoint]).returncode != 0:
            break
        if subprocess.run(["umount", mountpoint], stderr=subprocess.DEVNULL).returncode == 0:
            break
        time.sleep(0.5)
    os.makedirs(mountpoint, exist_ok=True)
    if not os.path.exists(image):
        with open(image, "wb") as f:
            f.truncate(8 << 30)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-O", "^has_journal", image], check=True)
    subprocess.run(["mount", "-o", "loop", image, mountpoint], check=True)


def run_bench(binary, bench_args, tmp):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [sys.executable, os.path.join(HERE, "bench.py"), "--bin", binary, "--runs", "1", "--json", out] + bench_args
    if tmp:
        cmd += ["--tmp", tmp]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        with open(out) as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = {"results": [], "notes": [], "failures": [["bench.py", p.stdout[-2000:], ""]]}
    finally:
        if os.path.exists(out):
            os.unlink(out)
    return data


def numbers(samples):
    """The samples of a figure that are plain numbers (others, like "0.7u+0.2s", are skipped)."""
    if not isinstance(samples, list) or not samples:
        return None
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in samples):
        return [float(x) for x in samples]
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="directory with the first build's syncd, sync-server, syncctl")
    ap.add_argument("--b", required=True, help="directory with the second build's")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--fresh-fs", nargs=2, metavar=("IMAGE", "MOUNTPOINT"))
    ap.add_argument("bench_args", nargs="*", help="after --: passed to bench.py")
    args = ap.parse_args()
    bench_args = args.bench_args or []
    if "--wait-quiet" not in bench_args:
        bench_args += ["--wait-quiet", "10"]

    samples = {"a": {}, "b": {}}
    order = []
    notes = {}  # text -> the runs that said it ("a1", "b1", ...)
    try:
        for pair in range(args.pairs):
            for side in ("a", "b"):
                binary = getattr(args, side)
                tmp = None
                if args.fresh_fs:
                    fresh_fs(*args.fresh_fs)
                    tmp = args.fresh_fs[1]
                data = run_bench(binary, bench_args, tmp)
                run = f"{side}{pair + 1}"
                for failure in data.get("failures", []):
                    notes.setdefault(f"{failure[0]} failed", []).append(run)
                for note in data.get("notes", []):
                    notes.setdefault(note, []).append(run)
                for scenario, metric, unit, values, *_ in data.get("results", []):
                    nums = numbers(values)
                    if nums is None:
                        continue
                    key = (scenario, metric, unit)
                    if key not in order:
                        order.append(key)
                    samples[side].setdefault(key, []).extend(nums)
                print(f"pair {pair + 1} {side} done", file=sys.stderr)
    finally:
        if args.fresh_fs:
            subprocess.run(["umount", args.fresh_fs[1]], stderr=subprocess.DEVNULL)

    print(f"a = {args.a}, b = {args.b}, {args.pairs} pairs, alternated; bench.py {' '.join(bench_args)}")
    print()
    print("| scenario | figure | a: median (samples) | b: median (samples) | b / a |")
    print("|---|---|---|---|---|")
    for key in order:
        a, b = samples["a"].get(key), samples["b"].get(key)
        if not a or not b:
            continue
        scenario, metric, unit = key
        ma, mb = statistics.median(a), statistics.median(b)
        change = f"{mb / ma:.2f}" if ma else ""
        fmt = lambda xs: ", ".join(f"{x:.3g}" for x in xs)
        figure = f"{metric} ({unit})" if unit else metric
        print(f"| {scenario} | {figure} | {ma:.3g} ({fmt(a)}) | {mb:.3g} ({fmt(b)}) | {change} |")
    if notes:
        print()
        for note, runs in notes.items():
            print(f"- {', '.join(runs)}: {note}")


if __name__ == "__main__":
    main()
