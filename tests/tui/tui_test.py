#!/usr/bin/env python3
"""recorder-top end-to-end tests, driven through tmux.

    tui_test.py CASE --top PATH --workload PATH

Each case starts tests/tui/tui_workload (a multi-threaded instrumented
program), runs recorder-top in a detached tmux session on a socket of its
own (tmux -L, so cases run in parallel), sends keys and asserts on what
capture-pane shows.  Every wait polls the screen until the text appears,
up to a generous deadline: nothing here measures time.
"""
import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

DEADLINE = 15.0          # seconds to wait for anything to appear
BLOCKS = "▁▂▃▄▅▆▇█"


class Fail(Exception):
    pass


class Tmux:
    """One tmux server on a private socket, one session, one pane."""

    def __init__(self, name, term="tmux-256color"):
        self.sock = f"rtop-{name}-{os.getpid()}"
        self.conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
        # No status line: the pane is the whole window.  remain-on-exit
        # keeps a pane whose program ended, for the failure message.
        self.conf.write(f'set -g default-terminal "{term}"\n'
                        "set -g status off\nset -g remain-on-exit on\n"
                        "set -g escape-time 0\nset -g history-limit 50\n")
        self.conf.close()
        self.last = ""

    def tmux(self, *args, check=True):
        r = subprocess.run(["tmux", "-L", self.sock, "-f", self.conf.name, *args],
                           capture_output=True, text=True)
        if check and r.returncode != 0:
            raise Fail(f"tmux {' '.join(args)}: {r.stderr.strip()}")
        return r.stdout

    def start(self, argv, width=120, height=40, env=None):
        env = dict(env or {})
        env.setdefault("LANG", "C.UTF-8")
        env.setdefault("LC_ALL", "C.UTF-8")
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "MSAN_OPTIONS"):
            if k in os.environ and k not in env:
                env[k] = os.environ[k]
        # The exit status goes to a file: tmux's #{pane_dead_status} is
        # sometimes never filled in.
        self.status_file = self.conf.name + ".status"
        cmd = "env " + " ".join(shlex.quote(f"{k}={v}") for k, v in env.items()) + " " + \
              " ".join(shlex.quote(a) for a in argv) + f"; echo $? > {shlex.quote(self.status_file)}"
        self.tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), cmd)

    def keys(self, *keys):
        """Key names as tmux knows them: 'q', 'Enter', 'BSpace', 'Down'..."""
        self.tmux("send-keys", "-t", "t", *keys)

    def type(self, text):
        self.tmux("send-keys", "-t", "t", "-l", text)

    def screen(self, escapes=False):
        args = ["capture-pane", "-p", "-t", "t"] + (["-e"] if escapes else [])
        out = self.tmux(*args)
        if not escapes:
            self.last = out
        return out

    def wait(self, pred, what, timeout=DEADLINE, escapes=False):
        end = time.monotonic() + timeout
        while True:
            s = self.screen(escapes)
            try:
                ok = pred(s)
            except (ValueError, IndexError, AttributeError, StopIteration):
                ok = False
            if ok:
                return s
            if time.monotonic() > end:
                raise Fail(f"waited {timeout:.0f}s for {what}; the screen shows:\n{self.screen()}")
            time.sleep(0.1)

    def wait_text(self, *texts, timeout=DEADLINE):
        return self.wait(lambda s: all(t in s for t in texts), " and ".join(repr(t) for t in texts), timeout)

    def wait_gone(self, *texts, timeout=DEADLINE):
        return self.wait(lambda s: not any(t in s for t in texts),
                         "no " + " or ".join(repr(t) for t in texts), timeout)

    def resize(self, w, h):
        self.tmux("resize-window", "-t", "t", "-x", str(w), "-y", str(h))

    def wait_exit(self):
        """recorder-top's exit status, once it has exited."""
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            try:
                with open(self.status_file) as f:
                    text = f.read()
                if text.endswith("\n"):
                    return int(text)
            except FileNotFoundError:
                pass
            time.sleep(0.1)
        raise Fail(f"recorder-top did not exit; the screen shows:\n{self.screen()}")

    def close(self):
        self.tmux("kill-server", check=False)
        for p in (self.conf.name, self.conf.name + ".status"):
            if os.path.exists(p):
                os.unlink(p)


