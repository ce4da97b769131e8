"""recorder-top end-to-end tests: the harness (tmux, the programs watched,
reading the screen), shared by tui_test.py and tui_hostile.py.

Every wait polls the screen until the text appears, up to a generous
deadline: nothing here measures time.
"""
import os
import re
import shlex
import signal
import shutil
import subprocess
import tempfile
import time

DEADLINE = 15.0          # seconds to wait for anything to appear
# The picker's first list: rec_seg_list opens every segment in /dev/shm,
# which takes seconds under ASan when other tests left many large ones.
LIST_DEADLINE = 90.0
BLOCKS = "▁▂▃▄▅▆▇█"


class Fail(Exception):
    pass


SGR = re.compile(r"\x1b\[[0-9;:]*m")


def first_underlined(line):
    """Whether the first character of a line captured with escapes
    (capture-pane -e) is underlined: the SGR sequences before it, read in
    order (0 and 24 end underlining, 4 starts it; the numbers after 38, 48
    and 58 are a colour's)."""
    on = False
    i = 0
    while True:
        m = SGR.match(line, i)
        if not m:
            return on
        params = m.group(0)[2:-1].split(";")
        k = 0
        while k < len(params):
            p = params[k].split(":")[0]
            if p in ("38", "48", "58") and ":" not in params[k]:
                k += 3 if k + 1 < len(params) and params[k + 1] == "5" else 5
                continue
            if p in ("", "0", "24"):
                on = False
            elif p == "4":
                on = True
            k += 1
        i = m.end()


class Tmux:
    """One tmux server on a private socket, one session, one pane."""

    def __init__(self, name, term="tmux-256color"):
        # The server's socket in a directory of our own, removed by close:
        # tmux leaves a socket behind when its server is killed.
        self.dir = tempfile.mkdtemp(prefix=f"rtop-{name}-")
        self.sock = os.path.join(self.dir, "sock")
        self.conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
        # No status line: the pane is the whole window.  remain-on-exit
        # keeps a pane whose program ended, for the failure message.
        self.conf.write(f'set -g default-terminal "{term}"\n'
                        "set -g status off\nset -g remain-on-exit on\n"
                        "set -g escape-time 0\nset -g history-limit 50\n")
        self.conf.close()
        self.last = ""

    def tmux(self, *args, check=True):
        r = subprocess.run(["tmux", "-S", self.sock, "-f", self.conf.name, *args],
                           capture_output=True, text=True)
        if check and r.returncode != 0:
            raise Fail(f"tmux {' '.join(args)}: {r.stderr.strip()}")
        return r.stdout

    def start(self, argv, width=120, height=40, env=None):
        env = dict(env or {})
        env.setdefault("LANG", "C.UTF-8")
        env.setdefault("LC_ALL", "C.UTF-8")
        env.setdefault("RECORDER_TOP_FRAME_MARK", "1")   # whole frames only: Tmux.screen
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
        """The pane's text, of a whole frame: recorder-top runs with
        RECORDER_TOP_FRAME_MARK=1, which underlines the first cell of its
        top and bottom lines on odd frames; curses writes lines top to
        bottom, so if the two differ, tmux caught a frame half written
        (the new top rows over the old bottom ones) and we read again."""
        end = time.monotonic() + DEADLINE
        while True:
            out = self.tmux("capture-pane", "-p", "-e", "-t", "t")
            lines = out[:-1].split("\n") if out.endswith("\n") else out.split("\n")   # one per row
            if first_underlined(lines[0]) == first_underlined(lines[-1]) or time.monotonic() > end:
                break
        if not escapes:
            out = "\n".join(l.rstrip(" ") for l in SGR.sub("", out).split("\n"))
            self.last = out
        return out

    def wait(self, pred, what, timeout=DEADLINE, escapes=False, stable=False):
        """The first screen pred accepts.  stable: the same screen twice in
        a row, for a view that stops changing (a capture file's): tmux can
        show a frame half drawn, the new title over a table not yet
        written, since it reads the terminal's output a piece at a time."""
        end = time.monotonic() + timeout
        last = None
        while True:
            s = self.screen(escapes)
            try:
                ok = pred(s)
            except (ValueError, IndexError, AttributeError, StopIteration):
                ok = False
            if ok and (not stable or s == last):
                return s
            last = s if ok else None
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
        shutil.rmtree(self.dir, ignore_errors=True)


class Workload:
    def __init__(self, path, workers=3, comm=None, env=None, args=()):
        argv = [path, "--workers", str(workers)] + (["--comm", comm] if comm else []) + list(args)
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


def top_ready(t, pid, timeout=DEADLINE):
    """Top shows the workload with numbers in the matmul row, in a whole
    frame: capture-pane can catch the terminal mid-redraw, with the rows up
    to matmul new and the key bar at the bottom not yet written."""
    return t.wait(lambda s: f"pid {pid}" in s and re.search(r"matmul\s+([\d.]+[kM]?\s+){1,2}[\d.]+%", s)
                  and "q Quit" in s.rstrip("\n").split("\n")[-1],
                  "the Top view with matmul's figures", timeout)


def tab_bar(screen):
    return screen.split("\n")[1]


def details(screen):
    """The Flame view's line about the selected frame (above the key bar)."""
    return screen.rstrip("\n").split("\n")[-2]


def selected_name(screen):
    return details(screen).split()[0]


def run_plain(argv):
    """recorder-top without a terminal; a name is looked up in the whole
    list of segments, hence the list's deadline."""
    return subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=LIST_DEADLINE)


def si(text):
    """'1.23k' -> 1230.0, as format.c writes counts."""
    m = re.fullmatch(r"([\d.]+)([kMGTP]?)", text)
    return float(m.group(1)) * 10 ** (3 * " kMGTP".index(m.group(2) or " "))


def parse_case(scope, *options):
    """The command line of a file of cases (scope: its globals()): the
    case, one of its case_* functions, and the required --options named.
    Returns (name, function, args) for run_case."""
    import argparse
    cases = {n[5:]: f for n, f in scope.items() if n.startswith("case_")}
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=sorted(cases))
    for o in options:
        ap.add_argument("--" + o, required=True)
    a = ap.parse_args()
    return a.case, cases[a.case], a


def run_case(name, case, a):
    """Runs case(a, t) with a tmux of its own; prints ok or FAIL; returns
    the exit status (tui_file.py, tui_procs.py, tui_names.py, tui_diff.py)."""
    import sys
    t = Tmux(name)
    try:
        case(a, t)
    except Fail as e:
        print(f"FAIL {name}: {e}", file=sys.stderr)
        return 1
    finally:
        t.close()
    print(f"ok {name}")
    return 0
