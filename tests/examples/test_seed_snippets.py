"""The simple-perf guide's snippets, compiled verbatim (seed_llama.cpp,
seed_ggml.c), run: main() starts a session, three decode steps run the
ggml snippet on four worker threads each, and stop_tracing_session writes
./trace.txt -- which must be Perfetto JSON holding exactly the session's
scopes, per thread, properly nested.

usage: test_seed_snippets.py SEED_PROGRAM [CHECK_TRACE]"""
import os
import subprocess
import sys
import tempfile

from common import Checker, no_sanitizer_reports, trace_events, trace_slices

STEPS, THREADS = 3, 4
TENSORS = ["blk.0.attn_q", "blk.0.ffn_up", "blk.1.attn_q", "blk.1.ffn_up"]


def main():
    prog = os.path.abspath(sys.argv[1])  # it runs in a temporary directory
    check_trace = sys.argv[2] if len(sys.argv) > 2 and os.path.exists(sys.argv[2]) else None
    c = Checker()
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ)
        env.pop("RECORDER", None)
        r = subprocess.run([prog], cwd=d, env=env, capture_output=True, text=True, timeout=120)
        print(r.stdout, r.stderr, sep="")
        c.check(r.returncode == 0, f"exit status {r.returncode}")
        no_sanitizer_reports(c, "seed_snippets", r.stderr)
        path = os.path.join(d, "trace.txt")
        if not c.check(os.path.exists(path), "stop_tracing_session wrote ./trace.txt"):
            c.done()
        ev = trace_events(path)
        slices, names, problems = trace_slices(ev)
        for p in problems:
            c.check(False, p)
        all_names = [s["name"] for sl in slices.values() for s in sl]
        c.check("before_session" not in all_names, "nothing from before start_tracing_session")
        build = [s for sl in slices.values() for s in sl if s["name"] == "build graph"]
        c.check(len(build) == STEPS, f"{STEPS} 'build graph' slices (got {len(build)})")
        workers = [k for k, sl in slices.items() if any(s["name"].startswith("matmul_") for s in sl)]
        c.check(len(workers) == STEPS * THREADS, f"{STEPS * THREADS} worker threads with matmuls (got {len(workers)})")
        for k in workers:
            got = [s["name"] for s in slices[k]]
            c.check(got == ["matmul_" + t for t in TENSORS], f"thread {k}: {got}")
            for s in slices[k]:
                c.check(any(b["ts"] <= s["ts"] and s["end"] <= b["end"] for b in build),
                        f"{s['name']} on {k} inside a 'build graph' of the main thread")
        if check_trace:
            r = subprocess.run([sys.executable, check_trace, path], capture_output=True, text=True, timeout=120)
            c.check(r.returncode == 0, f"check_trace.py: {r.stdout.strip()} {r.stderr.strip()}")
    c.done()


if __name__ == "__main__":
    main()