class Workload:
    def __init__(self, path, workers=3, comm=None, env=None):
        argv = [path, "--workers", str(workers)] + (["--comm", comm] if comm else [])
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
        line = self.p.stdout.readline()
        m = re.match(r"ready (\d+)", line)
        if not m:
            raise Fail(f"tui_workload did not start: {line!r}")
        self.pid = int(m.group(1))
        seg = f"/dev/shm/recorder.{self.pid}"
        end = time.monotonic() + DEADLINE
        while not os.path.exists(seg):
            if time.monotonic() > end:
                raise Fail(f"{seg} did not appear")
            time.sleep(0.05)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(DEADLINE)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        return self.p.returncode


class Stress(Workload):
    """tests/tui/tui_stress in one of its modes (busy, truncate, wrap N)."""

    def __init__(self, path, mode, env=None):
        self.p = subprocess.Popen([path, *mode], stdout=subprocess.PIPE, text=True,
                                  env={**os.environ, **(env or {})})
        line = self.p.stdout.readline()
        m = re.match(r"ready (\d+) (\S+)", line)
        if not m:
            raise Fail(f"tui_stress did not start: {line!r}")
        self.pid, self.seg = int(m.group(1)), m.group(2)

    def line(self):
        return self.p.stdout.readline()

    def stop(self):
        rc = super().stop()
        # A truncated segment is left behind by design (tui_stress removes
        # its own, but not if it died): it is ours, remove it.
        if os.path.exists(self.seg) and os.stat(self.seg).st_size <= 4096:
            os.unlink(self.seg)
        return rc


def line_with(screen, text):
    for l in screen.split("\n"):
        if text in l:
            return l
    raise ValueError(text)


def table_rows(screen):
    """The Top view's rows: the lines between the column titles and the summary."""
    lines = screen.split("\n")
    h = next(i for i, l in enumerate(lines) if "CALLS/S" in l)
    rows = []
    for l in lines[h + 1:]:
        if re.match(r"^ \d+( of \d+)? scopes", l) or not l.strip():
            break
        rows.append(l)
    return rows


def row_names(screen):
    return [r.split()[0] for r in table_rows(screen)]


def top_ready(t, pid):
    """Top shows the workload with numbers in the matmul row, in a whole
    frame: capture-pane can catch the terminal mid-redraw, with the rows up
    to matmul new and the key bar at the bottom not yet written."""
    return t.wait(lambda s: f"pid {pid}" in s and re.search(r"matmul\s+[\d.]+k?\s+[\d.]+%", s)
                  and "q Quit" in s.rstrip("\n").split("\n")[-1],
                  "the Top view with matmul's figures")


def tab_bar(screen):
    return screen.split("\n")[1]


# ---- cases ----------------------------------------------------------------

def case_top(a, t, w):
    t.start([a.top, str(w.pid)])
    s = top_ready(t, w.pid)
    for text in ("recorder-top", "running", "ev/s", "lost 0", "ring", "1 Top", "2 Flame", "3 Threads",
                 "window 1s", "all threads", "sort TOTAL%", "NAME", "CALLS/S", "TOTAL%▼", "SELF%",
                 "AVG", "P50", "P99", "MAX", "q Quit", "? Help"):
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
    for _ in range(5):
        t.keys("s")
    # The header can be on screen before the rows below it are redrawn:
    # wait for the whole frame to say it (a sort that is wrong never does).
    def by_name(s, reverse):
        names = row_names(s)
        return len(names) >= 6 and names == sorted(names, key=lambda n: n.encode(), reverse=reverse)
    t.wait(lambda s: "NAME▼" in s and "sort NAME" in s and by_name(s, False), "six rows sorted by name, A to Z")
    t.keys("S")
    t.wait(lambda s: "NAME▲" in s and by_name(s, True), "the rows sorted by name, Z to A")
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
    # w: 1 s -> 10 s -> whole run -> 1 s.
    for name in ("window 10s", "window whole run", "window 1s"):
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


