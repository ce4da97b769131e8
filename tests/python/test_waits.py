"""The interpreter's known blocking calls are wait scopes (python/src/waits.c).

A thread blocked in Event.wait, Queue.get, Thread.join, time.sleep or a
lock's acquire is waiting, not working: `recorder report` marks their rows
[wait] and leaves them out of busy figures.  A function that computes is
not marked.  Under every hook: the eval hook records Python functions only
(Event.wait, Condition.wait, Queue.get, Thread.join), the profile and
monitoring hooks builtins too (time.sleep, _thread.lock.acquire).
"""
import re
import subprocess
import sys

import pytest

from conftest import CLI, PY, SANITIZER_MARKS, child_env

PROG = r"""
import queue, threading, time
ev, q = threading.Event(), queue.Queue()
def worker():
    ev.wait()
    q.put(1)
def busy(n):
    return sum(i * i for i in range(n))
t = threading.Thread(target=worker)
t.start()
busy(20000)
ev.set()
q.get()
t.join()
time.sleep(0.001)
"""


def report_rows(tmp_path, hook):
    (tmp_path / "prog.py").write_text(PROG)
    # --all-builtins: whether a lock's acquire lasts the default threshold
    # (10 us) depends on the scheduler; here every one is recorded
    opts = ["--hook", hook] + (["--no-native"] if hook == "eval" else ["--all-builtins"])
    r = subprocess.run([PY, "-m", "recorder", *opts, "-o", "t.rec", "prog.py"], cwd=tmp_path,
                       env=child_env(), capture_output=True, text=True, timeout=300)
    for mark in SANITIZER_MARKS:
        assert mark not in r.stderr, r.stderr
    assert r.returncode == 0, r.stderr
    rep = subprocess.run([CLI, "report", "--top", "1000", str(tmp_path / "t.rec")], capture_output=True, text=True,
                         timeout=300)
    assert rep.returncode == 0, rep.stderr
    rows = {}
    for line in rep.stdout.splitlines():
        m = re.match(r"\s+[\d.]+%\s+[\d.]+\s+\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+(.*?)( \[wait\])?$", line)
        if m:
            name = re.sub(r" \(.*\)$", "", m.group(1))
            rows.setdefault(name, set()).add(bool(m.group(2)))
    return rows, rep.stdout


HOOKS = ["eval", "profile"] + (["monitoring"] if sys.version_info >= (3, 12) else [])


@pytest.mark.parametrize("hook", HOOKS)
def test_blocking_calls_are_waits(tmp_path, hook):
    rows, out = report_rows(tmp_path, hook)
    for name in ("Event.wait", "Condition.wait", "Queue.get", "Thread.join"):
        assert rows.get(name) == {True}, (name, out)
    assert rows.get("busy") == {False}, out
    assert rows.get("Queue.put") == {False}, out      # returns at once: not a wait
    if hook != "eval":
        for name in ("time.sleep", "_thread.lock.acquire"):
            assert rows.get(name) == {True}, (name, out)
