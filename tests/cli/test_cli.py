#!/usr/bin/env python3
"""The `recorder` command against small instrumented programs (cli_prog).

usage: test_cli.py RECORDER CLI_PROG WORKDIR TEST

Each TEST is one function below; it prints what it checks and exits 1 on
the first failure.  Nothing here is timed: timeouts only keep a broken
build from hanging the suite.
"""
import json
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import time

RECORDER, PROG, WORK, TEST = [os.path.abspath(a) for a in sys.argv[1:4]] + [sys.argv[4]]
HERE = os.path.dirname(os.path.abspath(__file__))
CHECK_TRACE = os.path.join(HERE, "..", "analysis", "check_trace.py")
SHM = "/dev/shm"
TIMEOUT = 120

# enum rec_status (include/recorder/reader.h), the documented exit codes
OK, USAGE, NOTFOUND, ACCESS, FORMAT, VERSION, TRUNCATED, IO, NOMEM, BUSY = 0, 2, 3, 4, 5, 6, 7, 8, 9, 10

failures = 0


def check(cond, what):
    global failures
    if cond:
        print("ok:", what)
    else:
        print("FAILED:", what)
        failures += 1
    return cond


def require(cond, what):
    if not check(cond, what):
        sys.exit(1)


def rec(*args, env=None, timeout=TIMEOUT):
    """Run recorder; returns (code, stdout, stderr)."""
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run([RECORDER, *map(str, args)], capture_output=True, text=True, env=e, timeout=timeout,
                       cwd=WORK)
    return p.returncode, p.stdout, p.stderr


def start(*args, env=None):
    """Start cli_prog; returns (Popen, pid) once it printed 'ready PID'."""
    e = dict(os.environ)
    e.pop("RECORDER_KEEP", None)
    if env:
        e.update(env)
    p = subprocess.Popen([PROG, *map(str, args)], stdout=subprocess.PIPE, text=True, env=e, cwd=WORK)
    line = readline(p)
    m = re.match(r"ready (\d+)", line or "")
    require(m is not None, f"cli_prog {' '.join(map(str, args))} started ({line!r})")
    return p, int(m.group(1))


def readline(p, timeout=TIMEOUT):
    r, _, _ = select.select([p.stdout], [], [], timeout)
    return p.stdout.readline() if r else None


def seg(pid):
    return os.path.join(SHM, f"recorder.{pid}")


def reap(p):
    try:
        p.kill()
    except ProcessLookupError:
        pass
    p.wait(timeout=TIMEOUT)


def remove_segment(pid):
    try:
        os.unlink(seg(pid))
    except FileNotFoundError:
        pass


def validate_trace(path):
    """The strict checker when the analysis tests have it; JSON syntax and
    the trace-event shape meanwhile."""
    if os.path.exists(CHECK_TRACE):
        p = subprocess.run([sys.executable, CHECK_TRACE, path], capture_output=True, text=True, timeout=TIMEOUT)
        check(p.returncode == 0, f"check_trace.py {os.path.basename(path)}: {p.stdout[-300:]}{p.stderr[-300:]}")
    with open(path, "rb") as f:
        data = f.read()
    try:
        doc = json.loads(data)
    except ValueError as e:
        check(False, f"{os.path.basename(path)} is JSON ({e})")
        return {"traceEvents": []}
    check(isinstance(doc.get("traceEvents"), list), f"{os.path.basename(path)} has traceEvents")
    return doc


def events_named(doc, name, ph=None):
    return [e for e in doc["traceEvents"] if e.get("name") == name and (ph is None or e.get("ph") == ph)]


def slice_names(doc):
    """Names of slices: complete and begin events, and open slices of zero
    length (the exporter writes those as instants whose category says open;
    docs/analysis.md)."""
    return {e.get("name") for e in doc["traceEvents"]
            if e.get("ph") in ("X", "B") or (e.get("ph") == "i" and "open" in e.get("cat", "").split(","))}


def one_line_error(code, err, want, what):
    lines = [l for l in err.splitlines() if l.strip()]
    check(code == want, f"{what}: exit {code}, expected {want}")
    check(len(lines) == 1 and lines[0].startswith("recorder"), f"{what}: one-line error ({err.strip()!r})")


