#!/usr/bin/env python3
"""One trace for a process tree (docs/cli.md, "Process trees").

usage: test_tree.py RECORDER TREE_PROG WORKDIR TEST

tree_prog (tree_prog.c) makes the trees: a parent with three workers, one
of which forks a grandchild that records and exits at once; a worker that
aborts; a shell pipeline of two recording programs.  Every process records
a known number of scopes of a name of its own, and each test checks, per
pid, exactly that many in the merged trace: JSON through the strict
checker (tests/analysis/check_trace.py), protobuf through the independent
decoder (tests/perfetto/pftrace.py).  Nothing is timed.
"""
import json
import os
import re
import select
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "perfetto"))
from clitest import (OK, TEST, WORK, RECORDER, PROG, TIMEOUT, check, require, env_without_keep,  # noqa: E402
                     seg)
import pftrace  # noqa: E402

CHECK_TRACE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis", "check_trace.py")
N = 40


def run(*args, shell_cmd=None):
    cmd = [RECORDER, *map(str, args)]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=WORK, env=env_without_keep(), timeout=TIMEOUT)
    return p.returncode, p.stdout, p.stderr


def pids_of(out):
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"(\w+) (\d+)", out)}


def strict_json(path):
    p = subprocess.run(["/usr/bin/python3", CHECK_TRACE, path], capture_output=True, text=True, timeout=TIMEOUT)
    require(p.returncode == 0, f"check_trace.py {os.path.basename(path)}: {p.stdout[-400:]}{p.stderr[-300:]}")
    with open(path) as f:
        return json.load(f)


def json_slices(doc):
    """{(pid, name): slices}: B events (a zero-length slice is a B/E pair too)."""
    n = {}
    for e in doc["traceEvents"]:
        if e["ph"] == "B":
            n[(e["pid"], e["name"])] = n.get((e["pid"], e["name"]), 0) + 1
    return n


def scopes_of(doc):
    """{(pid, name): scopes}, whatever form the exporter gives a scope:
    B (or X), or the thread-scoped instant ("i") a zero-length scope was
    written as (begin and end on the same nanosecond: the pipeline's
    consume scopes, now and then).  Counting B alone made the pipeline
    tests fail 6 times in 10 with all 40 scopes there."""
    n = {}
    for e in doc["traceEvents"]:
        if e["ph"] in ("B", "X") or (e["ph"] == "i" and e.get("s") == "t"):
            n[(e["pid"], e["name"])] = n.get((e["pid"], e["name"]), 0) + 1
    return n


def pf_slices(path):
    try:
        doc = pftrace.decode(path)
    except pftrace.DecodeError as e:
        require(False, f"{os.path.basename(path)} decodes: {e}")
    pid_of = {u: t.get("pid") for u, t in doc["tracks"].items()}
    n = {}
    for e in doc["events"]:
        if e["ph"] == "B":   # zero-length slices too
            k = (pid_of.get(e["track"]), e["name"])
            n[k] = n.get(k, 0) + 1
    return n


def expect_counts(what, got, want):
    for k, v in want.items():
        check(got.get(k, 0) == v, f"{what}: pid {k[0]} has {v} '{k[1]}' slices ({got.get(k, 0)})")
    pids = {k[0] for k in got}
    check(pids == {k[0] for k in want}, f"{what}: exactly the tree's processes ({sorted(pids)})")


def tree_want(p, crash=False):
    want = {(p["parent"], "before_fork"): 1, (p["parent"], "parent_after"): N}
    for i in (1, 2, 3):
        want[(p[f"worker{i}"], f"worker{i}")] = N
    if crash:
        want[(p["worker2"], "doomed")] = 1   # open when it aborted: a slice ending at its last event
    else:
        want[(p["grandchild"], "grandchild")] = N
    return want


