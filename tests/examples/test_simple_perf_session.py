"""A simple-perf session (simple_perf_session.c) written by
stop_tracing_session: valid Perfetto JSON with exactly the session's scopes,
per named thread, properly nested; nothing from before start or after stop.
Without a start, stop writes what the rings hold (the scope from before
too); with RECORDER=0, an empty trace and a one-line explanation.

usage: test_simple_perf_session.py SESSION_PROGRAM [CHECK_TRACE]"""
import os
import subprocess
import sys
import tempfile

from common import Checker, no_sanitizer_reports, trace_events, trace_slices

THREADS, ITERS = 6, 300


def main():
    prog = sys.argv[1]
    check_trace = sys.argv[2] if len(sys.argv) > 2 and os.path.exists(sys.argv[2]) else None
    c = Checker()
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "session.json")
        env = dict(os.environ)
        env.pop("RECORDER", None)
        r = subprocess.run([prog, out], env=env, capture_output=True, text=True, timeout=120)
        print(r.stdout, r.stderr, sep="")
        c.check(r.returncode == 0, f"exit status {r.returncode}")
        no_sanitizer_reports(c, "simple_perf_session", r.stderr)
        c.check(f"trace written to {out}" in r.stderr, "says where the trace went")
        if not c.check(os.path.exists(out), "the file exists"):
            c.done()
        slices, names, problems = trace_slices(trace_events(out))
        for p in problems:
            c.check(False, p)
        flat = [s["name"] for sl in slices.values() for s in sl]
        c.check("before_session" not in flat, "nothing from before start_tracing_session")
        c.check("after_session" not in flat, "nothing from after stop_tracing_session")
        c.check(flat.count("session") == 1, f"the main thread's session scope ({flat.count('session')})")
        workers = {k: sl for k, sl in slices.items() if names.get(k, "").startswith("sp-")}
        c.check(sorted(names.get(k) for k in workers) == [f"sp-{i}" for i in range(THREADS)],
                f"named worker threads: {sorted(names.get(k) for k in workers)}")
        for k, sl in workers.items():
            outer = [s for s in sl if s["name"] == "outer"]
            inner = [s for s in sl if s["name"].startswith("matmul_")]
            c.check(len(outer) == ITERS and len(inner) == ITERS, f"{k}: {len(outer)} outer, {len(inner)} inner")
            c.check(all(s["parent"] == "outer" for s in inner), f"{k}: matmuls inside outer")
            c.check([s["name"] for s in inner] == [f"matmul_blk.{i % 4}.attn_q" for i in range(ITERS)],
                    f"{k}: matmul names in order")
            c.check(all(s["depth"] == 0 for s in outer), f"{k}: outer at the top")
        if check_trace:
            r = subprocess.run([sys.executable, check_trace, out], capture_output=True, text=True, timeout=120)
            c.check(r.returncode == 0, f"check_trace.py: {r.stdout.strip()} {r.stderr.strip()}")

        # No start: everything the rings hold, from before "start" too.
        r = subprocess.run([prog, out, "--no-start"], env=env, capture_output=True, text=True, timeout=120)
        c.check(r.returncode == 0, f"--no-start: exit status {r.returncode}")
        no_sanitizer_reports(c, "simple_perf_session --no-start", r.stderr)
        slices, names, problems = trace_slices(trace_events(out))
        flat = [s["name"] for sl in slices.values() for s in sl]
        c.check("before_session" in flat and flat.count("outer") == THREADS * ITERS and not problems,
                f"--no-start: the rings' contents ({flat.count('outer')} outer, {problems[:3]})")

        # Recording off: an empty trace, and why.
        r = subprocess.run([prog, out], env=dict(env, RECORDER="0"), capture_output=True, text=True, timeout=120)
        c.check(r.returncode == 0, f"RECORDER=0: exit status {r.returncode}")
        c.check(trace_events(out) == [], "RECORDER=0: an empty trace")
        c.check("recording is off" in r.stderr and len(r.stderr.splitlines()) == 1, f"RECORDER=0 says why: {r.stderr!r}")
    c.done()


if __name__ == "__main__":
    main()
