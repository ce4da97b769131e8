#!/usr/bin/env python3
"""test_speedscope.py GEN_TRACE EXPORT_CASES SPEEDSCOPE_CHECK -- a third-party consumer.

gen_trace records and exports a real workload (with a wrapped ring, an open
scope and flows); speedscope must import the JSON as a Trace Event Format
profile with the three threads and no nesting warnings; so must the hard
cases of export_cases.c (unmatched ends, lost ends, zero-length and
touching slices, deep nesting, loss, --last cuts, reused tids), also
streamed with a lookahead too small to hold them.  Then a
trace that
is mis-nested on purpose must make speedscope_check.js fail: the check can
fail, so its passing means something.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    gen, cases, check = sys.argv[1], sys.argv[2], sys.argv[3]
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        print("no node: run scripts/deps")
        sys.exit(1)
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([gen, d], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            print(f"gen_trace failed: {r.stderr}")
            sys.exit(1)
        r = subprocess.run([node, check, os.path.join(d, "trace.json"), "main-thread", "worker-1", "worker-2"],
                           capture_output=True, text=True, timeout=300)
        print(r.stdout + r.stderr)
        if r.returncode != 0:
            print("FAIL: speedscope does not import the export cleanly")
            fails += 1

        cd = os.path.join(d, "cases")
        os.mkdir(cd)
        r = subprocess.run([cases, cd], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            print(f"export_cases failed: {r.stderr}")
            sys.exit(1)
        # .s1: streamed with a lookahead of one item (forced begins, flags
        # known late, unmatched ends moved).
        for case in ("unmatched", "deeper", "zero", "deep", "loss", "last", "generations", "flows",
                     "loss.s1", "unmatched.s1", "last.s1", "deep.s1"):
            r = subprocess.run([node, check, os.path.join(cd, case + ".json")], capture_output=True, text=True,
                               timeout=300)
            print(f"{case}: {r.stdout.strip().splitlines()[0] if r.stdout.strip() else r.stderr.strip()}")
            if r.returncode != 0:
                print(f"FAIL: speedscope does not import case {case} cleanly:\n{r.stdout}{r.stderr}")
                fails += 1

        bad = {"traceEvents": [
            {"ph": "M", "pid": 1, "tid": 2, "name": "thread_name", "args": {"name": "t"}},
            {"ph": "B", "pid": 1, "tid": 2, "ts": 0, "name": "outer"},
            {"ph": "B", "pid": 1, "tid": 2, "ts": 1, "name": "inner"},
            {"ph": "E", "pid": 1, "tid": 2, "ts": 2, "name": "outer"},
            {"ph": "E", "pid": 1, "tid": 2, "ts": 3, "name": "inner"}]}
        path = os.path.join(d, "bad.json")
        with open(path, "w") as f:
            json.dump(bad, f)
        r = subprocess.run([node, check, path, "t"], capture_output=True, text=True, timeout=300)
        if r.returncode != 1 or "Tried to end" not in r.stdout:
            print(f"FAIL: a mis-nested trace passes speedscope_check.js ({r.returncode}):\n{r.stdout}{r.stderr}")
            fails += 1
        r = subprocess.run([node, check, os.path.join(d, "trace.json"), "no-such-thread"],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 1 or "no-such-thread" not in r.stdout:
            print(f"FAIL: a missing thread is not reported ({r.returncode}):\n{r.stdout}")
            fails += 1
    if fails:
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
