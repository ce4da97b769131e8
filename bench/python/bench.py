"""bench.py -- what recording Python costs, next to the profilers people use.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/bench.py [--rounds R] [--json]

Workloads (each a function run to completion):
  calls    recursive fib(22) and a loop of small method calls: Python calls
  native   many numpy calls on 4x4 arrays: builtins and extension functions
  pool     a ThreadPoolExecutor(4) of small json.dumps/loads and sha256 tasks:
           builtins on threads started inside the run (issue 21)
  lines    a loop of one-line arithmetic statements: lines, no calls
  scope    `with recorder.scope("x"): pass` against `with Empty(): pass`

Tools, each installed and removed around every run, in this process:
  recorder (the hook `auto` picks: builtins on, builtins shorter than
  10 us not recorded; with --all-builtins; with --no-native),
  every recorder hook this Python has, cProfile, yappi (wall and CPU
  clocks, builtins on), a pure-Python sys.setprofile hook that does
  nothing, line_profiler against recorder's line mode; and the floor of
  any profile function, a C one that does nothing (what CPython's
  profiling machinery costs by itself).

Method: R rounds; a round runs the baseline and every tool (each the
least disturbed of 3 runs), in an order that rotates from round to round;
a tool's figure for a round is its time over the same round's baseline.  Reported: the median over the
rounds and the interquartile range, as slowdown (x) and as time added per
event (ns), events counted exactly beforehand (sys.setprofile/settrace).
A target's ratio is the median over rounds of the two tools' added times
in the same round.  Ratios measured in one run are what the targets are
about (issue 11):
  recorder's added cost per call <= 0.5x cProfile's and <= 0.3x the
  pure-Python hook's; line mode <= 0.5x line_profiler's per line;
  scope() <= 1.5x a bare with of an empty context manager; and (issue 21)
  the pool workload <= 1.5x its plain time in the default mode.
--clock cpu times the process's CPU time (all threads) instead of wall
time: on a machine loaded by others it is far less disturbed.
Exit status: 0 every target met, 1 one missed, 2 could not run.
"""
import argparse
import gc
import json
import os
import subprocess
import statistics
import sys
import threading
import time

try:
    import recorder
    from recorder import _native
except ImportError as e:
    print(f"bench: cannot import recorder ({e}): PYTHONPATH=build/python", file=sys.stderr)
    sys.exit(2)

try:
    import numpy as np
except ImportError:
    np = None


# ---- workloads ---------------------------------------------------------------

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


class Point:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x, self.y = x, y

    def dot(self, other):
        return self.x * other.x + self.y * other.y


def calls_work():
    fib(22)
    p, q, acc = Point(1, 2), Point(3, 4), 0
    for _ in range(20000):
        acc += p.dot(q)
    return acc


if np is not None:
    _A = np.arange(16, dtype=np.float64).reshape(4, 4)
    _B = np.ones((4, 4))


def native_work():
    a, b, acc = _A, _B, 0.0
    for _ in range(3000):
        c = np.add(a, b)
        d = np.dot(c, b)
        acc += float(d.sum()) + float(np.max(c))
        np.zeros(4)
    return acc


# A thread pool of small json and hashlib tasks: builtins and the stdlib's
# Python around them (json.dumps is Python over the C encoder), on 4
# worker threads started inside the run (so every tool must cover threads
# started after it).
def _pool_task(i):
    import hashlib
    acc = 0
    for j in range(100):
        s = json.dumps({"i": i, "j": j, "items": [1, 2, 3]})
        d = json.loads(s)
        acc += len(d["items"]) + len(hashlib.sha256(s.encode()).hexdigest())
    return acc


def pool_work():
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(4) as ex:
        return sum(ex.map(_pool_task, range(64)))


def line_work():
    a = b = c = 0
    for i in range(100000):
        a = i + 1
        b = a * 2
        c = b - a
        a = c + b
        b = a % 7
    return a + b + c


class Empty:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


N_WITH = 200000


def with_empty():
    for _ in range(N_WITH):
        with Empty():
            pass


def with_scope():
    scope = recorder.scope
    for _ in range(N_WITH):
        with scope("x"):
            pass


def with_scope_reused():
    s = recorder.scope("x")
    for _ in range(N_WITH):
        with s:
            pass