def details(screen):
    """The Flame view's line about the selected frame (above the key bar)."""
    return screen.rstrip("\n").split("\n")[-2]


def selected_name(screen):
    return details(screen).split()[0]


def case_flame(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    t.keys("2")
    s = t.wait(lambda s: "▏step" in s and "▏matmul" in s and "▏softmax" in s, "step, matmul and softmax frames")
    if "call paths over 1s" not in s or "all threads" not in s:
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
    t.wait_text("1 Top", "sleeper (", "No scope completed in the last second")


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
    s = t.wait(lambda s: re.search(rf"\b{w.pid}\s+tui_workload\s+5\s+running", s),
               f"pid {w.pid}, tui_workload, 5 threads, running")
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


def run_plain(argv):
    return subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=DEADLINE)


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
    expect([a.top, "1", "2"], 2, "one program at a time")
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
        top_ready(t, w2.pid)
        t.wait_text(name)
    finally:
        w2.stop()


def case_postmortem(a, t, w):
    """A program that died before we attached: its kept segment is shown."""
    w2 = Workload(a.workload, env={"RECORDER_KEEP": "1"})
    seg = f"/dev/shm/recorder.{w2.pid}"
    try:
        time.sleep(0.5)   # let it run: its workers complete a scope every ~1 ms
        w2.stop()
        if not os.path.exists(seg):
            raise Fail(f"RECORDER_KEEP=1 did not keep {seg}")
        t.start([a.top, seg])
        s = t.wait_text("exited before recorder-top attached", "■ exited")
        t.wait(lambda s: "matmul" in row_names(s), "matmul from the segment's history")
        t.keys("3")
        t.wait(lambda s: "exited" in line_with(s, "main") and "worker-0" in s, "every thread exited")
    finally:
        w2.stop()
        if os.path.exists(seg):
            os.unlink(seg)


def si(text):
    """'1.23k' -> 1230.0, as format.c writes counts."""
    m = re.fullmatch(r"([\d.]+)([kMGTP]?)", text)
    return float(m.group(1)) * 10 ** (3 * " kMGTP".index(m.group(2) or " "))


def case_partial(a, t, w):
    """A writer no reader keeps up with: every figure is marked partial,
    and the share of its always-busy scope is taken over the time the
    decoded data covers (~100%), not over the window (the share decoded)."""
    st = Stress(a.stress, ["busy"], env={"RECORDER_RING_KB": "64"})
    try:
        t.start([a.top, str(st.pid)], width=80, height=24)
        hot = re.compile(r"^~ hot\s+[\d.]+[kM]?\s+([\d.]+)%")

        def busy_share(s):
            title = s.split("\n")[0]
            for m in map(hot.match, s.split("\n")):
                if m:
                    return re.search(r"partial: (<1|\d+)% decoded", title) and float(m.group(1)) > 80
            return False

        # The share moves with what each refresh decoded: wait for it to
        # read as it should (without the correction it never exceeds the
        # few % decoded).
        s = t.wait(busy_share, "'partial: N% decoded' and hot's TOTAL% over 80%")
        print("partial header at 80x24:\n" + "\n".join(s.split("\n")[:4]), file=sys.stderr)
        if not re.search(r"^~ partial \(entries lost\)", s.split("\n")[-3]):
            raise Fail("the summary line does not explain the mark:\n" + s)
        if not re.search(r"lost [\d.]+[kMG]", s.split("\n")[0]):
            raise Fail("the title does not count the loss:\n" + s)
        # Threads: the thread is marked, its losses are by cause.
        t.keys("3")
        t.wait(lambda s: re.search(r"^~ stress\s", s, re.M) and
               re.search(r"stress: lost [\d.]+[kMG] \(overwritten [\d.]+[kMG], dropped 0, bad 0\)", s),
               "the thread marked ~, and its losses by cause")
        # Flame: the selected frame's shares are marked.
        t.keys("2")
        t.wait(lambda s: "~ partial (entries lost)" in s and re.search(r"total \S+ \(~[\d.]+%\)", details(s)),
               "the flame view marked partial")
        # The help says what the mark means.
        t.keys("?")
        t.wait_text("recorder-top help")
        t.keys("PageDown", "PageDown")
        t.wait_text("~ partial", "entries were lost in the window", "not kept", "flight recorder")
    finally:
        st.stop()


