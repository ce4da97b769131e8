"""test_wait.py -- `--wait` of the attaching commands (dump, report,
capture): a program that has not recorded yet has no segment; with --wait
the command waits for it, says so once, and fails with its own status when
the program exits first (12) or the time is up (13).  Behaviour only: no
test measures how long anything took.

usage: test_wait.py RECORDER CLI_PROG WORKDIR TEST"""
import json
import os
import signal
import struct
import subprocess

from clitest import (OK, USAGE, NOTFOUND, PROG, RECORDER, SHM, TIMEOUT, WORK, check, env_without_keep, main, rec,
                     remove_segment, require, run_prog, seg)

EXITED, TIMED_OUT = 12, 13    # REC_ERR_EXITED, REC_ERR_TIMEOUT
WAITING = b"waiting for PID"


def start(*args, env=None):
    """cli_prog in the background; returns (Popen, pid) once it said it started."""
    p = subprocess.Popen([PROG, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env or env_without_keep(), cwd=WORK)
    line = p.stdout.readline().split()
    require(len(line) == 2 and line[0] == b"started", f"cli_prog {args[0]} started ({line})")
    return p, int(line[1])


def stop(p, pid):
    if p.poll() is None:
        p.kill()
    p.wait(timeout=TIMEOUT)
    remove_segment(pid)


def attach_waiting(pid, *args):
    """Run recorder ARGS on a program that has not recorded yet: once it
    says it waits, let the program go on (SIGUSR1).  Returns (code,
    stdout, stderr); checks the notice came once."""
    r = subprocess.Popen([RECORDER, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=WORK,
                         env=env_without_keep())
    first = r.stderr.readline()
    check(b"waiting for " in first and b"to start recording" in first, f"{args[0]} {args[1]}: says it waits ({first!r})")
    os.kill(pid, signal.SIGUSR1)
    out, rest = r.communicate(timeout=TIMEOUT)
    check(b"waiting for" not in rest, f"{args[0]}: said so once ({rest[-300:]!r})")
    return r.returncode, out, first + rest


def names_in(path):
    with open(path) as f:
        return {e.get("name") for e in json.load(f)["traceEvents"]}


LONG = 600000   # ms: the program records only when told (SIGUSR1)


def test_dump():
    p, pid = start("late", LONG)
    try:
        # Without --wait: nothing to attach to yet (what --wait is for).
        code, _, err = rec("dump", pid, "-o", "now.json")
        check(code == NOTFOUND and b"has no segment" in err, f"dump before the first event: 3 ({code}, {err!r})")
        code, _, err = attach_waiting(pid, "dump", "--wait", pid, "-o", "w.json")
        check(code == OK, f"dump --wait: exit {code} ({err!r})")
        check("outer" in names_in(os.path.join(WORK, "w.json")), "the trace holds the program's scopes")
    finally:
        stop(p, pid)


def test_report():
    p, pid = start("late", LONG)
    try:
        code, out, err = attach_waiting(pid, "report", "-w", pid)
        check(code == OK and b"layer" in out, f"report -w: exit {code}, its scopes ({out[-200:]!r}, {err!r})")
    finally:
        stop(p, pid)


def test_capture():
    p, pid = start("late", LONG)
    try:
        code, _, err = attach_waiting(pid, "capture", f"--wait={TIMEOUT}", pid, "-o", "c.rec", "--duration", "1",
                                      "-q")
        check(code == OK, f"capture --wait=SEC: exit {code} ({err!r})")
        code, out, err = rec("report", "c.rec")
        check(code == OK and b"layer" in out, f"the capture holds its scopes ({out[-200:]!r}, {err!r})")
    finally:
        stop(p, pid)
    # Ctrl-C while waiting: recorder ends as interrupted and leaves no
    # temporary file beside FILE.
    p, pid = start("silent", LONG)
    try:
        c = subprocess.Popen([RECORDER, "capture", "--wait", str(pid), "-o", "int.rec"],
                             stderr=subprocess.PIPE, cwd=WORK, env=env_without_keep())
        line = c.stderr.readline()   # the notice: it is waiting
        check(WAITING in line, f"capture --wait is waiting ({line!r})")
        c.send_signal(signal.SIGINT)
        code = c.wait(timeout=TIMEOUT)
        check(code in (-signal.SIGINT, 128 + signal.SIGINT), f"Ctrl-C ends the wait ({code})")
        left = [f for f in os.listdir(WORK) if "int.rec" in f]
        check(not left, f"no capture file or temporary file left ({left})")
    finally:
        stop(p, pid)


def test_exited():
    p, pid = start("silent", LONG)
    try:
        code, _, err = attach_waiting(pid, "dump", "--wait", pid, "-o", "x.json")
        check(code == EXITED and f"process {pid} exited without recording".encode() in err,
              f"a program that exits without recording: 12 ({code}, {err!r})")
        check(not os.path.exists(os.path.join(WORK, "x.json")), "no trace written")
    finally:
        stop(p, pid)


def test_timeout():
    p, pid = start("silent", LONG)
    try:
        code, _, err = rec("report", "--wait=0.3", pid)
        check(code == TIMED_OUT and b"has not started recording after 0.3 s" in err,
              f"--wait=0.3 on a silent program: 13 ({code}, {err!r})")
        check(p.poll() is None, "the program itself is left alone")
    finally:
        stop(p, pid)
    name = f"wait-none-{os.getpid()}"
    code, _, err = rec("dump", "--wait=0.2", name, "-o", "n.json")
    check(code == TIMED_OUT and name.encode() in err, f"a name that never appears: 13 ({code}, {err!r})")


def test_name():
    name = f"wait-name-{os.getpid()}"
    p, pid = start("late", LONG, env=env_without_keep({"RECORDER_NAME": name}))
    try:
        code, out, err = attach_waiting(pid, "report", "--wait", name)
        check(code == OK and b"layer" in out, f"report --wait NAME: exit {code} ({err!r})")
        check(b"waiting for " + name.encode() in err, f"named what it waits for ({err!r})")
    finally:
        stop(p, pid)
        try:
            os.unlink(os.path.join(SHM, "recorder." + name))
        except FileNotFoundError:
            pass


def test_stale():
    """A segment an earlier process with the same pid left is not the one
    waited for: --wait goes on until the program's own appears."""
    old = run_prog("scopes", 5)
    with open(seg(old), "rb") as f:
        data = bytearray(f.read())
    remove_segment(old)
    p, pid = start("late", LONG)
    try:
        data[24:28] = struct.pack("<i", pid)          # rec_header.pid
        data[32:40] = struct.pack("<Q", 12345)        # rec_header.proc_start: not this process's
        with open(seg(pid), "wb") as f:
            f.write(data)
        os.chmod(seg(pid), 0o600)
        code, _, err = attach_waiting(pid, "dump", "--wait", pid, "-o", "s.json")
        check(code == OK, f"dump --wait with a stale segment there: exit {code} ({err!r})")
        names = names_in(os.path.join(WORK, "s.json"))
        check("outer" in names and "step" not in names, f"the program's own segment, not the stale one ({names})")
    finally:
        stop(p, pid)
        for f in os.listdir(SHM):
            if f.startswith(f"recorder.{pid}."):
                os.unlink(os.path.join(SHM, f))


def test_usage():
    code, _, err = rec("report", "--wait=abc", "1")
    check(code == USAGE, f"--wait=abc: 2 ({code}, {err!r})")
    code, _, err = rec("capture", "--wait", "-o", "u.rec", "--", "true")
    check(code == USAGE, f"capture --wait -- CMD: 2 ({code}, {err!r})")
    for cmd in ("dump", "report", "capture"):
        code, out, _ = rec(cmd, "--help")
        check(code == OK and b"--wait[=SEC]" in out, f"{cmd} --help tells --wait")


TESTS = {"dump": test_dump, "report": test_report, "capture": test_capture, "exited": test_exited,
         "timeout": test_timeout, "name": test_name, "stale": test_stale, "usage": test_usage}

if __name__ == "__main__":
    main(TESTS)
