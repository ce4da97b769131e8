#!/usr/bin/env python3
"""The `recorder` command against small instrumented programs (cli_prog).

usage: test_cli.py RECORDER CLI_PROG WORKDIR TEST

Each TEST is one function test_TEST: the general ones below, capture's in
cli_capture_cases.py, the exports' in cli_export_cases.py (their helpers
in clilive.py and clitest.py).  It prints what it checks and exits 1 on
the first failure.  Nothing here is timed: timeouts only keep a broken
build from hanging the suite.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True   # the helpers below: no __pycache__ in the source tree
from clitest import (BUSY, FORMAT, IO, NOTFOUND, OK, PROG, RECORDER, TIMEOUT, TRUNCATED, USAGE, VERSION, WORK, check,
                     main, remove_segment, require, seg)
from clilive import (OFF_VERSION, one_line_error, reap, rec, segment_copy, set_u32, slice_names, start,
                     validate_trace)

import cli_capture_cases
import cli_export_cases


def test_help():
    code, out, _ = rec("--help")
    check(code == OK and "usage: recorder" in out, "recorder --help")
    for cmd in ["ls", "dump", "report", "capture", "convert", "run", "gc"]:
        code, out, _ = rec(cmd, "--help")
        check(code == OK and out.startswith(f"usage: recorder {cmd}"), f"recorder {cmd} --help")
        code, out2, _ = rec("help", cmd)
        check(code == OK and out2 == out, f"recorder help {cmd}")


def test_ls():
    p, pid = start("hold")
    try:
        code, out, _ = rec("ls")
        # (An earlier process with this pid may have left a dead segment,
        # kept aside under recorder.<pid>.<start>: not this program's.)
        row = [l for l in out.splitlines() if l.split()[:1] == [str(pid)] and l.split()[-1] == f"recorder.{pid}"]
        check(code == OK and len(row) == 1, "ls lists the running program")
        if row:
            f = row[0].split()
            check(f[1] == "cli_prog" and f[2] == "alive" and f[3] == "1/1", f"its row: {row[0]}")
        code, out, _ = rec("ls", "--json")
        objs = [json.loads(l) for l in out.splitlines()]
        mine = [o for o in objs if o["pid"] == pid and o["name"] == f"recorder.{pid}"]
        check(code == OK and len(mine) == 1 and mine[0]["state"] == "alive" and mine[0]["events"] > 0,
              "ls --json: alive, with events")
        os.kill(pid, signal.SIGKILL)
        p.wait(timeout=TIMEOUT)
        code, out, _ = rec("ls", "--json")
        mine = [o for o in map(json.loads, out.splitlines()) if o["pid"] == pid and o["name"] == f"recorder.{pid}"]
        check(len(mine) == 1 and mine[0]["state"] == "dead", "after SIGKILL it is dead")
        # A directory of odd files: each classified, none crashes ls.
        d = os.path.join(WORK, "shm")
        os.makedirs(d, exist_ok=True)
        segment_copy(pid, "shm/recorder.dead")
        segment_copy(pid, "shm/recorder.cut", cut=6000)
        segment_copy(pid, "shm/recorder.v9", patch=set_u32(OFF_VERSION, 9))
        with open(os.path.join(d, "recorder.junk"), "wb") as f:
            f.write(b"not a segment at all\n" * 300)
        open(os.path.join(d, "recorder.empty"), "wb").close()
        with open(os.path.join(d, "recorder.zero"), "wb") as f:
            f.write(bytes(8192))
        os.symlink(seg(pid), os.path.join(d, "recorder.link"))
        os.mkdir(os.path.join(d, "recorder.dir"))
        with open(os.path.join(d, "other.file"), "wb") as f:
            f.write(b"x")
        code, out, err = rec("ls", "--json", "--dir", d)
        states = {json.loads(l)["name"]: json.loads(l)["state"] for l in out.splitlines()}
        check(code == OK, f"ls --dir exits 0 ({err.strip()})")
        want = {"recorder.dead": "dead", "recorder.cut": "corrupt", "recorder.v9": "other-version",
                "recorder.junk": "foreign", "recorder.empty": "foreign", "recorder.zero": "foreign",
                "recorder.link": "foreign", "recorder.dir": "foreign"}
        check(states == want, f"ls classifies each file: {states}")
        code, out, _ = rec("ls", "-l", "--dir", d)
        check(code == OK and "a symbolic link" in out and "truncated" in out, "ls -l says why")
    finally:
        reap(p)
        remove_segment(pid)


def test_dump_live():
    p, pid = start("hold")
    try:
        out = os.path.join(WORK, "live.json")
        code, _, err = rec("dump", pid, "-o", out)
        check(code == OK and "wrote" in err, f"dump of a live program ({err.strip()})")
        doc = validate_trace(out)
        names = slice_names(doc)
        check({"layer", "softmax", "outer", "inner"} <= names, f"it has the scopes, open ones too: {sorted(names)}")
        check(p.poll() is None, "the program still runs")
        code, _, _ = rec("dump", f"recorder.{pid}", "-o", os.path.join(WORK, "byname.json"))
        check(code == OK, "dump by segment name")
        code, _, _ = rec("dump", seg(pid), "-o", os.path.join(WORK, "bypath.json"))
        check(code == OK, "dump by path")
        code, out2, _ = rec("dump", pid, "-o", "-")
        check(code == OK and json.loads(out2)["traceEvents"], "dump -o - writes to stdout")
        code, _, _ = rec("dump", pid, "--last", "0.5", "-o", os.path.join(WORK, "last.json"))
        check(code == OK, "dump --last")
        validate_trace(os.path.join(WORK, "last.json"))
        check(not [f for f in os.listdir(WORK) if f.endswith(".tmp")], "no temporary files left")
    finally:
        reap(p)
        remove_segment(pid)


def test_dump_crash():
    p, pid = start("hold")
    try:
        os.kill(pid, signal.SIGKILL)
        p.wait(timeout=TIMEOUT)
        check(os.path.exists(seg(pid)), "SIGKILL left the segment behind")
        out = os.path.join(WORK, "crash.json")
        code, _, err = rec("dump", pid, "-o", out)
        check(code == OK and "dead" in err, f"dump after SIGKILL ({err.strip()})")
        doc = validate_trace(out)
        names = slice_names(doc)
        check({"outer", "inner", "layer"} <= names, f"the scopes open at the kill are there: {sorted(names)}")
        code, out_r, _ = rec("report", pid)
        check(code == OK and "layer" in out_r, "report of the dead program")
    finally:
        reap(p)
        remove_segment(pid)
    # A real crash: SIGSEGV with RECORDER_KEEP unset still keeps the segment.
    e = dict(os.environ)
    e.pop("RECORDER_KEEP", None)
    s = subprocess.run([PROG, "segv"], env=e, cwd=WORK, timeout=TIMEOUT, capture_output=True, text=True)
    check(s.returncode == -signal.SIGSEGV, "cli_prog segv crashed")
    m = re.search(r"pid (\d+)", s.stdout)
    require(m is not None, "it said its pid")
    cpid = int(m.group(1))
    try:
        out = os.path.join(WORK, "segv.json")
        code, _, err = rec("dump", cpid, "-o", out)
        check(code == OK, f"dump after SIGSEGV ({err.strip()})")
        check("doomed" in slice_names(validate_trace(out)), "it shows the scope open at the crash")
    finally:
        remove_segment(cpid)


def test_report():
    env = dict(os.environ, RECORDER_KEEP="1")
    s = subprocess.run([PROG, "scopes", "50"], env=env, cwd=WORK, timeout=TIMEOUT, capture_output=True, text=True)
    require(s.returncode == 0, "cli_prog scopes ran")
    m = re.search(r"pid (\d+)", s.stdout)
    require(m is not None, "it said its pid")
    pid = int(m.group(1))
    try:
        code, rep, err = rec("report", pid, "--top", "20")
        print(rep)
        check(code == OK, f"report exits 0 ({err.strip()})")
        check("ROI_TIME" in rep and "Total(%)" in rep and "Avg(us)" in rep, "rpt's headings")
        sections = re.split(r"\nThread ", rep)[1:]
        check(len(sections) == 3, f"three thread sections ({len(sections)})")
        for sec in sections:
            title = sec.splitlines()[0]
            m = re.search(r"([\d.]+)% busy", title)
            check(m is not None and 0 < float(m.group(1)) <= 100, f"busy share: {title}")
            rows = {}
            for line in sec.splitlines()[2:]:
                f = line.split(None, 6)
                if len(f) == 7 and f[0].endswith("%"):
                    rows[f[6]] = f
            check(rows.get("layer", [0, 0, "0"])[2] == "50", f"50 calls of layer: {rows.get('layer')}")
            check(rows.get("softmax", [0, 0, "0"])[2] == "50", "50 calls of softmax")
            gaps = sum(int(f[2]) for n, f in rows.items() if n.startswith("gap "))
            # 50 top-level slices (layer in workers, step in main): 49 gaps.
            check(gaps == 49, f"49 gaps between 50 top-level scopes ({gaps})")
            for n, f in rows.items():
                total, calls, avg, mn, mx = float(f[1]), int(f[2]), float(f[3]), float(f[4]), float(f[5])
                check(mn <= avg + 0.05 and avg <= mx + 0.05 and abs(avg * calls - total) <= 0.05 * calls + 0.1,
                      f"{n}: min <= avg <= max, avg*calls = total")
        code, rep2, _ = rec("report", pid, "--thread", "1")
        check(code == NOTFOUND, "report --thread of an unknown tid")
        # The same from a capture file is covered in test_capture_signal.
    finally:
        remove_segment(pid)


def test_bad_input():
    p, pid = start("hold")
    junk = os.path.join(WORK, "junk.bin")
    with open(junk, "wb") as f:
        f.write(b"\x7fELF this is not a recorder file" * 200)
    trunc = segment_copy(pid, "trunc.seg", cut=5000)
    v9 = segment_copy(pid, "v9.seg", patch=set_u32(OFF_VERSION, 9))
    # A real capture, and a copy cut inside its source record.
    p2, pid2 = start("spin", 1000)
    capf = os.path.join(WORK, "good.rec")
    rec("capture", pid2, "-o", capf)
    reap(p2)
    remove_segment(pid2)
    with open(capf, "rb") as f:
        head = f.read(200)
    capcut = os.path.join(WORK, "cut.rec")
    with open(capcut, "wb") as f:
        f.write(head)
    capv2 = os.path.join(WORK, "v2.rec")
    with open(capv2, "wb") as f:
        f.write(head[:8] + b"\x02" + head[9:])
    missing = os.path.join(WORK, "no", "such", "file")
    try:
        cases = [
            ([], USAGE), (["bogus"], USAGE), (["help", "bogus"], USAGE),
            (["ls", "--bogus"], USAGE), (["ls", "extra"], USAGE), (["ls", "--dir", missing], NOTFOUND),
            (["gc", "extra"], USAGE), (["gc", "--stale-minutes", "x"], USAGE),
            (["dump"], USAGE), (["dump", "--tree", "1", "2"], USAGE), (["dump", pid, "--last", "-1"], USAGE),
            (["dump", pid, "-o"], USAGE),
            (["dump", "999999999"], NOTFOUND), (["dump", missing], NOTFOUND), (["dump", "nosuchname"], NOTFOUND),
            (["dump", junk], FORMAT), (["dump", trunc], TRUNCATED), (["dump", v9], VERSION),
            (["dump", capcut], TRUNCATED), (["dump", capv2], VERSION),
            (["report"], USAGE), (["report", junk], FORMAT), (["report", "999999999"], NOTFOUND),
            (["report", pid, "--top", "x"], USAGE),
            (["convert"], USAGE), (["convert", capf], USAGE), (["convert", capf, "-o", "x.txt"], USAGE),
            (["convert", capf, "-o", "x.json", "--format", "xml"], USAGE),
            (["convert", junk, "-o", "x.json"], FORMAT), (["convert", capcut, "-o", "x.json"], TRUNCATED),
            (["convert", capv2, "-o", "x.json"], VERSION), (["convert", missing, "-o", "x.json"], NOTFOUND),
            (["convert", capf, "-o", os.path.join(missing, "x.json")], IO),
            (["capture", pid], USAGE), (["capture", "-o", "x.rec"], USAGE),
            (["capture", "999999999", "-o", "x.rec"], NOTFOUND), (["capture", junk, "-o", "x.rec"], FORMAT),
            (["capture", pid, "-o", "x.rec", "--duration", "0"], USAGE),
            (["run"], USAGE), (["run", "-o", "-", "--", "true"], USAGE),
        ]
        for args, want in cases:
            code, out, err = rec(*args)
            one_line_error(code, err, want, "recorder " + " ".join(map(str, args)))
        code, _, err = rec("run", "--", os.path.join(WORK, "no-such-program"))
        check(code == 127 and len(err.strip().splitlines()) == 1, f"run of a missing program: 127 ({err.strip()})")
        # A dead program cannot be captured, but can be dumped.
        os.kill(pid, signal.SIGKILL)
        p.wait(timeout=TIMEOUT)
        code, _, err = rec("capture", pid, "-o", "x.rec")
        one_line_error(code, err, NOTFOUND, "capture of a dead program")
        # Only one capture at a time.
        q, qpid = start("spin", 10 ** 15)
        c = subprocess.Popen([RECORDER, "capture", str(qpid), "-o", os.path.join(WORK, "first.rec")],
                             stderr=subprocess.PIPE, text=True, cwd=WORK)
        for _ in range(6000):
            code, ls, _ = rec("ls", "--json")
            if any(json.loads(l)["pid"] == qpid and json.loads(l)["mode"] == "stream" for l in ls.splitlines()):
                break
            time.sleep(0.01)
        code, _, err = rec("capture", qpid, "-o", "second.rec")
        one_line_error(code, err, BUSY, "a second capture of the same program")
        c.send_signal(signal.SIGINT)
        c.communicate(timeout=TIMEOUT)
        reap(q)
        remove_segment(qpid)
    finally:
        reap(p)
        remove_segment(pid)


def test_run_fork():
    out = os.path.join(WORK, "trace.json")
    e = dict(os.environ)
    e.pop("RECORDER_KEEP", None)
    r = subprocess.run([RECORDER, "run", "-o", out, "--", PROG, "fork"], capture_output=True, text=True,
                       cwd=WORK, env=e, timeout=TIMEOUT)
    check(r.returncode == 0, f"run exits with the program's status 0 ({r.stderr.strip()})")
    m1 = re.search(r"child (\d+)", r.stdout)
    m2 = re.search(r"parent (\d+)", r.stdout)
    require(m1 and m2, f"the program ran ({r.stdout!r})")
    child, parent = int(m1.group(1)), int(m2.group(1))
    doc = validate_trace(out)
    names = {(e["pid"], e["name"]) for e in doc["traceEvents"] if e.get("ph") == "B"}
    check((parent, "in_parent") in names and (child, "in_child") in names and (parent, "in_child") not in names,
          "trace.json holds both processes, each on its own pid")
    check(not os.path.exists(seg(parent)) and not os.path.exists(seg(child)), "both segments were removed")
    # --split: a file per process, the pid before the extension.
    r = subprocess.run([RECORDER, "run", "--split", "-o", out, "--", PROG, "fork"], capture_output=True, text=True,
                       cwd=WORK, env=e, timeout=TIMEOUT)
    child = int(re.search(r"child (\d+)", r.stdout).group(1))
    parent = int(re.search(r"parent (\d+)", r.stdout).group(1))
    pdoc = validate_trace(os.path.join(WORK, f"trace.{parent}.json"))
    check("in_parent" in slice_names(pdoc) and "in_child" not in slice_names(pdoc), "--split: the parent's file")
    cout = os.path.join(WORK, f"trace.{child}.json")
    check(os.path.exists(cout), f"the child got trace.{child}.json")
    if os.path.exists(cout):
        cdoc = validate_trace(cout)
        check("in_child" in slice_names(cdoc) and "in_parent" not in slice_names(cdoc), "with the child's scopes")
    check(not os.path.exists(seg(parent)) and not os.path.exists(seg(child)), "both segments were removed")
    # The program's exit status comes through; --keep keeps the segment.
    r = subprocess.run([RECORDER, "run", "--keep", "-o", os.path.join(WORK, "exit3.json"), "--", PROG, "exit", "3"],
                       capture_output=True, text=True, cwd=WORK, env=e, timeout=TIMEOUT)
    check(r.returncode == 3, f"run returns the program's exit status 3 ({r.returncode})")
    doc = validate_trace(os.path.join(WORK, "exit3.json"))
    check("before_exit" in slice_names(doc), "and wrote its trace")
    m = re.search(r"pid (\d+)", r.stderr)
    if check(m is not None, "run said which pid"):
        kept = seg(int(m.group(1)))
        check(os.path.exists(kept), "--keep kept the segment")
        remove_segment(int(m.group(1)))
    r = subprocess.run([RECORDER, "run", "-o", os.path.join(WORK, "segv.json"), "--", PROG, "segv"],
                       capture_output=True, text=True, cwd=WORK, env=e, timeout=TIMEOUT)
    check(r.returncode == 128 + signal.SIGSEGV, f"a crash gives 128+SIGSEGV ({r.returncode})")
    check("doomed" in slice_names(validate_trace(os.path.join(WORK, "segv.json"))), "and its trace")
    # A trace that cannot be written at the end (a FIFO nobody opens for
    # reading) fails the run, and the run's capture is kept, convertible.
    fifo = os.path.join(WORK, "nobody.json")
    os.mkfifo(fifo)
    r = subprocess.run([RECORDER, "run", "-o", fifo, "--", PROG, "scopes", "5"], capture_output=True, text=True,
                       cwd=WORK, env=e, timeout=TIMEOUT)
    m = re.search(r"kept the capture (\S+): recorder convert", r.stderr)
    check(r.returncode == IO and "FIFO" in r.stderr and m is not None,
          f"a FIFO nobody reads: status {IO}, said, and the capture kept ({r.returncode}, {r.stderr.strip()[-300:]})")
    if m:
        code, _, _ = rec("convert", m.group(1), "-o", os.path.join(WORK, "from-kept.json"))
        check(code == OK and slice_names(validate_trace(os.path.join(WORK, "from-kept.json"))),
              "the kept capture converts to the trace")
        os.unlink(m.group(1))
    os.unlink(fifo)


TESTS = {n[5:]: f for mod in (globals(), vars(cli_capture_cases), vars(cli_export_cases))
         for n, f in mod.items() if n.startswith("test_")}

if __name__ == "__main__":
    main(TESTS)
