#!/usr/bin/env python3
"""Do the viewers keep up with a million names?  (issue 22 item 3;
figures in docs/performance/names.md)

    names_bench.py --build BUILD [--names 1000000] [--rate 1e6] [--threads 2]
                   [--seconds 10] [--rounds 1] [--only top|web] [--window 1s|10s|all]

tui_bench_writer writes --rate events/s, every scope of a run-time name
(REC_SCOPE_DYN) out of --names distinct ones.  Against it, one after the
other in the same run: recorder-top (in tmux, as run_bench.py does) and
recorder-web with one page-like client (bench/web/names_peer.js: the
page's decoder, no browser), which shows --window (10s, what the page
shows first: the server adds up only the windows pages show).  For each
it reports its CPU while the
writer ran (utime + stime over wall time: cores), the fraction of the
written events it decoded, and its peak resident memory, with the load
and the commit.  Ratios, not timed asserts: the machine may be shared.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def web_one(a, build):
    w = subprocess.Popen(run_bench.writer_cmd(a, a.rate), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    m = re.match(r"ready (\d+)", w.stdout.readline())
    if not m:
        sys.exit("names_bench: the writer did not start")
    srv = subprocess.Popen([os.path.join(build, "viewer-web/recorder-web"), m.group(1), "--port", "0"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peer = None
    try:
        url = None
        for line in srv.stdout:
            if line.startswith("http://"):
                url = line.strip()
                break
        if not url:
            sys.exit("names_bench: recorder-web did not start")
        win = str(["1s", "10s", "all"].index(a.window))
        peer = subprocess.Popen(["node", os.path.join(HERE, "../web/names_peer.js"), url, win], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
        if peer.stdout.readline().strip() != "connected":
            sys.exit("names_bench: the client did not connect")
        c0, t0 = run_bench.cpu_seconds(srv.pid), time.monotonic()
        w.stdin.write("go\n")
        w.stdin.flush()
        out = w.stdout.read()
        w.wait()
        c1, t1 = run_bench.cpu_seconds(srv.pid), time.monotonic()
        rss = run_bench.peak_rss_mib(srv.pid)
        time.sleep(0.5)   # a last drain
        peer.stdin.write("end\n")
        peer.stdin.flush()
        st = json.loads(peer.stdout.readline())
    finally:
        for p in (peer, srv, w):
            if p and p.poll() is None:
                p.terminate()
                p.wait()
    mw = re.search(r"written=(\d+) seconds=([\d.]+) rate=(\d+)", out)
    return {"written": int(mw.group(1)), "writer rate": float(mw.group(3)), "decoded": st["events"],
            "lost": st["lost"], "cpu": (c1 - c0) / (t1 - t0), "rss_mib": rss}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--names", type=int, default=1000000)
    ap.add_argument("--rate", type=float, default=1e6)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--only", choices=["top", "web"])
    ap.add_argument("--window", choices=["1s", "10s", "all"], default="10s",
                    help="the statistics window recorder-web's client shows (default 10s, as the page)")
    a = ap.parse_args()
    a.top = os.path.join(a.build, "viewer-tui/recorder-top")
    a.writer = os.path.join(a.build, "bench/tui/tui_bench_writer")
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", HERE, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    print(f"names_bench: {a.names} names, {a.rate / 1e6:g} M events/s asked, {a.threads} threads, {a.seconds:g} s, "
          f"web window {a.window}, "
          f"commit {commit}{'+changes' if dirty else ''}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    print(f"{'viewer':>13} {'written ev/s':>13} {'decoded':>9} {'lost':>9} {'cpu (cores)':>11} {'peak RSS':>9}")
    for _ in range(a.rounds):
        for name in ("top", "web"):
            if a.only and a.only != name:
                continue
            x = run_bench.one(a, a.rate) if name == "top" else web_one(a, a.build)
            dec = x["decoded"] / max(1, x["written"])
            lost = x["lost"] / max(1, x["written"])
            label = "recorder-top" if name == "top" else "recorder-web"
            print(f"{label:>13} {x['writer rate'] / 1e6:>11.2f} M {dec:>9.3f} {lost:>9.3f} {x['cpu']:>11.3f} "
                  f"{x['rss_mib']:>6.0f} MiB")
    print(f"load at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
