#!/usr/bin/env python3
"""What the `recorder` command prints about other programs: names escaped
and thread counts true.

usage: test_text.py RECORDER CLI_PROG WORKDIR TEST
  names   a program names itself, its threads and its scopes with terminal
          controls (cli_prog evil); report, ls, gc, dump, convert, capture
          and run print none of those bytes
  paths   paths and arguments with ESC and newlines, echoed in messages,
          come out escaped, each message still one line
  ls_dead a crashed (SIGSEGV) program and a pid-reused segment have no live
          threads, whatever their slots say
  reused_pid
          a crashed program's segment whose pid now names another running
          process: `dump PID` opens nothing (that process has no segment of
          its own), names the file, and the file's name still reads it

Why: `recorder report` printed scope names with their escape sequences, CR
and BEL, so a traced program could rewrite the terminal of whoever looks at
it (often root); `recorder ls` showed a crashed program's threads as live.
"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys

sys.dont_write_bytecode = True
from clitest import (IO, NOTFOUND, OK, PROG, TIMEOUT, USAGE, WORK, check, env_without_keep, main,  # noqa: E402
                     one_line_error, rec, remove_segment, require, run_prog, seg)

SMALL = {"RECORDER_RING_KB": "16", "RECORDER_MAX_THREADS": "8"}   # a small segment file to copy


def controls(data):
    """The bytes a terminal could obey: C0 but tab and newline, DEL, C1."""
    return sorted({b for b in data if (b < 0x20 and b not in (9, 10)) or 0x7f <= b < 0xa0})


def clean(data, what):
    bad = controls(data)
    check(not bad, f"{what}: no control bytes ({[hex(b) for b in bad]}) in {data[-300:]!r}")


def run_evil():
    e = env_without_keep(dict(SMALL, RECORDER_KEEP="1"))
    p = subprocess.run([PROG, "evil"], env=e, cwd=WORK, timeout=TIMEOUT, capture_output=True)
    require(p.returncode == 0 and p.stdout.startswith(b"pid "), f"cli_prog evil ran ({p.stdout!r})")
    return int(p.stdout.split()[1])


def test_names():
    pid = run_evil()
    try:
        code, out, err = rec("report", pid)
        check(code == OK and b"inner" in out and b"scope" in out, "report of the program")
        check(b"\\x1b]0;pwned" in out, f"its names are shown escaped ({out[-200:]!r})")
        clean(out + err, "report")
        for args in (["ls"], ["ls", "-l"]):
            code, out, err = rec(*args)
            check(code == OK and str(pid).encode() in out, f"{' '.join(args)} lists it")
            clean(out + err, " ".join(args))
        code, out, err = rec("dump", pid, "-o", os.path.join(WORK, "evil.json"))
        check(code == OK and b"wrote" in err, "dump of the program")
        clean(out + err, "dump's summary")
        code, _, err = rec("dump", pid, "-o", "-")
        clean(err, "dump -o -'s summary")
        # gc, on a copy in a directory of our own: its report names the process.
        d = os.path.join(WORK, "shm")
        os.makedirs(d)
        shutil.copyfile(seg(pid), os.path.join(d, "recorder.evil"))
        code, out, err = rec("gc", "-n", "--now", "--all", "--dir", d)
        check(code == OK and b"would remove" in out, f"gc -n sees the dead copy ({out!r})")
        clean(out + err, "gc -n")
    finally:
        remove_segment(pid)
    cap = os.path.join(WORK, "evil.rec")
    code, out, err = rec("capture", "-o", cap, "--", PROG, "evil")
    check(code == OK and b"captured" in err, f"capture -- cli_prog evil ({err[-200:]!r})")
    clean(out + err, "capture's summary")
    code, out, err = rec("report", cap)
    check(code == OK and b"inner" in out, "report of the capture")
    clean(out + err, "report of the capture")
    code, out, err = rec("convert", cap, "-o", os.path.join(WORK, "evil2.json"))
    check(code == OK, "convert of the capture")
    clean(out + err, "convert's summary")
    code, out, err = rec("run", "-o", os.path.join(WORK, "evil3.json"), "--", PROG, "evil")
    check(code == OK and b"wrote" in err, "run -- cli_prog evil")
    clean(out + err, "run's summary")


def test_paths():
    evil = b"\x1b]0;pwned\x07\x1b[2J\r\nline2\x9b\xc2\x9b"   # raw C1 CSI and in UTF-8
    work = os.fsencode(WORK)
    missing = os.path.join(work, b"no" + evil)
    for args, want in (([b"dump", missing], NOTFOUND), ([b"report", missing], NOTFOUND),
                       ([b"convert", missing, b"-o", b"x.json"], NOTFOUND), ([b"ls", b"--dir", missing], NOTFOUND),
                       ([b"dump", b"--bogus" + evil], USAGE), ([b"convert", b"x.rec", b"-o", b"out" + evil], USAGE),
                       ([b"capture", missing, b"-o", b"x.rec"], NOTFOUND)):
        code, out, err = rec(*args)
        what = "recorder " + args[0].decode() + " with an evil " + ("option" if args[1].startswith(b"--bogus") else "path")
        one_line_error(code, err, want, what)
        clean(out + err, what)
        check(b"\\x1b" in err, f"{what}: the ESC is shown as \\x1b ({err!r})")
    # Written to a file with such a name: the summary escapes it.
    pid = run_prog("scopes", 2)
    try:
        code, out, err = rec(b"dump", str(pid).encode(), b"-o", os.path.join(work, b"out" + evil + b".json"))
        check(code == OK and b"wrote" in err, "dump -o a file with controls in its name")
        clean(out + err, "its summary")
        # Refused: a directory with such a name.
        d = os.path.join(work, b"dir" + evil)
        os.makedirs(d)
        code, out, err = rec(b"dump", str(pid).encode(), b"-o", d)
        one_line_error(code, err, IO, "dump -o an evil directory")
        clean(out + err, "its error")
    finally:
        remove_segment(pid)
    # A file in a segment directory named with controls: ls shows it escaped.
    d = os.path.join(work, b"shm")
    os.makedirs(d)
    with open(os.path.join(d, b"recorder." + evil), "wb") as f:
        f.write(b"junk" * 2000)
    for args in ([b"ls", b"--dir", d], [b"ls", b"-l", b"--dir", d]):
        code, out, err = rec(*args)
        check(code == OK and b"recorder." in out, f"{args[:2]} lists the oddly named file")
        clean(out + err, f"{args[:2]}")


def ls_row(pid):
    code, out, _ = rec("ls", "--json")
    # Its own segment only: an earlier process with the pid may have left one.
    rows = [o for o in map(json.loads, out.splitlines()) if o["pid"] == pid and o["name"] == f"recorder.{pid}"]
    code2, table, _ = rec("ls")
    line = [l.split() for l in table.decode(errors="replace").splitlines()
            if l.split()[:1] == [str(pid)] and l.split()[-1] == f"recorder.{pid}"]
    return rows, line


def test_ls_dead():
    # A real crash: the slot of the crashed thread still says live.
    p = subprocess.run([PROG, "segv"], env=env_without_keep(SMALL), cwd=WORK, timeout=TIMEOUT, capture_output=True)
    check(p.returncode == -signal.SIGSEGV, "cli_prog segv crashed")
    pid = int(p.stdout.split()[1])
    try:
        rows, line = ls_row(pid)
        check(len(rows) == 1 and rows[0]["state"] == "dead", f"ls --json: it is dead ({rows})")
        check(len(rows) == 1 and rows[0]["threads_live"] == 0 and rows[0]["threads"] == 1,
              f"with no live thread of 1 ({rows})")
        check(len(line) == 1 and line[0][2] == "dead" and line[0][3] == "0/1", f"ls: dead, THREADS 0/1 ({line})")
        # The same segment with another start time: its pid now names
        # another process (ours: alive), which has none of these threads.
        d = os.path.join(WORK, "shm")
        os.makedirs(d)
        with open(seg(pid), "rb") as f:
            data = bytearray(f.read())
        data[24:28] = struct.pack("<i", os.getpid())          # rec_header.pid
        data[32:40] = struct.pack("<Q", 12345)                # rec_header.proc_start
        with open(os.path.join(d, "recorder.reused"), "wb") as f:
            f.write(data)
        code, out, _ = rec("ls", "--json", "--dir", d)
        rows = [json.loads(l) for l in out.splitlines()]
        check(len(rows) == 1 and rows[0]["state"] == "pid-reused" and rows[0]["threads_live"] == 0,
              f"a pid-reused segment has no live thread ({rows})")
    finally:
        remove_segment(pid)


def test_reused_pid():
    """A pid names the running process: a segment an earlier process with
    that pid left (crashed, then the pid reused) is not its data.  `dump`
    by pid once read such a file for a live program that had not yet made
    its own, so a script asking for `$(pidof app)` got another program's
    trace (found by sec_launch_race, which met a stale segment of a
    killed benchmark)."""
    p = subprocess.run([PROG, "segv"], env=env_without_keep(SMALL), cwd=WORK, timeout=TIMEOUT, capture_output=True)
    check(p.returncode == -signal.SIGSEGV, "cli_prog segv crashed")
    dead = int(p.stdout.split()[1])
    other = subprocess.Popen(["sleep", "600"])
    planted = seg(other.pid)
    out = os.path.join(WORK, "reused.json")
    try:
        require(not os.path.lexists(planted), f"{planted} is free")
        with open(seg(dead), "rb") as f:
            data = bytearray(f.read())
        data[24:28] = struct.pack("<i", other.pid)        # rec_header.pid: the running process's
        data[32:40] = struct.pack("<Q", 12345)            # rec_header.proc_start: not its start time
        fd = os.open(planted, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        code, _, err = rec("dump", str(other.pid), "-o", out)
        one_line_error(code, err, NOTFOUND, "dump of a running pid with only an earlier process's segment")
        check(b"no segment of its own" in err and planted.encode() in err,
              f"it says the process has no segment of its own and names the earlier one ({err.strip()!r})")
        check(not os.path.exists(out), "and writes no trace")
        code, _, err = rec("dump", planted, "-o", out)
        check(code == OK and os.path.exists(out), f"by its name, the earlier process's segment reads ({err.strip()!r})")
    finally:
        other.kill()
        other.wait()
        remove_segment(dead)
        if os.path.lexists(planted):
            os.unlink(planted)


TESTS = {"names": test_names, "paths": test_paths, "ls_dead": test_ls_dead, "reused_pid": test_reused_pid}

if __name__ == "__main__":
    main(TESTS)