def check_aligned(doc, p):
    """One time line: every worker's slices begin after the parent's
    before_fork (it ended before the fork)."""
    bf = [e for e in doc["traceEvents"] if e["ph"] == "E" and e["name"] == "before_fork"]
    require(len(bf) == 1, "before_fork ended once")
    t = bf[0]["ts"]
    for i in (1, 2, 3):
        b = [e["ts"] for e in doc["traceEvents"] if e["ph"] == "B" and e["pid"] == p[f"worker{i}"]]
        check(b and min(b) >= t, f"worker{i}'s slices begin after the parent's before_fork ({min(b) if b else None} "
              f">= {t})")


def no_segments_left(p):
    left = [pid for pid in p.values() if os.path.exists(seg(pid))]
    check(not left, f"no segment of the tree is left behind ({left})")


def test_run_workers():
    out = os.path.join(WORK, "workers.json")
    code, so, err = run("run", "-o", out, "--", PROG, "workers", N)
    check(code == OK, f"run exits 0 ({err.strip()[-300:]})")
    p = pids_of(so)
    require(len(p) == 5, f"five processes said their pid ({so!r})")
    doc = strict_json(out)
    expect_counts("run, JSON", json_slices(doc), tree_want(p))
    check_aligned(doc, p)
    check(len(doc["otherData"]["recorder"]["processes"]) == 5, "otherData lists the five processes")
    check("5 processes" in err, f"the summary says 5 processes ({err.strip()[-200:]!r})")
    no_segments_left(p)
    pf = os.path.join(WORK, "workers.pftrace")
    code, so, err = run("run", "-o", pf, "--", PROG, "workers", N)
    check(code == OK, f"run -o .pftrace exits 0 ({err.strip()[-300:]})")
    expect_counts("run, Perfetto", pf_slices(pf), tree_want(pids_of(so)))
    no_segments_left(pids_of(so))


def test_run_crash():
    out = os.path.join(WORK, "crash.json")
    code, so, err = run("run", "-o", out, "--", PROG, "crash", N)
    check(code == OK, f"the parent exits 0 though a worker aborted ({code}, {err.strip()[-300:]})")
    p = pids_of(so)
    require(len(p) == 4, f"four processes said their pid ({so!r})")
    expect_counts("a crashed worker", json_slices(strict_json(out)), tree_want(p, crash=True))
    no_segments_left(p)


def test_run_pipeline():
    out = os.path.join(WORK, "pipe.json")
    code, so, err = run("run", "-o", out, "--", "/bin/sh", "-c", f"'{PROG}' emit {N} | '{PROG}' consume")
    check(code == OK, f"run of a pipeline exits 0 ({err.strip()[-300:]})")
    doc = strict_json(out)
    n = scopes_of(doc)
    emit = [k for k in n if k[1] == "emit"]
    cons = [k for k in n if k[1] == "consume"]
    check(len(emit) == 1 and n[emit[0]] == N, f"the first program's {N} scopes ({n})")
    check(len(cons) == 1 and n[cons[0]] == N, f"the second program's {N} scopes ({n})")
    check(len({k[0] for k in n}) == 2, "two processes (the shell recorded nothing)")


def test_run_split():
    out = os.path.join(WORK, "split.json")
    code, so, err = run("run", "--split", "-o", out, "--", PROG, "workers", N)
    check(code == OK, f"run --split exits 0 ({err.strip()[-300:]})")
    p = pids_of(so)
    want = tree_want(p)
    for who, pid in p.items():
        f = os.path.join(WORK, f"split.{pid}.json")
        if not check(os.path.exists(f), f"{who} got split.{pid}.json"):
            continue
        check(os.stat(f).st_mode & 0o777 == 0o600, f"split.{pid}.json is 0600")
        n = json_slices(strict_json(f))
        check({k[0] for k in n} == {pid}, f"split.{pid}.json holds pid {pid} only")
        for k, v in want.items():
            if k[0] == pid:
                check(n.get(k) == v, f"split.{pid}.json: {v} '{k[1]}' slices ({n.get(k)})")
    check(not os.path.exists(out), "no merged file with --split")