def loop_only():
    for _ in range(N_WITH):
        pass


# ---- tools: (name, start, stop) ------------------------------------------------

def recorder_tool(hook, native, lines=False, builtin_min_us=None):
    def start():
        recorder.enable(hook=hook, native=native, lines=lines, builtin_min_us=builtin_min_us)

    return start, recorder.disable


def cprofile_tool():
    import cProfile
    box = {}

    def start():
        box["p"] = cProfile.Profile()
        box["p"].enable()

    def stop():
        box["p"].disable()

    return start, stop


def yappi_tool(clock):
    import yappi

    def start():
        yappi.set_clock_type(clock)
        yappi.start(builtins=True)

    def stop():
        yappi.stop()
        yappi.clear_stats()

    return start, stop


def _noop_hook(frame, event, arg):
    return None


def py_hook_tool():
    return (lambda: sys.setprofile(_noop_hook)), (lambda: sys.setprofile(None))


def line_profiler_tool(func):
    from line_profiler import LineProfiler
    box = {}

    def start():
        box["lp"] = LineProfiler(func)
        box["lp"].enable_by_count()

    def stop():
        box["lp"].disable_by_count()

    return start, stop


def threaded(start, stop, per_thread):
    """The tool on every thread: per_thread() is what a thread started
    later runs on its first event (threading.setprofile), for the tools
    whose hook is per thread (cProfile before 3.12, sys.setprofile)."""
    def start2():
        start()
        threading.setprofile(lambda frame, event, arg: per_thread())

    def stop2():
        threading.setprofile(None)
        stop()

    return start2, stop2


def pool_tools():
    t = [("recorder", recorder_tool("auto", True)), ("recorder --no-native", recorder_tool("auto", False)),
         ("recorder --all-builtins", recorder_tool("auto", True, builtin_min_us=0))]
    import cProfile
    box = {}

    def cp_start():
        box["p"] = cProfile.Profile()
        box["p"].enable()

    if sys.version_info >= (3, 12):   # on sys.monitoring: every thread already
        t.append(("cProfile", (cp_start, lambda: box["p"].disable())))
    else:
        t.append(("cProfile", threaded(cp_start, lambda: box["p"].disable(), lambda: box["p"].enable())))
    try:
        import yappi  # noqa: F401
        t.append(("yappi wall", yappi_tool("wall")))
    except ImportError:
        pass
    t.append(("sys.setprofile no-op", threaded(lambda: sys.setprofile(_noop_hook), lambda: sys.setprofile(None),
                                               lambda: sys.setprofile(_noop_hook))))
    t.append(("C profile function no-op (floor)", threaded(lambda: _native._profile_floor(True),
                                                           lambda: _native._profile_floor(False),
                                                           lambda: _native._profile_floor(True))))
    return t


def tools_for(kind):
    hooks = _native.hooks()
    t = []
    if kind == "pool":
        return pool_tools()
    if kind == "lines":
        t.append(("recorder -l", recorder_tool("auto", False, True)))
        try:
            import line_profiler  # noqa: F401
            t.append(("line_profiler", line_profiler_tool(line_work)))
        except ImportError:
            pass
        t.append(("cProfile", cprofile_tool()))
        return t
    t.append(("recorder", recorder_tool("auto", True)))
    t.append(("recorder --no-native", recorder_tool("auto", False)))
    t.append(("recorder --all-builtins", recorder_tool("auto", True, builtin_min_us=0)))
    for h in hooks:
        t.append((f"recorder hook={h}{'' if h == 'eval' else ' native'}", recorder_tool(h, h != "eval")))
    t.append(("cProfile", cprofile_tool()))
    try:
        import yappi  # noqa: F401
        t.append(("yappi wall", yappi_tool("wall")))
        t.append(("yappi cpu", yappi_tool("cpu")))
    except ImportError:
        pass
    t.append(("sys.setprofile no-op", py_hook_tool()))
    t.append(("C profile function no-op (floor)", (lambda: _native._profile_floor(True),
                                                   lambda: _native._profile_floor(False))))
    return t


# ---- counting and timing ---------------------------------------------------------

