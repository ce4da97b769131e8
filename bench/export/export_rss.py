#!/usr/bin/env python3
"""export_rss.py -- peak memory and speed of `recorder convert` on a large
capture (docs/performance/export.md, "Streaming a whole capture").

usage: export_rss.py [--build DIR] [--scopes N] [--dir DIR] [--formats json,perfetto,csv,folded] [--keep]

Makes a capture of N scopes (default 50 M: 100 M events) with
tests/cli/gen_capture (exactly, nothing dropped), converts it to each
format with `/usr/bin/time -v recorder convert --force`, and prints per
format: peak RSS, wall and CPU time, events read per second of wall time,
and the output's size.  Outputs are deleted as soon as they are measured
(the JSON is about 7 GB: check `df -h DIR` first); the capture too,
unless --keep.  The machine is shared: run it more than once and keep the
CPU times next to the wall times.
"""
import argparse
import os
import re
import subprocess
import sys


def timed(argv):
    """Runs argv under /usr/bin/time -v; returns (exit code, stderr, {field: value})."""
    r = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True)
    fields = {}
    for line in r.stderr.splitlines():
        m = re.match(r"\s+(.+?): (.+)$", line)
        if m:
            fields[m.group(1)] = m.group(2)
    return r.returncode, r.stderr, fields


def seconds(s):
    """'1:02.35' or '0:01:02' -> seconds."""
    parts = [float(p) for p in s.split(":")]
    v = 0.0
    for p in parts:
        v = v * 60 + p
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--build", default=os.path.join(here, "..", "..", "build"))
    ap.add_argument("--scopes", type=int, default=50_000_000)
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--formats", default="json,perfetto,csv,folded")
    ap.add_argument("--keep", action="store_true", help="keep the capture")
    a = ap.parse_args()
    recorder = os.path.join(a.build, "librecorder", "cli", "recorder")
    gen = os.path.join(a.build, "tests", "cli", "gen_capture")
    cap = os.path.join(a.dir, f"export_rss.{os.getpid()}.rec")
    if not os.path.exists(cap):
        code, err, f = timed([gen, cap, "scopes", str(a.scopes)])
        if code != 0:
            sys.exit(f"gen_capture failed: {err[-500:]}")
    print(f"capture: {a.scopes} scopes, {os.path.getsize(cap) / 1e6:.0f} MB")
    try:
        for fmt in a.formats.split(","):
            ext = {"perfetto": "pftrace"}.get(fmt, fmt)   # the format from the extension, as users do
            out = os.path.join(a.dir, f"export_rss.{os.getpid()}.{ext}")
            code, err, f = timed([recorder, "convert", cap, "-o", out, "--force"])
            if code != 0:
                sys.exit(f"convert to {fmt} failed: {err[-800:]}")
            size = os.path.getsize(out)
            os.unlink(out)
            m = re.search(r"; (\d+) events read", err)
            events = int(m.group(1)) if m else 0
            wall = seconds(f["Elapsed (wall clock) time (h:mm:ss or m:ss)"])
            cpu = float(f["User time (seconds)"]) + float(f["System time (seconds)"])
            summary = [l for l in err.splitlines() if l.startswith("recorder: wrote")]
            print(f"{fmt:7s} peak RSS {int(f['Maximum resident set size (kbytes)']) / 1024:7.1f} MiB  "
                  f"wall {wall:6.1f} s  cpu {cpu:6.1f} s (user {f['User time (seconds)']}, "
                  f"sys {f['System time (seconds)']})  {events / wall / 1e6:5.2f} M events/s  "
                  f"{size / 1e9:6.2f} GB")
            if summary:
                print("        " + summary[0][:200])
    finally:
        if not a.keep:
            os.unlink(cap)


if __name__ == "__main__":
    main()