def segment_copy(pid, name, cut=None, patch=None):
    """A copy of a segment file in WORK, optionally cut or patched."""
    with open(seg(pid), "rb") as f:
        data = bytearray(f.read())
    if patch:
        patch(data)
    if cut is not None:
        data = data[:cut]
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


# Header offsets (struct rec_header, include/recorder.h).
OFF_VERSION, OFF_PID, OFF_PROC_START = 8, 24, 32


def set_u32(off, v):
    return lambda d: d.__setitem__(slice(off, off + 4), struct.pack("<I", v))


def set_u64(off, v):
    return lambda d: d.__setitem__(slice(off, off + 8), struct.pack("<Q", v))


def capture_summary(err):
    m = re.search(r"(\d+) events \((\d+) entries\).*not kept (\d+) entries.*"
                  r"lost (\d+) entries: (\d+) dropped, (\d+) overwritten; ended: (.*)",
                  err)
    require(m is not None, f"capture printed its summary ({err.strip()[-300:]!r})")
    ev, ent, history, lost, dropped, over = map(int, m.groups()[:6])
    return {"events": ev, "entries": ent, "history": history, "lost": lost, "dropped": dropped, "overwritten": over,
            "ended": m.group(7)}


# --------------------------------------------------------------------------
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


def run_capture(prog_args, cap_args=(), env=None):
    p, pid = start(*prog_args, env=env)
    out = os.path.join(WORK, "cap.rec")
    code, _, err = rec("capture", pid, "-o", out, *cap_args)
    emitted = readline(p)
    p.wait(timeout=TIMEOUT)
    remove_segment(pid)
    check(code == OK, f"capture exits 0 ({err.strip()[-200:]})")
    lines = [l for l in err.strip().splitlines() if not l.startswith("recorder: hint:")]
    check("capturing pid" not in err and len(lines) == 1, "not a terminal: no status line, one summary line")
    m = re.match(r"emitted (\d+)", emitted or "")
    require(m is not None, f"the program said what it emitted ({emitted!r})")
    return out, int(m.group(1)), capture_summary(err)


def count_ticks(cap):
    js = os.path.join(WORK, "cap.json")
    code, _, err = rec("convert", cap, "-o", js)
    check(code == OK, f"convert exits 0 ({err.strip()})")
    doc = validate_trace(js)
    return doc, len(events_named(doc, "tick"))


def test_capture_exact():
    for ring_kb, n in [("4", 2000000), ("1024", 2000000)]:
        cap, emitted, s = run_capture(["spin", n], env={"RECORDER_RING_KB": ring_kb})
        doc, ticks = count_ticks(cap)
        print(f"ring {ring_kb} KiB: emitted {emitted}, captured {ticks}, dropped {s['dropped']}")
        check(ticks + s["dropped"] == emitted, f"ring {ring_kb} KiB: captured + dropped == emitted "
              f"({ticks} + {s['dropped']} == {emitted})")
        check(s["overwritten"] == 0, "nothing overwritten in stream mode")
        check(s["events"] == ticks + 2, "the summary counts the same events (+ thread start and name)")
        check(s["ended"] == "program exited", f"ended because the program exited ({s['ended']})")
        code, rep, _ = rec("report", cap)
        check(code == OK and "capture" in rep, "report reads the capture")
    # The same, unpacked.
    cap, emitted, s = run_capture(["spin", 200000], ["--raw"], env={"RECORDER_RING_KB": "4"})
    _, ticks = count_ticks(cap)
    check(ticks + s["dropped"] == emitted, f"--raw: captured + dropped == emitted ({ticks} + {s['dropped']})")


def test_capture_threads():
    # New threads appearing while the capture runs, each in a new slot; then
    # one slot for all (RECORDER_MAX_THREADS=1): every thread reuses it, with
    # a new generation each time.  Exact loss accounting under a capture that
    # falls behind is test_capture_exact's.
    for env in [{}, {"RECORDER_MAX_THREADS": "1"}]:
        cap, emitted, s = run_capture(["threads", 5, 20000], env=env)
        doc, ticks = count_ticks(cap)
        # The program lets the capture drain the ring between threads and
        # each thread's ticks fit in one ring: nothing may be dropped.
        check(ticks == emitted and s["dropped"] == 0 and s["overwritten"] == 0,
              f"{env}: every tick captured ({ticks} of {emitted}, dropped {s['dropped']})")
        tids = {e["tid"] for e in events_named(doc, "tick")}
        check(len(tids) == 5, f"{env}: five threads ({len(tids)})")