def count_events(func, trace=False):
    n = {"call": 0, "c_call": 0, "line": 0}

    def prof(frame, event, arg):
        if event in n:
            n[event] += 1

    def tr(frame, event, arg):
        if event in n:
            n[event] += 1
        return tr

    if trace:
        sys.settrace(tr)
    else:
        sys.setprofile(prof)
        threading.setprofile(prof)   # and threads the workload starts
    try:
        func()
    finally:
        sys.settrace(None)
        sys.setprofile(None)
        threading.setprofile(None)
    return n


CLOCK = time.perf_counter_ns   # --clock cpu: time.process_time_ns (every thread's CPU time)


def timed(func, start=None, stop=None):
    gc.collect()
    if start:
        start()
    t0 = CLOCK()
    try:
        func()
    finally:
        t1 = CLOCK()
        if stop:
            stop()
    return t1 - t0


def best(func, start=None, stop=None, k=3):
    """The least disturbed of k runs: the machine is shared and busy."""
    return min(timed(func, start, stop) for _ in range(k))


def q(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 4], statistics.median(xs), xs[(3 * n) // 4]


def bench_workload(name, func, tools, rounds, events):
    base, per = [], {t: [] for t, _ in tools}
    func()  # warm-up: imports, specialization, caches
    for _, (start, stop) in tools:
        timed(func, start, stop)
    for r in range(rounds):
        order = tools[r % len(tools):] + tools[:r % len(tools)]
        b = best(func)
        times = {t: best(func, s, e) for t, (s, e) in order}
        b = min(b, best(func))
        base.append(b)
        for t, v in times.items():
            per[t].append((v / b, (v - b) / events))
    rows = {}
    for t, vals in per.items():
        ratio = q([v[0] for v in vals])
        added = q([v[1] for v in vals])
        rows[t] = {"slowdown": ratio, "ns_per_event": added, "rounds": [v[1] for v in vals]}
    return {"workload": name, "events": events, "base_ms": statistics.median(base) / 1e6, "tools": rows}


def bench_scope(rounds):
    variants = [("loop", loop_only), ("with Empty()", with_empty), ("with recorder.scope(...)", with_scope),
                ("with s (one scope object)", with_scope_reused)]
    with_scope()  # the segment and the name, made before timing
    out = {v: [] for v, _ in variants}
    for r in range(rounds):
        order = variants[r % len(variants):] + variants[:r % len(variants)]
        t = {v: best(f) for v, f in order}
        for v, _ in variants:
            out[v].append((t[v] - t["loop"]) / N_WITH)
        out.setdefault("_ratio", []).append((t["with recorder.scope(...)"] - t["loop"]) /
                                            (t["with Empty()"] - t["loop"]))
        out.setdefault("_ratio_reused", []).append((t["with s (one scope object)"] - t["loop"]) /
                                                   (t["with Empty()"] - t["loop"]))
    return {v: q(x) for v, x in out.items()}


# ---- report -------------------------------------------------------------------------

def source_commit():
    """The commit of the sources measured (git describe of this file's
    tree, "-dirty" if changed), or "unknown" outside a git checkout (the
    Debian 13 tree of scripts/py313 gets the sources without .git:
    RECORDER_BENCH_COMMIT names it)."""
    if os.environ.get("RECORDER_BENCH_COMMIT"):
        return os.environ["RECORDER_BENCH_COMMIT"]
    try:
        r = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=7"], capture_output=True, text=True,
                           cwd=os.path.dirname(os.path.abspath(__file__)), timeout=10)
        return r.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def fmt(t):
    return f"{t[1]:8.2f} [{t[0]:.2f}-{t[2]:.2f}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    ap.add_argument("--only", default="", help="comma-separated workloads to run (default: all)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="cpu: the process's CPU time (all threads), which a machine loaded by others disturbs "
                         "less than wall time")
    a = ap.parse_args()
    global CLOCK
    if a.clock == "cpu":
        CLOCK = time.process_time_ns
    print(f"Python {sys.version.split()[0]} ({sys.executable}); recorder hooks here: {', '.join(_native.hooks())}; "
          f"rounds {a.rounds}; {a.clock} clock; median [quartiles] of per-round figures")
    print(f"commit {source_commit()}; load average at the start {' '.join('%.1f' % x for x in os.getloadavg())} "
          f"({os.cpu_count()} CPUs); {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    results = []
    wl = [("calls", calls_work, "call")]
    if np is not None:
        wl.append(("native", native_work, None))
    wl.append(("pool", pool_work, None))
    wl.append(("lines", line_work, "line"))
    if a.only:
        wl = [w for w in wl if w[0] in a.only.split(",")]
    for name, func, what in wl:
        n = count_events(func, trace=(what == "line"))
        events = n["line"] if what == "line" else n["call"] + (n["c_call"] if what is None else 0)
        unit = {"call": "Python call", "line": "line", None: "call (Python + builtin)"}[what]
        res = bench_workload(name, func, tools_for(name), a.rounds, events)
        res["unit"] = unit
        results.append(res)
        print(f"\n{name}: {events} events ({n['call']} Python calls, {n['c_call']} builtin calls"
              f"{', %d lines' % n['line'] if what == 'line' else ''}), baseline {res['base_ms']:.1f} ms")
        print(f"  {'tool':34s} {'slowdown (x)':>22s} {'added ns per ' + unit:>30s}")
        for t, row in res["tools"].items():
            print(f"  {t:34s} {fmt(row['slowdown']):>22s} {fmt(row['ns_per_event']):>30s}")
    sc = bench_scope(a.rounds)
    print(f"\nscope: ns per iteration over an empty loop ({N_WITH} iterations)")
    for v in ("with Empty()", "with recorder.scope(...)", "with s (one scope object)"):
        print(f"  {v:34s} {fmt(sc[v])}")
    print(f"  {'scope / Empty ratio':34s} {fmt(sc['_ratio'])}   (one object: {fmt(sc['_ratio_reused'])})")

    verdicts = []

    def ratio(wname, tool, other):
        """The median over rounds of the two tools' added times in the same
        round: both saw the same machine."""
        r = next((x for x in results if x["workload"] == wname), None)
        if not r or tool not in r["tools"] or other not in r["tools"]:
            return None
        pairs = zip(r["tools"][tool]["rounds"], r["tools"][other]["rounds"])
        return statistics.median(a / b for a, b in pairs if b > 0)

    def verdict(what, value, limit):
        if value is None:
            verdicts.append((what, None, limit, "not measured"))
        else:
            verdicts.append((what, value, limit, "met" if value <= limit else "NOT MET"))

    verdict("recorder per call / cProfile's (calls)", ratio("calls", "recorder", "cProfile"), 0.5)
    verdict("recorder --no-native per call / cProfile's (calls)", ratio("calls", "recorder --no-native", "cProfile"), 0.5)
    verdict("recorder per call / no-op Python hook's (calls)", ratio("calls", "recorder", "sys.setprofile no-op"), 0.3)
    verdict("recorder --no-native per call / no-op hook's (calls)",
            ratio("calls", "recorder --no-native", "sys.setprofile no-op"), 0.3)
    verdict("recorder per call / cProfile's (native)", ratio("native", "recorder", "cProfile"), 0.5)
    pool = next((x for x in results if x["workload"] == "pool"), None)
    verdict("recorder slowdown, json/hashlib thread pool (pool)",
            pool["tools"]["recorder"]["slowdown"][1] if pool else None, 1.5)
    verdict("recorder -l per line / line_profiler's", ratio("lines", "recorder -l", "line_profiler"), 0.5)
    verdict("scope() / bare with of an empty CM", sc["_ratio"][1], 1.5)
    print("\ntargets")
    for what, v, lim, st in verdicts:
        print(f"  {what:55s} {'-' if v is None else f'{v:.2f}':>6s}  <= {lim:<4}  {st}")
    floor = ratio("calls", "C profile function no-op (floor)", "cProfile")
    if floor is not None:
        print(f"\n  the floor of any C profile function (CPython's machinery) is {floor:.2f}x cProfile's per call"
              f" and {ratio('calls', 'C profile function no-op (floor)', 'sys.setprofile no-op'):.2f}x the"
              f" Python hook's; recorder's profile hook"
              f" costs {ratio('calls', 'recorder hook=profile native', 'C profile function no-op (floor)'):.2f}x the floor")
    print(f"  load average at the end {' '.join('%.1f' % x for x in os.getloadavg())}")
    if a.json:
        print(json.dumps({"results": results, "scope": sc, "targets": verdicts}, default=list))
    return 1 if any(st == "NOT MET" for *_, st in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
