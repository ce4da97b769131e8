#!/usr/bin/env python3
"""Does recorder-top keep up?  (docs/performance/tui.md)

    run_bench.py --top PATH --writer PATH [--threads 4] [--rate 20e6] [--seconds 10]

Starts tui_bench_writer (paused), runs recorder-top against it in a detached
tmux session, lets the writer go, and reports:
  - the rate the writer achieved (events/s),
  - recorder-top's CPU while the writer ran, from /proc/<pid>/stat
    (utime + stime over wall time; 0.5 = half a core),
  - the events recorder-top decoded and lost (its --stats line), against
    what the writer wrote.
--rate 0 writes at full speed.  Several --rate values run one after another.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """utime + stime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def tmux(sock, *args):
    return subprocess.run(["tmux", "-S", sock, "-f", "/dev/null", *args], capture_output=True, text=True,
                          check=True).stdout


def wait_for(pred, what, timeout=20):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    sys.exit(f"run_bench: timed out waiting for {what}")


def peak_rss_mib(pid):
    """The most resident memory a process had (VmHWM), in MiB."""
    with open(f"/proc/{pid}/status") as f:
        m = re.search(r"VmHWM:\s+(\d+)", f.read())
    return int(m.group(1)) / 1024 if m else float("nan")


def writer_cmd(a, rate):
    names = ["--names", str(a.names)] if getattr(a, "names", 0) else []
    return [a.writer, "--threads", str(a.threads), "--rate", str(rate), "--seconds", str(a.seconds), *names]


def one(a, rate):
    w = subprocess.Popen(writer_cmd(a, rate),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    m = re.match(r"ready (\d+)", w.stdout.readline())
    if not m:
        sys.exit("run_bench: the writer did not start")
    wpid = int(m.group(1))
    sock_dir = tempfile.mkdtemp(prefix="rtop-bench-")   # tmux leaves its socket behind: removed with this
    sock = os.path.join(sock_dir, "sock")
    stats = tempfile.NamedTemporaryFile(delete=False)
    stats.close()
    # exec: the pane's pid is recorder-top's.
    cmd = f"exec env LANG=C.UTF-8 {shlex.quote(a.top)} --stats {wpid} 2>{shlex.quote(stats.name)}"
    tmux(sock, "new-session", "-d", "-s", "b", "-x", "120", "-y", "40", cmd)
    try:
        tpid = int(tmux(sock, "display-message", "-p", "-t", "b", "#{pane_pid}").strip())
        wait_for(lambda: f"pid {wpid}" in tmux(sock, "capture-pane", "-p", "-t", "b"), "recorder-top's first screen")
        c0, t0 = cpu_seconds(tpid), time.monotonic()
        w.stdin.write("go\n")
        w.stdin.flush()
        out = w.stdout.read()
        w.wait()
        c1, t1 = cpu_seconds(tpid), time.monotonic()
        rss = peak_rss_mib(tpid)
        screen = tmux(sock, "capture-pane", "-p", "-t", "b")
        time.sleep(0.5)          # a last drain
        tmux(sock, "send-keys", "-t", "b", "q")
        text = wait_for(lambda: open(stats.name).read() if "decoded=" in open(stats.name).read() else None,
                        "recorder-top's --stats line")
    finally:
        subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)
        shutil.rmtree(sock_dir, ignore_errors=True)
        if w.poll() is None:
            w.kill()
    os.unlink(stats.name)
    mw = re.search(r"written=(\d+) seconds=([\d.]+) rate=(\d+)", out)
    ms = re.search(r"decoded=(\d+) lost=(\d+)", text)
    written, wsec, wrate = int(mw.group(1)), float(mw.group(2)), float(mw.group(3))
    decoded, lost = int(ms.group(1)), int(ms.group(2))
    share = (c1 - c0) / (t1 - t0)
    return {
        "rate asked": "full speed" if rate == 0 else f"{rate / 1e6:.0f} M/s",
        "written": written, "writer rate": wrate, "seconds": wsec,
        "decoded": decoded, "lost": lost, "cpu": share, "rss_mib": rss,
        "header": screen.split("\n")[0].strip(),
        "stats": text.strip().splitlines()[-1],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", required=True)
    ap.add_argument("--writer", required=True)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--rate", type=float, action="append")
    ap.add_argument("--seconds", type=float, default=10)
    a = ap.parse_args()
    rates = a.rate or [20e6]
    print(f"recorder-top against tui_bench_writer: {a.threads} threads, {a.seconds:g} s, "
          f"{os.cpu_count()} CPUs, default 1 MiB rings")
    print(f"{'asked':>11} {'written ev/s':>13} {'written':>12} {'decoded':>12} {'lost':>10} {'lost %':>7} "
          f"{'cpu (cores)':>11}")
    for r in rates:
        x = one(a, r)
        lost_pct = 100 * x["lost"] / max(1, x["decoded"] + x["lost"])
        print(f"{x['rate asked']:>11} {x['writer rate'] / 1e6:>11.1f} M {x['written']:>12} {x['decoded']:>12} "
              f"{x['lost']:>10} {lost_pct:>6.3f}% {x['cpu']:>11.3f}")
        print(f"{'':>11} title bar during the run: {x['header']}")
        print(f"{'':>11} {x['stats']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
