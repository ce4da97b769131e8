"""The demo inference's command line: it runs until SIGINT or SIGTERM and
then exits cleanly (status 0, segment marked closed); --help works; bad
arguments get one line on stderr and status 2.

usage: test_inference_cli.py INFERENCE SEG_EVENTS"""
import os
import re
import signal
import subprocess
import sys
import time

from common import Checker, no_sanitizer_reports, read_segment, remove_segment


def tokens_recorded(seg_events, path):
    seg = read_segment(seg_events, path)
    return sum(1 for t in seg["threads"] for e in t["events"] if e["t"] == "I" and e["name"] == "token")


def run_until_signal(c, inference, seg_events, sig):
    env = dict(os.environ, RECORDER_KEEP="1")
    env.pop("RECORDER", None)
    env.pop("RECORDER_NAME", None)
    p = subprocess.Popen([inference, "--threads", "2", "--layers", "1", "--dim", "64", "--rate", "50"],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    path = f"/dev/shm/recorder.{p.pid}"
    try:
        # Wait (without a time assertion: the test's own timeout bounds it)
        # until a few tokens are in the live segment.
        while p.poll() is None:
            if os.path.exists(path):
                try:
                    if tokens_recorded(seg_events, path) >= 3:
                        break
                except (AssertionError, ValueError):
                    pass  # not fully created yet
            time.sleep(0.05)
        c.check(p.poll() is None, f"still running before {sig.name}")
        p.send_signal(sig)
        out, err = p.communicate(timeout=120)
        print(out, err, sep="")
        c.check(p.returncode == 0, f"exit status after {sig.name}: {p.returncode}")
        no_sanitizer_reports(c, f"inference until {sig.name}", err)
        c.check("stopped by a signal" in out, f"says it was stopped by {sig.name}")
        m = re.search(r"inference: (\d+) tokens in", out)
        c.check(m and int(m.group(1)) >= 3, f"summary after {sig.name}")
        seg = read_segment(seg_events, path)
        c.check(seg["closed"] == 1, f"segment marked closed after {sig.name}")
        if m:
            n = sum(1 for t in seg["threads"] for e in t["events"] if e["t"] == "I" and e["name"] == "token")
            c.check(n == int(m.group(1)), f"{n} token instants == the {m.group(1)} tokens it reports")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        remove_segment(path)


def main():
    inference, seg_events = sys.argv[1], sys.argv[2]
    c = Checker()
    run_until_signal(c, inference, seg_events, signal.SIGINT)
    run_until_signal(c, inference, seg_events, signal.SIGTERM)

    r = subprocess.run([inference, "--help"], capture_output=True, text=True, timeout=60)
    c.check(r.returncode == 0 and "--tokens N" in r.stdout and "--threads N" in r.stdout, "--help")
    env = dict(os.environ, RECORDER="0")
    for args, what in ((["--dim", "100"], "multiple of 32"), (["--threads", "0"], "between 1 and 64"),
                       (["--tokens"], "needs a value"), (["--layers", "x"], "not a number"),
                       (["--frobnicate"], "unknown option"), (["--rate", "-1"], "0..1000000"),
                       (["--layers", "64", "--dim", "4096"], "MiB")):
        r = subprocess.run([inference] + args, capture_output=True, text=True, timeout=60, env=env)
        lines = r.stderr.splitlines()
        c.check(r.returncode == 2, f"{args}: exit status {r.returncode}")
        c.check(len(lines) == 1 and what in lines[0], f"{args}: one line saying {what!r}: {r.stderr!r}")
        c.check(r.stdout == "", f"{args}: nothing on stdout")
    r = subprocess.run([inference, "--tokens", "2", "--dim", "32", "--layers", "1", "--rate", "0"],
                       capture_output=True, text=True, timeout=120, env=env)
    c.check(r.returncode == 0 and "recording is off" in r.stdout, f"RECORDER=0 runs unrecorded: {r.stdout!r}")
    c.done()


if __name__ == "__main__":
    main()