def test_capture_workers():
    cap = os.path.join(WORK, "workers.rec")
    code, so, err = run("capture", "-q", "-o", cap, "--", PROG, "workers", N)
    check(code == OK, f"capture exits 0 ({err.strip()[-300:]})")
    p = pids_of(so)
    require(len(p) == 5, f"five processes said their pid ({so!r})")
    check(err.count("added pid") == 4, f"the four other processes were added ({err.strip()[-400:]!r})")
    out = os.path.join(WORK, "cap.json")
    code, _, err = run("convert", cap, "-o", out)
    check(code == OK, f"convert exits 0 ({err.strip()[-300:]})")
    doc = strict_json(out)
    expect_counts("capture, JSON", json_slices(doc), tree_want(p))
    check_aligned(doc, p)
    pf = os.path.join(WORK, "cap.pftrace")
    code, _, err = run("convert", cap, "-o", pf)
    check(code == OK, f"convert to .pftrace exits 0 ({err.strip()[-300:]})")
    expect_counts("capture, Perfetto", pf_slices(pf), tree_want(p))
    # report reads every process of the capture.
    code, so2, err = run("report", cap)
    check(code == OK and all(n in so2 for n in ("parent_after", "worker1", "grandchild")),
          "report reads every process of the capture")
    no_segments_left(p)
    code, _, err = run("convert", "--split", cap, "-o", os.path.join(WORK, "cs.json"))
    check(code == OK, f"convert --split exits 0 ({err.strip()[-200:]})")
    for who, pid in p.items():
        check(os.path.exists(os.path.join(WORK, f"cs.{pid}.json")), f"convert --split wrote cs.{pid}.json")


def test_capture_crash():
    cap = os.path.join(WORK, "crash.rec")
    code, so, err = run("capture", "-q", "-o", cap, "--", PROG, "crash", N)
    check(code == OK, f"capture exits 0 ({err.strip()[-300:]})")
    p = pids_of(so)
    out = os.path.join(WORK, "crash.json")
    code, _, err = run("convert", cap, "-o", out)
    expect_counts("capture of a crash", json_slices(strict_json(out)), tree_want(p, crash=True))
    no_segments_left(p)


def test_capture_pipeline():
    cap = os.path.join(WORK, "pipe.rec")
    code, so, err = run("capture", "-q", "-o", cap, "--", "/bin/sh", "-c", f"'{PROG}' emit {N} | '{PROG}' consume")
    check(code == OK, f"capture of a pipeline exits 0 ({err.strip()[-300:]})")
    out = os.path.join(WORK, "pipe.json")
    code, _, err = run("convert", cap, "-o", out)
    check(code == OK, f"convert exits 0 ({err.strip()[-300:]})")
    n = scopes_of(strict_json(out))
    check(sorted(v for k, v in n.items()) == [N, N] and {k[1] for k in n} == {"emit", "consume"},
          f"both programs' {N} scopes, in two processes ({n})")


BOOKS_N = 100000   # 200,000 entries: twelve times the child's ring of 256 KiB


def ls_entries():
    """{pid: entries written} of the segments left here (recorder ls
    --json): the ring's head (its "events") and what the writer dropped
    in stream mode (its "lost"): what each process wrote."""
    p = subprocess.run([RECORDER, "ls", "--json"], capture_output=True, text=True, timeout=TIMEOUT)
    # A process's own segment is recorder.<pid>: a dead one's of the same
    # pid (a pid come round) was moved aside to recorder.<pid>.<start>
    # when it started, and may still be listed (it made this test fail).
    return {d["pid"]: d["events"] + d["lost"] for d in map(json.loads, p.stdout.splitlines())
            if "events" in d and d.get("name") == f"recorder.{d['pid']}"}


