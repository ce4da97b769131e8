#!/usr/bin/env python3
"""test_report_scale.py RECORDER GEN_CAPTURE WORKDIR TEST [SANITIZE] --
`recorder report` at any size, and two runs side by side (docs/cli.md,
"report").

  diff     two crafted captures (capfile.py: ticks are ns, so every
           duration is known) with known differences: `report A --diff B`
           gives each scope's calls, mean, P50 and P99 in A and B and
           their change, exactly (P50/P99 as the histogram bucket midpoint
           the docs promise, computed here the same way); --sort orders by
           the change asked for; a scope only in A is "gone", only in B
           "new"; --sort without --diff and a bad key are usage errors.
  counts   captures of 20,000 and 200,000 scopes (gen_capture, nothing
           lost): the report's events and calls are the file's, exactly.
  names    a capture of 1,100,000 scopes of distinct names, more (thread,
           call path) sums than the whole run's table holds (2^20,
           docs/analysis.md "Bounds"): the report says how many slices
           went to the (other) row, and that row holds exactly that many
           calls, so that every slice is accounted for.
  memory   the same at 300,000 and 3,000,000 scopes: report's peak RSS is
           under a fixed bound (32 MiB) for both -- with the event log it
           kept before, 47 MiB and 449 MiB.  Plain builds only (suite
           core): a sanitizer's shadow memory is not the program's.

Nothing is timed: timeouts only keep a broken build from hanging.
"""
import math
import os
import re
import subprocess
import sys

from capfile import Capture, entry
from clitest import OK, SKIP, USAGE, WORK, PROG, RECORDER, check, main, require, rec

GEN = PROG
SANITIZE = sys.argv[5] if len(sys.argv) > 5 else "none"
BEGIN, END = 1, 2
RSS_BOUND_KB = 32 * 1024


def hist_mid(ns):
    """librecorder/analysis/histogram.h: the midpoint of ns's bucket."""
    if ns < 1:
        return 0.5
    e = math.frexp(ns)[1] - 1
    lo = 2.0 ** e
    sub = int((ns / lo - 1.0) * 32)
    return lo * (1.0 + (sub + 0.5) / 32)


def pctl(durs, p):
    """Nearest rank on the histogram, clamped to min..max (stats.c)."""
    s = sorted(durs)
    rank = max(1, math.ceil(p * len(s) - 1e-7))
    return min(max(hist_mid(s[rank - 1]), s[0]), s[-1])


def crafted(path, scopes):
    """One thread; scopes: {name: [durations in ns]}, run one after another."""
    ids = {n: 3 + i for i, n in enumerate(sorted(scopes))}
    c = Capture().source(max_threads=8).strings([(i, n.encode()) for n, i in ids.items()]).thread(0, 4242, b"main")
    t, ents = 1000, []
    for n in sorted(scopes):
        for d in scopes[n]:
            ents += [entry(BEGIN, t, ids[n]), entry(END, t + d, ids[n])]
            t += d + 100
    c.chunk(0, ents)
    return c.end().write(path)


A = {"alpha": [1000, 2000, 3000, 10000], "beta": [500, 500], "gone": [700]}
B = {"alpha": [1000, 2000, 3000, 20000], "beta": [500, 500, 800], "fresh": [50, 50]}


def diff_rows(out):
    rows = []
    for line in out.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 5 and not parts[0].startswith("Calls"):
            rows.append((parts[4], [p.split() for p in parts[:4]]))
    return rows


def us(ns):
    return f"{ns / 1e3:.3f}"


def pct(a, b):
    return f"{100.0 * (b - a) / a:+.1f}%"


