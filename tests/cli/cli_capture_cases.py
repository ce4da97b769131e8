#!/usr/bin/env python3
"""cli_capture_cases: test_cli.py's scenarios of `recorder capture` --
exact counts from a program that says what it emitted, threads, the
signals that end a capture, and capture -- CMD (launch).  Run through
test_cli.py RECORDER CLI_PROG WORKDIR TEST.
"""
import json
import os
import re
import select
import signal
import subprocess
import time

from clitest import (IO, NOTFOUND, OK, PROG, RECORDER, SHM, TIMEOUT, USAGE, WORK, check, remove_segment, require, seg)
from clilive import (capture_summary, events_named, launch, one_line_error, readline, reap, rec, slice_names, start,
                     validate_trace)


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
    # 1 M ticks: 4000 times the small ring, 16 times the large one.
    for ring_kb, n in [("4", 1000000), ("1024", 1000000)]:
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




def test_capture_launch():
    # The program starts writing at once, before the capture attaches: its
    # 64 MiB ring (4 M entries) holds all 500 k ticks, so nothing can be
    # lost however late the capture attaches or however slowly it runs.
    code, so, err, out = launch([], ["spin", 500000])
    check(code == OK, f"capture -- CMD exits with the program's status 0 ({err.strip()[-200:]})")
    m = re.match(r"emitted (\d+)", so)
    require(m is not None, f"the program ran ({so!r})")
    s = capture_summary(err)
    _, ticks = count_ticks(out)
    check(ticks == 500000 and s["dropped"] == 0 and s["overwritten"] == 0,
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
    # Several consumer threads keep what one keeps: the same known
    # workload of 3 threads, every scope of each, with 1 and 3 consumers.
    counts = []
    for n in ("1", "3"):
        code, so, err, out = launch(["--consumers", n], ["scopes"])
        s = capture_summary(err)
        j = os.path.join(WORK, f"consumers{n}.json")
        c2, _, _ = rec("convert", out, "-o", j)
        evs = [e for e in validate_trace(j)["traceEvents"] if e.get("ph") in ("B", "X", "i")]
        counts.append((code, c2, s["dropped"] + s["overwritten"], sorted(e["name"] for e in evs)))
    check(counts[0][:3] == (OK, OK, 0) and counts[1][:3] == (OK, OK, 0) and counts[0][3] == counts[1][3] and
          len(counts[0][3]) > 0,
          "--consumers 3 captures every scope --consumers 1 does")
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
                 ["-o", "x.rec", "--"], ["--", "true"], ["-o", "x.rec", "--consumers", "0", "--", "true"],
                 ["-o", "x.rec", "--consumers", "65", "--", "true"], ["-o", "x.rec", "--consumers", "x", "123"]):
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