def check_books(doc, written, p):
    """Per process: entries written = kept + not kept + lost (otherData's
    per-thread counts; every event of tree_prog is one entry), and the
    child was captured from its first entries on (it waited for its
    consumer)."""
    procs = {q["pid"]: q for q in doc["otherData"]["recorder"]["processes"]}
    check(set(procs) == {p["parent"], p["child"]}, f"both processes are in the trace ({sorted(procs)})")
    for pid, q in procs.items():
        th = q["threads"]
        kept = sum(t["events"] for t in th)
        not_kept = sum(t["not_kept"] for t in th)
        lost = sum(t["overwritten"] + t["dropped"] + t["bad"] for t in th)
        check(kept + not_kept + lost == written.get(pid),
              f"pid {pid}: written {written.get(pid)} = kept {kept} + not kept {not_kept} + lost {lost}")
    c = procs.get(p["child"], {"threads": []})
    # Captured from its first entries on: at most the few it wrote before
    # it waited (its thread's start and name), which a reader may count
    # as not kept once the ring has come round (segment_read.c); read
    # only at its end, nearly all of it would be.
    nk = sum(t["not_kept"] for t in c["threads"])
    check(nk <= 8, f"the child was captured from its first entries (not kept {nk})")
    dropped = sum(t["dropped"] for t in c["threads"])
    n = sum(1 for e in doc["traceEvents"] if e["ph"] == "B" and e["name"] == "child")
    # Lossless as far as the capture keeps up: what it missed, the writer
    # dropped and counted.
    check(n == BOOKS_N or dropped > 0, f"the child's {BOOKS_N} scopes, or drops counted ({n}, dropped {dropped})")


def remove_segments(pids):
    for pid in pids:
        try:
            os.unlink(seg(pid))
        except FileNotFoundError:
            pass


def test_run_books():
    """`recorder run` captures a forked child live, as its program: the
    child (256 KiB rings, 200,000 entries) waits until a consumer drains
    its segment; read only at the end, its ring would have overwritten
    most of it."""
    out = os.path.join(WORK, "books.json")
    code, so, err = run("run", "--keep", "--ring-kb", "256", "-o", out, "--", PROG, "fork", BOOKS_N)
    p = pids_of(so)
    try:
        check(code == OK, f"run exits 0 ({err.strip()[-300:]})")
        check("unwatched" not in p, "the child was drained while it ran")
        check_books(strict_json(out), ls_entries(), p)
    finally:
        remove_segments(p.values())


def losses_said(err):
    """{pid: (dropped, overwritten)} that the summary line of `recorder
    run` says for each process, and what it says in all (None if nothing
    was lost anywhere)."""
    line = next((l for l in err.splitlines() if l.startswith("recorder: wrote ")), "")
    words = r"lost (\d+) entries: (\d+) dropped, (\d+) overwritten"
    said = {}
    for part in re.split(r"; (?=pid \d+ \()", line):
        m, w = re.search(r"pid (\d+) \(", part), re.search(words, part.split("; in all, ")[0])
        if m:
            said[int(m.group(1))] = (int(w.group(2)), int(w.group(3))) if w else (0, 0)
            if w:
                check(int(w.group(1)) == int(w.group(2)) + int(w.group(3)), f"lost = dropped + overwritten ({part})")
    total = re.search("in all, " + words, line)
    return said, (int(total.group(2)), int(total.group(3))) if total else None


def test_run_losses_per_process():
    """With 4 KiB rings the forked child drops entries: the summary says
    each process's losses in the CLI's one phrasing ("lost N entries: D
    dropped, O overwritten"), as the file counts them, and their sum in
    all (the child's used to be said only inside a total, in other
    words)."""
    out = os.path.join(WORK, "losses.json")
    code, so, err = run("run", "--keep", "--ring-kb", "4", "-o", out, "--", PROG, "fork", BOOKS_N)
    p = pids_of(so)
    try:
        check(code == OK, f"run exits 0 ({err.strip()[-300:]})")
        procs = {q["pid"]: q for q in strict_json(out)["otherData"]["recorder"]["processes"]}
        said, total = losses_said(err)
        check(set(said) == set(procs) == {p["parent"], p["child"]}, f"each process is described ({said}, {sorted(procs)})")
        in_file = {pid: (sum(t["dropped"] for t in q["threads"]), sum(t["overwritten"] for t in q["threads"]))
                   for pid, q in procs.items()}
        check(said == in_file, f"each process's losses are said as the file counts them ({said} vs {in_file})")
        sums = (sum(d for d, _ in in_file.values()), sum(o for _, o in in_file.values()))
        check(total == (sums if any(sums) else None), f"and in all ({total} vs {sums})")
    finally:
        remove_segments(p.values())


