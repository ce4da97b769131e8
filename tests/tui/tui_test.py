#!/usr/bin/env python3
"""recorder-top end-to-end tests, driven through tmux.

    tui_test.py CASE --top PATH --workload PATH --stress PATH

Each case starts tests/tui/tui_workload (a multi-threaded instrumented
program), runs recorder-top in a detached tmux session on a socket of its
own (tmux -S, so cases run in parallel), sends keys and asserts on what
capture-pane shows.  Every wait polls the screen until the text appears,
up to a generous deadline: nothing here measures time.  The harness is
tui_harness.py; the hostile cases (tests/tui/tui_stress) are in
tui_hostile.py, --wait's in tui_wait.py.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

import tui_hostile
import tui_views
import tui_wait
from tui_harness import (BLOCKS, LIST_DEADLINE, Fail, Tmux, Workload, line_with, row_names, run_plain,
                         selected_name, tab_bar, table_rows, top_ready)


# ---- cases ----------------------------------------------------------------

def case_top(a, t, w):
    t.start([a.top, str(w.pid)])
    s = top_ready(t, w.pid)
    for text in ("recorder-top", "running", "ev/s", "lost 0", "ring", "1 Top", "2 Flame", "3 Threads",
                 "window 10s", "all threads", "sort TOTAL%", "SCOPE", "CALLS", "CALLS/S", "TOTAL%▼",
                 "SELF%", "AVG", "P50", "P95", "P99", "MAX", "q Quit", "? Help"):
        if text not in s:
            raise Fail(f"Top view lacks {text!r}:\n{s}")
    # Columns line up: the percentages end where their titles end.
    head = line_with(s, "CALLS/S")
    row = line_with(s, " matmul ")
    end_title = head.index("TOTAL%▼") + len("TOTAL%▼")
    m = re.search(r"\s([\d.]+%)", row)
    if m.end(1) != end_title:
        raise Fail(f"TOTAL% value ends at column {m.end(1)}, its title at {end_title}:\n{head}\n{row}")
    end_max = head.index("MAX") + 3
    if len(row.rstrip()) != end_max:
        raise Fail(f"MAX is not right-aligned under its title:\n{head}\n{row}")
    # A wait scope is marked.
    t.wait_text("sync_wait [wait]")
    # Names from the program: UTF-8 kept, an escape sequence defused.
    t.wait_text("naïve_ü", "?[31mevil")
    # Sorted by total time, largest first (the default).
    rows = table_rows(t.screen())
    if rows[0].split()[0] != "step":
        raise Fail("step (the workers' outer scope) should lead by total time:\n" + "\n".join(rows))


def case_keys(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    # s: next sort column; S: reverse.
    t.keys("s")
    t.wait_text("SELF%▼", "sort SELF%")
    t.keys("S")
    t.wait_text("SELF%▲")
    for _ in range(6):
        t.keys("s")
    # The header can be on screen before the rows below it are redrawn:
    # wait for the whole frame to say it (a sort that is wrong never does).
    def by_name(s, reverse):
        names = row_names(s)
        return len(names) >= 6 and names == sorted(names, key=lambda n: n.encode(), reverse=reverse)
    t.wait(lambda s: "SCOPE▼" in s and "sort SCOPE" in s and by_name(s, False), "six rows sorted by name, A to Z")
    t.keys("S")
    t.wait(lambda s: "SCOPE▲" in s and by_name(s, True), "the rows sorted by name, Z to A")
    # /: filter as you type, Enter keeps it, Esc clears it.
    t.keys("/")
    t.wait_text("Filter:")
    t.type("ZZ_uni")
    t.wait(lambda s: row_names(s) == ["zz_unique_scope"], "only zz_unique_scope")
    t.keys("Enter")
    # The filter applies as it is typed; Enter closes the prompt and keeps it.
    t.wait(lambda s: 'filter "ZZ_uni"' in s and " 1 of " in s and "Filter:" not in s,
           "the prompt closed with the filter kept")
    t.keys("Escape")
    t.wait(lambda s: "matmul" in row_names(s) and 'filter "' not in s, "the filter cleared")
    # w: 10 s (the default, as recorder-web's) -> whole run -> 1 s -> 10 s.
    for name in ("window whole run", "window 1s", "window 10s"):
        t.keys("w")
        t.wait_text(name)
    # t: main (the first thread) only; its scopes, not the workers'.
    t.keys("t")
    t.wait(lambda s: "main (" in tab_bar(s) and "frame" in row_names(s) and "matmul" not in row_names(s),
           "main's scopes only")
    t.keys("t")
    t.wait(lambda s: "worker-" in tab_bar(s) and "matmul" in row_names(s) and "frame" not in row_names(s),
           "a worker's scopes only")   # threads start in any order
    t.keys("T", "T")
    t.wait(lambda s: "all threads" in tab_bar(s) and "frame" in row_names(s) and "matmul" in row_names(s),
           "all threads again")
    # Arrows move the selection; q quits with status 0.
    t.keys("Down")
    t.keys("q")
    status = t.wait_exit()
    if status != 0:
        raise Fail(f"q: exit status {status}")


def case_flame(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    t.keys("2")
    s = t.wait(lambda s: "▏step" in s and "▏matmul" in s and "▏softmax" in s, "step, matmul and softmax frames")
    if "call paths over 10s" not in s or "all threads" not in s:
        raise Fail("Flame view lacks its heading or root:\n" + s)
    # The layout: step's frame above matmul's, and wider.
    lines = s.split("\n")
    ys = next(i for i, l in enumerate(lines) if "▏step" in l)
    ym = next(i for i, l in enumerate(lines) if "▏matmul" in l)
    if ym != ys + 1:
        raise Fail(f"matmul (row {ym}) should be right under step (row {ys}):\n{s}")
    t.wait(lambda s: selected_name(s) == "all", "the root selected")
    t.keys("Down")
    t.wait(lambda s: selected_name(s) == "step", "step selected")
    t.keys("Down")
    t.wait(lambda s: selected_name(s) == "matmul", "matmul selected")
    t.keys("Right")
    t.wait(lambda s: selected_name(s) == "softmax", "softmax selected")
    t.keys("Left")
    t.wait(lambda s: selected_name(s) == "matmul", "matmul selected again")
    t.keys("Up")
    t.wait(lambda s: selected_name(s) == "step", "step selected again")
    # Enter zooms: step becomes the full-width root; Backspace and Esc zoom out.
    t.keys("Enter")
    s = t.wait_text("zoom: all threads › step")
    if "▏frame" in s:
        raise Fail("zoomed into step, but main's frame is still shown:\n" + s)
    t.keys("BSpace")
    t.wait(lambda s: "zoom:" not in s and "call paths over" in s, "zoomed out")
    t.keys("Down", "Enter")
    t.wait_text("zoom: all threads › step › matmul")
    t.keys("Escape")
    t.wait_text("zoom: all threads › step")
    t.wait_gone("› matmul")


def case_threads(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    t.keys("3")
    s = t.wait_text("TID", "STATE", "EV/S", "LOST", "INSIDE NOW", "main", "worker-0", "worker-2", "sleeper",
                    "wait_for_input › deep_sleep")
    sl = line_with(s, "sleeper")
    if "live" not in sl:
        raise Fail("sleeper should be live:\n" + sl)
    # Workers are busy: their utilization sparkline has blocks.
    t.wait(lambda s: any(b in line_with(s, "worker-0") for b in BLOCKS), "a sparkline for worker-0")
    # Enter on a thread: Top for that thread.  The sleeper never completes
    # a scope, so its Top is empty.
    lines = t.screen().split("\n")
    head = next(i for i, l in enumerate(lines) if "INSIDE NOW" in l)
    row = next(i for i, l in enumerate(lines) if "sleeper" in l) - head - 1   # threads attach in any order
    t.keys("Home", *(["Down"] * row), "Enter")
    t.wait_text("1 Top", "sleeper (", "No scope has completed in this window yet")


def case_pause(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    t.keys("p")
    s1 = t.wait_text("PAUSED")
    rows1 = table_rows(s1)
    title1 = s1.split("\n")[0]
    # Reading goes on: the title bar's rate moves, the table stays.
    t.wait(lambda s: s.split("\n")[0] != title1, "the title bar to update while paused")
    s2 = t.screen()
    if table_rows(s2) != rows1:
        raise Fail("the view changed while paused:\n" + "\n".join(rows1) + "\n---\n" + "\n".join(table_rows(s2)))
    t.keys("p")
    t.wait_gone("PAUSED")
    t.wait(lambda s: table_rows(s) != rows1, "the table to move again")


def case_fold(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    t.wait_text("ffn_up-0", "ffn_up-1", "ffn_up-2")
    t.keys("f")
    s = t.wait_text("ffn_up-*", "folded")
    rows = [r.split()[0] for r in table_rows(s)]
    if rows.count("ffn_up-*") != 1 or any(r.startswith("ffn_up-") and r != "ffn_up-*" for r in rows):
        raise Fail("folded, the three layers should be one row:\n" + "\n".join(table_rows(s)))
    t.keys("f")
    t.wait_gone("folded")
    t.wait_text("ffn_up-0", "ffn_up-1")


def case_help(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    t.keys("?")
    t.wait_text("recorder-top help", "Press any key to close", "zoom into the frame")
    t.keys("x")
    t.wait_gone("recorder-top help")
    t.wait_text("CALLS/S")


def case_resize(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    t.resize(50, 10)
    t.wait_text("Terminal too small: 50x10", "needs 60x12")
    t.resize(72, 20)
    s = t.wait_text("TOTAL%", "MAX")
    head = line_with(s, "CALLS/S")
    if "P50" in head:
        raise Fail("at 72 columns P50 (the least important) should be hidden:\n" + head)
    if any(len(l) > 72 for l in s.split("\n")):
        raise Fail("a line is wider than the terminal")
    t.resize(130, 40)
    t.wait(lambda s: "P50" in line_with(s, "CALLS/S"), "P50 back at 130 columns")
    t.keys("3")
    t.wait_text("UTILIZATION, LAST SECONDS")   # the wide sparkline
    t.resize(80, 24)
    t.wait_text("UTIL HISTORY")


def case_exit(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    rc = w.stop()
    if rc != 0:
        raise Fail(f"tui_workload exited with {rc}")
    s = t.wait_text("has exited", "exited")
    if "running" in s.split("\n")[0]:
        raise Fail("title still says running:\n" + s)
    # The last data stays: the 1 s window ends where the program ended.
    if "matmul" not in row_names(s):
        raise Fail("the last data is gone after the exit:\n" + s)
    t.keys("3")
    t.wait(lambda s: "exited" in line_with(s, "worker-0"), "worker-0 shown as exited")
    t.keys("q")
    status = t.wait_exit()
    if status != 0:
        raise Fail(f"q after the exit: status {status}")


def case_picker(a, t, w):
    t.start([a.top])
    t.wait_text("pick a program to watch", "PID", "PROCESS", "THREADS")
    t.wait(lambda s: re.search(rf"\b{w.pid}\s+tui_workload\s+5\s+running", s),
               f"pid {w.pid}, tui_workload, 5 threads, running", timeout=LIST_DEADLINE)
    t.keys("/")
    t.type(str(w.pid))
    # Rows whose pid contains ours have longer pids, so ours comes first.
    t.wait(lambda s: [l for l in s.split("\n") if re.match(r"^\s+\d+\s", l)][0].split()[0] == str(w.pid) and
           "Filter:" in s and str(w.pid) in s.split("\n")[-2], "our program first in the filtered list")
    t.keys("Enter", "Enter")
    top_ready(t, w.pid)


def case_colors(a, t, w):
    sgr = re.compile(r"\x1b\[([0-9;]*)m")

    def colors(screen):
        found = set()
        for m in sgr.finditer(screen):
            p = [int(x) for x in m.group(1).split(";") if x]
            i = 0
            while i < len(p):
                if p[i] in (38, 48) and i + 2 < len(p) and p[i + 1] == 5:
                    found.add("256")
                    i += 3
                    continue
                if 30 <= p[i] <= 37 or 40 <= p[i] <= 47 or 90 <= p[i] <= 97 or 100 <= p[i] <= 107:
                    found.add("8")
                if p[i] == 7:
                    found.add("reverse")
                i += 1
        return found

    for term, env, want, unwanted in (("tmux-256color", {}, {"256"}, set()),
                                      ("screen", {}, {"8"}, {"256"}),
                                      ("tmux-256color", {"NO_COLOR": "1"}, {"reverse"}, {"8", "256"})):
        t2 = Tmux(f"{a.case}-{term}-{len(env)}", term=term)
        try:
            t2.start([a.top, str(w.pid)], env=env)
            top_ready(t2, w.pid)
            got = colors(t2.screen(escapes=True))
            if not want <= got or got & unwanted:
                raise Fail(f"TERM={term} {env}: attributes {sorted(got)}, want {sorted(want)} "
                           f"and none of {sorted(unwanted)}")
        finally:
            t2.close()
    # The ASCII fallbacks when the locale is not UTF-8.
    t.start([a.top, str(w.pid)], env={"LANG": "C", "LC_ALL": "C"})
    t.wait_text(f"pid {w.pid}", "TOTAL%v", "* running")
    t.keys("3")
    t.wait_text("wait_for_input > deep_sleep")


def case_errors(a, t, w):
    def expect(argv, code, text):
        r = run_plain(argv)
        if r.returncode != code or text not in r.stderr or r.stderr.count("\n") != 1:
            raise Fail(f"{argv[1:]}: status {r.returncode} and {r.stderr!r}, want {code} and {text!r} on one line")

    dead = subprocess.Popen(["true"])
    dead.wait()
    expect([a.top, str(dead.pid)], 3, f"no process {dead.pid}")
    expect([a.top, "no_such_program_xyz"], 3, "no running program named")
    expect([a.top, "--bogus"], 2, "unknown option")
    expect([a.top] + [str(i) for i in range(1, 18)], 2, "at most 16 programs")   # several: tui_procs.py
    expect([a.top, "--refresh", "x"], 2, "--refresh needs a number")
    # Corrupt and truncated segments.
    bad = f"/dev/shm/recorder.tuitest-{os.getpid()}"
    try:
        fd = os.open(bad, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, b"\x5a" * 8192)
        os.close(fd)
        expect([a.top, bad], 5, "not a recorder segment")
        with open(bad, "wb") as f:
            f.write(b"x" * 100)
        expect([a.top, bad], 7, "too short")
    finally:
        os.unlink(bad)
    # A live program, but no terminal.
    expect([a.top, str(w.pid)], 2, "needs a terminal")
    # By process name (exactly one running here; other tests may run their
    # own tui_workload, so only the message is checked when there are several).
    r = run_plain([a.top, "tui_workload"])
    if r.returncode not in (2,) or ("needs a terminal" not in r.stderr and "give a pid" not in r.stderr):
        raise Fail(f"by name: {r.returncode} {r.stderr!r}")


def case_byname(a, t, w):
    """By process name: a name only this test's program has."""
    name = f"tw{os.getpid() % 1000000}"
    w2 = Workload(a.workload, comm=name)
    try:
        t.start([a.top, name])
        top_ready(t, w2.pid, LIST_DEADLINE)   # a name is looked up in the list of segments
        t.wait_text(name)
    finally:
        w2.stop()