def case_truncate(a, t, w):
    """The program shrinks its segment while it is watched: recorder-top
    stays up, says so, and keeps what it showed."""
    st = Stress(a.stress, ["truncate"])
    try:
        t.start([a.top, str(st.pid)])
        t.wait(lambda s: "before_truncation" in row_names(s) and "running" in s.split("\n")[0],
               "the scope written before the truncation")
        st.p.send_signal(signal.SIGUSR1)
        if st.line().strip() != "truncated":
            raise Fail("tui_stress did not truncate its segment")
        s = t.wait_text("segment truncated", "nothing more can be read")
        if "running" in s.split("\n")[0]:
            raise Fail("the title still says running:\n" + s)
        if "before_truncation" not in row_names(s):
            raise Fail("the data shown before the truncation is gone:\n" + s)
        # Still answering keys, every view.
        t.keys("3")
        t.wait(lambda s: "stress" in s and "INSIDE NOW" in s, "the threads view after the truncation")
        t.keys("2")
        t.wait(lambda s: "▏before_truncation" in s, "the flame view after the truncation")
        t.keys("1")
        t.wait(lambda s: "before_truncation" in row_names(s), "the top view, as it was")
        t.keys("q")
        status = t.wait_exit()
        if status != 0:
            raise Fail(f"q after the truncation: status {status}")
    finally:
        st.stop()


def case_picker_hostile(a, t, w):
    """A FIFO named like a segment, a segment still starting and (as root)
    another user's segment: the picker lists each for what it is, and
    nothing hangs."""
    me = os.getpid()
    fifo = f"/dev/shm/recorder.tuififo{me}"
    starting = f"/dev/shm/recorder.tuistart{me}"
    by_pid = f"/dev/shm/recorder.{me}"   # this script's pid: no writer has it
    other = f"/dev/shm/recorder.tuiuid{me}"
    made = []
    small = None

    def zeroes(path):
        """A file whose header is not written yet (a writer creating it)."""
        with open(path, "wb") as f:
            f.write(b"\0" * 8192)
        made.append(path)

    try:
        os.mkfifo(fifo, 0o600)
        made.append(fifo)
        if os.geteuid() == 0:
            # A copy of a small live segment, given to another user.
            small = Stress(a.stress, ["wrap", "10"], env={"RECORDER_RING_KB": "4", "RECORDER_MAX_THREADS": "2",
                                                         "RECORDER_STRINGS_KB": "16"})
            if small.line().strip() != "wrapped":
                raise Fail("tui_stress wrap 10 did not start")
            with open(small.seg, "rb") as src, open(other, "wb") as dst:
                dst.write(src.read())
            made.append(other)
            os.chown(other, 65534, 65534)
        # On the command line: one line, the right status, no hang.
        r = run_plain([a.top, fifo])
        if r.returncode != 5 or "FIFO" not in r.stderr or r.stderr.count("\n") != 1:
            raise Fail(f"recorder-top FIFO: status {r.returncode}, {r.stderr!r}")
        zeroes(by_pid)   # young: a pid's segment is waited for while it is
        r = run_plain([a.top, str(me)])
        if r.returncode != 11 or "still starting" not in r.stderr or r.stderr.count("\n") != 1:
            raise Fail(f"recorder-top PID of a starting segment: status {r.returncode}, {r.stderr!r}")
        # The picker.  The file still being created first: after 10 s
        # without a header it is called incomplete.
        zeroes(starting)
        t.start([a.top])
        t.wait_text("pick a program to watch")
        t.keys("/")
        t.type(f"tuistart{me}")
        t.wait(lambda s: re.search(r"\(header not written yet\)\s+-\s+starting\s", s), "the starting segment")
        t.keys("Enter", "BSpace", "/")
        t.type(f"tuififo{me}")
        s = t.wait(lambda s: re.search(r"^\s+-\s+\(a FIFO\)\s+-\s+skipped\s", s, re.M) and
                   len([l for l in s.split("\n")[2:] if re.match(r"^\s+(-|\d+)\s", l)]) == 1, "the FIFO, skipped")
        t.keys("Enter")   # closes the prompt
        t.keys("Enter")   # on the row: why not
        t.wait(lambda s: f"Cannot watch recorder.tuififo{me}: skipped, a FIFO" in s.split("\n")[-2],
               "why the FIFO cannot be watched")
        if os.geteuid() == 0:
            t.keys("BSpace", "/")
            t.type(f"tuiuid{me}")
            t.wait(lambda s: re.search(rf"\b{small.pid}\s+tui_stress \(owned by uid 65534\)\s+\d+\s+running", s),
                   "another user's segment, labelled with its owner")
            t.keys("Enter")
        t.keys("q")
        status = t.wait_exit()
        if status != 0:
            raise Fail(f"q in the picker: status {status}")
    finally:
        if small:
            small.stop()
        for path in made:
            if os.path.exists(path):
                os.unlink(path)


