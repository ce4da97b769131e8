"""export.py -- what `python3 -m recorder -o FILE` costs in each format
(issue 21, item 2): the wall time of the whole run, program and file,
for -o x.json, x.pftrace and x.csv beside -o x.rec (the capture alone),
on a call-heavy script, in one run.

Each format is written by the `recorder` command in C from the capture
(the same conversion `recorder convert` does, with a Python scope's file
and line as args): no Python pass over the events.  Target: -o x.json
at most 1.5x the wall time of -o x.rec.

CPU time (user + system of every process of the run) is shown beside
the wall time: on a loaded machine the wall time is mostly waiting for a
core, and the CPU ratio says what the export itself adds.

Rounds interleave the formats in an order that rotates, so a busy moment
weighs on all of them; the ratio is the median over rounds of each
round's own ratio.  Prints a table; exits 0 when the target is met, 1
when it is missed, 2 when it could not run.

  PYTHONPATH=build-rel/python /usr/bin/python3 bench/python/export.py [--rounds R] [--calls N]
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

TARGET = 1.5
FORMATS = ["rec", "json", "pftrace", "csv"]

PROG = """
import sys
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
class Point:
    def __init__(self, x):
        self.x = x
    def norm(self):
        return abs(self.x)
def loop(n):
    s = 0
    for i in range(n):
        s += Point(i).norm()
    return s
n = int(sys.argv[1])
fib(22)
loop(n)
"""


def one(fmt, d, calls):
    out = os.path.join(d, "out." + fmt)
    if os.path.exists(out):
        os.unlink(out)
    cmd = [sys.executable, "-m", "recorder"] + (["-o", out] if fmt else []) + [os.path.join(d, "prog.py"),
                                                                            str(calls)]
    u0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t = time.perf_counter() - t0
    u1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (u1.ru_utime - u0.ru_utime) + (u1.ru_stime - u0.ru_stime)   # every process of the run, waited for
    if r.returncode != 0:
        raise SystemExit(f"export.py: {' '.join(cmd)} failed ({r.returncode}): {r.stderr[-400:]}")
    size = os.path.getsize(out) if fmt else 0
    return t, cpu, size, r.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=200000, help="iterations of the method loop (3 calls each)")
    a = ap.parse_args()
    try:
        import recorder  # noqa: F401 -- the package under test
    except ImportError as e:
        print(f"export.py: cannot import recorder ({e}): set PYTHONPATH=build-rel/python", file=sys.stderr)
        return 2
    load0 = " ".join("%.1f" % x for x in os.getloadavg())
    times = {f: [] for f in FORMATS}
    cpus = {f: [] for f in FORMATS}
    sizes, events = {}, None
    ratios = {f: [] for f in FORMATS[1:]}
    cpu_ratios = {f: [] for f in FORMATS[1:]}
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "prog.py"), "w") as f:
            f.write(PROG)
        for r in range(a.rounds):
            order = FORMATS[r % len(FORMATS):] + FORMATS[:r % len(FORMATS)]
            got, gotc = {}, {}
            for fmt in order:
                t, cpu, size, err = one(fmt, d, a.calls)
                got[fmt], gotc[fmt] = t, cpu
                times[fmt].append(t)
                cpus[fmt].append(cpu)
                sizes[fmt] = size
                if fmt == "json" and events is None:
                    import re
                    m = re.search(r"(\d+) events read", err)
                    events = int(m.group(1)) if m else None
            for fmt in FORMATS[1:]:
                ratios[fmt].append(got[fmt] / got["rec"])
                cpu_ratios[fmt].append(gotc[fmt] / gotc["rec"])
    load = os.getloadavg()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench import source_commit
    print(f"python3 -m recorder -o FILE, {a.rounds} rounds, {events} events per run "
          f"(Python {sys.version.split()[0]}, commit {source_commit()}, load at the start {load0}, "
          f"at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, {os.cpu_count()} CPUs)")
    print(f"  {'-o':<12}{'wall s':>10}{'/ .rec':>10}{'CPU s':>10}{'/ .rec':>10}{'bytes':>14}")
    for fmt in FORMATS:
        rat = f"{statistics.median(ratios[fmt]):.2f}" if fmt in ratios else "1"
        crat = f"{statistics.median(cpu_ratios[fmt]):.2f}" if fmt in cpu_ratios else "1"
        print(f"  {'x.' + fmt:<12}{statistics.median(times[fmt]):>10.3f}{rat:>10}"
              f"{statistics.median(cpus[fmt]):>10.3f}{crat:>10}{sizes[fmt]:>14}")
    print("  (medians over rounds; a ratio is the median of each round's own ratio; CPU: user + system of"
          " every process of the run)")
    rj = statistics.median(ratios["json"])
    met = rj <= TARGET
    print(f"target: -o x.json <= {TARGET}x -o x.rec: {rj:.2f} ({'met' if met else 'NOT met'})")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
