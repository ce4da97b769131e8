"""NVTX end to end, with no GPU: nvtx_prog (NVTX3 headers only) run under
`recorder run --cuda` / `recorder capture --cuda -- CMD`, its trace read
with Python's json (an independent parser), and the front doors' errors.

    test_nvtx.py RECORDER NVTX_PROG CUDA_LIB WORKDIR TEST
TEST: run, capture (what nvtx_prog records, through each door), lost (the
bounds: sub-lanes, the table of open ranges, long and bad messages),
doors (the variables the command gets, a missing library, usage errors).
"""
import json
import os
import shutil
import subprocess
import sys

RECORDER, PROG, LIB, WORK = [os.path.abspath(a) for a in sys.argv[1:5]]
TEST = sys.argv[5]
TIMEOUT = 120
failures = 0


def check(cond, what):
    global failures
    print(("ok: " if cond else "FAILED: ") + what)
    if not cond:
        failures += 1
    return cond


def env(**extra):
    e = dict(os.environ)
    for k in ("RECORDER_KEEP", "RECORDER_CUDA_LIB", "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"):
        e.pop(k, None)
    e.update(extra)
    return e


def rec(*args, e=None):
    p = subprocess.run([RECORDER, *args], capture_output=True, env=e or env(), cwd=WORK, timeout=TIMEOUT)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def slices(events):
    """{tid: [(name, begin, end)]} from B/E pairs (a stack per tid) and X events."""
    out, stacks = {}, {}
    for e in sorted((e for e in events if e.get("ph") in ("B", "E", "X")), key=lambda e: e["ts"]):
        tid = e["tid"]
        if e["ph"] == "X":
            out.setdefault(tid, []).append((e["name"], e["ts"], e["ts"] + e["dur"]))
        elif e["ph"] == "B":
            stacks.setdefault(tid, []).append(e)
        elif stacks.get(tid):
            b = stacks[tid].pop()
            out.setdefault(tid, []).append((b["name"], b["ts"], e["ts"]))
    return out


def check_trace(path, stderr):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names.setdefault(e["args"]["name"], []).append(e["tid"])
    tid = {n: t[0] for n, t in names.items() if len(t) == 1}
    for n in ("nvtx-main", "nvtx-worker", "NVTX default", "NVTX default #2", "NVTX mydomain"):
        check(n in tid, f"a track named {n!r} (tracks: {sorted(names)})")
    check("not-me" not in names, "a name given to another thread's tid is ignored")
    if failures:
        return
    sl = slices(events)
    main, work = sl.get(tid["nvtx-main"], []), sl.get(tid["nvtx-worker"], [])

    def one(lst, name):
        m = [s for s in lst if s[0] == name]
        check(len(m) == 1, f"one slice {name!r} (got {len(m)})")
        return m[0] if m else (name, 0, 0)

    def inside(a, b):
        return b[1] <= a[1] and a[2] <= b[2]

    outer, inner = one(main, "outer"), one(main, "inner")
    check(inside(inner, outer), "push/pop: 'inner' nested in 'outer' on the main thread")
    one(main, "mydomain: dstep")
    w, st = one(work, "work"), one(work, "step")
    check(inside(st, w), "push/pop: 'step' nested in 'work' on the worker")
    check(not any(s[0] in ("work", "step") for s in main), "the worker's ranges are not on the main thread")
    check(len(main) == 3 and len(work) == 2, f"nothing else on the threads ({main}, {work})")
    inst = [e for e in events if e.get("ph") in ("i", "I") and e["tid"] == tid["nvtx-main"]]
    got = sorted(e["name"] for e in inst)
    check(got == sorted(["checkpoint", "wide \u00e9", "mydomain: registered msg"]),
          f"marks are instants on the main thread: {got}")
    lane = sl.get(tid["NVTX default"], [])
    check(sorted(s[0] for s in lane) == ["A", "handoff"], f"'NVTX default' holds 'handoff' and 'A': {lane}")
    h = one(lane, "handoff")
    # Started on main before the worker existed, ended by it after its ranges.
    check(outer[2] <= h[1] < w[1] and h[2] >= st[2],
          f"'handoff' spans from its start on main to its end on the worker: {h} vs work {w}")
    b = sl.get(tid["NVTX default #2"], [])
    check([s[0] for s in b] == ["B"], f"'B' overlaps 'A': on the sub-lane 'NVTX default #2': {b}")
    a = one(lane, "A")
    if b:
        check(b[0][1] >= a[1] and b[0][2] >= a[2], "'B' starts after 'A' and ends after it")
    d = sl.get(tid["NVTX mydomain"], [])
    check([s[0] for s in d] == ["dwork"], f"the domain's start/end range on 'NVTX mydomain': {d}")
    check("no GPU lane recorded: the program never initialised CUDA (its NVTX ranges are recorded)" in stderr,
          f"one line says why no GPU lane was recorded, from the segment's state (NVTX only): {stderr.strip()}")


