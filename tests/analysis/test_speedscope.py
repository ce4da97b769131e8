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
        cd = os.path.join(d, "cases")
        os.mkdir(cd)
        r = subprocess.run([cases, cd], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            print(f"export_cases failed: {r.stderr}")
            sys.exit(1)

        bad = {"traceEvents": [
            {"ph": "M", "pid": 1, "tid": 2, "name": "thread_name", "args": {"name": "t"}},
            {"ph": "B", "pid": 1, "tid": 2, "ts": 0, "name": "outer"},
            {"ph": "B", "pid": 1, "tid": 2, "ts": 1, "name": "inner"},
            {"ph": "E", "pid": 1, "tid": 2, "ts": 2, "name": "outer"},
            {"ph": "E", "pid": 1, "tid": 2, "ts": 3, "name": "inner"}]}
        bad_path = os.path.join(d, "bad.json")
        with open(bad_path, "w") as f:
            json.dump(bad, f)
        trace = os.path.join(d, "trace.json")
        missing = os.path.join(d, "trace-missing-thread.json")
        shutil.copyfile(trace, missing)

        # One browser for every file (--batch): (file, expected threads, must pass, what a failure must say).
        # .s1: streamed with a lookahead of one item (forced begins, flags known late, unmatched ends moved).
        checks = [(trace, ["main-thread", "worker-1", "worker-2"], True, None)]
        for case in ("unmatched", "deeper", "zero", "deep", "loss", "last", "generations", "flows", "bind",
                     "loss.s1", "unmatched.s1", "last.s1", "deep.s1"):
            checks.append((os.path.join(cd, case + ".json"), [], True, None))
        # The check can fail: a mis-nested trace and a missing thread must.
        checks.append((bad_path, ["t"], False, "Tried to end"))
        checks.append((missing, ["no-such-thread"], False, "no-such-thread"))
        listing = os.path.join(d, "list.json")
        with open(listing, "w") as f:
            json.dump([[c[0]] + c[1] for c in checks], f)
        r = subprocess.run([node, check, "--batch", listing], capture_output=True, text=True, timeout=900)
        out = r.stdout
        print(out + r.stderr)
        if r.returncode != 1:
            print(f"FAIL: the batch exits {r.returncode}, not 1 (two of its files must fail)")
            fails += 1
        for path, _, must_pass, says in checks:
            lines = [ln for ln in out.splitlines() if ln.startswith(path + ": ")]
            if len(lines) != 1:
                print(f"FAIL: {len(lines)} result lines for {path}")
                fails += 1
                continue
            ok = lines[0].startswith(path + ": OK")
            if must_pass and not ok:
                print(f"FAIL: speedscope does not import {os.path.basename(path)} cleanly")
                fails += 1
            if not must_pass and (ok or says not in out):
                print(f"FAIL: {os.path.basename(path)} passes speedscope_check.js, or fails without saying '{says}'")
                fails += 1

        # The single-file command line (other suites use it) fails too.
        r = subprocess.run([node, check, bad_path, "t"], capture_output=True, text=True, timeout=300)
        if r.returncode != 1 or "Tried to end" not in r.stdout:
            print(f"FAIL: a mis-nested trace passes speedscope_check.js ({r.returncode}):\n{r.stdout}{r.stderr}")
            fails += 1
    if fails:
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
