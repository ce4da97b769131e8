#!/usr/bin/env python3
"""recorder gc (docs/cli.md, "gc"): what it removes, what it keeps and
why.  Moved out of test_cli.py, whose helpers (clitest.py, clilive.py) it
uses.

usage: test_gc.py RECORDER CLI_PROG WORKDIR gc

Nothing waits out the grace period: a copy's "last sign of life" is
made old by setting the file's mtime and every counter value in it
far back (the header's calibration point), or the grace is given with
--grace / --now.
"""
import os
import shutil
import signal
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402
from clitest import OK, TEST, TIMEOUT, WORK, check, remove_segment, seg  # noqa: E402
from clilive import (OFF_PROC_START, OFF_VERSION, reap, rec, segment_copy, set_u32, set_u64,  # noqa: E402
                     start)

# Header offsets (struct rec_header, include/recorder.h).
OFF_FLAGS, OFF_LAUNCHER_PID, OFF_LAUNCHER_START, OFF_REAL_NS0 = 28, 224, 232, 128
REC_FLAG_KEEP = 1


def set_flags(v):
    return set_u32(OFF_FLAGS, v)


def both(*patches):
    def f(d):
        for p in patches:
            p(d)
    return f


def test_gc():
    p, pid = start("hold")
    q, live = start("hold")
    d = os.path.join(WORK, "shm")
    os.makedirs(d, exist_ok=True)
    try:
        os.kill(pid, signal.SIGKILL)
        p.wait(timeout=TIMEOUT)
        old = time.time() - 3600
        files = {
            "recorder.dead": segment_copy(pid, "shm/recorder.dead"),
            "recorder.live": segment_copy(live, "shm/recorder.live"),
            "recorder.reused": segment_copy(live, "shm/recorder.reused", patch=set_u64(OFF_PROC_START, 1)),
            "recorder.cut_old": segment_copy(pid, "shm/recorder.cut_old", cut=6000),
            "recorder.cut_new": segment_copy(pid, "shm/recorder.cut_new", cut=6000),
            "recorder.cut_live": segment_copy(live, "shm/recorder.cut_live", cut=6000),
            "recorder.v9": segment_copy(pid, "shm/recorder.v9", patch=set_u32(OFF_VERSION, 9)),
        }
        for name, data in [("recorder.junk", b"junk" * 2000), ("recorder.zero", bytes(8192)),
                           ("recorder.zero_new", bytes(8192))]:
            files[name] = os.path.join(d, name)
            with open(files[name], "wb") as f:
                f.write(data)
        target = os.path.join(WORK, "precious")
        with open(target, "wb") as f:
            f.write(bytes(8192))
        os.symlink(target, os.path.join(d, "recorder.link"))
        for name in ["recorder.cut_old", "recorder.cut_live", "recorder.junk", "recorder.zero", "recorder.v9"]:
            os.utime(files[name], (old, old))
        os.utime(target, (old, old))
        code, out, _ = rec("gc", "-n", "--now", "--dir", d)
        check(code == OK and "would remove" in out and all(os.path.exists(f) for f in files.values()),
              "gc -n removes nothing")
        code, out, err = rec("gc", "--now", "--dir", d)
        check(code == OK, f"gc exits 0 ({err.strip()})")
        gone = {n for n, f in files.items() if not os.path.exists(f)}
        check(gone == {"recorder.dead", "recorder.reused", "recorder.cut_old", "recorder.zero"},
              f"gc removed exactly the stale ones: {sorted(gone)}")
        for n in gone:
            check(f"removed {os.path.join(d, n)} " in out, f"gc printed {n}")
        check(os.path.exists(target) and os.path.islink(os.path.join(d, "recorder.link")),
              "gc left the symlink and its target alone")
        code, out, _ = rec("gc", "--now", "--dir", d)
        check(code == OK and "nothing to remove" in out, "a second gc finds nothing")
        check(os.path.exists(seg(live)), "the live program's segment is untouched")
        # A writer's private name left by a death, with a control sequence
        # in it: removed, and named escaped.
        odd = os.path.join(d, ".recorder-new.99999\x1b[2J\x07")
        open(odd, "wb").close()
        code, out, _ = rec("gc", "--now", "--dir", d)
        check(code == OK and not os.path.exists(odd), "gc removed a private name left behind")
        check("\x1b" not in out and "\x07" not in out and ".recorder-new.99999\\x1b[2J\\x07 (pid 99999" in out,
              f"gc names it escaped ({out!r})")
    finally:
        reap(p)
        reap(q)
        remove_segment(pid)
        remove_segment(live)