def test_run():
    code, out, err = rec("run", "--cuda", "-o", "out.json", "--", PROG)
    check(code == 0 and "nvtx_prog ok" in out, f"recorder run --cuda exits 0 ({code}; {err.strip()})")
    if code == 0:
        check_trace(os.path.join(WORK, "out.json"), err)


def test_capture():
    code, out, err = rec("capture", "--cuda", "-q", "-o", "cap.json", "--", PROG)
    check(code == 0 and "nvtx_prog ok" in out, f"recorder capture --cuda exits 0 ({code}; {err.strip()})")
    if code == 0:
        check_trace(os.path.join(WORK, "cap.json"), err)


def test_lost():
    code, out, err = rec("run", "--cuda", "-o", "lost.json", "--", PROG, "lost")
    check(code == 0 and "nvtx_prog ok" in out, f"recorder run --cuda nvtx_prog lost exits 0 ({code}; {err.strip()})")
    if code != 0:
        return
    with open(os.path.join(WORK, "lost.json"), encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    sl = slices(events)
    lanes = ["NVTX default"] + [f"NVTX default #{k}" for k in range(2, 9)]
    for lane in lanes:
        got = [s[0] for t, n in names.items() if n == lane for s in sl.get(t, [])]
        check(got == ["overlap"], f"one 'overlap' on {lane!r}: {got}")
    check(not any(n.startswith("NVTX default #9") for n in names.values()), "no ninth lane")
    check(not any(s[0] == "open" for v in sl.values() for s in v), "ranges never ended are not recorded")
    threads = {t["name"]: t for t in doc["otherData"]["recorder"]["threads"]}
    d = threads.get("NVTX default", {}).get("dropped")
    check(d == 3, f"2 ranges with no lane + 1 past the open table: 3 dropped on 'NVTX default' ({d})")
    inst = sorted(e["name"] for e in events if e.get("ph") in ("i", "I") and not e["name"].startswith("recorder:"))
    check(inst == sorted(["x" * 255, "bad\ufffd"]), f"a long mark cut to 255 bytes, a bad wide one U+FFFD: {inst}")


def test_fork():
    code, out, err = rec("run", "--cuda", "-o", "fork.json", "--", PROG, "fork")
    check(code == 0 and "nvtx_prog ok" in out, f"recorder run --cuda nvtx_prog fork exits 0 ({code}; {err.strip()})")
    if code != 0:
        return
    with open(os.path.join(WORK, "fork.json"), encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    lane_of = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    where = {}
    for e in events:
        if e.get("ph") in ("B", "i", "I") and not e["name"].startswith("recorder:"):
            where.setdefault(e["name"], []).append((e["pid"], lane_of.get((e["pid"], e["tid"]))))
    parent = where.get("parent-range", [])
    child = where.get("child-range", [])
    check(len(parent) == 1 and parent[0][1] == "NVTX default", f"'parent-range' on the parent's lane: {parent}")
    check(len(child) == 1 and child[0][1] == "NVTX default", f"'child-range' on a lane 'NVTX default': {child}")
    if parent and child:
        check(child[0][0] != parent[0][0], "... of the child's own process, not the parent's")
    mark = where.get("child-mark", [])
    check(len(mark) == 1 and child and mark[0][0] == child[0][0], f"'child-mark' in the child's process: {mark}")


def test_doors():
    lib = os.path.realpath(LIB)
    script = 'printf "%s\\n%s\\n" "$CUDA_INJECTION64_PATH" "$NVTX_INJECTION64_PATH" > vars.txt'
    for door in (["run", "--cuda", "-o", "v.json"], ["capture", "--cuda", "-o", "v.rec"]):
        if os.path.exists(os.path.join(WORK, "vars.txt")):
            os.unlink(os.path.join(WORK, "vars.txt"))
        code, _, err = rec(*door, "--", "/bin/sh", "-c", script)
        with open(os.path.join(WORK, "vars.txt")) as f:
            got = f.read().split("\n")[:2]
        check(got == [lib, lib], f"{door[0]} --cuda: both variables name the build tree's library: {got}")
        check("never initialised CUDA" in err and "NVTX ranges" not in err,
              f"{door[0]} --cuda: says why no GPU lane, and no NVTX ({err.strip()})")
        code, _, _ = rec(*door, "--", "/bin/sh", "-c", script, e=env(RECORDER_CUDA_LIB=lib))
        check(code in (0, 3), f"{door[0]}: RECORDER_CUDA_LIB naming the library is taken ({code})")
    # A library that is not there: exit 2, the command never started.
    marker = os.path.join(WORK, "started")
    for door in (["run", "--cuda", "-o", "m.json"], ["capture", "--cuda", "-o", "m.rec"]):
        code, _, err = rec(*door, "--", "/bin/touch", marker, e=env(RECORDER_CUDA_LIB=os.path.join(WORK, "none.so")))
        check(code == 2, f"{door[0]} --cuda with a missing library exits 2 ({code})")
        check("not there" in err and "not started" in err, f"... and says so: {err.strip()}")
        check(not os.path.exists(marker), "... without starting the command")
    code, _, err = rec("capture", "--cuda", "-o", "x.rec", "1")
    check(code == 2 and "--cuda" in err, f"capture --cuda without a command is a usage error ({code})")
    code, out, _ = rec("run", "--help")
    check("--cuda" in out, "run --help describes --cuda")
    code, out, _ = rec("capture", "--help")
    check("--cuda" in out, "capture --help describes --cuda")


def test_off():
    # RECORDER_CUDA without "nvtx": the library declines NVTX's
    # initialisation, and the program's NVTX calls record nothing.
    code, out, err = rec("run", "--cuda", "-o", "off.json", "--", PROG, e=env(RECORDER_CUDA="kernels,copies"))
    check(code == 0 and "nvtx_prog ok" in out, f"recorder run --cuda exits 0 ({code}; {err.strip()})")
    path = os.path.join(WORK, "off.json")
    if code == 0 and not os.path.exists(path):
        # Nothing recorded at all: the program made no segment, and run says so.
        check("left no segment" in err, f"run says the program left no segment: {err.strip()}")
    elif code == 0:
        with open(path, encoding="utf-8") as f:
            ev = json.load(f)["traceEvents"]
        names = {e["name"] for e in ev if e.get("ph") in ("B", "X", "i")} - {"flow"}
        check(not names, f"no NVTX range or mark recorded: {sorted(names)[:8]}")


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
{"run": test_run, "capture": test_capture, "lost": test_lost, "fork": test_fork, "doors": test_doors,
 "off": test_off}[TEST]()
sys.exit(1 if failures else 0)