def case_notkept(a, t, w):
    """A ring that wrapped before the attach: its oldest entries were not
    kept, which is no loss of recorder-top's."""
    st = Stress(a.stress, ["wrap", "200000"])   # 400000 entries, a 65536-entry ring
    try:
        if st.line().strip() != "wrapped":
            raise Fail("tui_stress did not wrap its ring")
        t.start([a.top, str(st.pid)])
        s = t.wait(lambda s: re.search(r"│ lost 0 │.*│ not kept [\d.]+k", s.split("\n")[0]),
                   "lost 0 and not kept > 0 in the title")
        if "partial" in s.split("\n")[0]:
            raise Fail("history not kept made the window partial:\n" + s)
        t.keys("3")
        s = t.wait(lambda s: "NOT KEPT" in s and
                   re.search(r"stress: lost 0 \(overwritten 0, dropped 0, bad 0\), not kept [\d.]+k", s),
                   "the thread's history not kept, and no loss")
        head = line_with(s, "NOT KEPT")
        row = line_with(s, " stress ")
        lost = row[head.index("LOST") - 3:head.index("LOST") + 4].split()
        kept = row[head.index("NOT KEPT"):head.index("NOT KEPT") + 8].split()
        if lost != ["0"] or si(kept[0]) < 100000:
            raise Fail(f"LOST {lost}, NOT KEPT {kept}: want 0 and over 100k (400000 written, a 65536 ring)\n{s}")
    finally:
        st.stop()


def case_stats(a, t, w):
    """--exit-after and --stats: what the benchmark relies on."""
    out = tempfile.NamedTemporaryFile(delete=False)
    out.close()
    t.start(["sh", "-c", f"{shlex.quote(a.top)} --exit-after 2 --stats {w.pid} 2>{shlex.quote(out.name)}"])
    status = t.wait_exit()
    text = open(out.name).read()
    os.unlink(out.name)
    m = re.search(r"decoded=(\d+) lost=(\d+)", text)
    if status != 0 or not m or int(m.group(1)) == 0:
        raise Fail(f"--exit-after 2 --stats: status {status}, stderr {text!r}")


CASES = {n[5:]: f for n, f in globals().items() if n.startswith("case_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--top", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--stress", required=True)
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
