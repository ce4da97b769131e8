#!/usr/bin/env python3
"""recorder-top PID1 PID2 ... (docs/tui.md, "Several processes"), through tmux.

    tui_procs.py CASE --top PATH --workload PATH

Two tests/tui/tui_workload programs under process names no other test
uses: one worker in the first, two in the second, so each program has
something the other lacks (worker-1).  Every wait polls the screen
(tui_harness.py): nothing here measures time.
"""
import os
import re
import signal
import subprocess
import sys
import time

from tui_harness import DEADLINE, Fail, Workload, parse_case, run_case, run_plain, table_rows


def rows_by_proc(screen):
    """Top's rows as (proc label, name)."""
    out = []
    for r in table_rows(screen):
        m = re.match(r"\s*~?\s*(\S+:\d+)\s+(\S+)", r)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def case_procs(a, t):
    tag = f"{os.getpid() % 100000}"
    one = Workload(a.workload, workers=1, comm=f"pa{tag}")
    two = Workload(a.workload, workers=2, comm=f"pb{tag}")
    la, lb = f"pa{tag}:{one.pid}", f"pb{tag}:{two.pid}"
    try:
        t.start([a.top, str(one.pid), str(two.pid)])
        # Both programs' scopes in the last second: on one time line (a
        # clock off by a second or more would leave one of them out).
        s = t.wait(lambda s: f"2 processes: {la} {lb}" in s and "PROC" in s
                   and {(la, "matmul"), (lb, "matmul")} <= set(rows_by_proc(s)), "both programs' matmul rows")
        # Threads: whose each thread is.
        t.keys("3")
        s = t.wait(lambda s: re.search(rf"{lb}\s+worker-1", s) and re.search(rf"{la}\s+worker-0", s),
                   "the threads of both, with their program")
        if re.search(rf"{la}\s+worker-1", s):
            raise Fail(f"the first program has one worker:\n{s}")
        # o: the first program only, everywhere.
        t.keys("o")
        s = t.wait(lambda s: f"process 1/2: {la}" in s and "worker-0" in s and "worker-1" not in s,
                   "the first program's threads only")
        t.keys("1")
        s = t.wait(lambda s: rows_by_proc(s) and {p for p, _ in rows_by_proc(s)} == {la}, "Top: the first only")
        t.keys("o")
        s = t.wait(lambda s: f"process 2/2: {lb}" in s and rows_by_proc(s)
                   and {p for p, _ in rows_by_proc(s)} == {lb}, "Top: the second only")
        t.keys("o")
        t.wait(lambda s: "2 processes:" in s and {p for p, _ in rows_by_proc(s)} == {la, lb}, "all again")
        # One exits: the other goes on; both gone: the exit banner.
        one.stop()
        t.wait(lambda s: "running" in s.split("\n")[0] and (lb, "matmul") in rows_by_proc(s), "the second goes on")
        two.stop()
        t.wait_text("exited")
        t.keys("q")
        if t.wait_exit() != 0:
            raise Fail("q: non-zero exit")
    finally:
        one.stop()
        two.stop()


def case_procs_tree(a, t):
    """--tree PID: the program and the one it started, as PID1 PID2."""
    tag = f"{os.getpid() % 100000}"
    # sh starts the child in the background, then becomes the parent (exec
    # keeps its pid and start time: the child's segment names it as parent).
    p = subprocess.Popen(["sh", "-c", '"$0" --workers 1 --comm tc' + tag + ' >/dev/null & '
                          'exec "$0" --workers 2 --comm tp' + tag, a.workload], stdout=subprocess.PIPE, text=True)
    child = None
    try:
        m = re.match(r"ready (\d+)", p.stdout.readline())
        if not m or int(m.group(1)) != p.pid:
            raise Fail(f"the parent workload did not start as pid {p.pid}")
        end = time.monotonic() + DEADLINE
        while not child or not os.path.exists(f"/dev/shm/recorder.{child}"):
            if time.monotonic() > end:
                raise Fail("the child workload's segment did not appear")
            time.sleep(0.05)
            kids = open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()
            child = int(kids[0]) if kids else None
        lp, lc = f"tp{tag}:{p.pid}", f"tc{tag}:{child}"
        t.start([a.top, "--tree", str(p.pid)])
        t.wait(lambda s: f"2 processes: {lp} {lc}" in s and {(lp, "matmul"), (lc, "matmul")} <= set(rows_by_proc(s)),
               "the parent and its child, the parent first")
        t.keys("q")
        if t.wait_exit() != 0:
            raise Fail("q: non-zero exit")
        for argv, want, words in (([a.top, "--tree", "999999999"], 3, "999999999"),
                                  ([a.top, "--tree", str(p.pid), "1"], 2, "--tree"),
                                  ([a.top, "--tree", "x1"], 2, "pid")):
            r = run_plain(argv)
            if r.returncode != want or words not in r.stderr:
                raise Fail(f"{' '.join(argv[1:])}: exit {r.returncode} (want {want}), {r.stderr!r}")
    finally:
        for pid in (child, p.pid):
            if pid:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        p.wait()


def case_procs_errors(a, t):
    """Several targets: each resolved as one alone, with its exit status."""
    w = Workload(a.workload, workers=1)
    try:
        for argv, want, words in (
            ([str(w.pid), str(w.pid)], 2, "given twice"),
            ([str(w.pid), "999999999"], 3, ""),
            ([str(w.pid), "--wait", str(w.pid)], 2, "--wait"),
        ):
            r = run_plain([a.top, *argv])
            if r.returncode != want or words not in r.stderr or len(r.stderr.strip().split("\n")) != 1:
                raise Fail(f"recorder-top {' '.join(argv)}: exit {r.returncode} (want {want}), {r.stderr!r}")
        # The same segment by pid and by path is the same program.
        r = run_plain([a.top, str(w.pid), f"/dev/shm/recorder.{w.pid}"])
        if r.returncode != 2 or "given twice" not in r.stderr:
            raise Fail(f"a pid and its own segment's path: {r.returncode} {r.stderr!r}")
    finally:
        w.stop()



def main():
    return run_case(*parse_case(globals(), "top", "workload"))


if __name__ == "__main__":
    sys.exit(main())