def test_gc_grace():
    """A dead process's segment waits a grace period (10 min) after its
    last sign of life; --now and --grace S say otherwise; one kept on
    purpose (RECORDER_KEEP: REC_FLAG_KEEP) stays unless --all; one whose
    launcher still runs stays for it; gc -n says why each stays."""
    p, pid = start("hold")
    d = os.path.join(WORK, "shm")
    os.makedirs(d, exist_ok=True)
    try:
        os.kill(pid, signal.SIGKILL)
        p.wait(timeout=TIMEOUT)
        me = os.getpid()
        with open(f"/proc/{me}/stat") as f:
            my_start = int(f.read().rsplit(")", 1)[1].split()[19])
        files = {
            "recorder.fresh": segment_copy(pid, "shm/recorder.fresh"),
            "recorder.keep": segment_copy(pid, "shm/recorder.keep", patch=set_flags(REC_FLAG_KEEP)),
            "recorder.launched": segment_copy(pid, "shm/recorder.launched",
                                              patch=both(set_u32(OFF_LAUNCHER_PID, me),
                                                         set_u64(OFF_LAUNCHER_START, my_start))),
        }
        code, out, _ = rec("gc", "-n", "--dir", d)
        check(code == OK and "nothing to remove" in out, f"gc -n: nothing goes within the grace period ({out!r})")
        check(f"keeping {files['recorder.fresh']}" in out and "grace period" in out,
              f"gc -n says the dead one is within its grace period ({out!r})")
        check("kept on purpose" in out and "--all" in out, "gc -n says the RECORDER_KEEP one is kept on purpose")
        check("its launcher" in out, "gc -n says the launched one waits for its launcher")
        code, out, _ = rec("gc", "--dir", d)
        check(code == OK and all(os.path.exists(f) for f in files.values()), f"gc keeps them all ({out!r})")
        # A grace shorter than the time since its last sign of life: what a
        # dead segment of ten minutes ago meets.  Waits for nothing: each
        # counter value in the copy is at most a few seconds old, and 0
        # seconds of grace is less.
        code, out, _ = rec("gc", "-n", "--grace", "0", "--dir", d)
        check(code == OK and f"would remove {files['recorder.fresh']}" in out, f"--grace 0 removes it ({out!r})")
        code, out, _ = rec("gc", "--now", "--dir", d)
        check(code == OK and not os.path.exists(files["recorder.fresh"]), f"--now removes the dead one ({out!r})")
        check(os.path.exists(files["recorder.keep"]), "--now keeps the RECORDER_KEEP one")
        check(os.path.exists(files["recorder.launched"]), "--now keeps the one its launcher waits for")
        code, out, _ = rec("gc", "--now", "--all", "--dir", d)
        check(code == OK and not os.path.exists(files["recorder.keep"]), f"--all removes it ({out!r})")
        check(os.path.exists(files["recorder.launched"]), "--all keeps the one its launcher waits for")
        # An old one goes with the default grace: its last sign of life
        # an hour ago by its own clock (the calibration point moved back,
        # which moves every counter value) and by its mtime.
        with open(seg(pid), "rb") as f:
            old_ns = struct.unpack_from("<Q", f.read(OFF_REAL_NS0 + 8), OFF_REAL_NS0)[0]
        aged = segment_copy(pid, "shm/recorder.aged", patch=set_u64(OFF_REAL_NS0, old_ns - 3600 * 10**9))
        old = time.time() - 3600
        os.utime(aged, (old, old))
        code, out, _ = rec("gc", "-n", "--grace", "1e9", "--dir", d)
        check(f"keeping {aged}" in out, f"a grace of 1e9 s keeps it ({out!r})")
        code, out, _ = rec("gc", "--dir", d)
        check(code == OK and not os.path.exists(aged) and "last active 60 min ago" in out,
              f"the default grace removes a segment last active an hour ago ({out!r})")
        # The writer marks the segment of a program run with RECORDER_KEEP=1.
        q, kpid = start("hold", env={"RECORDER_KEEP": "1"})
        os.kill(kpid, signal.SIGKILL)
        q.wait(timeout=TIMEOUT)
        marked = segment_copy(kpid, "shm/recorder.marked")
        remove_segment(kpid)
        code, out, _ = rec("gc", "-n", "--now", "--dir", d)
        check(f"keeping {marked}" in out and "kept on purpose" in out,
              f"a RECORDER_KEEP=1 program's segment is marked kept on purpose ({out!r})")
        code, out, _ = rec("gc", "--now", "--grace", "5", "--dir", d)
        check(code != OK, "--now and --grace together are refused")
        code, out, _ = rec("gc", "--grace", "-1", "--dir", d)
        check(code != OK, "a negative grace is refused")
    finally:
        reap(p)
        remove_segment(pid)
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    globals()["test_" + TEST]()
    if clitest.failures:
        print(f"{clitest.failures} check(s) failed")
        sys.exit(1)