def test_capture_books():
    """The same with `recorder capture -- CMD`: the child goes into the
    capture file, drained live.  RECORDER_KEEP=1 (the user's own) keeps
    the segments, for what each process wrote."""
    cap = os.path.join(WORK, "books.rec")
    cmd = [RECORDER, "capture", "-q", "--ring-kb", "256", "-o", cap, "--", PROG, "fork", str(BOOKS_N)]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=WORK, env=env_without_keep({"RECORDER_KEEP": "1"}),
                       timeout=TIMEOUT)
    p = pids_of(r.stdout)
    try:
        check(r.returncode == OK, f"capture exits 0 ({r.stderr.strip()[-300:]})")
        check("unwatched" not in p, "the child was drained while it ran")
        check(f"added pid {p.get('child')} (captured while it ran)" in r.stderr,
              f"says the child was captured live ({r.stderr[-300:]})")
        out = os.path.join(WORK, "books-cap.json")
        code, _, err = run("convert", cap, "-o", out)
        check(code == OK, f"convert exits 0 ({err.strip()[-300:]})")
        check_books(strict_json(out), ls_entries(), p)
    finally:
        remove_segments(p.values())


def test_dump_books():
    """A dead process's segment whose ring came round (120,000 entries in
    a ring of 65,536) is read whole by dump: kept + not kept + lost =
    written.  (A read that stops short, at the entries a writer may have
    been overwriting, was taken for the end of the ring: 16,380 entries
    kept, the rest of the ring in no count.)"""
    n = 60000
    e = env_without_keep({"RECORDER_KEEP": "1", "RECORDER_RING_KB": "1024"})
    pr = subprocess.Popen([PROG, "emit", str(n)], stdout=subprocess.DEVNULL, cwd=WORK, env=e)
    p = {"child": pr.pid}
    try:
        require(pr.wait(timeout=TIMEOUT) == 0, "tree_prog ran")
        written = ls_entries()
        out = os.path.join(WORK, "dump-books.json")
        code, _, err = run("dump", p["child"], "-o", out)
        check(code == OK, f"dump exits 0 ({err.strip()[-300:]})")
        q = strict_json(out)["otherData"]["recorder"]   # one process: its own fields
        kept = sum(t["events"] for t in q["threads"])
        rest = sum(t["not_kept"] + t["overwritten"] + t["dropped"] + t["bad"] for t in q["threads"])
        check(kept + rest == written.get(p["child"]), f"written {written.get(p['child'])} = kept {kept} + {rest}")
        check(kept >= 65536 - 8, f"the ring's 65,536 entries are read, less a few at its edge ({kept})")
    finally:
        remove_segments(p.values())


def proc_start(pid):
    """Field 22 of /proc/PID/stat (after the name, which may hold anything)."""
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[19])


def test_keep_launcher():
    """A program keeps its segment at a clean exit for its launcher only
    when RECORDER_LAUNCHER names a live launcher with its start time:
    not any live pid.  This test's own pid with a wrong start time (or a
    pid that is gone) leaves nothing; with its right one, the segment
    stays for it."""
    me = os.getpid()
    cases = [(f"{me}:{proc_start(me) + 1}", False), (f"{me}:{proc_start(me)}", True)]
    for launcher, kept in cases:
        e = env_without_keep({"RECORDER_LAUNCHER": launcher})
        pr = subprocess.Popen([PROG, "emit", "3"], stdout=subprocess.DEVNULL, cwd=WORK, env=e)
        try:
            check(pr.wait(timeout=TIMEOUT) == 0, "tree_prog ran")
            there = os.path.exists(seg(pr.pid))
            check(there == kept, f"RECORDER_LAUNCHER={launcher} (this test is {me}): "
                  f"{'kept' if kept else 'removed'} at exit ({'there' if there else 'gone'})")
        finally:
            remove_segments([pr.pid])


