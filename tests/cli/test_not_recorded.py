#!/usr/bin/env python3
"""Threads a program could not record are never silent (issue 18, item 10).

usage: test_not_recorded.py RECORDER CLI_PROG WORKDIR TEST
  crowd    cli_prog crowd 5 under RECORDER_MAX_THREADS=2: main and one
           thread get a ring, 4 threads get none.  The program says so in
           ONE line on stderr; `ls` (table and --json), dump's summary and
           report's first line say "4 threads not recorded"; and
           `recorder run -- CMD`, whose capture cannot hold them, warns
           with the count when the program ends.
  hostile  the segment's counter (header threads_no_slot, docs/format.md)
           set to 2^64-1 in a copy: every reader shows it bounded
           (REC_COUNT_MAX, 2^53-1), never wrapped.

Why: when /dev/shm filled (or every slot was live) a thread that got no
ring recorded nothing, the program exited 0 and no tool mentioned it.
"""
import json
import os
import shutil
import struct
import subprocess
import sys

sys.dont_write_bytecode = True
from clitest import PROG, RECORDER, TIMEOUT, WORK, check, env_without_keep, main, rec, remove_segment, require, seg  # noqa: E402

THREADS_NO_SLOT_OFF = 272          # struct rec_header (include/recorder.h)
COUNT_MAX = (1 << 53) - 1          # REC_COUNT_MAX (librecorder/include/recorder/reader.h)


def crowd():
    """Runs cli_prog crowd 5 on 2 slots; returns (pid, its stderr)."""
    env = env_without_keep({"RECORDER_KEEP": "1", "RECORDER_MAX_THREADS": "2", "RECORDER_RING_KB": "16"})
    p = subprocess.run([PROG, "crowd", "5"], env=env, cwd=WORK, timeout=TIMEOUT, capture_output=True)
    require(p.returncode == 0 and p.stdout.startswith(b"pid "), f"cli_prog crowd ran ({p.stdout!r} {p.stderr[-300:]!r})")
    return int(p.stdout.split()[1]), p.stderr.decode(errors="replace")


def shows(target, n, name):
    want = f"{n} threads not recorded"
    code, out, _ = rec("ls")
    rows = [l for l in out.decode(errors="replace").splitlines() if l.rstrip().split(" (")[0].endswith(name)]
    check(code == 0 and len(rows) == 1 and want in rows[0], f"ls: the row of {name} says '{want}' ({rows})")
    code, out, _ = rec("ls", "--json")
    objs = [json.loads(l) for l in out.decode().splitlines() if l.strip()]
    mine = [o for o in objs if o["name"] == name]
    check(len(mine) == 1 and mine[0].get("threads_not_recorded") == n,
          f"ls --json: threads_not_recorded {n} ({mine})")
    code, _, err = rec("dump", target, "-o", os.path.join(WORK, name + ".json"))
    check(code == 0 and want in err.decode(errors="replace"), f"dump's summary says '{want}' ({err[-300:]!r})")
    code, out, _ = rec("report", target)
    first = out.decode(errors="replace").splitlines()[:1]
    check(code == 0 and first and want in first[0], f"report's first line says '{want}' ({first})")


def test_crowd():
    pid, err = crowd()
    try:
        lines = [l for l in err.splitlines() if "not recorded" in l]
        check(len(lines) == 1 and lines[0].startswith("recorder: thread ") and "RECORDER_MAX_THREADS" in lines[0],
              f"the program says so once on stderr ({err!r})")
        shows(str(pid), 4, f"recorder.{pid}")
    finally:
        remove_segment(pid)
    env = env_without_keep({"RECORDER_MAX_THREADS": "2"})
    out = os.path.join(WORK, "crowd-run.json")
    p = subprocess.run([RECORDER, "run", "-o", out, "--", PROG, "crowd", "5"], env=env, cwd=WORK, timeout=TIMEOUT,
                       capture_output=True)
    err = p.stderr.decode(errors="replace")
    warned = [l for l in err.splitlines() if l.startswith("recorder: warning:") and "4 threads not recorded" in l]
    check(p.returncode == 0 and len(warned) == 1, f"recorder run warns: 4 threads not recorded ({err[-400:]!r})")


def test_hostile():
    pid, _ = crowd()
    name = f"recorder.t18-notrec-{pid}"
    copy = os.path.join("/dev/shm", name)
    try:
        shutil.copyfile(seg(pid), copy)
        os.chmod(copy, 0o600)
        with open(copy, "r+b") as f:
            f.seek(THREADS_NO_SLOT_OFF)
            require(struct.unpack("<Q", f.read(8))[0] == 4, "the counter is where docs/format.md says")
            f.seek(THREADS_NO_SLOT_OFF)
            f.write(struct.pack("<Q", (1 << 64) - 1))
        shows(copy, COUNT_MAX, name)
    finally:
        remove_segment(pid)
        if os.path.exists(copy):
            os.unlink(copy)


main({"crowd": test_crowd, "hostile": test_hostile})
