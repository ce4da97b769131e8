#!/usr/bin/env python3
"""recorder-top on a large capture file: how soon the first frame, how
long to read to the end, how much memory (docs/performance/tui.md,
"Capture files").

    file_bench.py --build BUILD [--scopes 50000000] [--dir /tmp] [--runs 3]

Makes a capture of N scopes (2N events) with tests/cli/gen_capture, then,
per run, starts recorder-top on it in a detached tmux session with
--stats: it prints when the first frame was drawn (first_frame_s, from
main()) and its peak RSS.  The run then presses > (jump to the end) and
times, on the screen, how long reading to the end takes.  Times are wall
times on whatever else the machine is doing: read them with the load
average printed beside them.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def tmux(sock, *args):
    return subprocess.run(["tmux", "-S", sock, "-f", "/dev/null", *args], capture_output=True, text=True,
                          check=True).stdout


def screen(sock):
    return tmux(sock, "capture-pane", "-p", "-t", "b")


def wait_for(pred, what, timeout=600):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.05)
    sys.exit(f"file_bench: waited {timeout}s for {what}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--scopes", type=int, default=50_000_000)
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--file", help="an existing capture instead of making one (kept)")
    a = ap.parse_args()
    top = os.path.join(a.build, "viewer-tui", "recorder-top")
    gen = os.path.join(a.build, "tests", "cli", "gen_capture")
    d = tempfile.mkdtemp(prefix="file-bench-", dir=a.dir)
    cap = os.path.join(d, "big.rec")
    if a.file:
        cap = a.file
        print(f"capture: {cap}, {os.path.getsize(cap) / 1e6:.0f} MB")
    else:
        out = subprocess.run([gen, cap, "scopes", str(a.scopes)], capture_output=True, text=True, check=True).stdout
        print(f"capture: {out.strip()}, {os.path.getsize(cap) / 1e6:.0f} MB")
    sock_dir = tempfile.mkdtemp(prefix="file-bench-tmux-")   # tmux leaves its socket behind: removed with this
    sock = os.path.join(sock_dir, "sock")
    try:
        for run in range(a.runs):
            stats = os.path.join(d, f"stats{run}.txt")
            tmux(sock, "new-session", "-d", "-s", "b", "-x", "120", "-y", "30",
                 f"env LANG=C.UTF-8 {top} --stats {cap} 2>{stats}")
            wait_for(lambda: "│ t " in screen(sock), "the first window")
            t0 = time.monotonic()
            # A capture shorter than the first window (10 s) is all in it:
            # there is nothing to read on to (and > changes nothing).
            w = re.search(r"│ t [\d.]+-([\d.]+) s of ([\d.]+) s", screen(sock).split("\n")[0])
            whole = w and float(w.group(1)) >= float(w.group(2))
            if not whole:
                tmux(sock, "send-keys", "-t", "b", ">")
                wait_for(lambda: "reading" in screen(sock) or re.search(r"of [\d.]+ s", screen(sock).split("\n")[0])
                         and "│ t 0" not in screen(sock), "reading to start")
                wait_for(lambda: "reading" not in screen(sock).split("\n")[0], "the end")
            to_end = time.monotonic() - t0
            head = screen(sock).split("\n")[0].strip()
            tmux(sock, "send-keys", "-t", "b", "q")
            wait_for(lambda: os.path.exists(stats) and "first_frame_s" in open(stats).read(), "--stats")
            st = open(stats).read()
            ff = float(re.search(r"first_frame_s=([\d.]+)", st).group(1))
            rss = int(re.search(r"maxrss_kb=(\d+)", st).group(1))
            load = os.getloadavg()[0]
            end = "all in the first window (a capture under 10 s)" if whole else f"to the end {to_end:.1f} s"
            print(f"run {run}: first frame {ff:.2f} s, {end}, peak RSS {rss / 1024:.0f} MiB, "
                  f"load {load:.1f}  [{head}]")
            subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)
    finally:
        subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)
        shutil.rmtree(sock_dir, ignore_errors=True)
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        os.rmdir(d)


if __name__ == "__main__":
    main()