def other_user():
    """A user made for the test (root only): its name and uid, or None
    with the reason printed (the test then says SKIP plainly)."""
    import pwd
    import shutil
    if os.geteuid() != 0:
        return None, "needs root (useradd, runuser)"
    if not shutil.which("useradd") or not shutil.which("runuser"):
        return None, "useradd or runuser missing"
    name = f"rtree{os.getpid()}"
    r = subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/bin/sh", name],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"useradd failed: {r.stderr.strip()}"
    u = pwd.getpwnam(name)
    if subprocess.run(["runuser", "-u", name, "--", "test", "-x", PROG]).returncode != 0:
        subprocess.run(["userdel", name], capture_output=True)
        return None, f"{name} cannot run {PROG} (a parent directory is not searchable)"
    return (name, u.pw_uid), None


def segments_of(uid):
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith("recorder.")
                  and os.lstat(os.path.join("/dev/shm", n)).st_uid == uid)


def test_user_change():
    """run -- CMD and capture -- CMD whose program changes user (runuser):
    said (the pid, the uid), not blamed on the instrumentation, a
    non-zero exit, and no segment of that user's left in /dev/shm: its
    writer does not keep a segment for a launcher of another user."""
    user, why = other_user()
    if not user:
        print(f"SKIP: {why}")
        return
    name, uid = user
    try:
        before = segments_of(uid)
        for cmd in (["run", "-o", os.path.join(WORK, "user.json")], ["capture", "-o", os.path.join(WORK, "user.rec")]):
            # consume: a scope per line of stdin until it ends, so the
            # program lives until recorder has said what it saw.
            pr = subprocess.Popen([RECORDER, *cmd, "--", "runuser", "-u", name, "--", PROG, "consume"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  cwd=WORK, env=env_without_keep())
            pr.stdin.write("one\n")
            pr.stdin.flush()
            # Waits for the condition: recorder saw it (the 120 s are for
            # a recorder that never says so, which fails).
            first = pr.stderr.readline() if select.select([pr.stderr], [], [], 120)[0] else ""
            pr.stdin.close()
            err = first + pr.stderr.read()
            code = pr.wait(timeout=TIMEOUT)
            pr.stdout.close()
            pr.stderr.close()
            check(code != OK, f"{cmd[0]}: exits non-zero ({code})")
            check("changed user" in first, f"{cmd[0]}: says at once that the program changed user ({first!r})")
            check("changed user" in err and f"uid {uid}" in err, f"{cmd[0]}: says it at the end ({err[-400:]!r})")
            check("instrumented" not in err, f"{cmd[0]}: does not blame the instrumentation")
            check(segments_of(uid) == before, f"{cmd[0]}: no segment of uid {uid} is left ({segments_of(uid)})")
    finally:
        for n in segments_of(uid):
            os.unlink(os.path.join("/dev/shm", n))
        subprocess.run(["userdel", name], capture_output=True)


def kept_tree():
    """A tree run with RECORDER_KEEP=1: its segments stay for dump."""
    e = env_without_keep({"RECORDER_KEEP": "1"})
    p = subprocess.run([PROG, "workers", str(N)], capture_output=True, text=True, cwd=WORK, env=e, timeout=TIMEOUT)
    require(p.returncode == 0, "tree_prog ran")
    return pids_of(p.stdout)


def test_dump_many():
    p = kept_tree()
    try:
        out = os.path.join(WORK, "many.json")
        args = [p["parent"], p["worker1"], p["grandchild"], p["worker1"]]
        code, _, err = run("dump", *args, "-o", out)
        check(code == OK, f"dump of three pids exits 0 ({err.strip()[-300:]})")
        check("given twice" in err, "a pid given twice is said so and written once")
        want = {k: v for k, v in tree_want(p).items() if k[0] in args}
        expect_counts("dump PID PID PID", json_slices(strict_json(out)), want)
        pf = os.path.join(WORK, "many.pftrace")
        code, _, err = run("dump", *args, "-o", pf)
        expect_counts("dump PID PID PID, Perfetto", pf_slices(pf), want)
        # --tree: the parent and every descendant, all dead by now: found
        # by the parents their segments' headers name.
        tout = os.path.join(WORK, "tree.json")
        code, _, err = run("dump", "--tree", p["parent"], "-o", tout)
        check(code == OK, f"dump --tree exits 0 ({err.strip()[-300:]})")
        expect_counts("dump --tree of a dead tree", json_slices(strict_json(tout)), tree_want(p))
        code, _, err = run("dump", "--tree", p["worker1"], "-o", os.path.join(WORK, "sub.json"))
        want = {k: v for k, v in tree_want(p).items() if k[0] in (p["worker1"], p["grandchild"])}
        expect_counts("dump --tree of a subtree", json_slices(strict_json(os.path.join(WORK, "sub.json"))), want)
        # A planted link where one process's file goes is refused, not
        # followed; the other process's file is written.
        victim = os.path.join(WORK, "victim")
        with open(victim, "w") as f:
            f.write("keep")
        os.symlink(victim, os.path.join(WORK, f"ln.{p['worker3']}.json"))
        code, _, err = run("dump", "--split", p["parent"], p["worker3"], "-o", os.path.join(WORK, "ln.json"))
        check(code != OK, f"dump --split fails where a link was planted ({code})")
        check(open(victim).read() == "keep", "the link's target is untouched")
        check(os.path.exists(os.path.join(WORK, f"ln.{p['parent']}.json")), "the other process's file is written")
        code, _, err = run("dump", "--split", p["parent"], p["worker2"], "-o", os.path.join(WORK, "ds.json"))
        check(code == OK and all(os.path.exists(os.path.join(WORK, f"ds.{q}.json")) for q in (p["parent"], p["worker2"])),
              f"dump --split writes one file per pid ({err.strip()[-200:]})")
    finally:
        for pid in p.values():
            try:
                os.unlink(seg(pid))
            except FileNotFoundError:
                pass


def test_run_untracked():
    """More new segments than the launcher follows (4096): the trace holds
    the program it did follow, and a warning says how many it did not.
    The extra ones are zero-filled files (a segment whose header is not
    written yet), which the launcher must look at as candidates."""
    tag = f"untracked-{os.getpid()}"
    plant = ("import os\n"
             f"for i in range(4200):\n"
             f"    with open('/dev/shm/recorder.{tag}-%d' % i, 'wb') as f: f.write(bytes(4096))\n")
    out = os.path.join(WORK, "untracked.json")
    try:
        code, so, err = run("run", "-o", out, "--", "/bin/sh", "-c",
                            f"'{PROG}' emit {N} && /usr/bin/python3 -c \"{plant}\"")
        check(code == OK, f"run exits 0 ({err.strip()[-300:]})")
        m = re.search(r"(\d+) new segments were not followed \(at most 4096 are\)", err)
        # 4200 planted and the program's, less the 4096 followed (one of
        # them the shell's name, which never appears); each counted once.
        check(m is not None and 4200 + 1 - 4096 <= int(m.group(1)) <= 4200,
              f"says how many segments it did not follow ({err.strip()[-400:]})")
        n = scopes_of(strict_json(out))
        check([v for k, v in n.items() if k[1] == "emit"] == [N], f"the program it followed is whole ({n})")
    finally:
        for f in os.listdir("/dev/shm"):
            if f.startswith(f"recorder.{tag}-"):
                os.unlink(os.path.join("/dev/shm", f))


def crafted_pair(path, pid0, pid1, start1):
    """A capture of two processes (capfile.py): pid0 with one scope, pid1
    (started at start1) with two."""
    import struct
    from capfile import Capture, entry, PROCESS

    def src(pid, start, name):
        return struct.pack("<iIQ64sdQQQIIQQQ256s", pid, 0, start, name, 1e9, 0, 0, 0, 8, 1, 1024, 0, 0,
                           b"/dev/shm/crafted")
    c = Capture().record(1, src(pid0, 1000, b"first"))
    c.strings([(3, b"one")]).thread(0, pid0, b"main").chunk(0, [entry(1, 1000, 3), entry(2, 2000, 3)])
    c.record(PROCESS, struct.pack("<II", 1, 0) + src(pid1, start1, b"second"))
    c.strings([(3, b"two")], tag=0x100).thread(0, pid1, b"main", tag=0x100)
    c.chunk(0, [entry(1, 1000, 3), entry(2, 2000, 3), entry(1, 3000, 3), entry(2, 4000, 3)], tag=0x100)
    return c.end(tag=0x100).end().write(path)


def test_pid_reuse():
    """Two processes of one pid in a capture (a pid reused, a crafted
    file): the second was dropped as "given twice" (pid 777), or, with
    pid 0, --split wrote both to one name, the second replacing the
    first, exit 0.  Now it is left out by name, with its events, and the
    command fails; two pids are both written."""
    from clitest import FORMAT
    for name, pids in (("reuse", (777, 777)), ("zero", (0, 0)), ("two", (777, 778))):
        cap = crafted_pair(os.path.join(WORK, name + ".rec"), pids[0], pids[1], 5000)
        for split in (True, False):
            out = os.path.join(WORK, f"{name}{'-s' if split else ''}.json")
            code, _, err = run("convert", cap, "-o", out, *(["--split"] if split else []))
            what = f"{name} {'--split' if split else 'merged'}"
            written = sorted(f for f in os.listdir(WORK) if f.startswith(f"{name}{'-s' if split else ''}.")
                             and f.endswith(".json"))
            if pids[0] != pids[1]:
                check(code == OK and len(written) == (2 if split else 1), f"{what}: both written ({code}, {written})")
                continue
            check(code == FORMAT, f"{what}: fails ({code}: {err.strip()[-300:]})")
            check(f"pid {pids[1]} (second), capture (4 events) is another process" in err and "left out" in err
                  and "given twice" not in err, f"{what}: the one left out said, with its events ({err.strip()!r})")
            check(written == [os.path.basename(out).replace(".json", f".{pids[0]}.json") if split else
                              os.path.basename(out)], f"{what}: the first written, once ({written})")
            with open(os.path.join(WORK, written[0])) as f:
                names = {e.get("name") for e in json.load(f)["traceEvents"] if e.get("ph") in ("B", "X")}
            check(names == {"one"}, f"{what}: holds the first process's scope ({names})")


def test_split_target():
    """--split puts OUT.<pid>.json beside OUT: a device, a FIFO, a link or
    stdout as OUT is refused before anything runs (it wrote
    /dev/null.<pid> files into /dev), for dump, convert and run alike."""
    from clitest import USAGE
    cap, marker = crafted_pair(os.path.join(WORK, "st.rec"), 777, 778, 5000), os.path.join(WORK, "ran")
    for f in os.listdir(WORK):   # a rerun finds them
        if f == "ran" or f[:5] in ("fifo.", "link."):
            os.unlink(os.path.join(WORK, f))
    os.mkfifo(os.path.join(WORK, "fifo.json"))
    os.symlink("elsewhere.json", os.path.join(WORK, "link.json"))
    for out in ("/dev/null", "-", os.path.join(WORK, "fifo.json"), os.path.join(WORK, "link.json")):
        for args in (["convert", cap, "--split", "--format", "json", "-o", out],
                     ["dump", "--split", "--format", "json", "-o", out, "1"],
                     ["run", "--split", "--format", "json", "-o", out, "--", "touch", marker]):
            code, _, err = run(*args)
            said = "--split writes one file per process" in err or (out == "-" and "-o - is not supported" in err)
            check(code == USAGE and said and not os.path.exists(marker),
                  f"{' '.join(args[:2])} -o {out}: refused, nothing run ({code}, {err.strip()[-200:]!r})")
    left = [f for f in os.listdir("/dev") if f.startswith("null.")] + \
        [f for f in os.listdir(WORK) if f[:5] in ("fifo.", "link.") and f not in ("fifo.json", "link.json")]
    check(not left, f"no file beside any of them ({left})")


if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    globals()["test_" + TEST]()
    from clitest import failures
    sys.exit(1 if failures else 0)