def test_diff():
    a, b = crafted(os.path.join(WORK, "a.rec"), A), crafted(os.path.join(WORK, "b.rec"), B)
    code, out, err = rec("report", a, "--diff", b)
    out = out.decode()
    print(out)
    require(code == OK, f"report --diff exits 0 ({err.decode().strip()})")
    check("approximate" in out and "1.6%" in out, "it says P50 and P99 are approximate, and to what")
    rows = diff_rows(out)
    names = [n for n, _ in rows]
    # By the change in mean: alpha +2.5 us, gone 0.7 us, beta +0.1 us, fresh 0.05 us.
    check(names == ["alpha", "gone", "beta", "fresh"], f"sorted by the change in mean: {names}")
    got = dict(rows)
    for n in ("alpha", "beta"):
        da, db = A[n], B[n]
        want = [[str(len(da)), str(len(db)), f"{len(db) - len(da):+d}", pct(len(da), len(db))]]
        for f in (lambda d: sum(d) / len(d), lambda d: pctl(d, 0.5), lambda d: pctl(d, 0.99)):
            va, vb = f(da), f(db)
            want.append([us(va), us(vb), f"{(vb - va) / 1e3:+.3f}", pct(va, vb)])
        check(got.get(n) == want, f"{n}: {got.get(n)} == {want}")
    g, f = got.get("gone"), got.get("fresh")
    check(g is not None and g[0] == ["1", "-", "-1", "gone"] and g[1] == ["0.700", "-", "-", "gone"],
          f"a scope only in A is gone: {g}")
    check(f is not None and f[0] == ["-", "2", "+2", "new"] and f[3] == ["-", "0.050", "-", "new"],
          f"a scope only in B is new: {f}")
    # alpha's P99 went from 10 us to 20 us, exactly (clamped to the max).
    check(got["alpha"][3][:2] == ["10.000", "20.000"], f"alpha's P99 10 -> 20 us: {got['alpha'][3]}")
    for key, want in (("calls", ["fresh", "beta", "gone", "alpha"]), ("p99", ["alpha", "gone", "beta", "fresh"]),
                      ("name", ["alpha", "beta", "fresh", "gone"])):
        code, out, _ = rec("report", a, "--diff", b, "--sort", key)
        names = [n for n, _ in diff_rows(out.decode())]
        check(code == OK and names == want, f"--sort {key}: {names}")
    code, out, _ = rec("report", a, "--diff", b, "--top", "1")
    check(code == OK and len(diff_rows(out.decode())) == 1 and b"Showing 1/4" in out, "--top 1: one row of 4")
    for args in (["--sort", "mean"], ["--diff", b, "--sort", "median"], ["--diff", b, "--thread", "1"]):
        code, _, err = rec("report", a, *args)
        check(code == USAGE, f"report {args}: usage error ({err.decode().strip()})")


def gen(n, mode="scopes"):
    path = os.path.join(WORK, f"s{n}.rec")
    r = subprocess.run([GEN, path, mode, str(n)], capture_output=True, text=True, timeout=600, cwd=WORK)
    require(r.returncode == 0, f"gen_capture {mode} {n}: {r.stdout.strip()} {r.stderr.strip()}")
    m = re.match(r"slices (\d+) threads (\d+) entries (\d+) dropped 0", r.stdout)
    require(m is not None, f"it says what it wrote ({r.stdout.strip()})")
    return path, int(m.group(3))


def check_counts(path, n, entries, out):
    # A counter ("done", every 2^20 scopes) is one event in two entries.
    events = entries - n // (1 << 20)
    m = re.search(r"capture: 2 threads, (\d+) events", out)
    check(m is not None and int(m.group(1)) == events, f"{n}: the report's events are the file's {events}")
    calls = {}
    for line in out.splitlines():
        f = line.split(None, 6)
        if len(f) == 7 and f[0].endswith("%"):
            calls[f[6]] = calls.get(f[6], 0) + int(f[2])
    check(calls.get("work") == n and calls.get("main") == 1 and calls.get("side") == 3,
          f"{n}: calls are the file's (work {n}, main 1, side 3): {calls}")


def test_counts():
    for n in (20000, 200000):
        path, entries = gen(n)
        code, out, err = rec("report", path)
        require(code == OK, f"report exits 0 ({err.decode().strip()})")
        check_counts(path, n, entries, out.decode())


def test_names():
    n = 1100000
    path, _ = gen(n, "names")
    code, out, err = rec("report", path)
    require(code == OK, f"report exits 0 ({err.decode().strip()})")
    out = out.decode()
    m = re.search(r"^(\d+) slices? in \(other\): names past the tables' limit", out, re.M)
    require(m is not None, "the report says how many slices are in (other)")
    over = int(m.group(1))
    check(0 < over < n, f"some, not all, of the {n} names are past the limit ({over})")
    # Each thread's (other) row: together, exactly the slices counted.
    other = [int(line.split(None, 6)[2]) for line in out.splitlines()
             if line.rstrip().endswith(" (other)") and line.split()[0].endswith("%")]
    check(other and sum(other) == over, f"the (other) rows hold exactly those calls ({other} vs {over})")
    os.unlink(path)


def test_memory():
    if SANITIZE not in ("", "none"):
        print("skipped: a sanitizer's shadow memory is not the program's")
        return SKIP
    for n in (300000, 3000000):
        path, entries = gen(n)
        p = subprocess.Popen([RECORDER, "report", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=WORK)
        out = p.stdout.read().decode()
        err = p.stderr.read().decode()
        _, status, ru = os.wait4(p.pid, 0)
        require(os.waitstatus_to_exitcode(status) == OK, f"report of {n} scopes exits 0 ({err.strip()})")
        check_counts(path, n, entries, out)
        check(ru.ru_maxrss < RSS_BOUND_KB, f"{n} scopes: peak RSS {ru.ru_maxrss} KiB < {RSS_BOUND_KB} KiB")
        os.unlink(path)


main({"diff": test_diff, "counts": test_counts, "names": test_names, "memory": test_memory})
