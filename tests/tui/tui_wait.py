"""recorder-top --wait (issue 14): a program started just before has no
segment until its first event.  tui_workload --delay-ms holds its first
event back until SIGUSR1, so that every case knows recorder-top is
waiting before the program records: nothing here depends on timing."""
import os
import signal
import subprocess

from tui_harness import DEADLINE, Fail, run_plain, top_ready

HELD = "600000"   # ms: the workload records only when told (SIGUSR1)


def held(a):
    """The workload, once it catches SIGUSR1 (its "held" line): signalled
    before, it would die of it, and --wait would wait on."""
    p = subprocess.Popen([a.workload, "--delay-ms", HELD], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()   # the first line it prints; "" if it died
    if not line.startswith("held "):
        end(p)
        raise Fail(f"the workload is not held: {line!r}")
    return p


def end(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(DEADLINE)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def case_wait(a, t, w):
    """--wait PID in a terminal: says it waits, then shows the program."""
    p = held(a)
    try:
        # Without --wait there is nothing to watch yet (what --wait is for).
        r = run_plain([a.top, str(p.pid)])
        # ... and the message says what to do (issue 20, item 10).
        if r.returncode != 3 or "has no segment" not in r.stderr or "--wait" not in r.stderr:
            raise Fail(f"recorder-top PID before the first event: {r.returncode} {r.stderr!r}")
        t.start([a.top, "--wait", str(p.pid)])
        t.wait_text(f"waiting for PID {p.pid} to start recording")
        os.kill(p.pid, signal.SIGUSR1)
        top_ready(t, p.pid)
        t.keys("q")
        status = t.wait_exit()
        if status != 0:
            raise Fail(f"q: status {status}")
    finally:
        end(p)


def case_wait_fail(a, t, w):
    """A program that exits without recording (12), a time limit (13),
    --wait without a program (2).  The wait comes before the terminal
    check, so these run without one."""
    p = held(a)
    try:
        r = run_plain([a.top, "--wait=0.3", str(p.pid)])
        if r.returncode != 13 or "has not started recording after 0.3 s" not in r.stderr:
            raise Fail(f"--wait=0.3: {r.returncode} {r.stderr!r}")
        if p.poll() is not None:
            raise Fail("the program was disturbed")
        top = subprocess.Popen([a.top, "--wait", str(p.pid)], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
        first = top.stderr.readline()
        if f"waiting for PID {p.pid}" not in first:
            raise Fail(f"--wait: {first!r}")
        end(p)   # SIGTERM before its first event: it exits without recording
        rest = top.stderr.read()
        code = top.wait(DEADLINE)
        if code != 12 or f"process {p.pid} exited without recording" not in rest:
            raise Fail(f"a program that exits without recording: {code} {rest!r}")
    finally:
        end(p)
    r = run_plain([a.top, "--wait"])
    if r.returncode != 2 or "--wait needs a PID or NAME" not in r.stderr:
        raise Fail(f"--wait alone: {r.returncode} {r.stderr!r}")
    name = f"tw-none-{os.getpid()}"
    r = run_plain([a.top, "--wait=0.2", name])
    if r.returncode != 13 or name not in r.stderr:
        raise Fail(f"--wait=0.2 NAME: {r.returncode} {r.stderr!r}")