def test_capture_signal():
    for sig in [signal.SIGINT, signal.SIGTERM]:
        p, pid = start("loop")
        out = os.path.join(WORK, f"sig{sig.value}.rec")
        t0 = time.time()
        c = subprocess.Popen([RECORDER, "capture", str(pid), "-o", out], stderr=subprocess.PIPE, text=True, cwd=WORK)
        # Wait until the capture has written something, then stop it.
        for _ in range(6000):
            if os.path.exists(out) and os.path.getsize(out) > 20000:
                break
            time.sleep(0.01)
        c.send_signal(sig)
        _, err = c.communicate(timeout=TIMEOUT)
        print(f"{sig.name}: {time.time() - t0:.1f} s")
        check(c.returncode == OK, f"capture stopped by {sig.name} exits 0")
        s = capture_summary(err)
        check(s["events"] > 0, f"it captured events ({s['events']})")
        code, ls, _ = rec("ls", "--json")
        # Its own segment: an earlier process with the same pid may have
        # left one (kept aside, dead), which is not this program's.
        mine = [j for j in map(json.loads, ls.splitlines()) if j["pid"] == pid and j["state"] in ("alive", "closed")]
        check(len(mine) == 1 and mine[0]["mode"] == "flight", "the program is back in flight mode")
        check(p.poll() is None, "and still running")
        reap(p)
        remove_segment(pid)
        code, _, err = rec("convert", out, "-o", os.path.join(WORK, "sig.json"))
        check(code == OK and "warning" not in err, f"the capture is complete ({err.strip()})")
        code, rep, _ = rec("report", out)
        check(code == OK and "capture" in rep and " layer" in rep and "gap " in rep, "report of the capture")
    # A capture cut in the middle still converts, with one warning.
    with open(out, "rb") as f:
        data = f.read()
    cut = os.path.join(WORK, "cut.rec")
    with open(cut, "wb") as f:
        f.write(data[: len(data) // 2 + 3])
    code, _, err = rec("convert", cut, "-o", os.path.join(WORK, "cut.json"))
    check(code == OK and "warning" in err and "cut short" in err, f"a cut capture converts with a warning ({err.strip()})")
    validate_trace(os.path.join(WORK, "cut.json"))
    for fmt in ["csv", "folded"]:
        dst = os.path.join(WORK, f"sig.{fmt}")
        code, _, err = rec("convert", out, "-o", dst)
        check(code == OK and os.path.getsize(dst) > 0, f"convert to .{fmt} ({err.strip()})")
    code, o2, _ = rec("convert", out, "--format", "csv", "-o", "-")
    check(code == OK and o2 == open(os.path.join(WORK, "sig.csv")).read(), "--format csv -o - is the same CSV")
    # On a terminal: a live status line, then the summary.
    import pty
    p, pid = start("loop")
    master, slave = pty.openpty()
    c = subprocess.Popen([RECORDER, "capture", str(pid), "-o", os.path.join(WORK, "tty.rec"), "--duration", "1.5"],
                         stderr=slave, stdout=subprocess.DEVNULL, cwd=WORK)
    os.close(slave)
    got = b""
    while True:
        try:
            r, _, _ = select.select([master], [], [], TIMEOUT)
            chunk = os.read(master, 4096) if r else b""
        except OSError:
            chunk = b""
        if not chunk:
            break
        got += chunk
    c.wait(timeout=TIMEOUT)
    os.close(master)
    text = got.decode(errors="replace")
    check(re.search(r"capturing pid \d+: .* events/s", text) is not None, f"a status line on a terminal ({text[:120]!r})")
    check("recorder: captured pid" in text, "then the summary")
    reap(p)
    remove_segment(pid)
    # --duration ends it by itself.
    p, pid = start("spin", 10 ** 15)
    code, _, err = rec("capture", pid, "-o", os.path.join(WORK, "dur.rec"), "--duration", "0.3")
    check(code == OK and "ended: stopped" in err, f"--duration stops it ({err.strip()[-80:]})")
    reap(p)
    remove_segment(pid)


def launch(cap_args, prog_args, env=None):
    """recorder capture -o FILE CAP_ARGS -- cli_prog PROG_ARGS; returns (code, stdout, stderr, out)."""
    out = os.path.join(WORK, "launch.rec")
    if os.path.exists(out):
        os.unlink(out)
    e = {"CLI_PROG_NOWAIT": "1"}
    e.update(env or {})
    code, so, err = rec("capture", "-o", out, *cap_args, "--", PROG, *prog_args, env=e)
    return code, so, err, out


def test_capture_launch():
    # The program starts writing at once, before the capture attaches: its
    # 64 MiB ring (4 M entries) holds all 2 M ticks, so nothing can be
    # lost however late the capture attaches or however slowly it runs.
    code, so, err, out = launch([], ["spin", 2000000])
    check(code == OK, f"capture -- CMD exits with the program's status 0 ({err.strip()[-200:]})")
    m = re.match(r"emitted (\d+)", so)
    require(m is not None, f"the program ran ({so!r})")
    s = capture_summary(err)
    _, ticks = count_ticks(out)
    check(ticks == 2000000 and s["dropped"] == 0 and s["overwritten"] == 0,
          f"every tick of a program started at full speed is captured ({ticks}, dropped {s['dropped']}, "
          f"overwritten {s['overwritten']})")
    check(s["ended"] == "program exited", f"ended because the program exited ({s['ended']})")
    pid = int(re.search(r"captured pid (\d+)", err).group(1))
    check(not os.path.exists(seg(pid)), "its segment is removed afterwards")
    # A program given a segment name of its own is found by that name.
    code, so, err, out = launch([], ["spin", 1000], env={"RECORDER_NAME": f"cap-{os.getpid()}"})
    s = capture_summary(err)
    check(code == OK and s["events"] == 1002, f"RECORDER_NAME: found and captured ({code}, {s})")
    check(not os.path.exists(os.path.join(SHM, f"recorder.cap-{os.getpid()}")), "and its segment removed")
    # A small ring (--ring-kb) loses some of that, and says exactly how much.
    code, so, err, out = launch(["--ring-kb", "4"], ["spin", 300000])
    s = capture_summary(err)
    _, ticks = count_ticks(out)
    check(code == OK and s["history"] + s["dropped"] + s["overwritten"] > 0, f"a 4 KiB ring loses some ({s})")
    # Every entry it wrote (300000 ticks, its thread start and name) is
    # captured or counted, as not kept (before the capture attached) or lost.
    check(s["entries"] + s["history"] + s["dropped"] + s["overwritten"] == 300002 and ticks <= s["events"],
          f"captured + not kept + dropped + overwritten == written ({s['entries']} + {s['history']} + "
          f"{s['dropped']} + {s['overwritten']})")
    # The program's exit status comes through, with what it recorded.
    code, _, err, out = launch([], ["exit", "3"])
    check(code == 3, f"capture -- CMD returns the program's status 3 ({code})")
    code, _, _ = rec("convert", out, "-o", os.path.join(WORK, "exit3.json"))
    check(code == OK and "before_exit" in slice_names(validate_trace(os.path.join(WORK, "exit3.json"))),
          "and captured its scope")
    # A process the program forks is in the capture too (its own process,
    # which readers of one process skip), and keeps no segment.
    code, so, err, out = launch([], ["fork"])
    m1, m2 = re.search(r"child (\d+)", so), re.search(r"parent (\d+)", so)
    require(code == OK and m1 and m2, f"the forking program ran ({code}, {so!r}, {err.strip()[-200:]})")
    child, parent = int(m1.group(1)), int(m2.group(1))
    check(not os.path.exists(seg(parent)) and not os.path.exists(seg(child)),
          "neither the program's segment nor its child's is left behind")
    code, _, _ = rec("convert", out, "-o", os.path.join(WORK, "fork.json"))
    doc = validate_trace(os.path.join(WORK, "fork.json"))
    names = {(e["pid"], e["name"]) for e in doc["traceEvents"] if e.get("ph") == "B"}
    check((parent, "in_parent") in names and (child, "in_child") in names, "the capture holds both processes")
    code, so, _ = rec("report", out)
    check(code == OK and "in_parent" in so and "in_child" in so, "report reads every process of the capture")
    # A program that never records, one that cannot run, and bad usage.
    code, _, err = rec("capture", "-o", "x.rec", "--", "true")
    one_line_error(code, err, NOTFOUND, "a program that records nothing")
    check("instrumented" in err, "says the program may not be instrumented")
    marker = os.path.join(WORK, "started")
    code, _, err = rec("capture", "-o", os.path.join(WORK, "no-dir", "x.rec"), "--", "touch", marker)
    check(code == IO and "no-dir" in err and not os.path.exists(marker),
          f"an output it cannot create is an error before the program starts ({code}, {err.strip()})")
    code, _, err = rec("capture", "-o", "x.rec", "--", os.path.join(WORK, "no-such-program"))
    check(code == 127 and "cannot run" in err, f"a missing program: 127, as a shell says ({code}, {err.strip()})")
    for args in (["-o", "x.rec", "123", "--", "true"], ["-o", "x.rec", "--ring-kb", "3", "--", "true"],
                 ["-o", "x.rec", "--from-now", "--", "true"], ["-o", "x.rec", "--ring-kb", "64", "123"],
                 ["-o", "x.rec", "--"], ["--", "true"]):
        code, _, err = rec("capture", *args)
        one_line_error(code, err, USAGE, f"capture {' '.join(args)}")
    # Ctrl-C goes to the program (here: only to us, and we ignore it);
    # SIGTERM is passed on to it, and its death ends the capture.
    out = os.path.join(WORK, "term.rec")
    c = subprocess.Popen([RECORDER, "capture", "-o", out, "--", PROG, "loop"], stderr=subprocess.PIPE, text=True,
                         cwd=WORK)
    for _ in range(6000):
        if os.path.exists(out) and os.path.getsize(out) > 20000:
            break
        time.sleep(0.01)
    c.send_signal(signal.SIGINT)
    time.sleep(0.3)
    check(c.poll() is None, "SIGINT to the capture alone does not stop it")
    c.send_signal(signal.SIGTERM)
    _, err = c.communicate(timeout=TIMEOUT)
    check(c.returncode == 128 + signal.SIGTERM, f"SIGTERM reached the program: 128+SIGTERM ({c.returncode})")
    s = capture_summary(err)
    check(s["events"] > 0 and s["ended"] == "program exited", f"the capture ran until it died ({s})")
    code, _, err = rec("convert", out, "-o", os.path.join(WORK, "term.json"))
    check(code == OK and "warning" not in err, f"the capture is complete ({err.strip()})")


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


# ---- exports: what the summary says, and windows --------------------------

def export_summary(err):
    """The counts of dump/convert/run's summary line."""
    m = re.search(r"wrote .*?: (\d+) slices, (\d+) instants, (\d+) counters, (\d+) flow events \((\d+) trace "
                  r"events\), (\d+) threads", err)
    require(m is not None, f"the export's summary line ({err.strip()[-300:]!r})")
    return dict(zip(("slices", "instants", "counters", "flows", "trace_events", "threads"), map(int, m.groups())))


def file_counts(doc):
    """The same counts, from the file (parsed with a real JSON parser)."""
    n = {}
    for e in doc["traceEvents"]:
        n[e["ph"]] = n.get(e["ph"], 0) + 1
    check(n.get("B", 0) == n.get("E", 0), "as many E as B")
    return {"slices": n.get("B", 0), "instants": n.get("i", 0), "counters": n.get("C", 0),
            "flows": sum(1 for e in doc["traceEvents"] if e["ph"] == "X" and "bind_id" in e),
            "trace_events": sum(v for k, v in n.items() if k != "M"),
            "threads": sum(1 for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name")}


def summary_matches(what, err, path):
    s, f = export_summary(err), file_counts(validate_trace(path))
    check(s == f and f["slices"] > 0, f"{what}: the summary line is what the file holds ({s} vs {f})")


def begins(doc, q):
    """The q-quantile of the slices' begins (us, rounded down): windows
    placed by where the slices are, not by the trace's span, which a late
    event of a descheduled program can stretch."""
    b = sorted(e["ts"] for e in doc["traceEvents"] if e["ph"] == "B")
    require(len(b) > 20, f"the trace has slices ({len(b)})")
    return int(b[int(len(b) * q)])


def activity(cap):
    """Where the capture's slices begin: the 20%, 70% and 50% quantiles
    (us), and its end (us from ts 0)."""
    out = os.path.join(WORK, "span.json")
    code, _, err = rec("convert", cap, "-o", out)
    require(code == OK, f"convert ({err.strip()[-200:]})")
    doc = validate_trace(out)
    other = doc["otherData"]["recorder"]
    return begins(doc, 0.2), begins(doc, 0.7), begins(doc, 0.5), (other["end_ns"] - other["t0_ns"]) / 1000


def test_export_counts():
    # convert of a capture, whole and windowed
    code, so, err, cap = launch([], ["scopes", "40"])
    require(code == OK, f"captured cli_prog scopes ({err.strip()[-200:]})")
    lo, hi, mid, end = activity(cap)
    for extra in ([], ["--last", f"{(end - mid) / 1e6:.6f}"],
                  ["--from", f"{lo / 1e6:.6f}", "--to", f"{hi / 1e6:.6f}"]):
        out = os.path.join(WORK, "conv.json")
        code, _, err = rec("convert", cap, "-o", out, *extra)
        require(code == OK, f"convert {' '.join(extra)} ({err.strip()[-200:]})")
        summary_matches(f"convert {' '.join(extra)}", err, out)
    # dump of a dead program's segment, and of a live one
    env = dict(os.environ, RECORDER_KEEP="1")
    r = subprocess.run([PROG, "scopes", "30"], env=env, cwd=WORK, timeout=TIMEOUT, capture_output=True, text=True)
    pid = int(re.search(r"pid (\d+)", r.stdout).group(1))
    try:
        out = os.path.join(WORK, "dead.json")
        code, _, err = rec("dump", pid, "-o", out)
        check(code == OK and "dead" in err, f"dump of the dead program ({err.strip()[-200:]})")
        summary_matches("dump (dead)", err, out)
    finally:
        remove_segment(pid)
    p, pid = start("hold")
    try:
        out = os.path.join(WORK, "live.json")
        code, _, err = rec("dump", pid, "-o", out)
        check(code == OK and "alive" in err, f"dump of the live program ({err.strip()[-200:]})")
        summary_matches("dump (live)", err, out)
    finally:
        reap(p)
        remove_segment(pid)
    # run: the program's own trace
    out = os.path.join(WORK, "run.json")
    e = dict(os.environ)
    e.pop("RECORDER_KEEP", None)
    r = subprocess.run([RECORDER, "run", "-o", out, "--", PROG, "scopes", "20"], capture_output=True, text=True,
                       cwd=WORK, env=e, timeout=TIMEOUT)
    check(r.returncode == 0, f"run ({r.stderr.strip()[-200:]})")
    summary_matches("run", r.stderr, out)
    # CSV and folded say how many rows they wrote
    for ext, word in (("csv", "rows"), ("folded", "lines")):
        out = os.path.join(WORK, "conv." + ext)
        code, _, err = rec("convert", cap, "-o", out)
        m = re.search(r"wrote .*?: (\d+) " + word, err)
        lines = [l for l in open(out).read().splitlines() if l]
        check(code == OK and m and int(m.group(1)) == len(lines) - (ext == "csv") > 0,
              f"{ext}: the summary's {word} are the file's ({err.strip()[-160:]})")


def slices_of(doc):
    """(tid, name, begin, end, cat) of every B/E pair, in microseconds."""
    out, stacks = [], {}
    for e in doc["traceEvents"]:
        if e["ph"] == "B":
            stacks.setdefault(e["tid"], []).append(e)
        elif e["ph"] == "E":
            b = stacks[e["tid"]].pop()
            out.append((e["tid"], b["name"], b["ts"], e["ts"], b.get("cat")))
    return out


def points_of(doc):
    """Everything that is a point in time: instants, counters, flow events
    (the zero-length "flow" slices, as "f"), as comparable tuples."""
    return [("f" if e["ph"] == "X" else e["ph"], e["tid"], e["name"], e["ts"],
             json.dumps(e.get("args"), sort_keys=True), e.get("cat"), e.get("bind_id", e.get("id")))
            for e in doc["traceEvents"] if e["ph"] in "iC" or (e["ph"] == "X" and "bind_id" in e)]


def window_expected(full, lo, hi):
    """What a window [lo, hi] (us) of the full trace must hold, exactly."""
    sl, pts = [], []
    for tid, name, b, e, cat in slices_of(full):
        if e < lo or b > hi:
            continue
        b2, e2 = max(b, lo), min(e, hi)
        cat2 = cat if (b2, e2) == (b, e) else (cat + ",clipped" if cat else "clipped")
        sl.append((tid, name, b2, e2, cat2))   # a zero-length slice too
    pts += [p for p in points_of(full) if lo <= p[3] <= hi and p[0] in "iC"]
    return sorted(sl), sorted(pts, key=str)


def check_window(what, full, win, lo, hi):
    want_sl, want_pts = window_expected(full, lo, hi)
    require(want_sl and want_pts, f"{what}: the window holds slices and points ({len(want_sl)}, {len(want_pts)})")
    got_sl = sorted(slices_of(win))
    got_pts = sorted([p for p in points_of(win) if p[0] in "iC"], key=str)
    check(got_sl == want_sl, f"{what}: every slice in [{lo}, {hi}] us and nothing else "
          f"({len(got_sl)} vs {len(want_sl)}: {sorted(set(got_sl) ^ set(want_sl))[:4]})")
    check(got_pts == want_pts, f"{what}: every instant and counter in [{lo}, {hi}] us and nothing else "
          f"({len(got_pts)} vs {len(want_pts)}: {sorted(set(got_pts) ^ set(want_pts), key=str)[:4]})")
    fl_full = {p for p in points_of(full) if p[0] in "stf"}
    fl_win = [p for p in points_of(win) if p[0] in "stf"]
    check(all(p in fl_full and lo <= p[3] <= hi for p in fl_win), f"{what}: flow events are the full trace's, inside")
    check(len(win["traceEvents"]) < len(full["traceEvents"]), f"{what}: smaller than the whole")


def test_export_window():
    code, so, err, cap = launch([], ["scopes", "40"])
    require(code == OK, f"captured cli_prog scopes ({err.strip()[-200:]})")
    full_path = os.path.join(WORK, "full.json")
    code, _, err = rec("convert", cap, "-o", full_path)
    full = validate_trace(full_path)
    other = full["otherData"]["recorder"]
    end = (other["end_ns"] - other["t0_ns"]) / 1000
    # --from/--to at whole microseconds (exact in ns, so exact in the
    # file), around the middle of the slices
    lo, hi = begins(full, 0.3), begins(full, 0.6)
    require(hi > lo, f"a window of the slices: [{lo}, {hi}] us")
    out = os.path.join(WORK, "ft.json")
    code, _, err = rec("convert", cap, "-o", out, "--from", f"{lo / 1e6:.6f}", "--to", f"{hi / 1e6:.6f}")
    require(code == OK, f"convert --from --to ({err.strip()[-200:]})")
    check_window("--from/--to", full, validate_trace(out), lo, hi)
    # --last counts back from the end (otherData.end_ns, the capture's end):
    # from the last 30% of the slices' begins on
    last = round(end - begins(full, 0.7)) / 1e6
    out = os.path.join(WORK, "last.json")
    code, _, err = rec("convert", cap, "-o", out, "--last", f"{last:.6f}")
    require(code == OK, f"convert --last ({err.strip()[-200:]})")
    win = validate_trace(out)
    o2 = win["otherData"]["recorder"]
    check(o2["t0_ns"] == other["t0_ns"] and o2["end_ns"] == other["end_ns"], "a window keeps the trace's ts 0 and end")
    lo = (other["end_ns"] - other["t0_ns"] - round(last * 1e9)) / 1000
    check_window("--last", full, win, lo, float("inf"))
    # dump and run take the same options
    code, _, err = rec("dump", cap, "-o", out, "--from", f"{lo / 1e6:.6f}")
    check(code == OK and export_summary(err)["slices"] > 0, f"dump --from ({err.strip()[-120:]})")
    for args in (["--from", "-1"], ["--to", "0"], ["--from", "2", "--to", "1"], ["--to", "x"]):
        code, _, err = rec("convert", cap, "-o", out, *args)
        one_line_error(code, err, USAGE, f"convert {' '.join(args)}")


TESTS = {n[5:]: f for n, f in globals().items() if n.startswith("test_")}

if __name__ == "__main__":
    if TEST not in TESTS:
        sys.exit(f"unknown test {TEST}; one of {', '.join(TESTS)}")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    TESTS[TEST]()
    if failures:
        print(f"{failures} check(s) failed")
        sys.exit(1)