def case_postmortem(a, t, w):
    """A program that died before we attached: its kept segment is shown."""
    w2 = Workload(a.workload, env={"RECORDER_KEEP": "1"})
    seg = f"/dev/shm/recorder.{w2.pid}"
    try:
        w2.stop()   # "ready" came once each worker had closed a step
        if not os.path.exists(seg):
            raise Fail(f"RECORDER_KEEP=1 did not keep {seg}")
        t.start([a.top, seg])
        t.wait_text("exited before recorder-top attached", "■ exited")
        t.wait(lambda s: "matmul" in row_names(s), "matmul from the segment's history")
        t.keys("3")
        t.wait(lambda s: "exited" in line_with(s, "main") and "worker-0" in s, "every thread exited")
    finally:
        w2.stop()
        if os.path.exists(seg):
            os.unlink(seg)


def case_stats(a, t, w):
    """--exit-after and --stats: what the benchmark relies on; and a frame
    reaches the terminal in a few writes (--stats counts them)."""
    out = tempfile.NamedTemporaryFile(delete=False)
    out.close()
    t.start(["sh", "-c", f"{shlex.quote(a.top)} --exit-after 2 --stats {w.pid} 2>{shlex.quote(out.name)}"])
    status = t.wait_exit()
    text = open(out.name).read()
    os.unlink(out.name)
    m = re.search(r"decoded=(\d+) lost=(\d+)", text)
    if status != 0 or not m or int(m.group(1)) == 0:
        raise Fail(f"--exit-after 2 --stats: status {status}, stderr {text!r}")
    # A frame reaches the terminal in a few writes, not one per cursor jump
    # (ncurses 6.4 flushes after each until a screen was left and resumed:
    # viewer-tui/main.c, start_curses).  A terminal wakes for each write.
    # Where the kernel keeps no I/O accounting, writes is -1: nothing to check.
    draws = int(re.search(r"draws=(\d+)", text).group(1))
    writes = int(re.search(r"writes=(-?\d+)", text).group(1))
    if writes >= 0 and writes > 3 * draws + 16:
        raise Fail(f"{writes} writes for {draws} frames: a frame should be a few writes, stderr {text!r}")


CASES = {n[5:]: f for n, f in [*globals().items(), *vars(tui_hostile).items(), *vars(tui_wait).items(),
                                *vars(tui_views).items()]
         if n.startswith("case_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--top", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--stress", required=True)
    ap.add_argument("--inference", help="examples/inference, the demo (CASE demo)")
    a = ap.parse_args()
    w = Workload(a.workload)
    t = Tmux(a.case)
    try:
        CASES[a.case](a, t, w)
    except Fail as e:
        print(f"FAIL {a.case}: {e}", file=sys.stderr)
        return 1
    finally:
        t.close()
        w.stop()
    print(f"ok {a.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
